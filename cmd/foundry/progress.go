// This file defines the progress bar long sweeps draw on a terminal.

package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/foundryhq/foundry/doctor"
)

// progressDelay is how long a sweep runs before its bar appears: a quick
// run never flickers one.
const progressDelay = time.Second

// progressBar draws "doctor: blackboard [#####.....] 4,096/10,000" on one
// line of a terminal, redrawn at most ten times a second. Callers create
// it only when stderr is a terminal, never on a pipe.
type progressBar struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w, start: time.Now()} }

func (b *progressBar) update(p doctor.Progress) {
	now := time.Now()
	if now.Sub(b.start) < progressDelay || now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last, b.drawn = now, true
	if p.Total <= 0 {
		fmt.Fprintf(b.w, "\r\033[Kdoctor: %s %d", p.Phase, p.Done)
		return
	}
	const width = 30
	n := min(width, p.Done*width/p.Total)
	fmt.Fprintf(b.w, "\r\033[Kdoctor: %s [%s%s] %d/%d", p.Phase, strings.Repeat("#", n), strings.Repeat(".", width-n), p.Done, p.Total)
}

// clear erases the bar, if one was drawn.
func (b *progressBar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
