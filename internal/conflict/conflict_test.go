package conflict

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Block
	}{
		{"clean", "a\n=======\nb\n", nil},
		{"one block", "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> topic\nd\n", []Block{{Start: 2, Mid: 4, End: 6}}},
		{"diff3", "<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\n", []Block{{Start: 1, Mid: 5, End: 7}}},
		{"bare markers", "<<<<<<<\nb\n=======\nc\n>>>>>>>", []Block{{Start: 1, Mid: 3, End: 5}}},
		{"never closed", "a\n<<<<<<< HEAD\nb\n", []Block{{Start: 2}}},
		{"stray closing", "a\n>>>>>>> topic\n", []Block{{Start: 2, End: 2}}},
		{"not a marker", "<<<<<<<<\n>>>>>>>x\n", nil},
		{"crlf", "<<<<<<< HEAD\r\nb\r\n=======\r\nc\r\n>>>>>>> t\r\n", []Block{{Start: 1, Mid: 3, End: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Find([]byte(tt.in))); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		in           string
		ours, theirs string
		ok           bool
	}{
		{"two blocks", "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> t\nd\n<<<<<<< HEAD\n=======\ne\n>>>>>>> t\n", "a\nb\nd\n", "a\nc\nd\ne\n", true},
		{"diff3 drops the base", "<<<<<<< HEAD\nb\n||||||| base\nx\n=======\nc\n>>>>>>> t\n", "b\n", "c\n", true},
		{"no markers", "a\n", "", "", false},
		{"never closed", "<<<<<<< HEAD\nb\n", "", "", false},
		{"no middle", "<<<<<<< HEAD\nb\n>>>>>>> t\n", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, th, ok := Split([]byte(tt.in))
			if ok != tt.ok || string(o) != tt.ours || string(th) != tt.theirs {
				t.Errorf("Split = %q, %q, %v; want %q, %q, %v", o, th, ok, tt.ours, tt.theirs, tt.ok)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> t\n"))
	f.Add([]byte("<<<<<<< HEAD\nb\n||||||| base\nx\n=======\nc\n>>>>>>> t"))
	f.Fuzz(func(t *testing.T, data []byte) {
		blocks := Find(data)
		o, th, ok := Split(data)
		if ok && len(blocks) == 0 {
			t.Fatal("split a file without markers")
		}
		if ok && (len(Find(o)) > 0 && !Has(o) || len(o)+len(th) > 2*len(data)) {
			t.Fatalf("sides larger than the file: %q %q", o, th)
		}
	})
}
