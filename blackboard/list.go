package blackboard

// This file defines the overview of the blackboard (blackboard list) and
// the archiving of a finished wave (blackboard archive).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/foundryhq/foundry/internal/confined"
)

// ArchiveDir holds archived waves, relative to the project root: outside
// Dir, so reads, doctor and validate --auto no longer see them, and still
// in the working tree, so git keeps them.
const ArchiveDir = ".foundry/archive/blackboard"

// WriteLock is the blackboard's lock file, relative to the project root
// (gitignored): an artifact is written, and a wave archived, while holding
// it.
const WriteLock = Dir + "/.lock"

// WaveSummary is one wave of [Board.List].
type WaveSummary struct {
	Wave      string   `json:"wave"`
	Artifacts int      `json:"artifacts"`
	Agents    []string `json:"agents"`  // artifact file names without .json, sorted
	Invalid   []string `json:"invalid"` // the agents whose artifact is unreadable or rejected by its contract
}

// ListResult is the overview of the blackboard.
type ListResult struct {
	Waves []WaveSummary `json:"waves"`
}

// Text renders one line per wave:
//
//	audit · 3 artifacts · access-auditor, appsec-reviewer, audit-lead
//	build · 2 artifacts · implementer, tester · 1 invalid: tester
func (r ListResult) Text() string {
	if len(r.Waves) == 0 {
		return "The blackboard has no waves yet.\n"
	}
	var b strings.Builder
	for _, w := range r.Waves {
		noun := "artifacts"
		if w.Artifacts == 1 {
			noun = "artifact"
		}
		fmt.Fprintf(&b, "%s · %d %s", w.Wave, w.Artifacts, noun)
		if len(w.Agents) > 0 {
			fmt.Fprintf(&b, " · %s", strings.Join(w.Agents, ", "))
		}
		if len(w.Invalid) > 0 {
			fmt.Fprintf(&b, " · %d invalid: %s", len(w.Invalid), strings.Join(w.Invalid, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// List summarises every wave: its agents, how many artifacts it holds and
// which of them are invalid (unreadable, or rejected by their contract).
func (b *Board) List(ctx context.Context) (ListResult, error) {
	waves, err := b.Waves(ctx)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Waves: []WaveSummary{}}
	var reg Contracts
	for _, wave := range waves {
		names, err := b.artifactNames(ctx, wave)
		if err != nil {
			return ListResult{}, err
		}
		s := WaveSummary{Wave: wave, Artifacts: len(names), Agents: []string{}, Invalid: []string{}}
		err = b.readChecked(ctx, wave, names, false, &reg, func(a Artifact) {
			s.Agents = append(s.Agents, a.Agent)
			if a.Problem != "" || a.Invalid {
				s.Invalid = append(s.Invalid, a.Agent)
			}
		})
		if err != nil {
			return ListResult{}, err
		}
		res.Waves = append(res.Waves, s)
	}
	return res, nil
}

// ArchiveResult says where [Board.Archive] moved a wave.
type ArchiveResult struct {
	Wave      string `json:"wave"`
	From      string `json:"from"` // project-relative
	To        string `json:"to"`   // project-relative
	Artifacts int    `json:"artifacts"`
}

// Archive moves a finished wave from the blackboard to [ArchiveDir]: reads
// no longer see it, git keeps it. An archived wave of the same name is never
// overwritten.
func (b *Board) Archive(ctx context.Context, wave string) (ArchiveResult, error) {
	wave, err := sanitizeField("wave", wave)
	if err != nil {
		return ArchiveResult{}, err
	}
	if b.opts.Root == "" {
		return ArchiveResult{}, fmt.Errorf("archive wave: %w", ErrReadOnly)
	}
	from := path.Join(Dir, wave)
	root, err := confined.Open(b.opts.Root)
	if err != nil {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
	}
	defer root.Close()
	// The wave itself is moved, so it must be a real folder: a link would
	// be archived as a link, and git would keep no artifact of it.
	to := path.Join(ArchiveDir, wave)
	for _, p := range []string{from, to} {
		if err := root.NoFollow(p); err != nil {
			return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
		}
	}
	if _, err := b.artifactNames(ctx, wave); err != nil {
		return ArchiveResult{}, err // an unknown wave
	}
	// Under the blackboard's lock no writer adds to the wave while it
	// moves, and two archives cannot both find the archive name free.
	unlock, err := root.Lock(ctx, WriteLock)
	if err != nil {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
	}
	defer func() { _ = unlock() }()
	names, err := b.artifactNames(ctx, wave)
	if err != nil {
		return ArchiveResult{}, err
	}
	res := ArchiveResult{Wave: wave, From: from, To: to, Artifacts: len(names)}
	if _, err := root.Lstat(res.To); err == nil {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w: %s", wave, ErrArchived, res.To)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
	}
	if err := root.MkdirAll(ArchiveDir); err != nil {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
	}
	if err := root.Rename(res.From, res.To); err != nil {
		return ArchiveResult{}, fmt.Errorf("archive wave %s: %w", wave, err)
	}
	return res, nil
}
