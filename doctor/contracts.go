// This file defines the checks of the config, the project-local schemas and
// the contracts lock.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/contracts"
)

func (r *run) checkConfig(context.Context) error {
	_, err := fs.Stat(r.p.FS, config.Path)
	cfg := config.Default()
	// A config that is there but cannot be stat'ed (a link out of the
	// project, a loop) is loaded all the same: Load words why it is not
	// read, as a finding, instead of ending doctor.
	if !errors.Is(err, fs.ErrNotExist) {
		r.checked(CheckConfig, 1)
		r.rep.Files++
		cfg, err = config.LoadChecked(r.p.FS)
		var cerr *config.Error
		switch {
		case errors.As(err, &cerr):
			msg := cerr.Msg
			if cerr.Key != "" {
				msg = cerr.Key + ": " + msg
			}
			r.add(CheckConfig, Finding{File: config.Path, Line: cerr.Line, Message: msg})
			r.skip(CheckConfigMCP, "the config is invalid")
			return nil
		case err != nil:
			return err
		}
	} else {
		// Init writes config.yaml; a project without one was not made by
		// it and says nothing about MCP.
		return nil
	}
	r.checked(CheckConfigMCP, 1)
	if !cfg.MCP.Declared {
		r.add(CheckConfigMCP, Finding{File: config.Path,
			Message: "no mcp block: foundry mcp serve refuses to start, so agents get no Foundry tools; run foundry init to add the commented opt-in, or write mcp: {enabled: false} to say so",
			Fix:     "foundry init"})
	}
	return nil
}

// checkLocalContracts checks each file of .foundry/schemas/ on its own, so
// one bad file is reported without hiding the others, then loads the
// registry from the good ones and compiles every local contract.
func (r *run) checkLocalContracts(context.Context) error {
	names, err := fs.Glob(r.p.FS, contracts.LocalDir+"/*.json")
	if err != nil {
		return err
	}
	bad := map[string]bool{}
	for _, p := range names {
		name := path.Base(p)
		if !contracts.IsLocalFile(name) {
			continue // not a contract file; contracts ignores it too
		}
		r.checked(CheckContractsLocal, 1)
		r.rep.Files++
		if _, ok := contracts.ParseFileName(name); !ok {
			r.add(CheckContractsLocal, Finding{File: p, Message: "file name must be <noun>.v<major>.schema.json (or .defs.json for a shared piece), lowercase"})
			bad[p] = true
			continue
		}
		data, err := fs.ReadFile(r.p.FS, p)
		if msg, unread := unreadable(err); unread {
			r.add(CheckContractsLocal, Finding{File: p, Message: msg})
			bad[p] = true
			continue
		}
		if err != nil {
			return err
		}
		one := fstest.MapFS{p: &fstest.MapFile{Data: data}}
		reg, err := contracts.Load(one)
		if err == nil {
			if broken := reg.Broken(); len(broken) > 0 {
				err = broken[0].Err
			}
		}
		var perr *contracts.ParseError
		switch {
		case err == nil:
		case errors.Is(err, contracts.ErrContractRedefined):
			id := strings.TrimSuffix(strings.TrimSuffix(name, ".schema.json"), ".defs.json")
			r.checked(CheckContractsRedefine, 1)
			r.add(CheckContractsRedefine, Finding{File: p, Message: fmt.Sprintf(
				"redefines the embedded %s with different content; a published version is never edited: add %s beside it instead", id, nextVersion(name))})
			bad[p] = true
		case errors.As(err, &perr):
			r.add(CheckContractsLocal, Finding{File: p, Line: perr.Line, Column: perr.Column, Message: "not parseable JSON: " + perr.Err.Error()})
			bad[p] = true
		default:
			r.add(CheckContractsLocal, Finding{File: p, Message: strings.TrimPrefix(strings.TrimPrefix(err.Error(), "load contracts: "), p+": ")})
			bad[p] = true
		}
	}
	reg, err := contracts.Load(hideFiles{r.all, bad})
	if err == nil {
		for _, b := range reg.Broken() {
			// Every file loads on its own, so only a combination fails.
			r.add(CheckContractsLocal, Finding{File: b.Path, Message: strings.TrimPrefix(b.Err.Error(), b.Path+": ")})
		}
	} else {
		// The folder could not be read; carry on with the embedded
		// contracts.
		r.add(CheckContractsLocal, Finding{File: contracts.LocalDir, Message: err.Error()})
		if reg, err = contracts.Load(nil); err != nil {
			return err
		}
	}
	r.reg = reg
	for _, id := range reg.IDs() {
		if reg.Embedded(id) {
			continue
		}
		if _, err := reg.Validate(id, []byte("null")); errors.Is(err, contracts.ErrInvalidSchema) {
			r.add(CheckContractsLocal, Finding{File: contracts.LocalDir + "/" + id + ".schema.json", Message: "does not compile: " + compileText(err)})
		}
	}
	return nil
}

