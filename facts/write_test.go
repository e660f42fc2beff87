package facts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/testenv"
	"github.com/foundryhq/foundry/tokens"
)

// Secret values are assembled at run time so the source holds none.
var (
	testGitHubToken = "ghp_" + strings.Repeat("Ab1", 12)
	testAWSKey      = "AKIA" + "ABCDEFGHIJKLMNOP"
	testPEM         = "-----BEGIN " + "EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----"
)

func TestStoreWriteRules(t *testing.T) {
	t.Parallel()
	valid := WriteRequest{Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision, Body: decisionBody("Chosen for plain SQL.")}
	tests := []struct {
		name    string
		modify  func(*WriteRequest)
		want    string
		wantErr error
	}{
		{"title 81 chars", func(r *WriteRequest) { r.Title = "Title " + strings.Repeat("x", 75) }, "write fact: title is 81 characters; the limit is 80", ErrInvalid},
		{"title missing", func(r *WriteRequest) { r.Title = "  " }, "write fact: title is required", ErrInvalid},
		{"title topic only", func(r *WriteRequest) { r.Title = "Database choice" }, `write fact: title "Database choice" names a topic; state the fact itself in at least 3 words, e.g. "Persistence layer uses Flyway, not Liquibase"`, ErrInvalid},
		{"title two lines", func(r *WriteRequest) { r.Title = "Line one is here\nline two" }, "write fact: title must be a single line", ErrInvalid},
		{"title not UTF-8", func(r *WriteRequest) { r.Title = "Persistence layer uses Flyway \xff" }, "write fact: title is not valid UTF-8 text", ErrInvalid},
		{"body not UTF-8", func(r *WriteRequest) { r.Body = decisionBody("Chosen for caf\xe9 SQL.") }, "write fact: body is not valid UTF-8 text", ErrInvalid},
		{"body missing", func(r *WriteRequest) { r.Body = "" }, "write fact: body is required", ErrInvalid},
		{"body 121 words", func(r *WriteRequest) { r.Type = Convention; r.Body = nWords(121) }, "write fact: body is 121 words; the limit is 120", ErrInvalid},
		{"body 901 chars", func(r *WriteRequest) { r.Type = Convention; r.Body = strings.Repeat("abcdefghi ", 90) + "x" }, "write fact: body is 901 characters; the limit is 900", ErrInvalid},
		{"conflict markers", func(r *WriteRequest) {
			r.Type = Convention
			r.Body = "<<<<<<< HEAD\nTabs.\n=======\nSpaces.\n>>>>>>> topic"
		}, "write fact: body line 1 is a git conflict marker; resolve the conflict first", ErrInvalid},
		{"decision without why", func(r *WriteRequest) { r.Body = "Chosen.\nHow to apply: always." }, `write fact: a decision body needs a "Why:" line`, ErrInvalid},
		{"decision without how", func(r *WriteRequest) { r.Body = "Chosen.\nWhy: speed." }, `write fact: a decision body needs a "How to apply:" line`, ErrInvalid},
		{"risk without why", func(r *WriteRequest) { r.Type = Risk; r.Body = "Outage.\nHow to apply: page." }, `write fact: a risk body needs a "Why:" line`, ErrInvalid},
		{"type missing", func(r *WriteRequest) { r.Type = "" }, "write fact: type is required; use one of decision, constraint, convention, domain, risk, metric, glossary", ErrInvalid},
		{"unknown type", func(r *WriteRequest) { r.Type = "opinion" }, `write fact: unknown type "opinion"; use one of decision, constraint, convention, domain, risk, metric, glossary`, ErrInvalid},
		{"bad scope", func(r *WriteRequest) { r.Scope = "team:web" }, `write fact: invalid scope "team:web"; use project, module:<name> or vertical:<name>`, ErrInvalid},
		{"empty module scope", func(r *WriteRequest) { r.Scope = "module:" }, `write fact: invalid scope "module:"; use project, module:<name> or vertical:<name>`, ErrInvalid},
		{"bad confidence", func(r *WriteRequest) { r.Confidence = "certain" }, `write fact: invalid confidence "certain"; use high, medium or low`, ErrInvalid},
		{"bad source", func(r *WriteRequest) { r.Source = "slack" }, `write fact: invalid source "slack"; use adr-NNNN, conversation, code or external:<url>`, ErrInvalid},
		{"bad external source", func(r *WriteRequest) { r.Source = "external:nowhere" }, `write fact: invalid source "external:nowhere"; use adr-NNNN, conversation, code or external:<url>`, ErrInvalid},
		{"bad date", func(r *WriteRequest) { r.Expires = "2025-02-30" }, `write fact: invalid expires "2025-02-30"; use a real date as YYYY-MM-DD`, ErrInvalid},
		{"bad date form", func(r *WriteRequest) { r.Expires = "14.03.2026" }, `write fact: invalid expires "14.03.2026"; use a real date as YYYY-MM-DD`, ErrInvalid},
		{"past date", func(r *WriteRequest) { r.Expires = "2025-03-13" }, "write fact: expires 2025-03-13 is already past; the fact would never be loaded", ErrInvalid},
		{"bad tag", func(r *WriteRequest) { r.Tags = []string{"two words"} }, `write fact: invalid tag "two words"; a tag is one word of at most 40 characters (letters, digits, . _ : / + # -), starting with a letter or digit`, ErrInvalid},
		{"bad supersedes", func(r *WriteRequest) { r.Supersedes = "9" }, `write fact: invalid supersedes "9"; use a fact id such as fact-0009`, ErrInvalid},
		{"unknown supersedes", func(r *WriteRequest) { r.Supersedes = "fact-0099" }, "write fact: supersede fact-0099: no such fact", ErrInvalid},
		{"private key", func(r *WriteRequest) { r.Body = decisionBody("Deploy key:\n" + testPEM) }, "write fact: body contains a secret (private key block); secrets are never stored in memory", ErrSecret},
		{"aws key", func(r *WriteRequest) { r.Body = decisionBody("Use " + testAWSKey + " for S3.") }, "write fact: body contains a secret (AWS access key); secrets are never stored in memory", ErrSecret},
		{"github token", func(r *WriteRequest) { r.Body = decisionBody("CI token is " + testGitHubToken) }, "write fact: body contains a secret (GitHub token); secrets are never stored in memory", ErrSecret},
		{"gitlab token", func(r *WriteRequest) { r.Body = decisionBody("glpat-" + strings.Repeat("Q", 20)) }, "write fact: body contains a secret (GitLab token); secrets are never stored in memory", ErrSecret},
		{"slack token", func(r *WriteRequest) { r.Body = decisionBody("xoxb-" + strings.Repeat("1", 12)) }, "write fact: body contains a secret (Slack token); secrets are never stored in memory", ErrSecret},
		{"api key", func(r *WriteRequest) { r.Body = decisionBody("key sk-" + strings.Repeat("z", 24)) }, "write fact: body contains a secret (API key); secrets are never stored in memory", ErrSecret},
		{"password assignment", func(r *WriteRequest) { r.Body = decisionBody("DB_PASSWORD=hunter2 on staging") }, "write fact: body contains a secret (password assignment); secrets are never stored in memory", ErrSecret},
		{"connection string", func(r *WriteRequest) { r.Body = decisionBody("postgres://app:s3cret@db:5432/app") }, "write fact: body contains a secret (connection string with credentials); secrets are never stored in memory", ErrSecret},
		{"secret in title", func(r *WriteRequest) { r.Title = "Staging uses key " + testAWSKey }, "write fact: title contains a secret (AWS access key); secrets are never stored in memory", ErrSecret},
		{"secret in scope", func(r *WriteRequest) { r.Scope = "module:" + testGitHubToken }, "write fact: scope contains a secret (GitHub token); secrets are never stored in memory", ErrSecret},
		{"secret in vertical scope", func(r *WriteRequest) { r.Scope = "vertical:" + testAWSKey }, "write fact: scope contains a secret (AWS access key); secrets are never stored in memory", ErrSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, root, _ := newTestStore(t)
			req := valid
			tt.modify(&req)
			_, err := s.Write(context.Background(), req)
			if err == nil {
				t.Fatal("Write: no error")
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not match %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if files := factFiles(t, root); len(files) != 0 {
				t.Errorf("files written despite the error: %v", files)
			}
			if testAWSKey != "" && strings.Contains(err.Error(), testAWSKey) || strings.Contains(err.Error(), testGitHubToken) {
				t.Errorf("error reveals the secret: %v", err)
			}
		})
	}
}

