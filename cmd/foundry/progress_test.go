package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/foundryhq/foundry/doctor"
)

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	b := newProgressBar(&buf)
	b.update(doctor.Progress{Phase: "blackboard", Done: 10, Total: 100})
	b.clear()
	if buf.Len() != 0 {
		t.Fatalf("a sweep younger than %v drew %q", progressDelay, buf.String())
	}
	b.start = time.Now().Add(-2 * progressDelay)
	b.update(doctor.Progress{Phase: "blackboard", Done: 50, Total: 100})
	b.update(doctor.Progress{Phase: "blackboard", Done: 51, Total: 100}) // within 100 ms: not redrawn
	want := "\r\033[Kdoctor: blackboard [###############...............] 50/100"
	if buf.String() != want {
		t.Errorf("bar = %q, want %q", buf.String(), want)
	}
	buf.Reset()
	b.last = time.Time{}
	b.update(doctor.Progress{Phase: "history", Done: 640})
	b.clear()
	if want := "\r\033[Kdoctor: history 640\r\033[K"; buf.String() != want {
		t.Errorf("bar = %q, want %q", buf.String(), want)
	}
}
