package tokens

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/confined"
)

// eventLine is one well-formed event line of kind.
func eventLine(kind string) string {
	return fmt.Sprintf(`{"ts":"2026-01-02T03:04:05.123456789Z","kind":%q}`+"\n", kind)
}

// logFile changes the event log of the project at root.
type logFile string

func (l logFile) appendString(t *testing.T, s string) {
	t.Helper()
	f, err := os.OpenFile(string(l), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func (l logFile) read(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(string(l))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// replace puts a new file with data at the log's name, as a compaction does.
func (l logFile) replace(t *testing.T, data string) {
	t.Helper()
	if err := os.WriteFile(string(l)+".new", []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(string(l)+".new", string(l)); err != nil {
		t.Fatal(err)
	}
}

// newLog returns the event log of a new project, not yet written, and
// the project's root.
func newLog(t *testing.T) (string, logFile) {
	t.Helper()
	root := newRoot(t)
	if err := os.Mkdir(filepath.Join(root, ".foundry", "metrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, logFile(filepath.Join(root, filepath.FromSlash(EventsPath)))
}

// checkTail counts the log in fsys on from tail's last count and compares
// the counts with ReadEvents'.
func checkTail(t *testing.T, tail *eventTail, fsys fs.FS, step string) {
	t.Helper()
	want, err := ReadEvents(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tail.read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: counted on (-ReadEvents +got):\n%s", step, diff)
	}
}

// TestEventTail changes an event log in each way it can change between two
// reports and counts it on from the last count after each change: the
// counts are always those of ReadEvents, which reads the log whole.
func TestEventTail(t *testing.T) {
	t.Parallel()
	search, write := eventLine(KindMemorySearch), eventLine(KindMemoryWrite)
	tests := []struct {
		name  string
		steps []func(t *testing.T, l logFile)
	}{
		{"appended to", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search) },
			func(t *testing.T, l logFile) { l.appendString(t, write+search) },
			func(t *testing.T, l logFile) { l.appendString(t, "not json\n\n  \n"+`{"kind":""}`+"\n") },
			func(t *testing.T, l logFile) { l.appendString(t, eventLine("custom")) },
		}},
		{"a partial last line, then completed", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search) },
			func(t *testing.T, l logFile) { l.appendString(t, write[:20]) },
			func(t *testing.T, l logFile) { l.appendString(t, write[20:30]) },
			func(t *testing.T, l logFile) { l.appendString(t, write[30:]) },
			func(t *testing.T, l logFile) { l.appendString(t, "   ") },
			func(t *testing.T, l logFile) { l.appendString(t, "\n"+search) },
		}},
		{"truncated, then appended to", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search+search) },
			func(t *testing.T, l logFile) {
				if err := os.Truncate(string(l), int64(len(search))); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T, l logFile) { l.appendString(t, write) },
		}},
		{"truncated, then appended to past the count", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search) },
			func(t *testing.T, l logFile) {
				if err := os.Truncate(string(l), int64(len(search))); err != nil {
					t.Fatal(err)
				}
				l.appendString(t, write+write+write)
			},
		}},
		{"replaced by a longer log that differs in its first line only", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search+search+search) },
			func(t *testing.T, l logFile) {
				// A line as long as the one it replaces: only the file's
				// identity tells this log from the one counted.
				other := eventLine("memory_sEarch")
				l.replace(t, other+l.read(t)[len(search):]+write)
			},
		}},
		{"replaced by a shorter log", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search+search) },
			func(t *testing.T, l logFile) { l.replace(t, write) },
		}},
		{"rewritten in place, its last lines other", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search) },
			func(t *testing.T, l logFile) {
				if err := os.WriteFile(string(l), []byte(search+write+write), 0o644); err != nil {
					t.Fatal(err)
				}
			},
		}},
		{"removed, then written again", []func(*testing.T, logFile){
			func(t *testing.T, l logFile) { l.appendString(t, search+search) },
			func(t *testing.T, l logFile) {
				if err := os.Remove(string(l)); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T, l logFile) { l.appendString(t, write) },
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, l := newLog(t)
			fsys := confined.OpenFS(root)
			var tail eventTail
			for i, step := range tt.steps {
				step(t, l)
				checkTail(t, &tail, fsys, fmt.Sprintf("after step %d", i))
			}
		})
	}
}

// TestEventTailWithoutIdentity: a log whose file has no identity (not
// one of the operating system) is counted whole on each reading.
func TestEventTailWithoutIdentity(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{}
	var tail eventTail
	for _, data := range []string{
		eventLine(KindMemorySearch),
		eventLine(KindMemorySearch) + eventLine(KindRunbookGet),
		eventLine(KindMemoryWrite) + eventLine(KindRunbookGet),
	} {
		fsys[EventsPath] = &fstest.MapFile{Data: []byte(data)}
		checkTail(t, &tail, fsys, fmt.Sprintf("%q", data))
	}
}

