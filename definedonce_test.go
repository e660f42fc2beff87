package foundry_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSharedConstantsDefinedOnce holds the constants every artifact path
// shares to one definition each, in the non-test code of the module: the
// 8 MiB artifact limit and the blackboard folder in internal/confined, the
// contract-id pattern in contracts. Every other package uses them by name
// (artifacts.MaxBytes, artifacts.Dir, contracts.ValidID), so a change to
// one cannot leave a copy behind.
func TestSharedConstantsDefinedOnce(t *testing.T) {
	t.Parallel()
	const (
		limits = "internal/confined/limits.go"
		ids    = "contracts/id.go"
	)
	fset := token.NewFileSet()
	eachModuleFile(t, fset, 0, func(path string, f *ast.File) {
		slash := filepath.ToSlash(path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				switch n.Kind {
				case token.STRING:
					s, err := strconv.Unquote(n.Value)
					if err != nil {
						return true
					}
					if slash != ids && strings.Contains(s, `\.v[0-9]+`) {
						t.Errorf("%s: the contract-id pattern again (use contracts.ValidID)", fset.Position(n.Pos()))
					}
					if slash != limits && strings.TrimSuffix(s, "/") == ".foundry/blackboard" {
						t.Errorf("%s: the blackboard folder again (use artifacts.Dir)", fset.Position(n.Pos()))
					}
				case token.INT:
					if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil && v == 8<<20 && slash != limits {
						t.Errorf("%s: the 8 MiB limit again (use artifacts.MaxBytes)", fset.Position(n.Pos()))
					}
				}
			case *ast.BinaryExpr:
				switch strings.ReplaceAll(types.ExprString(n), " ", "") {
				case "8*MiB", "8<<20", "8*1024*1024", "1<<23", "8*confined.MiB":
					if slash != limits {
						t.Errorf("%s: the 8 MiB limit again (use artifacts.MaxBytes)", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	})
}
