package blackboard

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/secrets"
)

// TestWriteRefusesSecrets: an artifact carrying a provider-format token or
// a private key block is refused, naming the JSON pointer and the kind,
// never the value; nothing is written and the refusal is a gate_blocked
// event. Prose about secrets (seed 004's appsec finding) stays writable.
func TestWriteRefusesSecrets(t *testing.T) {
	t.Parallel()
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	pem := "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----"
	npm := "npm_" + strings.Repeat("aB3d", 9)
	base := func() map[string]any {
		return map[string]any{"id": "F-1", "severity": "low", "title": "t", "summary": "s", "failureScenario": "f", "confidence": "low"}
	}
	tests := []struct {
		name string
		edit func(map[string]any)
		want []Secret
	}{
		{"token in a field", func(m map[string]any) { m["summary"] = "CI leaked " + gh }, []Secret{{"#/summary", secrets.GitHubToken, false}}},
		{"private key deep in evidence", func(m map[string]any) {
			m["evidence"] = []any{map[string]any{"kind": "file", "ref": "deploy/key", "note": pem}}
		}, []Secret{{"#/evidence/0/note", secrets.PrivateKey, false}}},
		{"token as a key, pointer escaped", func(m map[string]any) { m["failureScenario"] = "x"; m["a/"+npm] = "v" },
			[]Secret{{"#", secrets.NPMToken, true}}},
		{"token as a key of an object holding one", func(m map[string]any) { m[gh] = map[string]any{"x": gh} },
			[]Secret{{"#", secrets.GitHubToken, true}, {"#/[REDACTED]/x", secrets.GitHubToken, false}}},
		{"token deep down, after a sibling", func(m map[string]any) {
			var v any = map[string]any{"a~b/c": []any{"clean", npm}}
			for range 40 {
				v = []any{v}
			}
			m["deep"] = []any{"clean", v}
		}, []Secret{{"#/deep/1" + strings.Repeat("/0", 40) + "/a~0b~1c/1", secrets.NPMToken, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newProject(t)
			before := listFiles(t, root)
			rec := &recorder{}
			m := base()
			tt.edit(m)
			data, _ := json.Marshal(m)
			res, err := openBoard(root, rec).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "a", Schema: "finding.v1", Data: data})
			var se *SecretError
			if !errors.As(err, &se) || !errors.Is(err, ErrSecret) || res.Written {
				t.Fatalf("Write = %+v, %v; want a SecretError", res, err)
			}
			if diff := cmp.Diff(tt.want, se.Secrets); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
			for _, v := range []string{gh, npm, "b3BlbnNzaC1rZXktdjE"} {
				if strings.Contains(err.Error(), v) {
					t.Errorf("the error shows the value: %v", err)
				}
			}
			if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
				t.Errorf("files written (-before +after):\n%s", diff)
			}
			if len(rec.kinds) != 1 || rec.kinds[0] != "gate_blocked" {
				t.Errorf("events %v, want one gate_blocked", rec.kinds)
			}
		})
	}

	// Seed 004's appsec finding speaks of a password list; a finding may
	// quote a weak password assignment as evidence. Both are prose.
	root := newProject(t)
	seed := `{"id": "F-014", "severity": "high", "title": "No rate limit on the login endpoint",
	  "summary": "POST /api/login accepts unlimited attempts per account and per source address.",
	  "failureScenario": "An attacker sends 10k requests/min to /api/login with one username and a password list; no lockout, no delay, no CAPTCHA is triggered.",
	  "standard": "OWASP ASVS V2.2.1", "confidence": "high",
	  "evidence": [{"kind": "file", "ref": "config/app.yaml:12", "note": "admin_password: changeme123 ships in the default config"}]}`
	res, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "audit", Agent: "appsec-reviewer", Schema: "finding.v1", Data: []byte(seed)})
	if err != nil || !res.Written {
		t.Fatalf("seed 004 finding: %+v, %v", res, err)
	}
}

// TestFindSecretsAtEveryLevel: data holding a token at every level of a
// deep nesting is reported from its first MaxSecrets, each pointer right,
// without spelling a pointer for every level of every secret.
func TestFindSecretsAtEveryLevel(t *testing.T) {
	t.Parallel()
	npm := "npm_" + strings.Repeat("aB3d", 9)
	var v any = npm
	for range 5000 {
		v = []any{npm, v}
	}
	got := FindSecrets(map[string]any{"deep": v})
	if len(got) != MaxSecrets {
		t.Fatalf("%d secrets, want MaxSecrets (%d)", len(got), MaxSecrets)
	}
	for i, s := range got {
		if want := "#/deep" + strings.Repeat("/1", i) + "/0"; s.Pointer != want || s.Kind != secrets.NPMToken {
			t.Fatalf("secret %d = %+v, want %s", i, s, want)
		}
	}
}
