package mcp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/foundryhq/foundry/blackboard"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/fileid"
	"github.com/foundryhq/foundry/project"
)

// Two versions of one contract of the same size: {"a": 1} passes the
// first and fails the second.
const (
	thingV1 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["a"]}`
	thingV2 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["b"]}`
)

// longAgo is the modification time the fixtures' files are given.
var longAgo = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// warmFixture is a working tree with .foundry/schemas/ and its kept
// contracts.
type warmFixture struct {
	t       *testing.T
	root    string
	schemas string
	w       *warmContracts
}

func newWarmFixture(t *testing.T) *warmFixture {
	t.Helper()
	root := t.TempDir()
	schemas := filepath.Join(root, filepath.FromSlash(contracts.LocalDir))
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &warmFixture{t: t, root: root, schemas: schemas, w: newWarmContracts(p)}
}

// write writes a schema file in place (the same inode when it exists) and
// sets its modification time to longAgo.
func (f *warmFixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.schemas, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chtimes(p, longAgo, longAgo); err != nil {
		f.t.Fatal(err)
	}
}

// valid reports whether {"a": 1} passes thing.v1, and whether thing.v1
// exists at all.
func (f *warmFixture) valid() (known, valid bool) {
	f.t.Helper()
	reg, err := f.w.get()
	if err != nil {
		f.t.Fatal(err)
	}
	if !reg.Has("thing.v1") {
		return false, false
	}
	vs, err := reg.Validate("thing.v1", []byte(`{"a":1}`))
	if err != nil {
		f.t.Fatal(err)
	}
	return true, len(vs) == 0
}

func (f *warmFixture) loads() int {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.w.loads
}

// tick returns once the kernel's clock for status-change times has moved
// past the last change of every file the fixture made (a few milliseconds
// at most): a settled fixture's next change then has a status-change time
// of its own, as a change made after the racy window would.
func (f *warmFixture) tick() {
	f.t.Helper()
	probe := filepath.Join(f.root, "probe")
	ctime := func() int64 {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			f.t.Fatal(err)
		}
		fi, err := os.Stat(probe)
		if err != nil {
			f.t.Fatal(err)
		}
		return fileid.Ctime(fi)
	}
	start := ctime()
	if start == 0 {
		return // not known here: modification time and inode decide
	}
	for deadline := time.Now().Add(time.Second); ctime() == start; {
		if time.Now().After(deadline) {
			f.t.Fatal("the status-change time did not move in a second")
		}
	}
}

