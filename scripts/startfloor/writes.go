//go:build !bare

package main

import (
	"bytes"
	"fmt"

	"github.com/foundryhq/foundry/internal/confined"
)

// The sizes a write floor writes: a fact file as memory_write makes one,
// and INDEX.md at about its budget, as facts.BenchmarkWriteFilesFloor
// writes them.
var (
	floorFact  = []byte("---\nid: fact-0001\ntype: decision\ntitle: The orders service relies on postgres\nscope: project\ntags: [orders, postgres]\nconfidence: medium\nsource: code\ncreated: 2026-01-02\nstatus: active\n---\nMeasured by bench-mcp.\n")
	floorIndex = bytes.Repeat([]byte("- fact-0001 · decision · The orders service relies on postgres\n"), 250)
)

// floorWriter makes files durable in a folder with the calls of facts'
// write floors: one file with confined.Root.WriteFile
// (BenchmarkWriteFileFloor), or the fact and INDEX.md staged together,
// committed and the folder synced once (BenchmarkWriteFilesFloor).
type floorWriter struct {
	root  *confined.Root
	index bool // also INDEX.md, staged with the fact
	n     int
}

func newFloorWriter(dir string, index bool) (*floorWriter, error) {
	r, err := confined.Open(dir)
	if err != nil {
		return nil, err
	}
	return &floorWriter{root: r, index: index}, nil
}

// write makes the next fact file durable (and INDEX.md, when w.index), and
// returns the fact file's name.
func (w *floorWriter) write() (string, error) {
	w.n++
	name := fmt.Sprintf("fact-floor-%d.md", w.n)
	if !w.index {
		return name, w.root.WriteFile(name, floorFact, 0o644)
	}
	staged, err := w.root.StageAll(
		confined.File{Name: name, Data: floorFact, Perm: 0o644},
		confined.File{Name: "INDEX.md", Data: floorIndex, Perm: 0o644},
	)
	if err != nil {
		return "", err
	}
	defer func() { // what is not committed
		for _, st := range staged {
			st.Discard()
		}
	}()
	for _, st := range staged {
		if err := st.Commit(); err != nil {
			return "", err
		}
	}
	w.root.SyncDir(".")
	return name, nil
}
