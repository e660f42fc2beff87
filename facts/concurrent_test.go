package facts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/foundryhq/foundry/internal/pause"
	"github.com/foundryhq/foundry/internal/testpause"
)

// TestConcurrentSearchesMatchSerial runs searches side by side while a fact
// comes and goes, and holds every answer to the answer a lone search gives
// on one of the two states of the folder: ranking shares no scratch space
// between searches, and never sees half a change. Run it with -race.
func TestConcurrentSearchesMatchSerial(t *testing.T) {
	queries := append([]string{"kafka", "postgres migrations", "webhok retries", "checkout latency", "fact-0007"}, benchQueries...)
	extra := Fact{ID: "fact-9001", Type: Decision, Title: "Kafka consumers retry postgres migrations at checkout",
		Scope: "project", Confidence: High, Source: "conversation", Created: "2025-01-01", Status: Active,
		Body: decisionBody("Kafka webhook retries and checkout latency budgets are measured together.")}
	extra.Path = Dir + "/" + FileName(extra.ID, extra.Title)

	for _, watch := range []bool{false, true} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			ctx := context.Background()
			root := writeTree(t, genFacts(t, 300))
			extraFile := filepath.Join(root, filepath.FromSlash(extra.Path))
			toggle := func(present bool) {
				t.Helper()
				if present {
					if err := os.WriteFile(extraFile, Format(extra), 0o644); err != nil {
						t.Error(err)
					}
				} else if err := os.Remove(extraFile); err != nil {
					t.Error(err)
				}
			}
			// The answers of lone searches on each state, from fresh stores.
			serial := func() map[string]SearchResult {
				s := OpenDir(root, Options{Now: fixedNow})
				out := map[string]SearchResult{}
				for _, q := range queries {
					res, err := s.Search(ctx, Query{Text: q})
					if err != nil {
						t.Fatal(err)
					}
					out[q] = res
				}
				return out
			}
			without := serial()
			toggle(true)
			with := serial()
			toggle(false)
			if reflect.DeepEqual(without["kafka"], with["kafka"]) {
				t.Fatal("the two states rank alike; the test would prove nothing")
			}

			s := OpenDir(root, Options{Now: fixedNow, Watch: watch})
			defer s.Close()
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 60 {
						q := queries[(g+i)%len(queries)]
						res, err := s.Search(ctx, Query{Text: q})
						if err != nil {
							t.Error(err)
							return
						}
						if !reflect.DeepEqual(res, without[q]) && !reflect.DeepEqual(res, with[q]) {
							t.Errorf("search %q: %+v matches neither state", q, res)
							return
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					toggle(i%2 == 0)
				}
			}()
			wg.Wait()
			// Once the changes stop, every search gives the final state's answer.
			for _, q := range queries {
				res, err := s.Search(ctx, Query{Text: q})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(res, without[q]) {
					t.Errorf("search %q after the changes: %+v, want %+v", q, res, without[q])
				}
			}
		})
	}
}

// TestSearchesRankSideBySide holds one search of a warm, watched store
// inside its ranking and requires a second one to get there too: with no
// change pending, a search takes the store's lock for reading only. With one exclusive lock the second search would wait
// for the first, and the test would fail on its deadline.
func TestSearchesRankSideBySide(t *testing.T) {
	// Without events every search revalidates the folder, exclusively.
	s, _ := watchedStore(t, 50)
	ctx := context.Background()
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	pause.Install(func(_ context.Context, name string) {
		if name == "facts.ranking" {
			arrived <- struct{}{}
			<-release
		}
	})
	defer testpause.Enable()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := s.Search(ctx, Query{Text: "kafka"})
			errs <- err
		}()
	}
	deadline := time.After(30 * time.Second)
	for i := range 2 {
		select {
		case <-arrived:
		case <-deadline:
			close(release)
			t.Fatalf("%d of 2 searches ranking at once after 30s: ranking is exclusive", i)
		}
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