// countingFS counts the bytes read from the files opened through it.
type countingFS struct {
	fs.FS
	read *atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, c.read}, nil
}

type countingFile struct {
	fs.File
	read *atomic.Int64
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.read.Add(int64(n))
	return n, err
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	ra, ok := f.File.(io.ReaderAt)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	n, err := ra.ReadAt(p, off)
	f.read.Add(int64(n))
	return n, err
}

// TestReporterReadsWhatWasAppended: once a Reporter has counted the event
// log, a report reads the lines appended since, and the few bytes before
// them it checks, not the log again: the cost of a report does not grow
// with the log. Its report is BuildReport's.
func TestReporterReadsWhatWasAppended(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, l := newLog(t)
	l.appendString(t, strings.Repeat(eventLine(KindMemorySearch), 5000))
	fsys := confined.OpenFS(root)
	var read atomic.Int64
	events := countingFS{fsys, &read}
	rp := NewReporter(nil)
	if _, err := rp.Report(ctx, fsys, events, 4000); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		added := eventLine(KindBlackboardWrite)
		l.appendString(t, added)
		read.Store(0)
		got, err := rp.Report(ctx, fsys, events, 4000)
		if err != nil {
			t.Fatal(err)
		}
		if n, most := read.Load(), int64(len(added)+tailCheck); n > most {
			t.Errorf("report %d read %d bytes of the log after %d were appended; want %d at most", i, n, len(added), most)
		}
		want, err := BuildReport(ctx, fsys, fsys, 4000)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("report %d (-BuildReport +Reporter):\n%s", i, diff)
		}
	}
}

// factSource is a FactSource that says what it is given.
type factSource struct {
	ff  FactFiles
	err error
}

func (s factSource) FactFiles(context.Context) (FactFiles, error) { return s.ff, s.err }

// TestReporterFacts: a Reporter takes the regular fact files' figures from
// its source and measures the others itself, as BuildReport measures
// them; when the source fails, it lists the memory folder.
func TestReporterFacts(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		MemoryDir + "/fact-0001-a.md":    file(100),
		MemoryDir + "/fact-0002-b.md":    file(41),
		MemoryDir + "/fact-0003-link.md": &fstest.MapFile{Data: []byte("fact-0001-a.md"), Mode: fs.ModeSymlink},
		MemoryDir + "/fact-0004-gone.md": &fstest.MapFile{Data: []byte("nowhere.md"), Mode: fs.ModeSymlink},
	}
	tests := []struct {
		name string
		src  factSource
		want FactsCost
	}{
		{"regular files from the source", factSource{ff: FactFiles{Regular: FactsCost{Count: 7, Bytes: 700, Tokens: 175}}}, FactsCost{Count: 7, Bytes: 700, Tokens: 175}},
		{"a link measured", factSource{ff: FactFiles{Regular: FactsCost{Count: 2, Bytes: 141, Tokens: 36}, Others: []string{"fact-0003-link.md", "fact-0004-gone.md"}}},
			FactsCost{Count: 3, Bytes: 241, Tokens: 61}},
		{"the source fails", factSource{err: errors.New("no events")}, FactsCost{Count: 3, Bytes: 241, Tokens: 61}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewReporter(tt.src).Report(context.Background(), fsys, nil, 4000)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Facts); diff != "" {
				t.Errorf("facts (-want +got):\n%s", diff)
			}
			if got.EagerTokens != tt.want.Tokens {
				t.Errorf("eager tokens %d, want %d", got.EagerTokens, tt.want.Tokens)
			}
		})
	}
}

// FuzzEventTail counts a log in two readings, the first of its first cut
// bytes: the counts are those of the log read whole.
func FuzzEventTail(f *testing.F) {
	f.Add([]byte(eventLine(KindMemorySearch)+eventLine(KindGateBlocked)), uint16(30))
	f.Add([]byte("garbage\n{\"kind\":\"x\"}"), uint16(9))
	f.Add([]byte("\n\n{\"kind\":\"\"}\n[1]\n  "), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		root, l := newLog(t)
		c := min(int(cut), len(data))
		fsys := confined.OpenFS(root)
		var tail eventTail
		for _, part := range [][]byte{data[:c], data[c:]} {
			l.appendString(t, string(part))
			got, err := tail.read(fsys)
			if err != nil {
				t.Fatal(err)
			}
			// countEvents, which ReadEvents uses where a log cannot be
			// read at an offset, reads the log whole.
			want, err := countEvents(strings.NewReader(l.read(t)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("counted on (-countEvents +got):\n%s", diff)
			}
		}
	})
}
