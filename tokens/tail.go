package tokens

// This file defines the incremental count of the event log: a log only
// grows by whole lines appended (see Log), so what was counted stays
// counted while the file is the same one, and a report reads the lines
// appended since the last.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/foundryhq/foundry/internal/fileid"
)

// tailCheck bounds the bytes of the log, just before the offset counted
// to, that eventTail keeps and compares again before it counts on.
const tailCheck = 128

// eventTail is the count of the event log as of its last reading: the file
// (device and inode), the whole lines counted, up to offset, and their
// counts. A later reading counts on from offset when the file is the same
// one, no shorter, and still holds the bytes counted last just before
// offset; otherwise (the log replaced, as a compaction replaces it,
// truncated, or rewritten in place) it counts the log again from its
// start. Only a log rewritten in place that keeps its file, grows and
// holds the same bytes just before the offset passes for one appended to:
// Foundry never rewrites it so (an append appends, a compaction replaces
// the file, a failed append cuts it back to the lines it held). A last line
// without its newline is one being written: it is counted as [ReadEvents]
// counts it (malformed), in that reading only, and read again, whole, by
// the next. Its zero value has counted nothing.
type eventTail struct {
	known     bool
	dev, ino  uint64
	offset    int64
	last      []byte // the log's tailCheck bytes, at most, before offset
	counts    map[string]int
	total     int
	malformed int
}

// read is [ReadEvents] of fsys, counting on from the last reading.
func (t *eventTail) read(fsys fs.FS) (EventCounts, error) {
	f, err := fsys.Open(EventsPath)
	if errors.Is(err, fs.ErrNotExist) {
		*t = eventTail{}
		return EventCounts{Counts: []EventCount{}}, nil
	}
	if err != nil {
		*t = eventTail{}
		return EventCounts{}, fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	c, err := t.count(f)
	if err != nil {
		*t = eventTail{}
		return EventCounts{}, fmt.Errorf("read events: %w", err)
	}
	return c, nil
}

// count counts the events of the open log f. A file with no identity, or
// one that cannot be read at an offset, is counted whole every time.
func (t *eventTail) count(f fs.File) (EventCounts, error) {
	ra, at := f.(io.ReaderAt)
	fi, err := f.Stat()
	var dev, ino uint64
	ok := false
	if err == nil {
		dev, ino, ok = fileid.Inode(fi)
	}
	if !at || !ok {
		*t = eventTail{}
		return countEvents(f)
	}
	if !t.known || t.dev != dev || t.ino != ino || fi.Size() < t.offset || !t.holds(ra) {
		*t = eventTail{known: true, dev: dev, ino: ino, counts: map[string]int{}}
	}
	// To the end of the file, not to the size stated: as ReadEvents
	// reads, lines appended meanwhile included.
	br := bufio.NewReader(io.NewSectionReader(ra, t.offset, math.MaxInt64-t.offset))
	partial := 0 // a last line without its newline: malformed, this once
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			t.add(line)
		} else if len(bytes.TrimSpace(line)) > 0 {
			partial = 1
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return EventCounts{}, err
		}
	}
	return EventCounts{Counts: orderCounts(t.counts), Total: t.total, Malformed: t.malformed + partial}, nil
}

// add counts one whole line, its newline included, as countEvents does,
// and moves the offset past it.
func (t *eventTail) add(line []byte) {
	switch kind, ok := eventKind(line); {
	case ok:
		t.counts[kind]++
		t.total++
	case len(bytes.TrimSpace(line)) > 0:
		t.malformed++
	}
	t.offset += int64(len(line))
	if len(line) >= tailCheck {
		t.last = append(t.last[:0], line[len(line)-tailCheck:]...)
	} else {
		t.last = append(t.last, line...)
		t.last = t.last[max(0, len(t.last)-tailCheck):]
	}
}

// holds reports whether the log still holds, just before the offset, the
// bytes counted last.
func (t *eventTail) holds(ra io.ReaderAt) bool {
	if len(t.last) == 0 {
		return true
	}
	b := make([]byte, len(t.last))
	n, err := ra.ReadAt(b, t.offset-int64(len(b)))
	return n == len(b) && (err == nil || errors.Is(err, io.EOF)) && bytes.Equal(b, t.last)
}
