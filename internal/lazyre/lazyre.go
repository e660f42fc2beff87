// Package lazyre compiles a package's regular expressions on first use
// instead of at start-up.
//
// A package-level regexp.MustCompile runs in every process, for every
// command, before main: a counted repetition such as {1,256} alone expands
// into hundreds of instructions. Made with New, an expression is compiled
// by the first call that needs it, once; Check compiles every expression
// made with New so far, so a test of a package that links them all (the
// command's) still proves each one valid.
package lazyre

import (
	"errors"
	"fmt"
	"regexp"
	"sync"
)

var (
	mu    sync.Mutex
	exprs []string
)

// New returns a function that compiles expr on its first call and returns
// that same *regexp.Regexp on every call; it panics, as regexp.MustCompile
// does, if expr is not a valid expression. Call it for package-level
// variables, whose expressions Check can then list.
func New(expr string) func() *regexp.Regexp {
	mu.Lock()
	exprs = append(exprs, expr)
	mu.Unlock()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Check compiles every expression made with New in this process and
// returns the errors of those that do not compile, and the number it
// checked.
func Check() (int, error) {
	mu.Lock()
	list := append([]string(nil), exprs...)
	mu.Unlock()
	var errs []error
	for _, e := range list {
		if _, err := regexp.Compile(e); err != nil {
			errs = append(errs, fmt.Errorf("compile %q: %w", e, err))
		}
	}
	return len(list), errors.Join(errs...)
}
