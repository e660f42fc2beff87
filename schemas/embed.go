// Package schemas holds Foundry's published contracts: JSON Schema 2020-12
// documents named <noun>.v<major>.schema.json, plus the shared pieces they
// reach by $ref (<noun>.v<major>.defs.json), all embedded in the binary.
//
// A published file is never edited in a way that could invalidate an
// artifact it accepted; a breaking change is a new major version beside it.
// Package contracts compiles and applies these files; this package only
// carries them.
package schemas

import "embed"

// FS holds every contract (*.schema.json) and shared piece (*.defs.json) at
// its root, by file name.
//
//go:embed *.schema.json *.defs.json
var FS embed.FS
