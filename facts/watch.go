package facts

// watcher learns changes to the memory folder from file-system events.
//
// The guarantee a store gives is that a change whose system call returned
// before a request arrived is visible in that request's answer. The kernel
// queues an event before the system call that caused it returns, so a
// watcher must read its pending events synchronously, at the start of each
// request; one that delivers them from another goroutine (as fsnotify does)
// cannot promise that.
type watcher interface {
	// drain returns the project-relative paths of the fact files that
	// changed since the last call, without blocking, those of them whose
	// file was written or changed in place (not only renamed in or out, or
	// removed), and the temp files created or gone since (base name →
	// there after its last event). full is true when the
	// events do not say everything (the first call, a queue overflow, the
	// folder or its parent replaced, a watch not yet in place): the caller
	// must then rescan the folder. An error means the watcher is broken.
	drain() (paths []string, inPlace, temps map[string]bool, full bool, err error)
	// quiet reports, without consuming anything and safely alongside
	// other calls of quiet, that no event is pending and every watch is
	// in place: a drain now would return nothing.
	quiet() bool
	close() error
}
