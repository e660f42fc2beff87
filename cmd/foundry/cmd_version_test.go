package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersionFrom(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    versionInfo
	}{
		{"go install @tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, versionInfo{Version: "v1.4.0"}},
		{"build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, versionInfo{Version: "(devel)", Commit: "0123abcd", Modified: true}},
		{"ldflags win", "v2.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, versionInfo{Version: "v2.0.0"}},
		{"no build info", "", nil, versionInfo{Version: "(devel)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want.Go, tt.want.Contracts = runtime.Version(), contractsGeneration
			got := versionFrom(tt.stamped, tt.bi, tt.bi != nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
