package doctor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/internal/confined"
	"github.com/foundryhq/foundry/project"
)

// TestStaleTemp: doctor reports a temp file of a killed writer once it is
// older than confined.StaleAge, never a younger one (a live writer may own
// it), and --fix removes exactly the reported ones.
func TestStaleTemp(t *testing.T) {
	t.Parallel()
	const tmp = ".foundry/memory/" + confined.TempPrefix + "fact-0009-x.md-0a1b2c"
	for _, tc := range []struct {
		name    string
		age     time.Duration
		want    []brief
		removed bool
	}{
		{name: "fresh", age: 0},
		{name: "a minute old", age: time.Minute},
		{name: "just under the bound", age: confined.StaleAge - time.Minute},
		{name: "at the bound", age: confined.StaleAge},
		{name: "over the bound", age: confined.StaleAge + 30*time.Minute, removed: true, want: []brief{{
			Check: doctor.CheckStaleTemp, File: tmp,
			Message: "temporary file left by a killed writer 1h30m0s ago; a later write holding the folder's lock removes it",
		}}},
		{name: "a day old", age: 24 * time.Hour, removed: true, want: []brief{{
			Check: doctor.CheckStaleTemp, File: tmp,
			Message: "temporary file left by a killed writer 24h0m0s ago; a later write holding the folder's lock removes it",
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := cleanProject(t)
			p := filepath.Join(dir, filepath.FromSlash(tmp))
			writeFiles(t, dir, map[string]string{tmp: "half a fact"})
			mtime := clock().Add(-tc.age)
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			rep := runDoctor(t, dir, project.Source{}, true)
			if diff := cmp.Diff(tc.want, briefs(rep)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			changes, err := doctor.Fix(context.Background(), doctor.Env{Project: open(t, dir, project.Source{}), Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			var want []doctor.Change
			if tc.removed {
				want = []doctor.Change{{Check: doctor.CheckStaleTemp, Path: tmp, Message: "removed " + tmp + ", a temporary file left by a killed writer"}}
			}
			if diff := cmp.Diff(want, changes); diff != "" {
				t.Errorf("fix (-want +got):\n%s", diff)
			}
			_, err = os.Lstat(p)
			if gone := os.IsNotExist(err); gone != tc.removed {
				t.Errorf("after fix the temp file is gone = %v, want %v (%v)", gone, tc.removed, err)
			}
		})
	}
}
