package facts

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixedNow is the clock of most tests.
func fixedNow() time.Time { return time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC) }

// syncBuffer is a goroutine-safe bytes.Buffer for warnings.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestStore returns a writable store on a fresh project folder.
func newTestStore(t testing.TB) (*Store, string, *syncBuffer) {
	t.Helper()
	root := t.TempDir()
	warn := &syncBuffer{}
	return OpenDir(root, Options{Now: fixedNow, Warn: warn}), root, warn
}

// factFiles lists the fact file names under root's memory folder.
func factFiles(t testing.TB, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(Dir)))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if isFactFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func readFile(t testing.TB, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decisionBody is a valid decision body.
func decisionBody(what string) string {
	return what + "\nWhy: it keeps the team fast.\nHow to apply: follow it in every change."
}

func nWords(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }

// dateBack sets the modification time of each path well in the past, as
// a checkout long done leaves it: outside the racy window, so that a
// listing or a cache can trust it without reading it again.
func dateBack(t testing.TB, paths ...string) {
	t.Helper()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// watchedStore returns a store of n generated facts with file-system
// events on, closed when t ends, whose index a first search (a word of the
// facts, no typo) has built, and its root. It skips the test where events
// are unavailable.
func watchedStore(t *testing.T, n int) (s *Store, root string) {
	t.Helper()
	root = writeTree(t, genFacts(t, n))
	return searchedStore(t, root, Options{Now: fixedNow, Watch: true}, "kafka"), root
}

// searchedStore opens a store of the project at root with opts, closed
// when t ends, and searches it for q once, so that its first scan is done.
// It skips the test where opts asks for file-system events and none are
// available.
func searchedStore(t *testing.T, root string, opts Options, q string) *Store {
	t.Helper()
	warn := &syncBuffer{}
	opts.Warn = warn
	s := OpenDir(root, opts)
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Search(context.Background(), Query{Text: q}); err != nil {
		t.Fatal(err)
	}
	if opts.Watch && strings.Contains(warn.String(), "no file-system events") {
		t.Skipf("no file-system events here: %s", warn)
	}
	return s
}

// sameMap reports whether a and b are one map (not merely equal ones): a
// map emptied or shrunk into a new one is not the same as before.
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
