package git

import (
	"bytes"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeTree writes tree entries as a raw tree object.
func encodeTree(es []treeEntry) []byte {
	var b bytes.Buffer
	for _, e := range es {
		mode := "100644"
		if e.isDir {
			mode = "40000"
		}
		b.WriteString(mode + " " + e.name + "\x00")
		b.Write(e.hash[:])
	}
	return b.Bytes()
}

// FuzzParseTree feeds arbitrary bytes to the tree object parser: no panic,
// and what it accepts reads back the same once written again.
func FuzzParseTree(f *testing.F) {
	h := bytes.Repeat([]byte{0xab}, hashLen)
	f.Add([]byte("100644 a.json\x00" + string(h) + "40000 dir\x00" + string(h)))
	f.Add([]byte("160000 sub\x00" + string(h) + "100755 run.sh\x00" + string(h)))
	f.Add([]byte("100644 short\x00abc"))
	f.Add([]byte(""))
	f.Add([]byte(" \x00"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		es, err := parseTree(string(raw))
		if err != nil {
			return
		}
		for _, e := range es {
			if bytes.IndexByte([]byte(e.name), 0) >= 0 {
				t.Fatalf("entry name %q holds a NUL", e.name)
			}
		}
		again, err := parseTree(string(encodeTree(es)))
		if err != nil {
			t.Fatalf("re-encoded tree does not parse: %v", err)
		}
		if diff := cmp.Diff(es, again, cmp.AllowUnexported(treeEntry{})); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}

// encodeCacheTree writes a cache tree as the index's TREE extension does.
func encodeCacheTree(b *bytes.Buffer, name string, t *cacheTree) {
	count := -1
	if t.valid {
		count = 0
	}
	b.WriteString(name + "\x00" + strconv.Itoa(count) + " " + strconv.Itoa(len(t.children)) + "\n")
	if t.valid {
		b.Write(t.hash[:])
	}
	names := make([]string, 0, len(t.children))
	for n := range t.children {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		encodeCacheTree(b, n, t.children[n])
	}
}

// FuzzParseCacheTree feeds arbitrary bytes to the TREE extension parser: no
// panic, and what it accepts reads back the same once written again.
func FuzzParseCacheTree(f *testing.F) {
	h := string(bytes.Repeat([]byte{0xcd}, hashLen))
	f.Add([]byte("\x003 1\n" + h + ".foundry\x002 0\n" + h))
	f.Add([]byte("\x00-1 1\nsub\x00-1 0\n"))
	f.Add([]byte("\x001 0\n"))
	f.Add([]byte("\x001 99999999\n"))
	f.Add([]byte("x\x00-2 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ct := parseCacheTree(b)
		if ct == nil {
			return
		}
		var buf bytes.Buffer
		encodeCacheTree(&buf, "", ct)
		again := parseCacheTree(buf.Bytes())
		if again == nil {
			t.Fatalf("re-encoded cache tree does not parse: %q", buf.Bytes())
		}
		if diff := cmp.Diff(ct, again, cmp.AllowUnexported(cacheTree{})); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}
