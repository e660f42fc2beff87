package contracts

import (
	"bytes"
	"encoding/json"
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
