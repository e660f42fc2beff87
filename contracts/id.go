package contracts

import (
	"strconv"

	"github.com/foundryhq/foundry/internal/lazyre"
)

// nounPattern is the noun of a contract id, and idPattern the id itself:
// <noun>.v<major>, lowercase, e.g. "finding.v1". The schemas in schemas/
// that reference contract ids (plan.v1, handoff.v1) spell the same pattern
// in JSON; TestIDPatternInSchemas keeps them equal.
const (
	nounPattern = `[a-z0-9][a-z0-9-]*`
	idPattern   = nounPattern + `\.v[0-9]+`
)

var (
	idRE       = lazyre.New(`^` + idPattern + `$`)
	fileNameRE = lazyre.New(`^(` + nounPattern + `)\.v([0-9]+)\.(schema|defs)\.json$`)
)

// ValidID reports whether id has the form of a contract id: <noun>.v<major>,
// lowercase, e.g. "finding.v1".
func ValidID(id string) bool { return idRE().MatchString(id) }

// FileName is a contract file name taken apart: "finding.v1.schema.json"
// is {Noun: "finding", Major: 1, Kind: "schema"}; a shared piece,
// "evidence.v1.defs.json", has Kind "defs".
type FileName struct {
	Noun  string
	Major int
	Kind  string // "schema" or "defs"
}

// ParseFileName takes apart a contract file name, <noun>.v<major>.schema.json
// or <noun>.v<major>.defs.json; ok is false for any other name.
func ParseFileName(name string) (f FileName, ok bool) {
	m := fileNameRE().FindStringSubmatch(name)
	if m == nil {
		return FileName{}, false
	}
	major, err := strconv.Atoi(m[2])
	if err != nil {
		return FileName{}, false // more digits than an int holds
	}
	return FileName{Noun: m[1], Major: major, Kind: m[3]}, true
}
