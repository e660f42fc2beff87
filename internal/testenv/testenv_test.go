package testenv

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestNeed(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/x", nil }
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	for _, tt := range []struct {
		name     string
		lookPath func(string) (string, error)
		required bool
		want     bool
		wantErr  string
	}{
		{name: "found", lookPath: found, want: true},
		{name: "found under CI", lookPath: found, required: true, want: true},
		{name: "missing skips", lookPath: missing, want: false},
		{name: "missing under CI fails", lookPath: missing, required: true, wantErr: "the git program is required when CI is set"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := need("git", tt.lookPath, tt.required)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, exec.ErrNotFound) {
					t.Fatalf("need() error = %v, want %q wrapping exec.ErrNotFound", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("need() = %v, %v; want %v, nil", got, err, tt.want)
			}
		})
	}
}

//nolint:paralleltest // sets CI
func TestRequired(t *testing.T) {
	for _, tt := range []struct {
		ci   string
		want bool
	}{{"", false}, {"1", true}, {"true", true}, {"false", true}, {"yes", true}} {
		t.Setenv("CI", tt.ci)
		if got := Required(); got != tt.want {
			t.Errorf("CI=%q: Required() = %v, want %v", tt.ci, got, tt.want)
		}
	}
}

func TestConditionUnknown(t *testing.T) {
	t.Parallel()
	if _, err := Condition("want:git"); err == nil {
		t.Fatal("Condition(want:git) = nil error, want unknown condition")
	}
}
