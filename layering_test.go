package foundry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/foundryhq/foundry"

// doors lists the dependencies that exactly one package may import
// (house style rule 2). Test files are held to the same rule, except that
// tests may drive the CLI or the MCP server through their own packages.
var doors = map[string]string{
	"github.com/go-git/go-git/v5":              "git",
	"github.com/urfave/cli/v2":                 "cmd/foundry",
	"github.com/sourcegraph/jsonrpc2":          "jsonrpc",
	"github.com/santhosh-tekuri/jsonschema/v6": "contracts",
}

// doorless lists the module packages the doors do not bind, with why: a
// benchmark floor must link its dependency alone, not through its door.
var doorless = map[string]string{
	"scripts/startfloor": "times the JSON Schema library's start-up alone",
}

// testOnly lists the module packages that only _test.go files and test
// helper packages (<pkg>test) may import, so the shipped binary holds none
// of their code.
var testOnly = map[string]bool{
	"internal/testpause": true,
	"internal/testenv":   true,
	// Reads the GC pacing for tests.
	"internal/gcpace/gcpacetest": true,
	// Hostile projects for the fuzz targets of path resolution.
	"internal/confined/confinedtest": true,
}

// forbidden lists, per importing package prefix, the module packages it must
// not import (the layering of style.md).
var forbidden = []struct {
	from, to string
}{
	{"", "cmd/foundry"},
	{"", "mcp"}, // only cmd/foundry may import mcp
	{"facts", "jsonrpc"}, {"runbooks", "jsonrpc"}, {"blackboard", "jsonrpc"},
	{"tokens", "jsonrpc"}, {"doctor", "jsonrpc"}, {"contracts", "jsonrpc"},
	{"git", "facts"}, {"git", "contracts"}, {"git", "project"},
	{"contracts", "facts"}, {"contracts", "blackboard"}, {"contracts", "artifacts"},
	{"artifacts", "jsonrpc"}, {"artifacts", "facts"}, {"artifacts", "blackboard"}, {"artifacts", "doctor"},
	{"git", "artifacts"},
}

// TestLayering enforces the import rules of ../shared/style.md on every
// non-test Go file of the module: one door per dependency, the layer
// direction, and no printing to stdout outside cmd/foundry.
func TestLayering(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	eachModuleFile(t, fset, parser.ImportsOnly, func(path string, f *ast.File) {
		pkg := filepath.ToSlash(filepath.Dir(path))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for dep, owner := range doors {
				if (p == dep || strings.HasPrefix(p, dep+"/")) && pkg != owner && !strings.HasPrefix(pkg, owner+"/") && doorless[pkg] == "" {
					t.Errorf("%s imports %s; only %s may", path, p, owner)
				}
			}
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			target := strings.TrimPrefix(p, module+"/")
			if testOnly[target] && !strings.HasSuffix(pkg, "test") {
				t.Errorf("%s imports %s, which only tests and test helper packages may import", path, p)
			}
			for _, rule := range forbidden {
				if !strings.HasPrefix(pkg, rule.from) || pkg == rule.to || strings.HasPrefix(pkg, rule.to+"/") {
					continue
				}
				if rule.to == "mcp" && pkg == "cmd/foundry" {
					continue
				}
				if target == rule.to || strings.HasPrefix(target, rule.to+"/") {
					t.Errorf("%s imports %s, against the layering", path, p)
				}
			}
		}
		if pkg != "cmd/foundry" && !strings.HasPrefix(pkg, "scripts") {
			checkNoStdout(t, fset, path)
		}
	})
}

// checkNoStdout flags fmt.Print*, os.Stdout and log.Print* in library code
// (house style rule 14: stdout carries data only, and only the CLI writes it).
func checkNoStdout(t *testing.T, fset *token.FileSet, path string) {
	t.Helper()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Error(err)
		return
	}
	eachQualified(f, func(x string, sel *ast.SelectorExpr) {
		switch name := sel.Sel.Name; {
		case x == "fmt" && strings.HasPrefix(name, "Print"),
			x == "os" && name == "Stdout",
			x == "log" && (strings.HasPrefix(name, "Print") || strings.HasPrefix(name, "Fatal")):
			t.Errorf("%s: %s.%s in library code (stdout belongs to the CLI and the MCP stream)", fset.Position(sel.Pos()), x, name)
		}
	})
}

// eachQualified calls fn for every selector x.Name of f whose x is an
// identifier (a package's name, as a rule), with x.
func eachQualified(f *ast.File, fn func(x string, sel *ast.SelectorExpr)) {
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				fn(id.Name, sel)
			}
		}
		return true
	})
}

// eachModuleFile parses every non-test Go file of the module with mode and
// calls fn with its path and syntax; hidden folders, testdata and examples
// are skipped.
func eachModuleFile(t *testing.T, fset *token.FileSet, mode parser.Mode, fn func(path string, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		fn(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
