package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteNew writes data to path atomically unless path exists, in which case
// it returns an error wrapping fs.ErrExist and changes nothing. The file
// appears complete or not at all: the content goes to a temp file that is
// then hard-linked to path, and link(2) never replaces an existing file, so
// of two concurrent callers exactly one wins.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, TempPrefix+base+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if le, ok := err.(*os.LinkError); ok && os.IsExist(le.Err) {
			return fmt.Errorf("write %s: %w", path, fs.ErrExist)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}
