package blackboard

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/testenv"
)

// listsFS counts the folders listed through it, by ReadDir on the file
// system or on an opened folder.
type listsFS struct {
	fsys  fs.FS
	lists map[string]int
}

func (f listsFS) Open(name string) (fs.File, error) {
	file, err := f.fsys.Open(name)
	if d, ok := file.(fs.ReadDirFile); ok && err == nil {
		return listsDir{d, name, f.lists}, nil
	}
	return file, err
}

func (f listsFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f.lists[name]++
	return fs.ReadDir(f.fsys, name)
}

func (f listsFS) Stat(name string) (fs.FileInfo, error)  { return fs.Stat(f.fsys, name) }
func (f listsFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(f.fsys, name) }
func (f listsFS) ReadLink(name string) (string, error)   { return fs.ReadLink(f.fsys, name) }

type listsDir struct {
	fs.ReadDirFile
	name  string
	lists map[string]int
}

func (d listsDir) ReadDir(n int) ([]fs.DirEntry, error) {
	d.lists[d.name]++
	return d.ReadDirFile.ReadDir(n)
}

// TestReadAgentListsNothing: reading one agent's artifact, found under its
// exact name, does not list the wave, in a map and on disk, and reads as
// the same entry a read of the whole wave gives; a miss lists the wave to
// name its agents, as before.
func TestReadAgentListsNothing(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	for name, f := range wave {
		testenv.WriteFile(t, root, name, string(f.Data))
	}
	ctx := context.Background()
	for _, src := range []struct {
		name string
		fsys fs.FS
	}{{"map", wave}, {"disk", os.DirFS(root)}} {
		t.Run(src.name, func(t *testing.T) {
			t.Parallel()
			all, err := Open(src.fsys, Options{}).Read(ctx, ReadRequest{Wave: "audit", Full: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range all.Artifacts {
				f := listsFS{src.fsys, map[string]int{}}
				got, err := Open(f, Options{}).Read(ctx, ReadRequest{Wave: "audit", Agent: a.Agent, Full: true})
				if err != nil {
					t.Fatalf("%s: %v", a.Agent, err)
				}
				if n := f.lists[Dir+"/audit"]; n != 0 {
					t.Errorf("%s: the wave was listed %d times", a.Agent, n)
				}
				want := ReadResult{Wave: "audit", Full: true, Artifacts: []Artifact{a}, Total: 1, Agent: a.Agent}
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(Artifact{})); diff != "" {
					t.Errorf("%s (-want +got):\n%s", a.Agent, diff)
				}
			}
			f := listsFS{src.fsys, map[string]int{}}
			_, err = Open(f, Options{}).Read(ctx, ReadRequest{Wave: "audit", Agent: "nobody"})
			if !errors.Is(err, ErrNoArtifact) || !strings.Contains(err.Error(), "(agents: a-summary, b-title,") {
				t.Errorf("miss: %v, want the wave's agents named", err)
			}
			if f.lists[Dir+"/audit"] == 0 {
				t.Error("miss: the wave was not listed")
			}
		})
	}
}

// foldFS answers as a folder that ignores case does: a name that is not
// there is looked up again in lower case, and finds that file.
type foldFS struct{ fstest.MapFS }

func (f foldFS) fold(name string) string {
	if _, ok := f.MapFS[name]; ok {
		return name
	}
	return path.Join(path.Dir(name), strings.ToLower(path.Base(name)))
}

func (f foldFS) Open(name string) (fs.File, error)      { return f.MapFS.Open(f.fold(name)) }
func (f foldFS) Stat(name string) (fs.FileInfo, error)  { return f.MapFS.Stat(f.fold(name)) }
func (f foldFS) Lstat(name string) (fs.FileInfo, error) { return f.MapFS.Lstat(f.fold(name)) }
func (f foldFS) ReadFile(name string) ([]byte, error)   { return f.MapFS.ReadFile(f.fold(name)) }

// TestExactName: the exact name is proven only where the case-swapped
// name is not found; a folder that ignores case (both names find the same
// file), a file under the swapped name, a folder under the name and a
// missing name are not, and the caller lists the wave.
func TestExactName(t *testing.T) {
	t.Parallel()
	art := file(`{"schema":"note.v1","producedBy":"a","summary":"s"}`)
	tests := []struct {
		name string
		fsys fs.FS
		look string
		want bool
	}{
		{"case-sensitive", fstest.MapFS{"w/agent.json": art}, "agent.json", true},
		{"case-sensitive, mixed case", fstest.MapFS{"w/Agent.json": art}, "Agent.json", true},
		{"case ignored, same name", foldFS{fstest.MapFS{"w/agent.json": art}}, "agent.json", false},
		{"case ignored, other case", foldFS{fstest.MapFS{"w/agent.json": art}}, "Agent.json", false},
		{"swapped name is a file of its own", fstest.MapFS{"w/agent.json": art, "w/AGENT.JSON": art}, "agent.json", false},
		{"missing", fstest.MapFS{"w/other.json": art}, "agent.json", false},
		{"a folder", fstest.MapFS{"w/agent.json/x": art}, "agent.json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := exactName(tt.fsys, "w", tt.look); got != tt.want {
				t.Errorf("exactName(%s) = %v, want %v", tt.look, got, tt.want)
			}
		})
	}
}

// TestReadAgentCaseIgnored: on a folder that ignores case, an agent read
// takes the listing, so an agent named in another case than its file's is
// no artifact, as on any other folder, and the exact one reads.
func TestReadAgentCaseIgnored(t *testing.T) {
	t.Parallel()
	base := fstest.MapFS{
		Dir + "/w/agent.json": file(`{"schema":"note.v1","producedBy":"agent","summary":"s"}`),
		Dir + "/w/other.json": file(`{"schema":"note.v1","producedBy":"other","summary":"t"}`),
	}
	ctx := context.Background()
	f := listsFS{foldFS{base}, map[string]int{}}
	b := Open(f, Options{})
	_, err := b.Read(ctx, ReadRequest{Wave: "w", Agent: "Agent"})
	if want := `no artifact by "Agent" in wave w (agents: agent, other)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read(Agent) = %v, want %q", err, want)
	}
	res, err := b.Read(ctx, ReadRequest{Wave: "w", Agent: "agent"})
	if err != nil || len(res.Artifacts) != 1 || res.Artifacts[0].Name != "agent.json" || res.Total != 1 {
		t.Errorf("Read(agent) = %+v, %v", res, err)
	}
	if n := f.lists[Dir+"/w"]; n != 2 {
		t.Errorf("the wave was listed %d times, want 2 (once per read)", n)
	}
}
