package secrets

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Test values are assembled at run time so the source holds no string a
// secret scanner would flag.
var (
	ghToken    = "ghp_" + strings.Repeat("a1B2", 9)
	ghPAT      = "github_pat_" + strings.Repeat("11ABCD", 4) + "_" + strings.Repeat("x9", 20)
	glToken    = "glpat-" + strings.Repeat("Zz9_", 5)
	slackToken = "xoxb-" + "123456789012-" + strings.Repeat("Ab3", 8)
	awsKey     = "AKIA" + "IOSFODNN7EXAMPLE"
	bbToken    = "ATBB" + strings.Repeat("x7Kq", 8)
	doToken    = "dop_v1_" + strings.Repeat("0a1b2c3d", 8)
	skKey      = "sk-" + "proj-" + strings.Repeat("T3bl", 8)
	googleKey  = "AIza" + strings.Repeat("Sy9_", 8) + "abc"
	stripeKey  = "sk_" + "live_" + strings.Repeat("4eC3", 6)
	jwt        = "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	pemBlock   = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd\n-----END RSA PRIVATE KEY-----"
	npmToken   = "npm_" + strings.Repeat("aB3d", 9)
	awsSecret  = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	bearerHex  = strings.Repeat("9f8e7d6c", 5)
	pemBase64  = base64.StdEncoding.EncodeToString([]byte(pemBlock))
)

func TestFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Kind
	}{
		{"private key block", "key:\n" + pemBlock + "\nend", []Kind{PrivateKey}},
		{"private key without end", "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", []Kind{PrivateKey}},
		{"aws access key", "use " + awsKey + " for uploads", []Kind{AWSAccessKey}},
		{"github token", "token " + ghToken, []Kind{GitHubToken}},
		{"github fine-grained token", ghPAT, []Kind{GitHubToken}},
		{"gitlab token", "CI uses " + glToken, []Kind{GitLabToken}},
		{"bitbucket token", "app password " + bbToken, []Kind{BitbucketToken}},
		{"digitalocean token", "DIGITALOCEAN_ACCESS_TOKEN=" + doToken, []Kind{DigitalOceanKey}},
		{"slack token", "bot " + slackToken, []Kind{SlackToken}},
		{"google api key", "maps key " + googleKey, []Kind{GoogleAPIKey}},
		{"stripe key", "charge with " + stripeKey, []Kind{StripeKey}},
		{"generic sk key", "OpenAI key " + skKey + " in CI", []Kind{APIKey}},
		{"jwt", "Authorization: Bearer " + jwt, []Kind{JWT}},
		{"password env assignment", "DB_PASSWORD=hunter2", []Kind{Password}},
		{"password yaml quoted", `password: "correct horse"`, []Kind{Password}},
		{"password colon with digits", "admin password: S3cr3t!x", []Kind{Password}},
		{"client secret", "client_secret = abcdefgh", []Kind{Password}},
		{"ado connection string", "Server=db;User Id=app;Password=Pa55word;", []Kind{Password}},
		{"postgres url", "postgres://app:s3cret@db.internal:5432/orders", []Kind{ConnectionString}},
		{"redis url empty user", "redis://:hunter22@cache:6379", []Kind{ConnectionString}},
		{"token inside assignment is the token", "GITHUB_TOKEN=" + ghToken, []Kind{GitHubToken}},
		{"token behind a json escape", `"` + ghToken[:3] + `\u005f` + ghToken[4:] + `"`, []Kind{GitHubToken}},
		{"password glued to a prefix", "PGPASSWORD=hunter22 psql -h db", []Kind{Password}},
		{"camel case password", `adminPassword: "S3cure!pass"`, []Kind{Password}},
		{"camel case password env", "dbPassword=hunter22", []Kind{Password}},
		{"camel case api key", `openaiApiKey = "q8Zr2LmW0pX"`, []Kind{Password}},
		{"camel case access token", "githubAccessToken=q8Zr2LmW0pX", []Kind{Password}},
		{"camel case secret", `appSecret: "q8Zr2LmW"`, []Kind{Password}},
		{"azure account key", "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFy==;EndpointSuffix=core.windows.net", []Kind{Password}},
		{"two kinds", awsKey + " and mysql://root:toor@localhost/db", []Kind{AWSAccessKey, ConnectionString}},
		{"npm token", "//registry.npmjs.org/:_authToken " + npmToken, []Kind{NPMToken}},
		{"bare aws secret key", "aws_secret " + awsSecret + " in CI", []Kind{AWSSecretKey}},
		{"bearer hex", "Authorization: Bearer " + bearerHex, []Kind{BearerToken}},
		{"base64 private key", "tls.key: " + pemBase64, []Kind{PrivateKey}},
		{"token split by zero-width spaces", "use " + ghToken[:6] + "\u200b" + ghToken[6:20] + "\u200d" + ghToken[20:] + " now", []Kind{GitHubToken}},
		{"fullwidth token", "use " + toFullwidth(ghToken) + " now", []Kind{GitHubToken}},
		{"json-escaped password", `{"q": "password=\"hunter22\""}`, []Kind{Password}},
		{"json-escaped key and value", `"note": "{\"token\": \"q8Zr2LmW0pX\"}"`, []Kind{Password}},
		{"session id is redacted, not refused", `session_id = "a81f0c33d9"`, nil},
		{"aws secret without a slash, on an aws line", "AWS deploy user keys AKIAIOSFODNN7EXAMPLE " + strings.Repeat("q8Zr2LmW0p", 4), []Kind{AWSAccessKey, AWSSecretKey}},
		{"url-safe cursor is no aws secret", "More: call again with cursor YmIxOmF1ZGl0L2FwcHNlYy1yZXZpZXdlci5qc29u.", nil},
		{"git hash is no aws secret", "commit 4f3ecae1b2c3d4e5f60718293a4b5c6d7e8f9012 fixed it", nil},
		{"bearer placeholder", "Authorization: Bearer <token>", nil},
		{"bearer placeholder in capitals", "Send Authorization: Bearer YOUR_ACCESS_TOKEN_HERE on every call", nil},
		{"bearer prose", "The API takes bearer authentication/authorization headers.", nil},

		{"prose about passwords", "Passwords are hashed with argon2id before storage.", nil},
		{"password colon prose", "Password: must be rotated every 90 days.", nil},
		{"password colon hyphenated word", "Password: bcrypt-hashed with cost 12.", nil},
		{"token colon hyphenated word", "Access token: short-lived, 15 minutes.", nil},
		{"secret colon path", "Secret: kv/data/payments holds the Stripe keys.", nil},
		{"placeholder env", "DB_PASSWORD=${DB_PASSWORD}", nil},
		{"placeholder angle", "password=<your password>", nil},
		{"placeholder stars", "password=********", nil},
		{"url placeholder password", "postgres://app:${PGPASSWORD}@db/orders", nil},
		{"url without credentials", "https://example.com/docs?a=b", nil},
		{"url with user only", "ssh://git@github.com/org/repo", nil},
		{"public key block", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", nil},
		{"short sk word", "sk-learn is a library", nil},
		{"oldpwd is no password", "OLDPWD=/home/me", nil},
		{"token budget", "maxTokens=4000 and tokens: 4000", nil},
		{"mcp progress token", `{"progressToken":"tok-1","progress":1}`, nil},
		{"code call", `ErrSecret = errors.New("fact contains a secret"); password := os.Getenv("DB_PASSWORD")`, nil},
		{"comparison", "if token == nil || password === '' {", nil},
		{"page token", "nextPageToken=CiAKGjBpNDd2Nmp2Zml", nil},
		{"ordinary text", "Persistence layer uses Flyway, not Liquibase", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Kinds(Find(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find(%q) kinds (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFindLine(t *testing.T) {
	t.Parallel()
	got := Find("first\nsecond\nkey " + awsKey)
	if len(got) != 1 || got[0].Line != 3 {
		t.Fatalf("Find = %+v, want one finding on line 3", got)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"none", "nothing to hide", "nothing to hide"},
		{"token", "use " + ghToken + " now", "use [REDACTED] now"},
		{"assignment keeps key", "DB_PASSWORD=hunter2 next", "DB_PASSWORD=[REDACTED] next"},
		{"quoted keeps quotes", `password: "correct horse"`, `password: "[REDACTED]"`},
		{"url keeps user and host", "postgres://app:s3cret@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"pem block", "a\n" + pemBlock + "\nb", "a\n[REDACTED]\nb"},
		{"several", awsKey + " " + slackToken, "[REDACTED] [REDACTED]"},
		{"json-escaped quotes stay valid", `{"q": "password: \"hunter22\""}`, `{"q": "password: \"[REDACTED]\""}`},
		{"json-escaped env", `"API_KEY=\"q8Zr2LmW0pX\""`, `"API_KEY=\"[REDACTED]\""`},
		{"zero-width characters go with the token", "a " + ghToken[:6] + "\u200b" + ghToken[6:] + " b", "a [REDACTED] b"},
		{"fullwidth", "a " + toFullwidth(ghToken) + " b", "a [REDACTED] b"},
		{"json escape goes with the token", `{"cfg": "` + ghToken[:3] + `\u005f` + ghToken[4:] + `"}`, `{"cfg": "[REDACTED]"}`},
		{"json escape ends the token", "a " + ghToken[:len(ghToken)-1] + `\u00` + fmt.Sprintf("%x", ghToken[len(ghToken)-1]) + " b", "a [REDACTED] b"},
		{"escaped zero-width character goes with the token", `{"cfg": "` + ghToken[:10] + `\u200b` + ghToken[10:] + `"}`, `{"cfg": "[REDACTED]"}`},
		{"escaped soft hyphen goes with the token", "a " + ghToken[:10] + `\u00ad` + ghToken[10:] + " b", "a [REDACTED] b"},
		{"escaped fullwidth forms", "a " + escapeAll(toFullwidth(ghToken)) + " b", "a [REDACTED] b"},
		{"escaped slashes in a url", `"postgres:\/\/app:s3cret@db:5432\/x"`, `"postgres:\/\/app:[REDACTED]@db:5432\/x"`},
		{"escaped equals sign", `DB_PASSWORD\u003dhunter2 next`, `DB_PASSWORD\u003d[REDACTED] next`},
		{"escapes of no secret stay", `a \u005f b \/ c \u00e9 \u0000 \uzzzz`, `a \u005f b \/ c \u00e9 \u0000 \uzzzz`},
		{"password hash", `passwordHash: "$2b$12$abcdefghijk"`, `passwordHash: "[REDACTED]"`},
		{"session cookie", "Cookie=sid-8f7e6d5c4b", "Cookie=[REDACTED]"},
		{"credentials", `credentials: "u:p"`, `credentials: "[REDACTED]"`},
		{"connection string key", `ConnectionString="Server=db;Database=x"`, `ConnectionString="[REDACTED]"`},
		{"bearer", "Authorization: Bearer " + bearerHex, "Authorization: Bearer [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(find(got, true, true)) != 0 {
				t.Errorf("Redact(%q) still holds a secret: %q", tt.in, got)
			}
		})
	}
}

// escapeAll spells every character of s as its JSON \uXXXX escape.
func escapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// toFullwidth spells s in fullwidth forms (Ａ for A).
func toFullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", "password=x1y2z3", "postgres://a:b@c/d", ghToken, pemBlock, "-----BEGIN PRIVATE KEY-----",
		"a\u200bghp_\uff21", toFullwidth(ghToken), `{\"token\": \"abc\"}`, pemBase64, `ghp\u005f\/\u00`, `\u\u005\u005fx`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs := Find(s)
		for i, fd := range fs {
			if fd.Start < 0 || fd.End > len(s) || fd.Start > fd.End {
				t.Fatalf("finding %d out of range: %+v (len %d)", i, fd, len(s))
			}
			if i > 0 && fs[i-1].End > fd.Start {
				t.Fatalf("findings overlap: %+v %+v", fs[i-1], fd)
			}
		}
		_ = Redact(s)
		for _, fd := range find(s, true, true) {
			if fd.Start < 0 || fd.End > len(s) || fd.Start > fd.End {
				t.Fatalf("redaction out of range: %+v (len %d)", fd, len(s))
			}
		}
	})
}

// TestNormalizeFastPath: a text whose escapes spell no printable ASCII
// character (an encoder that writes ASCII only spells é \u00e9) is scanned
// as it is, with no copy; one that spells one is normalised.
func TestNormalizeFastPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		copy bool
	}{
		{`{"name": "Ren\u00e9", "path": "C:\\temp"}`, false},
		{`trailing backslash \`, false},
		{`a \u00 b \uzzzz c \\`, false},
		{`ghp\u005fabc`, true},
		{`https:\/\/host`, true},
		{"zero\u200bwidth", true},
		{`zero\u200bwidth, escaped`, true},
		{`fullwidth \uff47, escaped`, true},
	} {
		if _, offsets := normalize(tt.in); (offsets != nil) != tt.copy {
			t.Errorf("normalize(%q) copied = %v, want %v", tt.in, offsets != nil, tt.copy)
		}
	}
}

// TestOffsetMap: every offset of a normalised text maps into the text, in
// order, each ASCII character written back to itself, and the end to the
// end (past removed characters trailing it).
func TestOffsetMap(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`a\u005fb`, "\u200bx\u200b", `\u200b\uff47x\/y\u00e9z` + "\xff\u200b", toFullwidth("ab") + `c\u0041`, `x\u00ad`,
	} {
		norm, m := normalize(text)
		if m == nil {
			t.Fatalf("normalize(%q) made no map", text)
		}
		last := 0
		for n := 0; n <= len(norm); n++ {
			o := m.at(n)
			if o < last || o > len(text) {
				t.Errorf("normalize(%q): at(%d) = %d after %d (text of %d bytes)", text, n, o, last, len(text))
			}
			if n < len(norm) && norm[n] < utf8.RuneSelf && text[o] == norm[n] && norm[n] != '\\' {
				// plain: the same byte
			} else if n < len(norm) && norm[n] < utf8.RuneSelf && text[o] != '\\' && text[o] < utf8.RuneSelf {
				t.Errorf("normalize(%q): %q at %d maps to %q at %d", text, norm[n], n, text[o], o)
			}
			last = o
		}
		if got := m.at(len(norm)); got != len(text) {
			t.Errorf("normalize(%q): the end maps to %d, want %d", text, got, len(text))
		}
	}
}
