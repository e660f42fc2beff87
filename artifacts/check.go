package artifacts

// This file defines Check: many documents validated on a bounded worker
// pool, in input order.

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/internal/hugepages"
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
	// The document itself is not kept: a caller that needs it (for its
	// own checks, or its identity) takes it from Options.Each, so that
	// results over many large invalid documents do not hold them all.
	Read bool
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

// Bulk is the number of inputs over which a check is a bulk one: its heap
// is readied in huge pages (see [Check]), and validate paces collection for
// it.
const Bulk = 100

// heapPerInput is about how much checking grows the heap per input, under
// the collection pacing of a bulk validate (gcpace.Bound(400)): 25 MB for
// 10,000 artifacts of 580 bytes.
const heapPerInput = 3 << 10

// Check reads and validates the inputs on every CPU and returns one result
// per input, in input order. It returns an error only when ctx ends first.
//
// Each worker takes a batch of consecutive inputs at a time: inputs in one
// folder of a [confined.Root] are read through that folder, opened once
// per batch (see [confined.Folder]). The workers are few and long-lived, so
// their stacks grow once, not once per document. The calling goroutine is
// one of them, and the others start only when there are at least
// [docsPerWorker] inputs each: a few documents (a hook's, an agent's) are
// validated on the caller, whose stack has grown already, without waking
// other threads to wait on the first compile. More than [Bulk] inputs
// ready their heap in huge pages (see hugepages.Prepare).
func Check(ctx context.Context, reg *contracts.Registry, inputs []Input, opts Options) ([]Result, error) {
	if len(inputs) > Bulk {
		defer hugepages.Prepare(int64(len(inputs)) * heapPerInput)()
	}
	results := make([]Result, len(inputs))
	batches := batches(inputs)
	g, gctx := errgroup.WithContext(ctx)
	var (
		next atomic.Int64
		mu   sync.Mutex
		done int
	)
	work := func() error {
		for {
			if err := gctx.Err(); err != nil {
				return err
			}
			k := int(next.Add(1) - 1)
			if k >= len(batches) {
				return nil
			}
			b := batches[k]
			var folder *confined.Folder
			if b.root != nil {
				folder, _ = b.root.OpenFolder(b.dir) // on failure, each input is read through the root
			}
			for i := b.start; i < b.end; i++ {
				in := inputs[i]
				fsys, name := in.FS, in.Name
				if folder != nil {
					fsys, name = folder, path.Base(in.Name)
				}
				results[i] = checkOne(reg, i, in, fsys, name, opts)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(inputs))
					mu.Unlock()
				}
			}
			if folder != nil {
				folder.Close()
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(batches), (len(inputs)+docsPerWorker-1)/docsPerWorker)
	for range workers - 1 {
		g.Go(work)
	}
	err := work()
	if werr := g.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// docsPerWorker is the fewest inputs that start a worker goroutine of
// their own in [Check].
const docsPerWorker = 16

// batchMax bounds a batch, so that the last batches still spread over the
// workers. Each batch opens its folder anew (five system calls through the
// root), so a folder of up to batchMax artifacts is opened once: with 32,
// opening folders was 2.4% of the processor time of validating 10,000
// artifacts in folders of 100.
const batchMax = 128

// batch is inputs[start:end]; root and dir are set when all of them are
// files of the folder dir of root.
type batch struct {
	start, end int
	root       *confined.Root
	dir        string
}

// batches splits inputs into runs of consecutive files of one folder of one
// root, each at most batchMax long; an input of any other file system is a
// batch of its own.
func batches(inputs []Input) []batch {
	var bs []batch
	for i, in := range inputs {
		root, dir := confined.RootOf(in.FS), path.Dir(in.Name)
		if n := len(bs); root != nil && n > 0 {
			last := &bs[n-1]
			if last.root == root && last.dir == dir && last.end-last.start < batchMax {
				last.end++
				continue
			}
		}
		bs = append(bs, batch{start: i, end: i + 1, root: root, dir: dir})
	}
	return bs
}

func checkOne(reg *contracts.Registry, i int, in Input, fsys fs.FS, name string, opts Options) (res Result) {
	// A worker's panic would end the process: it becomes this document's
	// error instead.
	defer func() {
		if p := recover(); p != nil {
			res = Result{Path: in.Path, Contract: opts.Contract, Err: fmt.Errorf("%w: %v", contracts.ErrValidatorPanic, p)}
		}
	}()
	res = Result{Path: in.Path, Contract: opts.Contract}
	doc, err := ReadFile(fsys, name)
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
	return res
}
