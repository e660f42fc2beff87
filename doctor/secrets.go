// This file defines the check for secrets already stored under .foundry/.

package doctor

import (
	"context"
	"fmt"
	"io/fs"
	"path"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/facts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/secrets"
	"github.com/foundryhq/foundry/runbooks"
)

// secretAdvice ends every finding of [CheckSecrets].
const secretAdvice = "; remove it and rotate the credential: git history keeps it"

// maxSecretScanBytes bounds a file the check reads; a larger one is
// skipped (the other checks already report it). No file Foundry accepts is
// larger than an artifact.
const maxSecretScanBytes = confined.ArtifactMax

// storedSecrets returns the provider-format secrets of a JSON artifact by
// pointer. A cheap scan of the raw text comes first: most artifacts hold
// none and are not decoded again.
func storedSecrets(data []byte) []blackboard.Secret {
	provider := false
	for _, f := range secrets.Find(string(data)) {
		provider = provider || f.Kind.Provider()
	}
	if !provider {
		return nil
	}
	// The validation core's decoder reads the artifact as every check
	// does (a byte order mark, say, is no reason to fall back to lines).
	v, err := contracts.Decode(data)
	if err != nil {
		// Not JSON: say so by line, still never the value.
		var out []blackboard.Secret
		for _, f := range secrets.Find(string(data)) {
			if f.Kind.Provider() {
				out = append(out, blackboard.Secret{Pointer: fmt.Sprintf("line %d", f.Line), Kind: f.Kind})
			}
		}
		return out
	}
	return blackboard.FindSecrets(v)
}

// secretsIn reports the secrets the file name holds: by line, of every
// kind (all) or only provider-format ones; or, in a schema (json), by
// pointer.
func (r *run) secretsIn(name string, data []byte, all, json bool) {
	r.checked(CheckSecrets, 1)
	if json {
		for _, sec := range storedSecrets(data) {
			r.add(CheckSecrets, Finding{File: name, Message: sec.String() + secretAdvice})
		}
		return
	}
	seen := map[string]bool{}
	for _, f := range secrets.Find(string(data)) {
		key := fmt.Sprintf("%d %s", f.Line, f.Kind)
		if (!all && !f.Kind.Provider()) || seen[key] {
			continue
		}
		seen[key] = true
		r.add(CheckSecrets, Finding{File: name, Line: f.Line, Message: "holds a " + string(f.Kind) + secretAdvice})
	}
}

// checkStoredSecrets reads the facts, runbooks and project-local schemas
// and reports every secret they hold by file and line (facts: every kind
// memory_write refuses; runbooks: provider-format secrets; schemas: by
// pointer). The fact files are scanned as the fact checks read them, once;
// the blackboard sweep reports artifacts.
func (r *run) checkStoredSecrets(ctx context.Context) error {
	for _, dir := range []struct {
		glob string
		all  bool // every kind, not only provider-format ones
		json bool
	}{
		{facts.Dir + "/*.md", true, false},
		{runbooks.Dir + "/*.md", false, false},
		{contracts.LocalDir + "/*.json", false, true},
	} {
		names, err := fs.Glob(r.p.FS, dir.glob)
		if err != nil {
			return err
		}
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return err
			}
			if path.Base(name) == "INDEX.md" {
				continue // rebuilt from the facts, which are checked
			}
			if readAsFact(name) {
				continue // scanned as the fact checks read it (see scanFacts)
			}
			fi, err := fs.Stat(r.p.FS, name)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSecretScanBytes {
				continue
			}
			data, err := r.read(name)
			if err != nil {
				continue // the checks of the material report unreadable files
			}
			r.secretsIn(name, data, dir.all, dir.json)
		}
	}
	return nil
}
