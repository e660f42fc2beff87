package fileid_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/foundryhq/foundry/internal/fileid"
)

// TestIdentity: a file's FileInfo from the operating system gives its
// status-change time, device and inode where the system has them (every
// unix but aix and hurd for the time); one from elsewhere gives none.
func TestIdentity(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	osInfo, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	mapInfo, err := fs.Stat(fstest.MapFS{"f": {Data: []byte("x")}}, "f")
	if err != nil {
		t.Fatal(err)
	}
	unix := runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	hasCtime := unix && runtime.GOOS != "aix" && runtime.GOOS != "hurd"
	tests := []struct {
		name      string
		fi        fs.FileInfo
		ctime, id bool
	}{
		{"from the system", osInfo, hasCtime, unix},
		{"from a map", mapInfo, false, false},
	}
	for _, tt := range tests {
		c := fileid.Ctime(tt.fi)
		if (c != 0) != tt.ctime {
			t.Errorf("%s: Ctime = %d, want one: %v", tt.name, c, tt.ctime)
		}
		if tt.ctime && (c < osInfo.ModTime().UnixNano()-int64(1e9) || c > osInfo.ModTime().UnixNano()+int64(1e9)) {
			t.Errorf("%s: Ctime = %d, not within a second of the file's modification %d", tt.name, c, osInfo.ModTime().UnixNano())
		}
		dev, ino, ok := fileid.Inode(tt.fi)
		if ok != tt.id || ok && ino == 0 || !ok && (dev != 0 || ino != 0) {
			t.Errorf("%s: Inode = %d, %d, %v; want ok %v", tt.name, dev, ino, ok, tt.id)
		}
	}
}
