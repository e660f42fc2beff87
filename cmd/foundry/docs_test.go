package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foundryhq/foundry/config"
	"github.com/foundryhq/foundry/mcp"
	"github.com/foundryhq/foundry/project"
)

// TestDocsCatalog keeps the catalog table of docs/mcp.md generated from
// the registry: the table foundry mcp capabilities prints for a project
// with the opt-in foundry init writes. -update rewrites it.
func TestDocsCatalog(t *testing.T) {
	t.Parallel()
	root := mcpFixture(t)
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(config.Path)), []byte(config.Template), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.OpenRoot(root, project.Source{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mcp.ProjectRegistry(p, mcp.ProjectOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := mcp.ConfigCatalog(p.Config.MCP, reg, true)
	if err != nil {
		t.Fatal(err)
	}
	table := capabilityTables(cat)
	doc := filepath.Join("..", "..", "docs", "mcp.md")
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const begin, end = "<!-- capabilities:begin", "<!-- capabilities:end -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s … %s block", doc, begin, end)
	}
	i += strings.Index(text[i:], "\n") + 1
	if got := text[i:j]; got != table {
		if *update {
			if err := os.WriteFile(doc, []byte(text[:i]+table+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's catalog is not the registry's; run go test ./cmd/foundry -run TestDocsCatalog -update and review:\n%s", doc, table)
	}
}