// compileText strips the wrapping "compile contract <id>: invalid schema: ".
func compileText(err error) string {
	s := err.Error()
	if i := strings.Index(s, contracts.ErrInvalidSchema.Error()+": "); i >= 0 {
		return s[i+len(contracts.ErrInvalidSchema.Error())+2:]
	}
	return s
}

// nextVersion turns "finding.v1.schema.json" into "finding.v2".
func nextVersion(name string) string {
	f, ok := contracts.ParseFileName(name)
	if !ok {
		return "a new version"
	}
	return fmt.Sprintf("%s.v%d", f.Noun, f.Major+1)
}

// hideFiles is an fs.FS without some files, so the registry loads around
// the files already reported.
type hideFiles struct {
	fs.FS
	hidden map[string]bool
}

func (h hideFiles) Open(name string) (fs.File, error) {
	if h.hidden[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return h.FS.Open(name)
}

func (h hideFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(h.FS, name)
	out := make([]fs.DirEntry, 0, len(es))
	for _, e := range es {
		if !h.hidden[path.Join(name, e.Name())] {
			out = append(out, e)
		}
	}
	return out, err
}

// checkLock compares the contracts lock with the contracts this binary
// embeds: the lock records the content the project's artifacts were
// accepted under, and an embedded contract's history is not in the
// project's repository.
func (r *run) checkLock(context.Context) error {
	locks, err := blackboard.ReadLocks(r.p.FS)
	if err != nil {
		return err
	}
	users := map[string][]string{}
	for _, a := range r.artifacts {
		if a.contract != "" {
			users[a.contract] = append(users[a.contract], a.path)
		}
	}
	for _, l := range locks {
		r.checked(CheckContractsLock, 1)
		r.rep.Files++
		switch {
		case l.Problem != "":
			r.add(CheckContractsLock, Finding{File: l.Path, Message: l.Problem})
		case !r.reg.Has(l.ID):
			r.add(CheckContractsLock, Finding{File: l.Path, Message: fmt.Sprintf(
				"%s is locked but this binary and the project define no such contract%s", l.ID, atRisk(users[l.ID]))})
		case r.reg.Embedded(l.ID):
			ok, err := r.reg.AcceptsLock(l.ID, l.Digest)
			if err != nil {
				return err
			}
			if !ok {
				d, err := r.reg.Digest(l.ID)
				if err != nil {
					return err
				}
				r.add(CheckContractsLock, Finding{File: l.Path, Message: fmt.Sprintf(
					"this binary ships different content for %s (%s) than the project's artifacts were accepted under (%s)%s",
					l.ID, shortDigest(d), shortDigest(l.Digest), atRisk(users[l.ID]))})
			}
		}
	}
	return nil
}

// atRisk names the artifacts that use a contract, at most five.
func atRisk(paths []string) string {
	if len(paths) == 0 {
		return "; no artifact uses it"
	}
	sort.Strings(paths)
	s := fmt.Sprintf("; %d %s at risk: %s", len(paths), plural(len(paths), "artifact", "artifacts"), strings.Join(paths[:min(5, len(paths))], ", "))
	if len(paths) > 5 {
		s += fmt.Sprintf(" and %d more", len(paths)-5)
	}
	return s
}

func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
