//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the processor time the process has used, user and system:
// a benchmark reports it per operation where the wall time is mostly the
// machine's (a device's sync, another process), to compare two builds.
func CPUTime() time.Duration {
	user, system := usage()
	return user + system
}

// UserTime is the processor time the process has used in user mode: what
// its own code costs, apart from the kernel's share (see [CPUTime]).
func UserTime() time.Duration {
	user, _ := usage()
	return user
}

// usage is the process's processor time in user and in system mode, zero
// when it cannot be read.
func usage() (user, system time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