func TestStoreWriteLimitsAccepted(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	ctx := context.Background()
	reqs := []WriteRequest{
		{Title: "Long title " + strings.Repeat("y", 69), Type: Convention, Body: nWords(120)},
		{Title: "Nine hundred characters are allowed", Type: Domain, Body: strings.Repeat("abcdefghi ", 90)},
		{Title: "Risk body with markdown labels", Type: Risk, Body: "Outage.\n**Why:** load.\n- How to apply: page on-call."},
		{Title: "Expires today is still allowed", Type: Metric, Body: "p95 is 120 ms.", Expires: "2025-03-14", Scope: "vertical:payments", Source: "external:https://grafana.example.com/d/abc", Tags: []string{"perf", "latency,p95"}},
	}
	for _, r := range reqs {
		if _, err := s.Write(ctx, r); err != nil {
			t.Fatalf("Write(%q): %v", r.Title, err)
		}
	}
	if got := len(factFiles(t, root)); got != len(reqs) {
		t.Fatalf("%d fact files, want %d", got, len(reqs))
	}
	f, err := s.Get(ctx, "fact-0004")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"perf", "latency", "p95"}, f.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

func TestStoreWrite(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	ctx := context.Background()

	res, err := s.Write(ctx, WriteRequest{
		Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision,
		Body: decisionBody("Chosen for the plain-SQL migration format the team already reads."),
		Tags: []string{"database"}, Confidence: High, Source: "adr-0007",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != Created || res.ID != "fact-0001" || res.Path != ".foundry/memory/fact-0001-persistence-layer-uses-flyway-not-liquibase.md" {
		t.Errorf("result = %+v", res)
	}
	idx := readFile(t, root, IndexPath)
	wantOut := fmt.Sprintf("created: fact-0001\nIndex: 1/1 facts listed, ~%d tokens.", tokens.Estimate(len(idx)))
	if diff := cmp.Diff(wantOut, res.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantFile := `---
id: fact-0001
type: decision
title: Persistence layer uses Flyway, not Liquibase
scope: project
tags: [database]
confidence: high
source: adr-0007
created: 2025-03-14
status: active
---
Chosen for the plain-SQL migration format the team already reads.
Why: it keeps the team fast.
How to apply: follow it in every change.
`
	if diff := cmp.Diff(wantFile, readFile(t, root, res.Path)); diff != "" {
		t.Errorf("fact file (-want +got):\n%s", diff)
	}

	// The same fact again, with other spacing, case and punctuation in the title.
	res, err = s.Write(ctx, WriteRequest{
		Title: "persistence layer uses  Flyway not Liquibase.", Type: Decision,
		Body: "Chosen for the plain-SQL migration format the team already reads.\n\nWhy: it keeps the team fast.\nHow to apply: follow it in every change.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.String(); got != "unchanged: fact-0001 already states this" {
		t.Errorf("dedup output = %q", got)
	}
	if n := len(factFiles(t, root)); n != 1 {
		t.Errorf("%d files after dedup, want 1", n)
	}

	// Another fact, then a new body for the first title: supersedes fact-0001.
	if _, err := s.Write(ctx, WriteRequest{Title: "Orders service owns the orders table", Type: Constraint, Body: "No other service writes to it."}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Write(ctx, WriteRequest{Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision, Body: decisionBody("Flyway also runs the Java callbacks now.")})
	if err != nil {
		t.Fatal(err)
	}
	idx = readFile(t, root, IndexPath)
	wantOut = fmt.Sprintf("created: fact-0003 (supersedes fact-0001)\nIndex: 2/2 facts listed, ~%d tokens.", tokens.Estimate(len(idx)))
	if diff := cmp.Diff(wantOut, res.String()); diff != "" {
		t.Errorf("supersede output (-want +got):\n%s", diff)
	}
	old := readFile(t, root, ".foundry/memory/fact-0001-persistence-layer-uses-flyway-not-liquibase.md")
	if !strings.Contains(old, "supersededBy: fact-0003\nstatus: superseded\n") {
		t.Errorf("old fact not marked superseded:\n%s", old)
	}
	nf := readFile(t, root, res.Path)
	if !strings.Contains(nf, "supersedes: fact-0001\nstatus: active\n") {
		t.Errorf("new fact does not name what it supersedes:\n%s", nf)
	}
	if strings.Contains(idx, "fact-0001") {
		t.Errorf("index lists the superseded fact:\n%s", idx)
	}

	// Same title in another scope is a different fact, with a near-duplicate warning.
	res, err = s.Write(ctx, WriteRequest{Title: "Persistence layer uses Flyway, not Liquibase", Type: Decision, Scope: "module:billing", Body: decisionBody("Billing too.")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Supersedes != "" {
		t.Errorf("write in another scope superseded %s", res.Supersedes)
	}
	wantWarn := []string{`warning: similar to fact-0003 "Persistence layer uses Flyway, not Liquibase"; if the new fact replaces it, write it again with supersedes fact-0003`}
	if diff := cmp.Diff(wantWarn, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	// A near-duplicate title is written, with a warning.
	res, err = s.Write(ctx, WriteRequest{Title: "Orders service owns the orders database table", Type: Constraint, Body: "Only orders writes it."})
	if err != nil {
		t.Fatal(err)
	}
	wantWarn = []string{`warning: similar to fact-0002 "Orders service owns the orders table"; if the new fact replaces it, write it again with supersedes fact-0002`}
	if res.ID != "fact-0005" || !cmp.Equal(wantWarn, res.Warnings) {
		t.Errorf("near duplicate: id %s warnings %q", res.ID, res.Warnings)
	}

	// Explicit supersedes of a differently titled fact.
	res, err = s.Write(ctx, WriteRequest{Title: "Orders tables belong to the orders service", Type: Constraint, Body: "Both tables.", Supersedes: "fact-0005"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Supersedes != "fact-0005" {
		t.Errorf("explicit supersedes = %q", res.Supersedes)
	}
	_, err = s.Write(ctx, WriteRequest{Title: "Orders tables are owned by orders", Type: Constraint, Body: "Again.", Supersedes: "fact-0005"})
	if want := "write fact: supersede fact-0005: already superseded by fact-0006"; err == nil || err.Error() != want {
		t.Errorf("superseding twice: err = %v, want %q", err, want)
	}
}

// TestSupersededWithoutSuccessor: a fact file may say status: superseded
// without naming its successor, and no fact claim it, or status: retired
// without a reason. Superseding or retiring it is refused, saying so, not
// naming an empty id or reason; so is superseding a retired fact, which
// no longer holds.
func TestSupersededWithoutSuccessor(t *testing.T) {
	t.Parallel()
	facts := genFacts(t, 3)
	facts[1].Status = Superseded
	facts[2].Status = Retired
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		do   func(*Store) error
		want string
	}{
		{"supersede", func(s *Store) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Orders tables are owned by orders", Type: Constraint, Body: "Again.", Supersedes: facts[1].ID})
			return err
		}, "write fact: supersede fact-0002: already superseded (its file names no successor)"},
		{"supersede retired", func(s *Store) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Orders tables are owned by orders", Type: Constraint, Body: "Again.", Supersedes: facts[2].ID})
			return err
		}, "write fact: supersede fact-0003: already retired (its file gives no reason)"},
		{"retire", func(s *Store) error {
			_, err := s.Retire(ctx, facts[1].ID, "no longer true")
			return err
		}, "retire fact: fact-0002 is already superseded (its file names no successor)"},
		{"retire retired", func(s *Store) error {
			_, err := s.Retire(ctx, facts[2].ID, "no longer true")
			return err
		}, "retire fact: fact-0003 is already retired (its file gives no reason)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := OpenDir(writeTree(t, facts), Options{Now: fixedNow})
			err := tc.do(s)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			var re *RuleError
			if !errors.As(err, &re) {
				t.Errorf("err = %T, want a *RuleError", err)
			}
		})
	}
}

func TestStoreWriteOmittedOverBudget(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := OpenDir(root, Options{Now: fixedNow, IndexBudget: 80})
	ctx := context.Background()
	var res WriteResult
	for i, title := range []string{"Alpha service owns billing", "Beta service owns invoices", "Gamma service owns payments"} {
		var err error
		res, err = s.Write(ctx, WriteRequest{Title: title, Type: Domain, Body: fmt.Sprintf("Fact %d.", i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	idx := readFile(t, root, IndexPath)
	if res.Index.Omitted == 0 {
		t.Fatalf("nothing omitted with an 80-token budget:\n%s", idx)
	}
	want := fmt.Sprintf("created: fact-0003\nIndex: %d/3 facts listed, ~%d tokens, %d omitted over budget.", res.Index.Listed, tokens.Estimate(len(idx)), 3-res.Index.Listed)
	if diff := cmp.Diff(want, res.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestStoreWriteReadOnly(t *testing.T) {
	t.Parallel()
	s := NewStore(os.DirFS(t.TempDir()), Options{})
	_, err := s.Write(context.Background(), WriteRequest{Title: "Anything at all here", Type: Domain, Body: "x"})
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("Write on a read-only store: %v, want ErrReadOnly", err)
	}
	if _, err := s.RebuildIndex(context.Background()); !errors.Is(err, ErrReadOnly) {
		t.Errorf("RebuildIndex on a read-only store: %v, want ErrReadOnly", err)
	}
}

func TestStoreWriteExpiredFactIsSuperseded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ctx := context.Background()
	early := OpenDir(root, Options{Now: fixedNow})
	req := WriteRequest{Title: "Freeze window runs through March", Type: Constraint, Body: "No deploys.", Expires: "2025-03-20"}
	if _, err := early.Write(ctx, req); err != nil {
		t.Fatal(err)
	}
	late := OpenDir(root, Options{Now: func() time.Time { return fixedNow().AddDate(0, 1, 0) }})
	req.Expires = "2025-05-01"
	res, err := late.Write(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != Created || res.Supersedes != "fact-0001" {
		t.Errorf("rewriting an expired fact: %+v", res)
	}
}

// TestStoreWriteRestatedMetadata: the text of an active fact written again
// leaves it unchanged when the request leaves its metadata out or repeats
// it, and supersedes it, carrying the new metadata, when the request sets
// another confidence, source, tags or expiry.
func TestStoreWriteRestatedMetadata(t *testing.T) {
	t.Parallel()
	const title, body = "Deploys freeze during the holiday season", "No deploys from the 20th to the 2nd."
	first := WriteRequest{Title: title, Type: Constraint, Body: body, Confidence: Low, Tags: []string{"deploy", "ops"}, Source: "code", Expires: "2026-01-02"}
	tests := []struct {
		name    string
		again   WriteRequest
		want    string // Action
		inFile  string // a line the new fact's file holds
		wantErr string
	}{
		{name: "nothing given", again: WriteRequest{Title: title, Type: Constraint, Body: body}, want: Unchanged},
		{name: "all repeated, tags in another order", again: WriteRequest{Title: title, Type: Constraint, Body: body, Confidence: Low, Tags: []string{"ops", "deploy"}, Source: "code", Expires: "2026-01-02"}, want: Unchanged},
		{name: "confidence", again: WriteRequest{Title: title, Type: Constraint, Body: body, Confidence: High}, want: Created, inFile: "confidence: high\n"},
		{name: "source", again: WriteRequest{Title: title, Type: Constraint, Body: body, Source: "adr-0004"}, want: Created, inFile: "source: adr-0004\n"},
		{name: "tags", again: WriteRequest{Title: title, Type: Constraint, Body: body, Tags: []string{"deploy"}}, want: Created, inFile: "tags: [deploy]\n"},
		{name: "expiry", again: WriteRequest{Title: title, Type: Constraint, Body: body, Expires: "2027-01-02"}, want: Created, inFile: "expires: 2027-01-02\n"},
		{name: "confidence, superseding another fact", again: WriteRequest{Title: title, Type: Constraint, Body: body, Confidence: High, Supersedes: "fact-0002"},
			wantErr: "supersede fact-0002: fact-0001 already states this with another confidence, and a fact supersedes one fact; link the two first (the same write without the new confidence), then write the new confidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, root, _ := newTestStore(t)
			ctx := context.Background()
			if _, err := s.Write(ctx, first); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Write(ctx, WriteRequest{Title: "Another fact stands beside it", Type: Domain, Body: "Unrelated."}); err != nil {
				t.Fatal(err)
			}
			res, err := s.Write(ctx, tt.again)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Write = %+v, %v; want %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != tt.want {
				t.Fatalf("Write = %+v, want %s", res, tt.want)
			}
			if tt.want == Unchanged {
				if res.ID != "fact-0001" || len(factFiles(t, root)) != 2 {
					t.Errorf("Write = %+v with %d files, want fact-0001 unchanged", res, len(factFiles(t, root)))
				}
				return
			}
			if res.ID != "fact-0003" || res.Supersedes != "fact-0001" {
				t.Errorf("Write = %+v, want fact-0003 superseding fact-0001", res)
			}
			if got := readFile(t, root, res.Path); !strings.Contains(got, tt.inFile) {
				t.Errorf("new fact lacks %q:\n%s", tt.inFile, got)
			}
		})
	}
}

func TestStoreWriteIDsAfterMalformedAndGaps(t *testing.T) {
	t.Parallel()
	s, root, warn := newTestStore(t)
	testenv.WriteFile(t, root, ".foundry/memory/fact-0041-broken.md", "not a fact\n")
	testenv.WriteFile(t, root, ".foundry/memory/fact-0007-hand.md", string(Format(Fact{ID: "fact-0007", Type: Domain, Title: "Hand written fact here", Body: "b"})))
	res, err := s.Write(context.Background(), WriteRequest{Title: "Next id skips the broken file", Type: Domain, Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "fact-0042" {
		t.Errorf("id = %s, want fact-0042", res.ID)
	}
	if want := "warning: skip fact file .foundry/memory/fact-0041-broken.md:1: missing front matter: the file must start with a \"---\" line\n"; warn.String() != want {
		t.Errorf("warnings = %q, want %q", warn.String(), want)
	}
	if _, err := os.Stat(filepath.Join(root, ".foundry/memory/.lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
}

// A write that fails half-way (here: INDEX.md cannot be replaced) leaves
// nothing: no new fact file and the superseded fact as it was.
func TestStoreWriteFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	ctx := context.Background()
	first, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for seven years", Type: Constraint, Body: "Legal retention rule."})
	if err != nil {
		t.Fatal(err)
	}
	before := readFile(t, root, first.Path)
	// A folder in the way of INDEX.md makes the last step of a write fail.
	idx := filepath.Join(root, filepath.FromSlash(IndexPath))
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(idx, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, req := range []WriteRequest{
		{Title: "Orders are kept for seven years", Type: Constraint, Body: "Legal retention rule, also for refunds."},
		{Title: "Invoices are numbered per country", Type: Convention, Body: "One sequence per country."},
	} {
		if _, err := s.Write(ctx, req); err == nil {
			t.Fatalf("Write(%q) succeeded with a folder in place of INDEX.md", req.Title)
		}
		if diff := cmp.Diff([]string{filepath.Base(first.Path)}, factFiles(t, root)); diff != "" {
			t.Errorf("fact files after a failed write (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, readFile(t, root, first.Path)); diff != "" {
			t.Errorf("superseded fact after a failed write (-want +got):\n%s", diff)
		}
	}
}

// TestStoreEditRefusesLinkedFact checks that an edit in place of a fact
// file that is a symbolic link (to a fact kept elsewhere in .foundry,
// which reads follow) is refused as a write through a link, and not as a
// link leading outside the project, which it does not; the fact is left
// as it was.
func TestStoreEditRefusesLinkedFact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		edit func(s *Store, id string) error
	}{
		{"retire", func(s *Store, id string) error { _, err := s.Retire(ctx, id, "no longer holds"); return err }},
		{"supersede by title", func(s *Store, _ string) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for seven years", Type: Constraint, Body: "A new retention rule."})
			return err
		}},
		{"supersede by id", func(s *Store, id string) error {
			_, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for ten years", Type: Constraint, Body: "The rule changed.", Supersedes: id})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, root, _ := newTestStore(t)
			w, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for seven years", Type: Constraint, Body: "Legal retention rule."})
			if err != nil {
				t.Fatal(err)
			}
			base := path.Base(w.Path)
			kept := filepath.Join(root, ".foundry", "archive", base)
			if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(root, filepath.FromSlash(w.Path)), kept); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../archive/"+base, filepath.Join(root, filepath.FromSlash(w.Path))); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			before := readFile(t, filepath.Dir(kept), base)
			s = OpenDir(root, Options{Now: fixedNow})
			err = tt.edit(s, w.ID)
			if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), w.Path) {
				t.Errorf("edit of a linked fact: %v, want %v naming %s", err, ErrSymlink, w.Path)
			}
			if got := readFile(t, filepath.Dir(kept), base); got != before {
				t.Errorf("linked fact changed: %q, was %q", got, before)
			}
		})
	}
}

// A memory folder that is a symbolic link would take fact files and
// INDEX.md outside the project: writes refuse it and touch nothing there.
func TestStoreWriteRefusesSymlinkedMemory(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	outside := t.TempDir()
	testenv.WriteFile(t, outside, "INDEX.md", "someone else's file\n")
	if err := os.MkdirAll(filepath.Join(root, ".foundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, filepath.FromSlash(Dir))); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	ctx := context.Background()
	if _, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for seven years", Type: Constraint, Body: "Legal retention rule."}); !errors.Is(err, ErrSymlink) {
		t.Errorf("Write error = %v, want %v", err, ErrSymlink)
	}
	if _, err := s.RebuildIndex(ctx); !errors.Is(err, ErrSymlink) {
		t.Errorf("RebuildIndex error = %v, want %v", err, ErrSymlink)
	}
	if got := readFile(t, outside, "INDEX.md"); got != "someone else's file\n" {
		t.Errorf("INDEX.md outside the project rewritten: %q", got)
	}
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Errorf("the memory writes left %d entries outside the project, want the 1 that was there", len(es))
	}
}

// Superseding an id two files share (two branches each wrote it, no
// `doctor --fix` yet) refuses, naming both files and the repair, rather than
// silently picking the first by file name.
func TestStoreWriteSupersedesDuplicatedIDRefuses(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	testenv.WriteFile(t, root, ".foundry/memory/fact-0003-ship-on-fridays.md", string(Format(Fact{ID: "fact-0003", Type: Domain, Title: "Ship on Fridays", Status: Active, Created: "2025-03-01", Body: "a"})))
	testenv.WriteFile(t, root, ".foundry/memory/fact-0003-use-launchdarkly.md", string(Format(Fact{ID: "fact-0003", Type: Domain, Title: "Use LaunchDarkly", Status: Active, Created: "2025-03-01", Body: "b"})))
	before := factFiles(t, root)
	a, b := readFile(t, root, ".foundry/memory/fact-0003-ship-on-fridays.md"), readFile(t, root, ".foundry/memory/fact-0003-use-launchdarkly.md")
	_, err := s.Write(context.Background(), WriteRequest{Title: "Ship any day", Type: Domain, Body: "c", Supersedes: "fact-0003"})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("Write superseding a duplicated id: %v, want ErrInvalid", err)
	}
	for _, want := range []string{"fact-0003-ship-on-fridays.md", "fact-0003-use-launchdarkly.md", "foundry doctor --fix"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if got := factFiles(t, root); !slices.Equal(got, before) {
		t.Errorf("fact files after a refused write: %v, want %v", got, before)
	}
	if readFile(t, root, ".foundry/memory/fact-0003-ship-on-fridays.md") != a || readFile(t, root, ".foundry/memory/fact-0003-use-launchdarkly.md") != b {
		t.Error("a refused write changed a fact file")
	}
}

// TestStoreWriteSupersedesWhenAlreadyLinked: writing a fact that already
// exists with Supersedes links the two (the similar-title warning's advice),
// but a fact supersedes one fact only: when the existing fact already
// supersedes another, the write is refused, saying so, rather than answered
// "unchanged" with the requested link silently dropped.
func TestStoreWriteSupersedesWhenAlreadyLinked(t *testing.T) {
	t.Parallel()
	s, root, _ := newTestStore(t)
	ctx := context.Background()
	for _, req := range []WriteRequest{
		{Title: "Releases ship on Fridays", Type: Domain, Body: "Weekly."},
		{Title: "Deploys happen on Friday afternoons", Type: Domain, Body: "After the freeze."},
		{Title: "Deploys go out on any weekday", Type: Domain, Body: "Daily.", Supersedes: "fact-0001"},
	} {
		if _, err := s.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	before := readFile(t, root, ".foundry/memory/fact-0002-deploys-happen-on-friday-afternoons.md")
	again := WriteRequest{Title: "Deploys go out on any weekday", Type: Domain, Body: "Daily.", Supersedes: "fact-0002"}
	_, err := s.Write(ctx, again)
	want := "write fact: supersede fact-0002: fact-0003 already states this and supersedes fact-0001; a fact supersedes one fact"
	if !errors.Is(err, ErrInvalid) || err.Error() != want {
		t.Errorf("Write = %v, want %q", err, want)
	}
	if got := readFile(t, root, ".foundry/memory/fact-0002-deploys-happen-on-friday-afternoons.md"); got != before {
		t.Errorf("a refused write changed fact-0002:\n%s", got)
	}
}

// TestWriteNamesTheMostSimilar: a write's warnings name at most
// MaxSimilarNamed similar facts, the most similar first, and count the
// others in one more line, however many facts share the topic.
func TestWriteNamesTheMostSimilar(t *testing.T) {
	t.Parallel()
	const title = "Orders service owns the orders table"
	closest := "Orders service owns the orders table now" // 4 of 5 terms shared
	for _, tt := range []struct {
		name   string
		others int // facts with 4 of 6 terms shared, written before closest
		want   []string
	}{
		{"one", 0, []string{
			`warning: similar to fact-0001 "Orders service owns the orders table now"; if the new fact replaces it, write it again with supersedes fact-0001`,
		}},
		{"three", 2, []string{
			`warning: similar to fact-0003 "Orders service owns the orders table now"; if the new fact replaces it, write it again with supersedes fact-0003`,
			`warning: similar to fact-0001 "Orders service owns the orders table in zone1"; if the new fact replaces it, write it again with supersedes fact-0001`,
			`warning: similar to fact-0002 "Orders service owns the orders table in zone2"; if the new fact replaces it, write it again with supersedes fact-0002`,
		}},
		{"four", 3, []string{
			`warning: similar to fact-0004 "Orders service owns the orders table now"; if the new fact replaces it, write it again with supersedes fact-0004`,
			`warning: similar to fact-0001 "Orders service owns the orders table in zone1"; if the new fact replaces it, write it again with supersedes fact-0001`,
			`warning: similar to fact-0002 "Orders service owns the orders table in zone2"; if the new fact replaces it, write it again with supersedes fact-0002`,
			`warning: 1 more fact has a similar title; memory search finds them`,
		}},
		{"eight", 7, []string{
			`warning: similar to fact-0008 "Orders service owns the orders table now"; if the new fact replaces it, write it again with supersedes fact-0008`,
			`warning: similar to fact-0001 "Orders service owns the orders table in zone1"; if the new fact replaces it, write it again with supersedes fact-0001`,
			`warning: similar to fact-0002 "Orders service owns the orders table in zone2"; if the new fact replaces it, write it again with supersedes fact-0002`,
			`warning: 5 more facts have a similar title; memory search finds them`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := OpenDir(t.TempDir(), Options{Now: fixedNow})
			var titles []string
			for i := range tt.others {
				titles = append(titles, fmt.Sprintf("%s in zone%d", title, i+1))
			}
			for _, ti := range append(titles, closest) {
				if _, err := s.Write(ctx, WriteRequest{Title: ti, Type: Constraint, Body: "Only orders writes it."}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := s.Write(ctx, WriteRequest{Title: title, Type: Constraint, Body: "Only orders writes it, always."})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if len(res.Similar) != min(tt.others+1, MaxSimilarNamed) || res.MoreSimilar != max(tt.others+1-MaxSimilarNamed, 0) {
				t.Errorf("%d similar named, %d more; want %d facts in all", len(res.Similar), res.MoreSimilar, tt.others+1)
			}
		})
	}
}

// TestRetireRefusesReasons: a retire's reason is held to what every field
// of a write is: text, one line of it, no secret; nothing is written.
func TestRetireRefusesReasons(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ reason, want string }{
		{"  ", "a reason is required"},
		{"gone \x1b[2J for good", "the reason holds the control character U+001B at byte 5"},
		{"reversed \u202eby a control", "the reason holds the bidirectional control character U+202E"},
		{"the token ghp_" + strings.Repeat("a1B2", 9) + " expired", "reason contains a secret"},
	} {
		s, root, _ := newTestStore(t)
		ctx := context.Background()
		w, err := s.Write(ctx, WriteRequest{Title: "Orders are kept for seven years", Type: Constraint, Body: "Legal retention rule."})
		if err != nil {
			t.Fatal(err)
		}
		before := readFile(t, root, w.Path)
		if _, err := s.Retire(ctx, w.ID, tt.reason); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Retire(%q) = %v, want %q", tt.reason, err, tt.want)
		}
		if readFile(t, root, w.Path) != before {
			t.Errorf("Retire(%q) changed the fact", tt.reason)
		}
	}
}