// TestWarmContractsSeesChanges: every change of .foundry/schemas/ is seen
// by the very next call, whether the kept registry was loaded from files
// changed just before (recent: the racy rule distrusts them) or long
// before (settled: the clock is an hour ahead, and identity decides).
func TestWarmContractsSeesChanges(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *warmFixture)
		change func(f *warmFixture)
		// before and after: whether thing.v1 is known, and {"a":1} valid.
		before, after [2]bool
	}{
		{
			name:   "added",
			setup:  func(f *warmFixture) { f.write("other.v1.schema.json", thingV1) },
			change: func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			before: [2]bool{false, false}, after: [2]bool{true, true},
		},
		{
			name:   "deleted",
			setup:  func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			change: func(f *warmFixture) { mustRemove(f.t, filepath.Join(f.schemas, "thing.v1.schema.json")) },
			before: [2]bool{true, true}, after: [2]bool{false, false},
		},
		{
			name:   "edited in place keeping size and mtime",
			setup:  func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			change: func(f *warmFixture) { f.write("thing.v1.schema.json", thingV2) },
			before: [2]bool{true, true}, after: [2]bool{true, false},
		},
		{
			name:  "replaced by rename",
			setup: func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			change: func(f *warmFixture) {
				f.write("thing.tmp", thingV2)
				if err := os.Rename(filepath.Join(f.schemas, "thing.tmp"), filepath.Join(f.schemas, "thing.v1.schema.json")); err != nil {
					f.t.Fatal(err)
				}
			},
			before: [2]bool{true, true}, after: [2]bool{true, false},
		},
		{
			name:  "folder removed and recreated",
			setup: func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			change: func(f *warmFixture) {
				if err := os.RemoveAll(f.schemas); err != nil {
					f.t.Fatal(err)
				}
				if err := os.Mkdir(f.schemas, 0o755); err != nil {
					f.t.Fatal(err)
				}
				f.write("thing.v1.schema.json", thingV2)
				if err := os.Chtimes(f.schemas, longAgo, longAgo); err != nil {
					f.t.Fatal(err)
				}
			},
			before: [2]bool{true, true}, after: [2]bool{true, false},
		},
		{
			name:  "folder removed",
			setup: func(f *warmFixture) { f.write("thing.v1.schema.json", thingV1) },
			change: func(f *warmFixture) {
				if err := os.RemoveAll(f.schemas); err != nil {
					f.t.Fatal(err)
				}
			},
			before: [2]bool{true, true}, after: [2]bool{false, false},
		},
		{
			name: "shared piece edited",
			setup: func(f *warmFixture) {
				f.write("thing.v1.schema.json", `{"$ref":"t.v1.defs.json"}`)
				f.write("t.v1.defs.json", thingV1)
			},
			change: func(f *warmFixture) { f.write("t.v1.defs.json", thingV2) },
			before: [2]bool{true, true}, after: [2]bool{true, false},
		},
	}
	for _, settled := range []bool{false, true} {
		for _, tt := range tests {
			name := "recent/" + tt.name
			if settled {
				name = "settled/" + tt.name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newWarmFixture(t)
				if settled {
					f.w.now = func() time.Time { return time.Now().Add(time.Hour) }
				}
				tt.setup(f)
				if err := os.Chtimes(f.schemas, longAgo, longAgo); err != nil {
					t.Fatal(err)
				}
				if known, valid := f.valid(); [2]bool{known, valid} != tt.before {
					t.Fatalf("before: known, valid = %v, %v, want %v", known, valid, tt.before)
				}
				if settled {
					if known, valid := f.valid(); [2]bool{known, valid} != tt.before || f.loads() != 1 {
						t.Fatalf("unchanged: known, valid = %v, %v after %d loads, want %v after 1", known, valid, f.loads(), tt.before)
					}
					f.tick()
				}
				tt.change(f)
				if known, valid := f.valid(); [2]bool{known, valid} != tt.after {
					t.Errorf("after: known, valid = %v, %v, want %v", known, valid, tt.after)
				}
			})
		}
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// TestWarmContractsRacy: a registry loaded from files changed within the
// racy window is not kept past the call; once the window has passed, the
// next load is kept, with what it compiled.
func TestWarmContractsRacy(t *testing.T) {
	t.Parallel()
	f := newWarmFixture(t)
	f.write("thing.v1.schema.json", thingV1) // its status-change time is now
	now := time.Now()
	f.w.now = func() time.Time { return now }
	f.valid()
	f.valid()
	if n := f.loads(); n != 2 {
		t.Fatalf("within the window: %d loads for 2 calls, want 2", n)
	}
	now = now.Add(time.Hour)
	reg, err := f.w.get()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := f.w.get()
		if err != nil {
			t.Fatal(err)
		}
		if again != reg {
			t.Fatal("a settled, unchanged folder gave another registry")
		}
	}
	if n := f.loads(); n != 3 {
		t.Errorf("after the window: %d loads, want 3", n)
	}
}

// TestWarmContractsUnreadable: a folder that cannot be listed fails the
// call as loading the contracts does, and is looked at again next time.
func TestWarmContractsUnreadable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root lists any folder")
	}
	f := newWarmFixture(t)
	f.write("thing.v1.schema.json", thingV1)
	if err := os.Chmod(f.schemas, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(f.schemas, 0o755) })
	_, err := f.w.get()
	_, want := contracts.Load(os.DirFS(f.root))
	if err == nil || want == nil || !errorsSameKind(err, want) {
		t.Fatalf("get = %v, want an error like %v", err, want)
	}
	if err := os.Chmod(f.schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	if known, valid := f.valid(); !known || !valid {
		t.Errorf("readable again: known, valid = %v, %v, want true, true", known, valid)
	}
}

func errorsSameKind(a, b error) bool {
	var ea, eb syscall.Errno
	return errors.As(a, &ea) && errors.As(b, &eb) && ea == eb
}

