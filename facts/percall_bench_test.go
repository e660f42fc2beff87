package facts

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/testenv"
)

// BenchmarkStoreCallCPU measures each call the MCP server makes of a warm,
// watched store, at 10,000 and 50,000 facts: the two sizes side by side
// show which calls do work in proportion to the memory. Each call is warmed
// before its timed loop, so one-time costs (the title index of the first
// write, the order of INDEX.md) are not counted per call. The time is the
// whole process's: in the cases after a write, collecting what the
// untimed write allocated may fall in the timed call.
func BenchmarkStoreCallCPU(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("facts=%d", n), func(b *testing.B) {
			all := genFacts(b, n)
			s := OpenDir(writeTree(b, all), Options{Now: fixedNow, Watch: true})
			b.Cleanup(func() { _ = s.Close() })
			if _, err := s.Search(ctx, Query{Text: "warm up"}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.RebuildIndex(ctx); err != nil {
				b.Fatal(err)
			}
			writes := 0
			write := func() {
				writes++
				if _, err := s.Write(ctx, benchWrite(n+writes)); err != nil {
					b.Fatal(err)
				}
			}
			cases := []struct {
				name  string
				call  func(i int) error
				after func() // untimed, before each call
			}{
				{name: "search", call: func(i int) error {
					_, err := s.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]})
					return err
				}},
				{name: "get", call: func(i int) error {
					_, err := s.Get(ctx, all[i*7919%n].ID)
					return err
				}},
				{name: "factfiles", call: func(int) error {
					_, err := s.FactFiles(ctx)
					return err
				}},
				{name: "index", call: func(int) error {
					_, err := s.Index(ctx)
					return err
				}},
				{name: "rebuildindex", call: func(int) error {
					_, err := s.RebuildIndex(ctx)
					return err
				}},
				{name: "write-unchanged", call: func(int) error {
					f := all[42]
					_, err := s.Write(ctx, WriteRequest{Title: f.Title, Body: f.Body, Type: f.Type, Tags: f.Tags, Confidence: f.Confidence, Source: f.Source})
					return err
				}},
				{name: "write", call: func(int) error { write(); return nil }},
				{name: "search-after-write", after: write, call: func(i int) error {
					_, err := s.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]})
					return err
				}},
				{name: "one-hit-after-write", after: write, call: func(int) error {
					_, err := s.Search(ctx, Query{Text: fmt.Sprintf("kwbench%05d", n+writes)})
					return err
				}},
				{name: "get-after-write", after: write, call: func(i int) error {
					_, err := s.Get(ctx, all[i*7919%n].ID)
					return err
				}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					for i := range 10 {
						if c.after != nil {
							c.after()
						}
						if err := c.call(i); err != nil {
							b.Fatal(err)
						}
					}
					var cpu time.Duration
					i := 0
					for b.Loop() {
						i++
						if c.after != nil {
							b.StopTimer()
							c.after()
							b.StartTimer()
						}
						cpu0 := testenv.CPUTime()
						if err := c.call(i); err != nil {
							b.Fatal(err)
						}
						cpu += testenv.CPUTime() - cpu0
					}
					b.ReportMetric(float64(cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				})
			}
		})
	}
}
