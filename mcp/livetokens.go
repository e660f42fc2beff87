// This file defines the daemon's live tokens: the accepted bearer tokens
// followed as the config and the token file change, so that a token made
// or revoked applies from the next request, without a restart.

package mcp

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/internal/fileid"
)

// liveTokens gives the daemon's accepted tokens as the files that hold them
// say now: the config's mcp.http.tokens, the token file mcp.http.token_file
// names and FOUNDRY_MCP_TOKEN (fixed for the run). Each call stats the
// config and the token file, and reads them again only when either is not
// the file last read (another file, size or modification time) or had not
// settled when read. Its method is HTTPOptions.LiveTokens.
type liveTokens struct {
	o   DaemonOptions // its HTTP block is the one read last
	now func() time.Time

	mu     sync.Mutex
	tokens []Token
	err    error
	cfg    fileStamp // of the config when last read
	file   fileStamp // of the token file when last read
}

// fileStamp is what stats say of a file, to tell whether it is still the
// one read: the name's own (a link itself, for the config) and the file
// read (where the link leads), nil for a missing one.
type fileStamp struct {
	fi      [2]fs.FileInfo
	settled bool // modified more than fileid.RacyWindow before the read
	known   bool
}

// same reports whether fi is what the stamp recorded, settled.
func (s fileStamp) same(fi [2]fs.FileInfo) bool {
	if !s.known || !s.settled {
		return false
	}
	for i := range fi {
		a, b := s.fi[i], fi[i]
		switch {
		case a == nil || b == nil:
			if a != b {
				return false
			}
		case !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) || a.Mode() != b.Mode():
			return false
		}
	}
	return true
}

func newLiveTokens(o DaemonOptions, tokens []Token) *liveTokens {
	return &liveTokens{o: o, now: time.Now, tokens: tokens}
}

// current returns the tokens accepted now, and whether they (or the error)
// changed since the last call.
func (l *liveTokens) current() ([]Token, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cfgFI, cfgErr := l.stat(config.Path)
	fileFI, fileErr := l.statTokenFile(l.o.HTTP.TokenFile)
	if cfgErr == nil && fileErr == nil && l.cfg.same(cfgFI) && l.file.same(fileFI) {
		return l.tokens, false, l.err
	}
	// Stamped before the reads: a change made while they run shows at
	// the next call.
	now := l.now()
	l.cfg = stamp(cfgFI, now)
	tokens, err := l.read()
	if err == nil && cfgErr != nil {
		err = cfgErr
	}
	var changed bool
	switch {
	case err != nil && l.err != nil:
		changed = err.Error() != l.err.Error()
	case err != nil || l.err != nil:
		changed = true
	default:
		changed = !slices.EqualFunc(tokens, l.tokens, Token.same)
	}
	if err != nil {
		tokens = nil
		l.cfg = fileStamp{} // read again at the next call
	}
	l.tokens, l.err = tokens, err
	return tokens, changed, err
}

// read reads the config and the token file it names, and gathers their
// tokens with the environment's as a start does.
func (l *liveTokens) read() ([]Token, error) {
	c, err := config.LoadChecked(l.o.Root.FS())
	if err != nil {
		return nil, err
	}
	// A config that no longer enables the server is one a start refuses:
	// its tokens, none perhaps, must not open the daemon to anyone.
	if err := CheckEnabled(c.MCP); err != nil {
		return nil, err
	}
	l.o.HTTP = c.MCP.HTTP
	// The token file the config names now, stamped before it is read.
	fi, err := l.statTokenFile(l.o.HTTP.TokenFile)
	if err != nil {
		l.file = fileStamp{}
		return nil, err
	}
	l.file = stamp(fi, l.now())
	tokens, err := daemonTokens(l.o)
	if err != nil {
		l.file = fileStamp{}
	}
	return tokens, err
}

// stat stats a file of the project: the name itself and, where it is a
// link, the file it leads to, which its read reads; nil for a missing one.
func (l *liveTokens) stat(name string) ([2]fs.FileInfo, error) {
	link, err := orMissing(fs.Lstat(l.o.Root.FS(), name))
	if err != nil || link == nil || link.Mode()&fs.ModeSymlink == 0 {
		return [2]fs.FileInfo{link, link}, err // no link: the file read is the one stated
	}
	target, err := orMissing(fs.Stat(l.o.Root.FS(), name))
	return [2]fs.FileInfo{link, target}, err
}

// orMissing is a stat's result with a missing file as nil and no error.
func orMissing(fi fs.FileInfo, err error) (fs.FileInfo, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// statTokenFile stats the token file name names, following links as its
// read does; nil for none named or a missing one, which its read reports.
func (l *liveTokens) statTokenFile(name string) ([2]fs.FileInfo, error) {
	if name == "" {
		return [2]fs.FileInfo{}, nil
	}
	fi, err := orMissing(os.Stat(configFilePath(name, l.o.Root.Dir())))
	return [2]fs.FileInfo{fi}, err
}

// stamp records fi, read at now: settled when each file it names was last
// modified more than fileid.RacyWindow before.
func stamp(fi [2]fs.FileInfo, now time.Time) fileStamp {
	s := fileStamp{fi: fi, known: true, settled: true}
	for _, f := range fi {
		if f != nil && !f.ModTime().Before(now.Add(-fileid.RacyWindow)) {
			s.settled = false
		}
	}
	return s
}
