//go:build !unix

package testenv

import "time"

// CPUTime is zero where the process's processor time is not read (see the
// unix version).
func CPUTime() time.Duration { return 0 }

// UserTime is zero where the process's processor time is not read.
func UserTime() time.Duration { return 0 }
