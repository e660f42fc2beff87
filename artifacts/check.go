package artifacts

// This file defines Check: many documents validated on a bounded worker
// pool, in input order.

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/foundryhq/foundry/contracts"
)

// Result is the outcome for one input: violations against Contract, or
// Err when the document could not be validated at all (unreadable, not
// parseable JSON as a *contracts.ParseError, no "schema" field, an unknown
// contract, a contract that does not compile).
type Result struct {
	Path       string
	Contract   string
	Violations []contracts.Violation
	// Read says the document was read; Err is then a validation error.
	Read bool
	// Data is the document, kept only when it has violations (the doctor's
	// history pass reads it again).
	Data []byte
	Err  error
}

// OK reports whether the document was validated and satisfies its contract.
func (r Result) OK() bool { return r.Err == nil && len(r.Violations) == 0 }

// Options tune [Check].
type Options struct {
	// Contract validates every document against this contract id; empty
	// takes each document's own top-level "schema" field.
	Contract string
	// Progress, when set, is called after each document with the number
	// done so far and the total, in increasing order.
	Progress func(done, total int)
	// Each, when set, is called on the worker with the index of every input
	// read and its bytes, for the caller's own checks that share the read
	// (the doctor's conflict markers and stored secrets). Calls for
	// different inputs run concurrently.
	Each func(i int, doc []byte)
	// Prepare, when set, turns each document read into the one validated
	// (validate --as-input: what blackboard write would store). Its error
	// is the document's. Violations then carry no line and column: they
	// would point into the prepared document, not the file.
	Prepare func(doc []byte) ([]byte, error)
}

// Check reads and validates the inputs on every CPU and returns one result
// per input, in input order. It returns an error only when ctx ends first.
func Check(ctx context.Context, reg *contracts.Registry, inputs []Input, opts Options) ([]Result, error) {
	results := make([]Result, len(inputs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var (
		mu   sync.Mutex
		done int
	)
	for i, in := range inputs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			results[i] = checkOne(reg, i, in, opts)
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(inputs))
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

func checkOne(reg *contracts.Registry, i int, in Input, opts Options) (res Result) {
	// A worker's panic would end the process: it becomes this document's
	// error instead.
	defer func() {
		if p := recover(); p != nil {
			res = Result{Path: in.Path, Contract: opts.Contract, Err: fmt.Errorf("%w: %v", contracts.ErrValidatorPanic, p)}
		}
	}()
	res = Result{Path: in.Path, Contract: opts.Contract}
	doc, err := ReadFile(in.FS, in.Name)
	if err != nil {
		res.Err = err
		return res
	}
	res.Read = true
	if opts.Each != nil {
		opts.Each(i, doc)
	}
	if opts.Prepare != nil {
		if doc, err = opts.Prepare(doc); err != nil {
			res.Err = err
			return res
		}
	}
	if opts.Contract == "" {
		res.Contract, res.Violations, res.Err = reg.ValidateAuto(doc)
	} else {
		res.Violations, res.Err = reg.Validate(opts.Contract, doc)
	}
	if opts.Prepare != nil {
		for j := range res.Violations {
			res.Violations[j].Line, res.Violations[j].Column = 0, 0
		}
	}
	if len(res.Violations) > 0 {
		res.Data = doc
	}
	return res
}
