package contracts

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/foundryhq/foundry/internal/testenv"
)

// ecmaPatterns are patterns ECMA-262 reads with the u flag; each must mean
// here what it means there (TestECMARegexpAgainstNode).
var ecmaPatterns = []string{
	`^(\S(.*\S)?)?$`, `^abc$`, `^\t$`, `^\cC$`, `^\cc$`, `^\d$`, `^\D$`, `^\w$`, `^\W$`,
	`^\s$`, `^\S$`, `^\s+$`, `\p{Letter}cole`, `^\p{digit}+$`, `^\p{Lu}$`, `^\P{L}$`,
	`^\p{gc=Nd}$`, `^\p{General_Category=Letter}$`, `^\p{Script=Greek}+$`, `^\p{sc=Latin}$`,
	`^.$`, `^.*$`, `^a.b$`, `^[\s]$`, `^[^\s]$`, `^[\S]$`, `^[^\S]$`, `^[\s\d]+$`, `[]`, `[^]`,
	`^[^]$`, `^[\b]$`, `\bab\b`, `^\0$`, `^\x41$`, `^\u0041$`, `^\u{1F432}$`, `^\ud83d\udc32*$`,
	`^[\u{1F432}-\u{1F433}]$`, `^a{2}$`, `^a{1,}$`, `^a{1,2}$`, `^(?:ab)+$`, `^(?<n>a)b$`,
	`^[a-z]+$`, `^[[a]$`, `^[\]]$`, `^[\-a]$`, `^\/$`, `^\.$`, `a|b`, `^$`, `^\$`, `\\`,
	`^[.]$`, `^[$^]+$`, `^[\^a]$`, `^\ud800$`, `^[^\d\s]$`, `^\p{Any}$`, `^[\p{Lu}\d]$`,
	`^[a-z]{2,3}?$`, `^(a|b)*?c$`, `^\u00e9$`, `^[:a]$`, `^[[:alpha:]]$`, `^\{$`, `^\}$`,
	`[\uD800-\uDFFF]`, `^[x-\uD800]$`, `[^\uD800]`, `^a{01}$`, `^a{1,02}$`, `^a{00}b$`, `^[a-z-0]+$`,
	`^[-a]$`, `^[a-]$`, `^[\d-]$`, `^[-\d]$`, `^[a-z-\d]$`, `^[%--\d]$`, `^[\x41-b-\W]$`, `^[a-b--x]$`,
	`^(?<a>x)|(?<b>y)$`,
}

