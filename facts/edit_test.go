package facts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEditFront: retiring or superseding a fact edits the keys it changes
// and keeps what a person wrote around them; a file the edit cannot keep
// is rewritten canonically, never left wrong.
func TestEditFront(t *testing.T) {
	t.Parallel()
	const commented = `---
# Decided in the March architecture review.
id: fact-0007
type: decision
title: "Persistence uses Flyway"
scope: project
tags: [database] # keep this list short
confidence: high
source: adr-0007
created: 2025-03-01
status: active # until the migration to Liquibase
---
Chosen for plain SQL.

Why: reviewers read SQL.
`
	tests := []struct {
		name    string
		content string
		edit    func(*Fact)
		keys    []string
		want    string // "" for Format of the edited fact
	}{
		{
			name:    "retire keeps comments and quoting",
			content: commented,
			edit:    func(f *Fact) { f.Status, f.RetiredReason = Retired, "we moved to Liquibase" },
			keys:    []string{"status", "retiredReason"},
			want: strings.Replace(commented, "status: active # until the migration to Liquibase\n",
				"status: retired # until the migration to Liquibase\nretiredReason: we moved to Liquibase\n", 1),
		},
		{
			name:    "superseded: a missing key goes where Format puts it",
			content: commented,
			edit:    func(f *Fact) { f.Status, f.SupersededBy = Superseded, "fact-0009" },
			keys:    []string{"status", "supersededBy"},
			want: strings.Replace(commented, "status: active",
				"supersededBy: fact-0009\nstatus: superseded", 1),
		},
		{
			name:    "CRLF and a byte-order mark stay",
			content: "\ufeff" + strings.ReplaceAll(commented, "\n", "\r\n"),
			edit:    func(f *Fact) { f.Status, f.RetiredReason = Retired, "moved" },
			keys:    []string{"status", "retiredReason"},
			want: "\ufeff" + strings.ReplaceAll(strings.Replace(strings.Replace(commented,
				"status: active", "status: retired", 1),
				"Liquibase\n---", "Liquibase\nretiredReason: moved\n---", 1), "\n", "\r\n"),
		},
		{
			name:    "a file that is not a fact is written canonically",
			content: "no front matter\n",
			edit:    func(f *Fact) { f.Status, f.RetiredReason = Retired, "moved" },
			keys:    []string{"status", "retiredReason"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("f.md", []byte(commented))
			if err != nil {
				t.Fatal(err)
			}
			tt.edit(&f)
			want := tt.want
			if want == "" {
				want = string(Format(f))
			}
			got := string(editFront([]byte(tt.content), f, tt.keys...))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("edited file (-want +got):\n%s", diff)
			}
			back, err := Parse("f.md", []byte(got))
			if err != nil {
				t.Fatalf("edited file does not parse: %v", err)
			}
			if diff := cmp.Diff(string(Format(f)), string(Format(back))); diff != "" {
				t.Errorf("edited file reads back as another fact (-want +got):\n%s", diff)
			}
		})
	}
}
