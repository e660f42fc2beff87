// This file reads a split index (core.splitIndex): the index file holds a
// "link" extension naming a shared index file, sharedindex.<id>, plus the
// entries that replace shared ones and the entries added to it; two EWAH
// bitmaps say which shared entries are replaced and which deleted (see
// Documentation/gitformat-index.txt and split-index.c in git). The two are
// merged into one ordinary index, which indexFile then reads.

package git

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// readSplitIndex merges the split part ix (whose "link" payload is link)
// with the shared index that load returns for its id, or reports
// ErrIndexUnsupported saying what is wrong.
func readSplitIndex(ix *indexFile, link []byte, load func(name string) ([]byte, error)) (*indexFile, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrIndexUnsupported, "a split index (core.splitIndex)"}, args...)...)
	}
	if len(link) < indexHashLen {
		return nil, bad("link extension too short")
	}
	var base plumbing.Hash
	copy(base[:], link)
	var shared *indexFile
	if base.IsZero() {
		shared = &indexFile{}
	} else {
		name := "sharedindex." + base.String()
		data, err := load(name)
		if err != nil {
			return nil, bad("read %s: %v", name, err)
		}
		// git checks the shared file is the one linked: its trailing hash.
		if len(data) < indexHashLen || !bytes.Equal(data[len(data)-indexHashLen:], base[:]) {
			return nil, bad("%s does not end with its id", name)
		}
		var link2 []byte
		if shared, link2, err = parseIndexParts(data); err != nil {
			return nil, err
		}
		if link2 != nil {
			return nil, bad("%s is itself split", name)
		}
	}

	rest := link[indexHashLen:]
	var deleted, replaced []uint64
	if len(rest) > 0 {
		var n int
		var ok bool
		if deleted, n, ok = parseEWAH(rest, shared.len()); !ok {
			return nil, bad("delete bitmap")
		}
		rest = rest[n:]
		if replaced, n, ok = parseEWAH(rest, shared.len()); !ok || n != len(rest) {
			return nil, bad("replace bitmap")
		}
	}

	// One slot per entry of the result, in shared order first.
	type slot struct {
		from *indexFile
		i    int
		name string
	}
	slots := make([]slot, shared.len())
	for i := range slots {
		slots[i] = slot{shared, i, shared.name(i)}
	}
	next := 0 // the split part's next entry
	for _, pos := range replaced {
		if pos >= uint64(len(slots)) || next >= ix.len() || ix.name(next) != "" {
			return nil, bad("replacement %d", pos)
		}
		slots[pos].from, slots[pos].i = ix, next
		next++
	}
	for _, pos := range deleted {
		if pos >= uint64(len(slots)) || slots[pos].from == ix {
			return nil, bad("deletion %d", pos)
		}
		slots[pos].from = nil
	}
	slots = slices.DeleteFunc(slots, func(s slot) bool { return s.from == nil })
	stage := func(s slot) int { return s.from.stage(s.i) }
	cmpSlots := func(a, b slot) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return stage(a) - stage(b)
	}
	for ; next < ix.len(); next++ {
		s := slot{ix, next, ix.name(next)}
		if s.name == "" {
			return nil, bad("entry %d has no name", next)
		}
		// An added entry replaces a shared one of the same name and stage.
		if i, found := slices.BinarySearchFunc(slots, s, cmpSlots); found {
			slots[i] = s
		} else {
			slots = slices.Insert(slots, i, s)
		}
	}

	// Write the result as an ordinary version 3 index, with the split
	// part's cache-tree.
	var b bytes.Buffer
	b.WriteString("DIRC")
	b.Write(binary.BigEndian.AppendUint32(nil, 3))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(slots))))
	for _, s := range slots {
		e := s.from.ents[s.i]
		fixed := bytes.Clone(s.from.data[e.off : e.off+entryFlagsOff])
		flags := uint16(min(len(s.name), flagNameMask)) | uint16(stage(s))<<12
		if e.extendedFl != 0 {
			flags |= flagExtended
		}
		start := b.Len()
		b.Write(fixed)
		b.Write(binary.BigEndian.AppendUint16(nil, flags))
		if e.extendedFl != 0 {
			b.Write(binary.BigEndian.AppendUint16(nil, e.extendedFl))
		}
		b.WriteString(s.name)
		b.Write(make([]byte, 8-(b.Len()-start)%8))
	}
	if ix.tree != nil {
		b.WriteString("TREE")
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(ix.tree))))
		b.Write(ix.tree)
	}
	b.Write(make([]byte, indexHashLen))
	return parseIndex(b.Bytes())
}

// parseEWAH reads one bitmap as git's ewah_read_mmap does — a 32-bit bit
// count, a 32-bit word count, the 64-bit words, a 32-bit position of the
// last run-length word — and returns the positions of its set bits in
// increasing order and the bytes it took. A bit past max (the shared
// index's entry count) is refused, which also bounds the work. Each run-length word holds a
// running bit (bit 0), a run length in words (bits 1–32) and the number of
// literal words that follow it (bits 33–63).
func parseEWAH(b []byte, max int) (bits []uint64, n int, ok bool) {
	if len(b) < 8 {
		return nil, 0, false
	}
	size := uint64(binary.BigEndian.Uint32(b))
	words := int(binary.BigEndian.Uint32(b[4:]))
	if size > uint64(max) || len(b) < 12 || words > (len(b)-12)/8 {
		return nil, 0, false
	}
	n = 8 + 8*words + 4
	word := func(i int) uint64 { return binary.BigEndian.Uint64(b[8+8*i:]) }
	var pos uint64
	for i := 0; i < words; {
		rlw := word(i)
		run := (rlw >> 1) & (1<<32 - 1)
		lits := int(rlw >> 33)
		if lits > words-i-1 || pos+run*64 > size+63 {
			return nil, 0, false
		}
		if rlw&1 != 0 {
			for k := range run * 64 {
				bits = append(bits, pos+k)
			}
		}
		pos += run * 64
		for k := 1; k <= lits; k++ {
			w := word(i + k)
			for bit := range 64 {
				if w&(1<<bit) != 0 {
					bits = append(bits, pos+uint64(bit))
				}
			}
			pos += 64
		}
		i += lits + 1
	}
	// Bits past the declared size are padding of the last word.
	bits = slices.DeleteFunc(bits, func(p uint64) bool { return p >= size })
	return bits, n, true
}
