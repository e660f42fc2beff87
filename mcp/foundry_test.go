package mcp_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/git/gittest"
	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
	"github.com/foundryhq/foundry/tokens"
)

// This file drives Foundry's real tools and resources (ProjectRegistry) over
// a copy of the fixture project in testdata/fixture.

// fixtureNow is the clock of every fixture session: it dates new facts.
var fixtureNow = time.Date(2026, 12, 10, 9, 0, 0, 0, time.UTC)

// copyFixture copies testdata/fixture into a fresh folder and returns it.
func copyFixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("testdata", "fixture")
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return root
}

// fixtureSession describes how a transcript's project is prepared and
// served.
type fixtureSession struct {
	root      string
	rev       string
	readOnly  bool
	serveOpts []byte // the options the generic harness understands
}

// prepareFixture copies the fixture, applies the transcript's options
// (git=true commits it, rev=SPEC serves that revision) and writes its
// "worktree/<path>" sections after the commit.
func prepareFixture(t *testing.T, ar *txtar.Archive) fixtureSession {
	t.Helper()
	s := fixtureSession{root: copyFixture(t)}
	git := false
	for i := range ar.Files {
		if ar.Files[i].Name != "options" {
			continue
		}
		var rest []string
		for _, line := range splitLines(ar.Files[i].Data) {
			key, val, _ := strings.Cut(strings.TrimSpace(line), "=")
			switch key {
			case "git":
				git = val == "true"
			case "rev":
				s.rev, git = val, true
			default:
				if key == "read-only" {
					s.readOnly = val == "true"
				}
				rest = append(rest, line)
			}
		}
		s.serveOpts = []byte(strings.Join(rest, "\n"))
	}
	if git {
		repo := gittest.Init(t, s.root)
		repo.CommitAll("fixture")
	}
	for _, f := range ar.Files {
		if rel, ok := strings.CutPrefix(f.Name, "worktree/"); ok {
			testenv.WriteFile(t, s.root, rel, string(f.Data))
		}
	}
	return s
}

// registry opens the project and builds its registry.
func (s fixtureSession) registry(t *testing.T) *mcp.Registry {
	t.Helper()
	p, err := project.OpenRoot(s.root, project.Source{Rev: s.rev})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Now:      func() time.Time { return fixtureNow },
		ReadOnly: s.readOnly || s.rev != "",
		// As foundry mcp serve does: every transcript exercises the store
		// that learns changes from file-system events.
		WatchMemory: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

// TestFoundryConformance replays the transcripts in
// testdata/conformance/foundry against the real tools over a copy of the
// fixture project, with the directives of [TestConformance]. Beyond the
// sections TestConformance knows, a transcript may hold:
//
//	options         also git=true (commit the fixture) and rev=SPEC (serve
//	                that revision, read-only, as foundry mcp serve --rev)
//	worktree/<path> a file written into the project after the commit
//	events          the kinds recorded in .foundry/metrics/events.jsonl
//	                during the session, in order
//
// The project's folder appears as $ROOT in the server lines.
func TestFoundryConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "foundry", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/conformance/foundry")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			// Not parallel: pause points are configured through the environment.
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(bytes.TrimSpace(ar.Comment)) == 0 {
				t.Error("transcript has no prose header")
			}
			sections := map[string]*txtar.File{}
			for i := range ar.Files {
				sections[ar.Files[i].Name] = &ar.Files[i]
			}
			client, server := sections["client"], sections["server"]
			if client == nil || server == nil {
				t.Fatal("transcript needs client and server sections")
			}
			s := prepareFixture(t, ar)
			got := runSession(t, s, client.Data)
			got = bytes.ReplaceAll(got, []byte(s.root), []byte("$ROOT"))
			gotEvents := eventKinds(t, s.root)
			if *update {
				server.Data = got
				if ev := sections["events"]; ev != nil {
					ev.Data = gotEvents
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(splitLines(server.Data), splitLines(got)); diff != "" {
				t.Errorf("server lines (-want +got):\n%s", diff)
			}
			if ev := sections["events"]; ev != nil {
				if diff := cmp.Diff(splitLines(ev.Data), splitLines(gotEvents)); diff != "" {
					t.Errorf("recorded events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// runSession serves the fixture's registry and plays the client lines, as
// runTranscript does for the fake registry.
func runSession(t *testing.T, s fixtureSession, client []byte) []byte {
	t.Helper()
	opts, pause := parseOptions(t, s.serveOpts)
	opts.Registry = s.registry(t)
	opts.ReadOnly = opts.ReadOnly || s.rev != ""
	return playSession(t, opts, pause, client)
}

// eventKinds returns the kinds in the project's event log, one per line.
func eventKinds(t *testing.T, root string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(tokens.EventsPath)))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, line := range splitLines(data) {
		var e tokens.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		b.WriteString(e.Kind + "\n")
	}
	return b.Bytes()
}

// TestFoundrySchemasCompile: the server compiles tool schemas on first use,
// so their validity is checked here, all at once.
func TestFoundrySchemasCompile(t *testing.T) {
	t.Parallel()
	p, err := project.OpenRoot(t.TempDir(), project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.ToolNames()) < 10 {
		t.Fatalf("tools = %q", reg.ToolNames())
	}
	if err := reg.Compile(); err != nil {
		t.Error(err)
	}
}

// TestConfigKnowsTheCapabilities holds config's lists of scopes and
// capability names, which config files are checked against, to the
// registry the server serves: a name config refuses would be refused at
// start, and one it accepts is served.
func TestConfigKnowsTheCapabilities(t *testing.T) {
	t.Parallel()
	p, err := project.OpenRoot(copyFixture(t), project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	catalog, err := reg.Catalog(mcp.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	var names, scopes []string
	for _, c := range catalog {
		names = append(names, c.Name)
		if !slices.Contains(scopes, c.Scope) {
			scopes = append(scopes, c.Scope)
		}
	}
	sortedOf := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	if diff := cmp.Diff(sortedOf(config.MCPCapabilities), sortedOf(names)); diff != "" {
		t.Errorf("config.MCPCapabilities (-config +registry):\n%s", diff)
	}
	if diff := cmp.Diff(sortedOf(config.MCPScopes), sortedOf(scopes)); diff != "" {
		t.Errorf("config.MCPScopes (-config +registry):\n%s", diff)
	}
}
