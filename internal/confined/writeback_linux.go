package confined

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteBack starts writing f's dirty pages to its device without
// waiting for them (see [Root.StageAll]). It is only a hint: the caller
// syncs f after it.
func startWriteBack(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		_ = sc.Control(func(fd uintptr) {
			_ = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
		})
	}
}
