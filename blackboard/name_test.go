package blackboard

import (
	"errors"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "plain", in: "appsec-reviewer", want: "appsec-reviewer"},
		{name: "all allowed", in: "A-z_0.9", want: "A-z_0.9"},
		{name: "parent escape", in: "../../etc", want: "..-..-etc"},
		{name: "sub folder", in: "a/b", want: "a-b"},
		{name: "backslash", in: `a\b`, want: "a-b"},
		{name: "absolute", in: "/etc/passwd", want: "-etc-passwd"},
		{name: "spaces and colon", in: "Audit Wave: 1", want: "Audit-Wave--1"},
		{name: "one dash per character", in: "é✓", want: "--"},
		{name: "invalid UTF-8 byte", in: "a\xffb", want: "a-b"},
		{name: "hidden is kept", in: ".github", want: ".github"},
		{name: "git folder", in: ".git", wantErr: `invalid name ".git": names git's own folder (".git" in any case, also with trailing dots), which git never commits`},
		{name: "git folder upper", in: ".GIT", wantErr: `invalid name ".GIT": names git's own folder (".git" in any case, also with trailing dots), which git never commits`},
		{name: "git folder mixed", in: ".Git", wantErr: `invalid name ".Git": names git's own folder (".git" in any case, also with trailing dots), which git never commits`},
		{name: "git folder dot", in: ".git.", wantErr: `invalid name ".git.": names git's own folder (".git" in any case, also with trailing dots), which git never commits`},
		{name: "trailing dot", in: "wave.", wantErr: `invalid name "wave.": ends with a dot or a space, which Windows drops and git refuses`},
		{name: "three dots", in: "...", wantErr: `invalid name "...": ends with a dot or a space, which Windows drops and git refuses`},
		{name: "git short name", in: "GIT~1", wantErr: `invalid name "GIT~1": is "git~1", the short name of .git on Windows, which git refuses`},
		{name: "trailing space", in: "wave ", wantErr: `invalid name "wave ": ends with a dot or a space, which Windows drops and git refuses`},
		{name: "reserved", in: "con", wantErr: `invalid name "con": is the reserved device name CON on Windows (CON, PRN, AUX, NUL, COM1–9, LPT1–9, with or without an extension)`},
		{name: "reserved with extension", in: "LPT9.x", wantErr: `invalid name "LPT9.x": is the reserved device name LPT9 on Windows (CON, PRN, AUX, NUL, COM1–9, LPT1–9, with or without an extension)`},
		{name: "not reserved", in: "com10", want: "com10"},
		{name: "cut to 80", in: strings.Repeat("w", 200), want: strings.Repeat("w", 80)},
		{name: "cut counts characters", in: strings.Repeat("é", 100), want: strings.Repeat("-", 80)},
		{name: "dot", in: ".", wantErr: `invalid name ".": "." and ".." name no folder inside the blackboard`},
		{name: "dot dot", in: "..", wantErr: `invalid name "..": "." and ".." name no folder inside the blackboard`},
		{name: "empty", in: "", wantErr: `invalid name "": is empty`},
		{name: "NUL", in: "a\x00b", wantErr: `invalid name "a\x00b": contains a NUL byte`},
		{name: "NUL alone", in: "\x00", wantErr: `invalid name "\x00": contains a NUL byte`},
		{name: "temp file look-alike", in: ".foundry-tmp-x", wantErr: `invalid name ".foundry-tmp-x": starts like a temporary file (.foundry-tmp-)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Sanitize(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalidName) {
					t.Fatalf("Sanitize(%q) = %q, %v; want error %s", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Sanitize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSanitizeFieldNamesTheField(t *testing.T) {
	t.Parallel()
	_, err := sanitizeField("wave", "..")
	if want := `invalid wave name "..": "." and ".." name no folder inside the blackboard`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"audit", "../../etc", "a/b", ".", "..", "", "a\x00b", strings.Repeat("x", 200), "é/..", ".foundry-tmp-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Sanitize(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("error %v does not wrap ErrInvalidName", err)
			}
			return
		}
		if got == "" || got == "." || got == ".." || len(got) > MaxNameLen {
			t.Fatalf("Sanitize(%q) = %q", in, got)
		}
		for i := 0; i < len(got); i++ {
			if !allowed(got[i]) {
				t.Fatalf("Sanitize(%q) = %q holds %q", in, got, got[i])
			}
		}
		if again, err := Sanitize(got); err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, got, again, err)
		}
	})
}
