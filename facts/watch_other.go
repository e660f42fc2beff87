//go:build !linux

package facts

import "errors"

// newWatcher reports that this platform has no watcher whose pending events
// can be drained synchronously at the start of a request; the store then
// revalidates on every call.
func newWatcher(string) (watcher, error) {
	return nil, errors.New("not supported on this platform")
}
