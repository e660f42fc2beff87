// This file reads reflogs (.git/logs/<ref>), which are untrusted input:
// lines are parsed as git parses them, skipping what git skips, and files
// are read backwards in blocks up to maxReflogBytes.

package git

import (
	"bytes"
	"encoding/hex"
	"io"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/foundryhq/foundry/internal/confined"
)

// maxReflogBytes bounds how much of one reflog a revision reads, from its
// end: at about 150 bytes a line it holds some hundred thousand entries,
// far more than git keeps (90 days by default).
const maxReflogBytes = 16 * confined.MiB

// reflogBlock is how much of a reflog is read at a time.
const reflogBlock = 64 * confined.KiB

// reflogEntry is one line of a reflog: the ref moved from old to new.
type reflogEntry struct {
	old, new plumbing.Hash
	msg      string
}

// parseReflogLine reads one reflog line without its newline,
//
//	<old> SP <new> SP <name> SP <<email>> SP <time> SP <±hhmm> [TAB <message>]
//
// ok is false for a line git skips as corrupt (show_one_reflog_ent in
// refs/files-backend.c): malformed ids, no "> " after the email, a zero or
// missing time, a malformed zone.
func parseReflogLine(line []byte) (e reflogEntry, ok bool) {
	const idLen = 2 * len(plumbing.ZeroHash)
	if len(line) < 2*idLen+2 || line[idLen] != ' ' || line[2*idLen+1] != ' ' {
		return e, false
	}
	if _, err := hex.Decode(e.old[:], line[:idLen]); err != nil {
		return e, false
	}
	if _, err := hex.Decode(e.new[:], line[idLen+1:2*idLen+1]); err != nil {
		return e, false
	}
	rest := line[2*idLen+2:]
	gt := bytes.IndexByte(rest, '>')
	if gt < 0 || gt+1 >= len(rest) || rest[gt+1] != ' ' {
		return e, false
	}
	rest = rest[gt+2:]
	digits, nonzero := 0, false
	for digits < len(rest) && isDigit(rest[digits]) {
		nonzero = nonzero || rest[digits] != '0'
		digits++
	}
	if !nonzero {
		return e, false
	}
	rest = rest[digits:]
	if len(rest) < 6 || rest[0] != ' ' || rest[1] != '+' && rest[1] != '-' ||
		!isDigit(rest[2]) || !isDigit(rest[3]) || !isDigit(rest[4]) || !isDigit(rest[5]) {
		return e, false
	}
	if msg := rest[6:]; len(msg) > 0 && msg[0] == '\t' {
		e.msg = string(msg[1:])
	}
	return e, true
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// eachReflogEntry calls yield with the entries of the reflog in f (size
// bytes, named name for errors), newest first, until yield returns false.
// It reads f backwards in blocks, so the newest entries cost one block
// however long the log; needing more than maxReflogBytes from the end is an
// error wrapping [confined.ErrTooLarge]. As in git, a last line with no
// newline is incomplete and skipped, and so is a corrupt line.
func eachReflogEntry(f io.ReaderAt, size int64, name string, yield func(reflogEntry) bool) error {
	return scanReflog(f, size, name, reflogBlock, maxReflogBytes, yield)
}

// scanReflog is eachReflogEntry reading block bytes at a time and at most
// limit bytes from the end.
func scanReflog(f io.ReaderAt, size int64, name string, block, limit int64, yield func(reflogEntry) bool) error {
	var data []byte // f[pos:lim] for the end lim of the lines not yet yielded
	pos := size
	dropTail := true // the bytes after the last newline are not yet dropped
	for {
		for {
			if dropTail {
				j := bytes.LastIndexByte(data, '\n')
				if j < 0 {
					break
				}
				data, dropTail = data[:j+1], false
			}
			if len(data) == 0 {
				break
			}
			i := bytes.LastIndexByte(data[:len(data)-1], '\n')
			if i < 0 && pos > 0 {
				break // the line starts in an earlier block
			}
			if e, ok := parseReflogLine(data[i+1 : len(data)-1]); ok && !yield(e) {
				return nil
			}
			data = data[:i+1]
		}
		if pos == 0 {
			return nil
		}
		if size-pos >= limit {
			return &fs.PathError{Op: "read", Path: name, Err: &confined.TooLargeError{
				Path: name, Size: size, Limit: confined.Limit{Kind: "reflog", Max: limit},
			}}
		}
		n := min(block, pos, limit-(size-pos))
		pos -= n
		chunk := make([]byte, n, int(n)+len(data))
		if _, err := f.ReadAt(chunk, pos); err != nil && err != io.EOF {
			return &fs.PathError{Op: "read", Path: name, Err: err}
		}
		data = append(chunk, data...)
	}
}
