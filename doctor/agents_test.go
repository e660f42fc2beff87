package doctor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/doctor"
)

func TestParseAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []doctor.Declaration
	}{
		{
			name: "the seed's form",
			in: "---\nname: appsec-reviewer\n---\n# AppSec reviewer\n\n## Input contract\n`plan.v1` — the wave definitions and their gates\n\n" +
				"## Output contract\n`finding.v1` — written to `.foundry/blackboard/audit/appsec-reviewer.json`\n\n## Steps\n`review.v1` is not declared here\n",
			want: []doctor.Declaration{
				{Section: "Input contract", Contract: "plan.v1", Line: 7},
				{Section: "Output contract", Contract: "finding.v1", Path: ".foundry/blackboard/audit/appsec-reviewer.json", Line: 10},
			},
		},
		{
			name: "plural heading, bullets, several contracts, CRLF, placeholders",
			in: "## Input contracts\r\n- `plan.v1` and `handoff.v1`\r\n- `.foundry/blackboard/<wave>/x.json` alone declares nothing\r\n" +
				"### Notes\r\n- `risk.v1` is still in the section\r\n# Other\r\n`adr.v1`\r\n",
			want: []doctor.Declaration{
				{Section: "Input contract", Contract: "plan.v1", Line: 2},
				{Section: "Input contract", Contract: "handoff.v1", Line: 2},
				{Section: "Input contract", Contract: "risk.v1", Line: 5},
			},
		},
		{
			name: "fenced examples are not declarations",
			in:   "```markdown\n## Output contract\n`finding.v1`\n```\n~~~\n## Input contract\n~~~\n`plan.v1`\n",
		},
		{
			name: "ids that are not contract ids",
			in:   "## Output contract\n`Finding.V1` `finding` `finding.v1.schema.json` `x.vone`\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, doctor.ParseAgent([]byte(tt.in))); diff != "" {
				t.Errorf("declarations (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseAgent(f *testing.F) {
	f.Add([]byte("## Output contract\n`finding.v1` — written to `.foundry/blackboard/audit/a.json`\n"))
	f.Add([]byte("## Input contracts\n```\n## Output contract\n`x.v1`\n"))
	f.Add([]byte("\r\n## Input contract\r\n`` `a.v1` ``\r\n"))
	f.Fuzz(func(t *testing.T, md []byte) {
		lines := len(splitLines(md))
		for _, d := range doctor.ParseAgent(md) {
			if d.Line < 1 || d.Line > lines || d.Contract == "" || (d.Section != "Input contract" && d.Section != "Output contract") {
				t.Errorf("declaration out of place: %+v (%d lines)", d, lines)
			}
		}
	})
}

func splitLines(b []byte) []string {
	n := 1
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return make([]string, n)
}
