//go:build !race

package contracts

// raceEnabled reports a -race build, where sync.Pool drops a share of what
// it is given on purpose, so allocation counts that rely on it do not hold.
const raceEnabled = false
