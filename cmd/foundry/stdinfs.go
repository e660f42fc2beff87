// This file defines the one-file file system that lets validate read an
// artifact from stdin ("-") through the same reader as files.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/foundryhq/foundry/artifacts"
)

// stdinName is the name of the document read from stdin in its FS.
const stdinName = "stdin"

// promptTerminal says on stderr what is read from stdin, and how to end
// it, when stdin is a terminal: a person who runs the command without
// piping anything in would otherwise see it wait without a word. Piped or
// redirected input gets no prompt.
func promptTerminal(stdin io.Reader, stderr io.Writer, what, instead string) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(stderr, "reading %s from the terminal: end it with Ctrl-D on a line of its own (%s)\n", what, instead)
	}
}

// readAll reads r to its end, at most limit bytes, or returns as soon as
// ctx is done (interrupted) with its error and cause: stdin blocks until
// whoever writes it closes it, and an interrupt must end the command, not
// wait for that. The abandoned read ends with the process.
func readAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", ctx.Err(), context.Cause(ctx))
	}
}

// readStdinFS reads r, at most artifacts.MaxBytes (one byte more is read to
// tell a larger input), into a file system holding it as stdinName.
func readStdinFS(ctx context.Context, r io.Reader) (fs.FS, error) {
	data, err := readAll(ctx, r, artifacts.MaxBytes+1)
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	size := int64(len(data))
	if size > artifacts.MaxBytes {
		// Stdin holds more than was read, how much more is not known: the
		// reader then says it is over the limit without naming a size.
		size = -1
	}
	return memFile{data, size}, nil
}

// memFile is an fs.FS of one regular file, stdinName, whose size is -1
// when it is over artifacts.MaxBytes.
type memFile struct {
	data []byte
	size int64
}

func (m memFile) Open(name string) (fs.File, error) {
	if name != stdinName {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openMem{Reader: bytes.NewReader(m.data), size: m.size}, nil
}

type openMem struct {
	*bytes.Reader
	size int64
}

func (f *openMem) Stat() (fs.FileInfo, error) { return memInfo{f.size}, nil }
func (f *openMem) Close() error               { return nil }

type memInfo struct{ size int64 }

func (i memInfo) Name() string       { return stdinName }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
