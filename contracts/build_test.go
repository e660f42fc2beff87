package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stdlibDecode is how documents were decoded before build: encoding/json
// into any, numbers as json.Number.
func stdlibDecode(doc []byte, start int) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc[start:]))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

var buildCases = []string{
	`{}`, `[]`, `""`, `0`, `-1.5e+10`, `true`, `false`, `null`, "\ufeff{\"a\": 1}",
	`{"a": {"b": [1, 2, {"c": null}]}, "d": "e", "a": "dup wins"}`,
	`{"esc": "q\" b\\ s\/ \b\f\n\r\t u\u00e9 \ud83d\ude00 lone \ud800 end"}`,
	"{\"utf8\": \"héllo wörld ☃ 😀\", \"bad\": \"a\xffb\xc3\"}",
	"{\"bad key \xfe\": 1}",
	`  [ 1 , "two" , [ ] , { } , 3.0 , -0 , 1E5 ]  `,
	`{"schema": "finding.v1", "producedBy": "x", "evidence": [{"kind": "file", "ref": "a.go:1"}]}`,
}

// TestBuildMatchesStdlib: build gives exactly what encoding/json gave, on
// hand-picked documents and on every JSON file of the repository.
func TestBuildMatchesStdlib(t *testing.T) {
	t.Parallel()
	docs := append([]string(nil), buildCases...)
	_ = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			if b, err := os.ReadFile(p); err == nil {
				docs = append(docs, string(b))
			}
		}
		return nil
	})
	checked := 0
	for _, doc := range docs {
		b := []byte(doc)
		start := bomLen(b)
		if scan(b, start) != nil {
			continue
		}
		want, err := stdlibDecode(b, start)
		if err != nil {
			continue
		}
		checked++
		if got := build(b, start); !reflect.DeepEqual(got, want) {
			t.Errorf("build(%.80q) = %#v, want %#v", doc, got, want)
		}
	}
	if checked < len(buildCases)+10 {
		t.Errorf("only %d documents checked", checked)
	}
}

func FuzzBuildMatchesStdlib(f *testing.F) {
	for _, c := range buildCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		start := bomLen(doc)
		if scan(doc, start) != nil {
			return
		}
		want, err := stdlibDecode(doc, start)
		if err != nil {
			return // a difference of grammar is parse's concern, not build's
		}
		if got := build(doc, start); !reflect.DeepEqual(got, want) {
			t.Errorf("build(%q) = %#v, want %#v", doc, got, want)
		}
	})
}

// TestBuildReusesStrings: once a document was built, building another with
// the same keys and short values allocates only its objects and arrays
// (a map and its group, a slice; room for a scratch space the collector
// took back), not its strings nor their boxes.
func TestBuildReusesStrings(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops scratch spaces at random under -race")
	}
	doc := []byte(`{"schema": "finding.v1", "severity": "high", "evidence": [{"kind": "file", "ref": "a.go:1"}, {"kind": "url", "ref": "https://x.example"}]}`)
	build(doc, 0)
	const containers = 4 // the top object, the array, two evidence objects
	if got := testing.AllocsPerRun(100, func() { build(doc, 0) }); got > 3*containers {
		t.Errorf("build of a document seen before: %.1f allocations, want at most %d", got, 3*containers)
	}
}

// TestInternBounded: the strings kept for reuse are short and few, however
// many a process meets.
func TestInternBounded(t *testing.T) {
	t.Parallel()
	sc := &scratch{strs: map[string]any{}}
	for i := range 3 * internMax {
		b := fmt.Appendf(nil, "v%d", i)
		if v := sc.intern(b); v != string(b) {
			t.Fatalf("intern(%q) = %#v", b, v)
		}
	}
	long := bytes.Repeat([]byte("x"), internLen+1)
	if v := sc.intern(long); v != string(long) {
		t.Fatalf("intern of a long string = %#v", v)
	}
	if len(sc.strs) != internMax {
		t.Errorf("%d strings kept, want %d", len(sc.strs), internMax)
	}
	if _, ok := sc.strs[string(long)]; ok {
		t.Errorf("a string over %d bytes was kept", internLen)
	}
}
