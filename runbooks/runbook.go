package runbooks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/foundryhq/foundry/internal/lazyre"
	"github.com/foundryhq/foundry/internal/yamlerr"
)

// Dir holds the runbooks, relative to the project root.
const Dir = ".foundry/runbooks"

// ext is the file name extension of a runbook.
const ext = ".md"

// MaxSlugLen caps a runbook slug, so its file name stays far below every
// file system's limit.
const MaxSlugLen = 80

var slugPattern = lazyre.New(`^[a-z0-9][a-z0-9-]*$`)

// ValidSlug reports whether s is a runbook slug: [a-z0-9][a-z0-9-]*.
func ValidSlug(s string) bool { return slugPattern().MatchString(s) }

// CheckSlug returns an error wrapping [ErrInvalidSlug] for an unusable slug.
func CheckSlug(s string) error {
	if n := utf8.RuneCountInString(s); n > MaxSlugLen {
		// The slug is not echoed whole: it may be thousands of characters.
		return fmt.Errorf("%w %.20q…: %d characters, at most %d", ErrInvalidSlug, s, n, MaxSlugLen)
	}
	if ValidSlug(s) {
		return nil
	}
	return fmt.Errorf("%w %q: use lowercase letters, digits and dashes, starting with a letter or digit", ErrInvalidSlug, s)
}

// Runbook describes one runbook file.
type Runbook struct {
	Slug    string `json:"slug"`
	Title   string `json:"title"`             // empty when the front matter gives none
	Trigger string `json:"trigger,omitempty"` // when the runbook applies
	Path    string `json:"path"`              // project-relative, slash form
	// Warning says why the file's front matter or name is unusable; such a
	// runbook is still listed.
	Warning string `json:"warning,omitempty"`
	// Line is the line of the file the front matter problem Warning
	// states is at, when it is at one (the line number is in Warning too).
	Line int `json:"-"`
}

// frontMatterError is a problem of the front matter at a line of the file,
// counted from its first line, the opening ---.
type frontMatterError struct {
	line int
	msg  string
}

func (e *frontMatterError) Error() string {
	return fmt.Sprintf("front matter: line %d: %s", e.line, e.msg)
}

// frontMatter is what a runbook's front matter carries.
type frontMatter struct {
	Title   string
	Trigger string
}

// parseFrontMatter reads the YAML front matter at the start of a runbook:
// "---", the YAML, "---". Unknown keys are allowed (runbooks are written by
// hand). trigger may be a string or a list of strings, joined with ", ".
func parseFrontMatter(data []byte) (frontMatter, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return frontMatter{}, errors.New("no front matter (the file must start with a --- line)")
	}
	var yamlText string
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		yamlText = ""
	} else if i := strings.Index(rest, "\n---\n"); i >= 0 {
		yamlText = rest[:i+1]
	} else if strings.HasSuffix(rest, "\n---") {
		yamlText = strings.TrimSuffix(rest, "---")
	} else {
		return frontMatter{}, errors.New("front matter is not closed by a --- line")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &doc); err != nil {
		// Lines count from the file's first line, the opening ---.
		line, problem := yamlerr.Locate(yamlText)
		return frontMatter{}, &frontMatterError{line + 1, "not valid YAML" + problem}
	}
	if len(doc.Content) == 0 {
		return frontMatter{}, errors.New("front matter has no title")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return frontMatter{}, &frontMatterError{root.Line + 1, "want key: value lines"}
	}
	var fm frontMatter
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "title":
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				return frontMatter{}, &frontMatterError{v.Line + 1, "title: want text"}
			}
			fm.Title = oneLine(v.Value)
		case "trigger":
			t, err := triggerText(v)
			if err != nil {
				return frontMatter{}, err
			}
			fm.Trigger = t
		}
	}
	if fm.Title == "" {
		return fm, errors.New("front matter has no title")
	}
	return fm, nil
}

// triggerText reads a trigger: text, or a list of texts.
func triggerText(v *yaml.Node) (string, error) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return "", nil
	case v.Kind == yaml.ScalarNode:
		return oneLine(v.Value), nil
	case v.Kind == yaml.SequenceNode:
		var parts []string
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return "", &frontMatterError{item.Line + 1, "trigger: want text or a list of texts"}
			}
			if s := oneLine(item.Value); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", "), nil
	}
	return "", &frontMatterError{v.Line + 1, "trigger: want text or a list of texts"}
}

// oneLine folds whitespace runs (line breaks included) into single spaces,
// so a value never breaks the list's shape.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
