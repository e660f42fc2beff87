package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// longWordFact is a fact whose body is one random lowercase word of n
// bytes, as a hostile repository commits them: such a word holds "pwd",
// "key" or "aws" by chance, and here holds "password" and "token" too.
func longWordFact(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	copy(b[n/3:], "password")
	copy(b[n/2:], "awstoken")
	return "---\nid: fact-0001\ntype: risk\ntitle: Big fact\nconfidence: high\n---\n" + string(b) + "\n"
}

// TestLongWordIsNotScannedWhole checks that the expressions read a few
// hundred bytes of a fact that is one 60 KB word, not the word: each
// detector whose literal the word holds runs on its windows alone.
func TestLongWordIsNotScannedWhole(t *testing.T) {
	t.Parallel()
	text := longWordFact(60000)
	sc := newScan(text, true)
	read, ran := 0, 0
	for i := range detectors() {
		if !sc.mayMatch(i) {
			continue
		}
		ran++
		for _, w := range sc.windows(i) {
			read += w.end - w.start
		}
	}
	if ran == 0 {
		t.Fatal("no detector passed its literal filter: the text no longer tests the windows")
	}
	if read > 2000 {
		t.Errorf("%d detectors read %d bytes of a %d-byte text, want at most 2000", ran, read, len(text))
	}
	if got, want := find(text, true, true), find(text, true, false); !cmp.Equal(got, want) {
		t.Errorf("windowed findings %v, whole-text findings %v", got, want)
	}
}

// edgePieces are fragments that, joined at random, put assignments, AWS
// lines and tokens at and across the edges of the windows.
var edgePieces = []string{
	"password", "PGPASSWORD", "db_password", "dbPassword", "token", "pageToken", "access-token", "refresh_token",
	"passwordHash", "session_id", "Set-Cookie", "credentials", "connStr", "dsn", "OLDPWD", "apiKey", "x-", "_", "-",
	"=", ":", ":=", "=>", "==", " = ", ": ", "\n=", "\n\n  :", "\r\n", "\t", " ", "\n", "\f",
	`"`, `'`, `\"`, `\`, "<", ">", ",", ";",
	"hunter22", "S3cr3t!x", `"correct horse"`, `'a b'`, "<pw>", `\"q8Zr\\` + "\n" + `2Lm\"`, `\"ab\"`, "${X}", "****",
	"aws", "AWS ", "akia", "AKIAIOSFODNN7EXAMPLE", awsSecret, "q8Zr2LmW0pq8Zr2LmW0pq8Zr2LmW0pq8Zr2LmW0p",
	"é", "日本", "\u200b", "\uff21", "\u017f", "\u212a", "\u0130", "\xff", "postgres://a:b@c/d", "Bearer " + bearerHex,
	ghToken, "word", "line\n",
}

// randomEdgeText joins random edge pieces and runs of key characters as
// long as a window allows, or of wide characters as long as the AWS
// pattern's 80-character gap.
func randomEdgeText(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(14) {
		switch r.IntN(10) {
		case 0:
			n := maxKeyName - 30 + r.IntN(31) // a key name up to the cap
			b.WriteString(strings.Repeat("k", n-8))
			b.WriteString([]string{"password", "tokenXYZ", "a_secret", "apikey12"}[r.IntN(4)])
		case 1:
			runes := []string{"x", "é", "日", "😀", "\n"}
			for range 76 + r.IntN(8) {
				b.WriteString(runes[r.IntN(len(runes))])
			}
		default:
			b.WriteString(edgePieces[r.IntN(len(edgePieces))])
		}
	}
	return b.String()
}

// hasLongKeyName reports whether text, once normalized, holds a run of key
// characters longer than maxKeyName, where windowed findings may differ.
func hasLongKeyName(text string) bool {
	norm, _ := normalize(text)
	run := 0
	for i := 0; i < len(norm); i++ {
		if isKeyByte(norm[i]) {
			run++
			if run > maxKeyName {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// TestWindowsFindWhatWholeTextFinds compares windowed with whole-text
// findings on random texts built to put secrets at the windows' edges.
func TestWindowsFindWhatWholeTextFinds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 13))
	found := 0
	for i := range 6000 {
		text := randomEdgeText(r)
		if hasLongKeyName(text) {
			continue
		}
		for _, redact := range []bool{false, true} {
			want := find(text, redact, false)
			found += len(want)
			if got := find(text, redact, true); !cmp.Equal(got, want) {
				t.Fatalf("case %d, redact %v: %q\nwindowed   %v\nwhole text %v", i, redact, text, got, want)
			}
		}
	}
	if found < 1500 {
		t.Errorf("only %d findings in all cases: the texts test too little", found)
	}
}

// TestLongKeyNameIsCut pins what the cap on key names changes: a key name
// longer than maxKeyName is read from its last maxKeyName bytes, so a
// keyword at its start no longer hides that the one at its end is glued
// to a prefix (see passwordValue).
func TestLongKeyNameIsCut(t *testing.T) {
	t.Parallel()
	long := "token" + strings.Repeat("a", maxKeyName) + "xtoken=q8Zr2LmW0pX"
	if got := Kinds(find(long, false, false)); !cmp.Equal(got, []Kind{Password}) {
		t.Errorf("whole-text kinds = %v, want a password assignment", got)
	}
	if got := Find(long); len(got) != 0 {
		t.Errorf("Find = %v, want none: the last %d bytes hold a glued token", got, maxKeyName)
	}
	short := long[len(long)-len("=q8Zr2LmW0pX")-maxKeyName:]
	if got, want := Find(short), find(short, false, false); !cmp.Equal(got, want) {
		t.Errorf("key name of %d bytes: Find = %v, whole text %v", maxKeyName, got, want)
	}
}

func FuzzWindowedFind(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		f.Add(randomEdgeText(r))
	}
	f.Fuzz(func(t *testing.T, text string) {
		if hasLongKeyName(text) {
			t.Skip("a key name longer than maxKeyName may be read differently")
		}
		for _, redact := range []bool{false, true} {
			if got, want := find(text, redact, true), find(text, redact, false); !cmp.Equal(got, want) {
				t.Fatalf("redact %v: %q\nwindowed   %v\nwhole text %v", redact, text, got, want)
			}
		}
	})
}

func BenchmarkFindLongWord(b *testing.B) {
	text := longWordFact(60000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Find(text)
	}
}

func BenchmarkRedactLongWord(b *testing.B) {
	text := longWordFact(60000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}
