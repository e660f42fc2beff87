// This file defines the blackboard sweep: every artifact parsed and
// validated against the contract its "schema" field names.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/atomicfile"
	"github.com/foundryhq/foundry/internal/conflict"
)

// sweepResult is what validating one artifact gave.
type sweepResult struct {
	data       []byte
	contract   string
	violations []contracts.Violation
	err        error // parse, schema-field or contract error
	readErr    error
	secrets    []blackboard.Secret
}

// listArtifacts returns the paths of every .json file under the
// blackboard, in walk order, leaving out temporary files of interrupted
// writes.
func listArtifacts(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, blackboard.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == blackboard.Dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") || strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	return paths, err
}

func (r *run) checkBlackboard(ctx context.Context) error {
	paths, err := listArtifacts(r.p.FS)
	if err != nil {
		return fmt.Errorf("list blackboard artifacts: %w", err)
	}
	results := make([]sweepResult, len(paths))
	// Parsing and validation dominate; reads from git objects serialise
	// inside the git view, validation runs on every core.
	workers := min(runtime.GOMAXPROCS(0), len(paths))
	var (
		wg   sync.WaitGroup
		next = make(chan int)
		done = make(chan struct{}, len(paths))
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = r.validateArtifact(paths[i])
				done <- struct{}{}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range paths {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for n := 1; n <= len(paths); n++ {
		select {
		case <-done:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		if n%64 == 0 || n == len(paths) {
			r.progress("blackboard", n, len(paths))
		}
	}
	wg.Wait()

	r.checked(CheckBlackboardParse, len(paths))
	r.rep.Files += len(paths)
	for i, p := range paths {
		res := results[i]
		if res.readErr == nil {
			r.conflictsIn(p, res.data)
			r.checked(CheckSecrets, 1)
			for _, sec := range res.secrets {
				r.add(CheckSecrets, Finding{File: p, Message: sec.String() + secretAdvice})
			}
		}
		a := artifact{path: p}
		var perr *contracts.ParseError
		msg, unread := unreadable(res.readErr)
		switch {
		case unread:
			// One unreadable entry (a dangling link, a link to a folder or
			// out of the project, a file over the limit) is a finding, not
			// the end of the sweep.
			r.add(CheckBlackboardParse, Finding{File: p, Message: msg})
		case res.readErr != nil:
			return res.readErr
		case errors.As(res.err, &perr):
			msg := "not parseable JSON: " + perr.Err.Error()
			if errors.Is(perr.Err, contracts.ErrHostileNumber) {
				msg = perr.Err.Error()
			}
			r.add(CheckBlackboardParse, Finding{File: p, Line: perr.Line, Column: perr.Column, Message: msg})
		case errors.Is(res.err, contracts.ErrNoSchemaField):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: `#: no "schema" field naming the artifact's contract`})
		case errors.Is(res.err, contracts.ErrUnknownContract):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: fmt.Sprintf("#/schema: unknown contract %q (available: %s)", res.contract, strings.Join(r.reg.IDs(), ", "))})
		case errors.Is(res.err, contracts.ErrInvalidSchema):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: fmt.Sprintf("#/schema: contract %s does not compile (see %s)", res.contract, CheckContractsLocal)})
		case errors.Is(res.err, contracts.ErrValidatorPanic):
			r.checked(CheckBlackboardValid, 1)
			r.add(CheckBlackboardValid, Finding{File: p, Message: "not validated: " + res.err.Error()})
		case res.err != nil:
			return res.err
		default:
			r.checked(CheckBlackboardSchema, 1)
			r.checked(CheckBlackboardValid, 1)
			a.contract = res.contract
			if len(res.violations) > 0 {
				a.data = res.data // kept for the history pass
			}
			for _, v := range res.violations {
				a.findings = append(a.findings, r.add(CheckBlackboardValid, Finding{File: p, Line: v.Line, Column: v.Column, Message: v.String()}))
			}
		}
		r.artifacts = append(r.artifacts, a)
	}
	return nil
}

func (r *run) validateArtifact(p string) (res sweepResult) {
	// A worker's panic would end the process: it becomes this file's
	// finding instead.
	defer func() {
		if v := recover(); v != nil {
			res = sweepResult{err: fmt.Errorf("%w: %v", contracts.ErrValidatorPanic, v)}
		}
	}()
	data, err := fs.ReadFile(r.p.FS, p)
	if err != nil {
		return sweepResult{readErr: fmt.Errorf("read %s: %w", p, err)}
	}
	id, vs, err := r.reg.ValidateAuto(data)
	res = sweepResult{contract: id, violations: vs, err: err, secrets: storedSecrets(data)}
	if len(vs) > 0 || conflict.Has(data) {
		res.data = data // kept for the history pass and the conflict check
	}
	return res
}