// TestWarmContractsRevision: a project served on a revision loads its
// contracts once, whatever the working tree does meanwhile.
func TestWarmContractsRevision(t *testing.T) {
	t.Parallel()
	repo := gittest.New(t)
	repo.Write(".foundry/schemas/thing.v1.schema.json", thingV1)
	repo.CommitAll("thing")
	p, err := project.OpenRoot(repo.Dir, project.Source{Rev: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	f := &warmFixture{t: t, root: repo.Dir, w: newWarmContracts(p)}
	for range 3 {
		if known, valid := f.valid(); !known || !valid {
			t.Fatalf("known, valid = %v, %v, want true, true", known, valid)
		}
		repo.Write(".foundry/schemas/thing.v1.schema.json", thingV2)
	}
	if n := f.loads(); n != 1 {
		t.Errorf("%d loads, want 1", n)
	}
}

// TestWarmContractsConcurrent: calls in parallel with changes of the
// folder share the kept registry without a race (go test -race), and the
// call after the last change sees it.
func TestWarmContractsConcurrent(t *testing.T) {
	t.Parallel()
	f := newWarmFixture(t)
	f.w.now = func() time.Time { return time.Now().Add(time.Hour) }
	for i := range 20 {
		f.write(fmt.Sprintf("c%02d.v1.schema.json", i), thingV1)
	}
	f.write("thing.v1.schema.json", thingV1)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				reg, err := f.w.get()
				if err != nil {
					errs <- err
					return
				}
				id := fmt.Sprintf("c%02d.v1", (g+i)%20)
				if _, err := reg.Validate(id, []byte(`{"a":1}`)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 10 {
		content := thingV1
		if i%2 == 1 {
			content = thingV2
		}
		f.write("thing.v1.schema.json", content)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f.tick()
	f.write("thing.v1.schema.json", thingV2)
	if known, valid := f.valid(); !known || valid {
		t.Errorf("after the last change: known, valid = %v, %v, want true, false", known, valid)
	}
}

// BenchmarkContractsPerCall measures what contract_validate pays for its
// contracts per call, a local contract validated each time: loading them
// anew (as before the registry was kept) and from the kept registry, with
// 5 and 200 local schemas.
func BenchmarkContractsPerCall(b *testing.B) {
	for _, n := range []int{5, 200} {
		root := b.TempDir()
		schemas := filepath.Join(root, filepath.FromSlash(contracts.LocalDir))
		if err := os.MkdirAll(schemas, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			s := fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"contract %d","type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":0},"b":{"type":"string","maxLength":80}}}`, i)
			p := filepath.Join(schemas, fmt.Sprintf("c%03d.v1.schema.json", i))
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		p, err := project.OpenRoot(root, project.Source{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		w := newWarmContracts(p)
		w.now = func() time.Time { return time.Now().Add(time.Hour) } // the files settled
		doc := []byte(`{"a":1,"b":"x"}`)
		for _, mode := range []struct {
			name string
			get  func() (*contracts.Registry, error)
		}{
			{"load", func() (*contracts.Registry, error) { return contracts.Load(p.FS) }},
			{"kept", w.get},
		} {
			b.Run(fmt.Sprintf("local=%d/%s", n, mode.name), func(b *testing.B) {
				for b.Loop() {
					reg, err := mode.get()
					if err != nil {
						b.Fatal(err)
					}
					if vs, err := reg.Validate("c000.v1", doc); err != nil || len(vs) > 0 {
						b.Fatal(err, vs)
					}
				}
			})
		}
	}
}

// TestWarmContractsBlackboard: the blackboard tools validate with the kept
// registry, not one loaded per call.
func TestWarmContractsBlackboard(t *testing.T) {
	t.Parallel()
	wf := newWarmFixture(t)
	wf.w.now = func() time.Time { return time.Now().Add(time.Hour) }
	wf.write("thing.v1.schema.json", thingV1)
	p, err := project.OpenRoot(wf.root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	f := &foundry{p: p, warm: wf.w}
	ctx := t.Context()
	for _, agent := range []string{"one", "two"} {
		res, err := f.board().Write(ctx, blackboard.WriteRequest{Wave: "w", Agent: agent, Schema: "thing.v1", Data: []byte(`{"a":1}`)})
		if err != nil || !res.Written {
			t.Fatalf("write %s: %v, %s", agent, err, res.Text())
		}
	}
	res, err := f.board().Read(ctx, blackboard.ReadRequest{Wave: "w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if a.Invalid {
			t.Errorf("%s read as invalid: %v", a.Path, a.Violations)
		}
	}
	if n := wf.loads(); n != 1 {
		t.Errorf("2 writes and a read: %d loads, want 1", n)
	}
	wf.tick()
	wf.write("thing.v1.schema.json", thingV2)
	res, err = f.board().Read(ctx, blackboard.ReadRequest{Wave: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Artifacts) != 2 || !res.Artifacts[0].Invalid {
		t.Errorf("after the contract changed: %+v, want 2 artifacts read as invalid", res.Artifacts)
	}
}
