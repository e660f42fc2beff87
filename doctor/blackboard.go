// This file defines the blackboard sweep: every artifact parsed and
// validated against the contract its "schema" field names.

package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git"
	"github.com/foundryhq/foundry/internal/conflict"
)

func (r *run) checkBlackboard(ctx context.Context) error {
	paths, err := artifacts.List(r.p.FS)
	if err != nil {
		return err
	}
	inputs := make([]artifacts.Input, len(paths))
	for i, p := range paths {
		inputs[i] = artifacts.Input{Path: p, FS: r.p.FS, Name: p}
	}
	text := make([][]Finding, len(paths)) // of the files with conflict markers
	secrets := make([][]blackboard.Secret, len(paths))
	// The object id of each document, for the history pass: it reads an
	// artifact it can explain again instead of the sweep holding every
	// failing one (up to 8 MiB each) at once.
	blobs := make([]string, len(paths))
	results, err := artifacts.Check(ctx, r.reg, inputs, artifacts.Options{
		Progress: func(n, total int) {
			if n%64 == 0 || n == total {
				r.progress("blackboard", n, total)
			}
		},
		// The conflict and secret checks share the sweep's read.
		Each: func(i int, doc []byte) {
			if conflict.Has(doc) {
				text[i] = textFindings(paths[i], doc)
			}
			secrets[i] = storedSecrets(doc)
			blobs[i] = git.BlobID(doc)
		},
	})
	if err != nil {
		return err
	}

	r.checked(CheckBlackboardParse, len(paths))
	r.rep.Files += len(paths)
	for i, p := range paths {
		res := results[i]
		if res.Read {
			// Artifacts are checked for conflict markers, not for control
			// characters: JSON holds none raw but in strings, which every
			// command prints escaped, and an artifact's other gates (the
			// contract, validate, the Claude hook) do not look at them.
			r.addMarkers(text[i])
			r.checked(CheckSecrets, 1)
			for _, sec := range secrets[i] {
				r.add(CheckSecrets, Finding{File: p, Message: sec.String() + secretAdvice})
			}
		}
		a := artifact{path: p}
		var (
			perr *contracts.ParseError
			serr *contracts.SchemaFieldError
		)
		switch {
		case !res.Read:
			// One unreadable entry (a dangling link, a link to a folder or
			// out of the project, a file over the limit) is a finding, not
			// the end of the sweep.
			msg, ok := unreadable(res.Err)
			if !ok {
				msg = "cannot be read: " + res.Err.Error()
			}
			r.add(CheckBlackboardParse, Finding{File: p, Message: msg})
		case errors.As(res.Err, &perr):
			msg := "not parseable JSON: " + perr.Err.Error()
			if errors.Is(perr.Err, contracts.ErrHostileNumber) {
				msg = perr.Err.Error()
			}
			r.add(CheckBlackboardParse, Finding{File: p, Line: perr.Line, Column: perr.Column, Message: msg})
		case errors.As(res.Err, &serr) && !serr.Missing():
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: serr.Problem})
		case errors.Is(res.Err, contracts.ErrNoSchemaField):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: `#: no "schema" field naming the artifact's contract`})
		case errors.Is(res.Err, contracts.ErrUnknownContract):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: fmt.Sprintf("#/schema: unknown contract %q (available: %s)", res.Contract, strings.Join(r.reg.IDs(), ", "))})
		case errors.Is(res.Err, contracts.ErrInvalidSchema):
			r.checked(CheckBlackboardSchema, 1)
			r.add(CheckBlackboardSchema, Finding{File: p, Message: fmt.Sprintf("#/schema: contract %s does not compile (see %s)", res.Contract, CheckContractsLocal)})
		case errors.Is(res.Err, contracts.ErrValidatorPanic):
			r.checked(CheckBlackboardValid, 1)
			r.add(CheckBlackboardValid, Finding{File: p, Message: "not validated: " + res.Err.Error()})
		case res.Err != nil:
			r.add(CheckBlackboardParse, Finding{File: p, Message: "not validated: " + res.Err.Error()})
		default:
			r.checked(CheckBlackboardSchema, 1)
			r.checked(CheckBlackboardValid, 1)
			a.contract = res.Contract
			if len(res.Violations) > 0 {
				a.blob = blobs[i]
			}
			for _, v := range res.Violations {
				a.findings = append(a.findings, r.add(CheckBlackboardValid, Finding{File: p, Line: v.Line, Column: v.Column, Pointer: v.Pointer, Message: v.String()}))
			}
		}
		r.artifacts = append(r.artifacts, a)
	}
	return nil
}
