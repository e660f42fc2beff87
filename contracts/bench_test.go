package contracts

import (
	"fmt"
	"strings"
	"testing"
)

// findingDocs returns n finding.v1 artifacts, one in four invalid in one of
// several ways (missing field, bad enum, long title, bad evidence, extra
// property), the mix scripts/bench-validate writes to disk.
func findingDocs(n int) [][]byte {
	severities := []string{"critical", "high", "medium", "low", "info"}
	docs := make([][]byte, n)
	for i := range docs {
		sev := severities[i%len(severities)]
		title := fmt.Sprintf("Finding number %d in the login flow", i)
		extra, scenario := "", `"failureScenario": "An attacker sends 10k requests/min to /api/login with one username and a password list.",`
		evidence := `[{"kind": "file", "ref": "src/auth/login.ts:42"}, {"kind": "url", "ref": "https://owasp.org/ASVS"}]`
		if i%4 == 0 {
			switch (i / 4) % 5 {
			case 0:
				scenario = ""
			case 1:
				sev = "High"
			case 2:
				title = strings.Repeat("long title ", 12)
			case 3:
				evidence = `[{"kind": "file"}, {"kind": "screenshot", "ref": "a.png"}, {"kind": "url", "ref": "not a uri"}]`
			case 4:
				extra = `"notes": "belongs in summary",`
			}
		}
		docs[i] = fmt.Appendf(nil, `{
  "schema": "finding.v1",
  "producedBy": "appsec-reviewer",
  "id": "F-%d",
  "severity": %q,
  "title": %q,
  "summary": "POST /api/login accepts unlimited attempts per account and per source address.",
  %s
  "standard": "OWASP ASVS V2.2.1",
  "evidence": %s,
  %s
  "confidence": "high"
}
`, i, sev, title, scenario, evidence, extra)
	}
	return docs
}

// BenchmarkValidate validates 10,000 finding.v1 artifacts (three in four
// valid) per iteration, in one process, as `foundry validate --auto` does.
func BenchmarkValidate(b *testing.B) {
	docs := findingDocs(10000)
	r, err := Load(nil)
	if err != nil {
		b.Fatal(err)
	}
	invalid, size := 0, 0
	for _, d := range docs {
		size += len(d)
		vs, err := r.Validate("finding.v1", d) // also compiles the contract once
		if err != nil {
			b.Fatal(err)
		}
		if len(vs) > 0 {
			invalid++
		}
	}
	if invalid != len(docs)/4 {
		b.Fatalf("%d invalid documents, want %d", invalid, len(docs)/4)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if _, err := r.Validate("finding.v1", d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkDecode decodes the 10,000 finding.v1 artifacts of
// BenchmarkValidate per iteration: the scan and build every validation
// starts with.
func BenchmarkDecode(b *testing.B) {
	docs := findingDocs(10000)
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if _, err := parse(d); err != nil {
				b.Fatal(err)
			}
		}
	}
}
