package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// The sizes a write floor writes: a fact file as memory_write makes one,
// and INDEX.md at about its budget, as facts.BenchmarkWriteFilesFloor
// writes them.
var (
	floorFact  = []byte("---\nid: fact-0001\ntype: decision\ntitle: The orders service relies on postgres\nscope: project\ntags: [orders, postgres]\nconfidence: medium\nsource: code\ncreated: 2026-01-02\nstatus: active\n---\nMeasured by bench-mcp.\n")
	floorIndex = bytes.Repeat([]byte("- fact-0001 · decision · The orders service relies on postgres\n"), 250)
)

// floorWriter makes files durable in a folder as a memory_write must,
// with the system calls internal/confined makes for it: each file written
// to a temp file beside its name, the write-back of all of them started
// together, each synced and closed, all renamed into place, then the
// folder synced once.
type floorWriter struct {
	dir   *os.File
	index bool // also INDEX.md, staged with the fact
	n     int
}

func newFloorWriter(dir string, index bool) (*floorWriter, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return &floorWriter{dir: d, index: index}, nil
}

// write makes the next fact file durable (and INDEX.md, when w.index), and
// returns the fact file's name.
func (w *floorWriter) write() (name string, err error) {
	w.n++
	name = fmt.Sprintf("fact-floor-%d-%d.md", os.Getpid(), w.n)
	names, data := []string{name}, [][]byte{floorFact}
	if w.index {
		names, data = append(names, "INDEX.md"), append(data, floorIndex)
	}
	temps := make([]*os.File, 0, len(names))
	defer func() {
		if err != nil { // what was not renamed goes
			for _, f := range temps {
				f.Close()
				os.Remove(f.Name())
			}
		}
	}()
	for i, n := range names {
		f, err := os.CreateTemp(w.dir.Name(), ".floor-tmp-"+n+"-")
		if err != nil {
			return "", err
		}
		temps = append(temps, f)
		if _, err := f.Write(data[i]); err != nil {
			return "", err
		}
		if err := f.Chmod(0o644); err != nil { // as Foundry leaves its files
			return "", err
		}
	}
	if len(temps) > 1 {
		for _, f := range temps {
			startWriteBack(f)
		}
	}
	for _, f := range temps {
		if err := f.Sync(); err != nil {
			return "", err
		}
		if err := f.Close(); err != nil {
			return "", err
		}
	}
	for i, f := range temps {
		if err := os.Rename(f.Name(), filepath.Join(w.dir.Name(), names[i])); err != nil {
			return "", err
		}
	}
	_ = w.dir.Sync() // as Foundry, where a folder cannot be synced
	return name, nil
}