// ecmaSyntaxErrors are patterns ECMA-262 refuses with the u flag.
var ecmaSyntaxErrors = []string{
	`(`, `)`, `[`, `a{`, `}`, `]`, `\`, `\A`, `\z`, `(?i)a`, `\Q`, `\e`, `\p{Foo}`, `\pL`,
	`a**`, `\c1`, `\x4`, `\u12`, `[b-a]`, `\-`, `\p{Greek}`, `(?P<n>a)`, `\01`, `[\B]`,
	`[\d-z]`, `[\w-z]`, `[\p{L}-z]`, `[\0-\s]`, `[\s-\uFFFF]`, `[a-\d]`, `\é`, `\u{41x}`,
	`^*`, `$+`, `\b+`, `(?<a>x)(?<a>y)`, `(?<a>x)|(?<a>y)`,
}

// ecmaUnsupported are patterns ECMA-262 reads that Go's regexp cannot run.
var ecmaUnsupported = []string{`^(?!tmp-)`, `(?=a)a`, `(?<=a)b`, `(?<!a)b`, `(a)\1`, `(?<n>a)\k<n>`}

// ecmaInputs are the texts every pattern is tried on: the white space and
// line terminators ECMA-262 and Go read differently among them.
var ecmaInputs = []string{
	"", "a", "b", "ab", "aa", "aaa", "abc", "abc\n", "c", "ac", "abac", " ", "\u00a0", "\u2003", "\ufeff",
	"\r", "\n", "\u2028", "a\u2028b", "a\rb", "a\nb", "axb", "\x0b", "\x03", "\x08", "\x00", "A", "1",
	"42", "\u09ea\u09e8", "é", "É", "αβ", "_", "[", "]", "-", "^", "$", "{", "}", ".", "/", "\\", ":",
	"🐲", "🐲🐲", "\U0001F433", "tmp-x", "x", "alice", "alice\u00a0", " alice", "a b", "l'école",
	"L'ÉCOLE", "ecole",
}

// TestECMARegexpAgainstNode checks every pattern on every input against
// Node's RegExp with the u flag, the ECMA-262 engine ajv runs: the same
// verdicts, the same refusals; lookaround and backreferences, which Node
// runs, are refused here as unsupported.
func TestECMARegexpAgainstNode(t *testing.T) {
	t.Parallel()
	node := testenv.Exec(t, "node")
	type job struct {
		P string `json:"p"`
		S string `json:"s"`
	}
	var jobs []job
	for _, p := range append(append(ecmaPatterns, ecmaSyntaxErrors...), ecmaUnsupported...) {
		for _, s := range ecmaInputs {
			jobs = append(jobs, job{p, s})
		}
	}
	in, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	// The chunks are decoded as one UTF-8 stream: a character split
	// between two chunks would otherwise come out as two U+FFFD.
	const script = `let d = ""; process.stdin.setEncoding("utf8").on("data", c => d += c).on("end", () => {
  console.log(JSON.stringify(JSON.parse(d).map(j => {
    try { return new RegExp(j.p, "u").test(j.s) ? "match" : "miss" } catch (e) { return "error" }
  })))
})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(jobs) {
		t.Fatalf("node answered %d verdicts (%v), want %d", len(want), err, len(jobs))
	}
	unsupported := map[string]bool{}
	for _, p := range ecmaUnsupported {
		unsupported[p] = true
	}
	compiled := map[string]*regexp.Regexp{}
	for i, j := range jobs {
		re, seen := compiled[j.P]
		var err error
		if !seen {
			re, err = compileECMA(j.P)
			compiled[j.P] = re
		}
		got := "error"
		if re != nil {
			got = "miss"
			if re.MatchString(j.S) {
				got = "match"
			}
		}
		switch {
		case unsupported[j.P]:
			if !seen && (want[i] == "error" || !errors.Is(err, errRegexpUnsupported)) {
				t.Errorf("%s: node %s, here %v; want node to run it and here errRegexpUnsupported", j.P, want[i], err)
			}
		case got != want[i]:
			t.Errorf("pattern %s on %q: node says %s, here %s (%v)", j.P, j.S, want[i], got, err)
		}
	}
}

func compileECMA(p string) (*regexp.Regexp, error) {
	g, err := ecmaToGo(p)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(g)
}

// TestECMARegexpInSchemas: a contract's pattern is ECMA-262's. The embedded
// actor pattern, "no leading or trailing white space", refuses a trailing
// no-break space; a lookahead is refused as a schema that does not compile,
// the construct named.
func TestECMARegexpInSchemas(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type": "string", "pattern": "^(\\S(.*\\S)?)?$"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc   string
		valid bool
	}{
		{`"alice"`, true}, {`"alice\u00a0"`, false}, {`"\ufeffalice"`, false}, {`"a\u2028b"`, false}, {`"a b"`, true},
	} {
		vs, err := s.ValidateJSON([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if (len(vs) == 0) != tc.valid {
			t.Errorf("%s: violations %v, want valid = %v", tc.doc, vs, tc.valid)
		}
		if len(vs) > 0 && vs[0].Message != `does not match pattern "^(\\S(.*\\S)?)?$"` {
			t.Errorf("%s: message %q names the pattern otherwise than the schema spells it", tc.doc, vs[0].Message)
		}
	}
	if _, err := Compile([]byte(`{"pattern": "^(?!tmp-)"}`)); err == nil {
		t.Error("a lookahead compiled")
	}
}

// FuzzECMAToGo: any pattern translates or is refused, never panics, and
// what it translates to is UTF-8 that Go's regexp parses or refuses.
func FuzzECMAToGo(f *testing.F) {
	for _, p := range append(append(ecmaPatterns, ecmaSyntaxErrors...), ecmaUnsupported...) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		g, err := ecmaToGo(p)
		if err != nil {
			return
		}
		if !utf8.ValidString(g) {
			t.Fatalf("ecmaToGo(%q) = %q, not UTF-8", p, g)
		}
		_, _ = regexp.Compile(g)
	})
}
