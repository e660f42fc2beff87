package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/foundryhq/foundry/internal/atomicfile"
)

// InitResult says what Init created.
type InitResult struct {
	Root    string   `json:"root"`
	Created []string `json:"created"` // slash paths relative to Root, in creation order
}

// ConfigTemplate is the commented config.yaml that init writes: every key
// with its default, commented out.
const ConfigTemplate = `# Foundry configuration. Every key is optional; the values shown are the
# defaults. Uncomment a line to change it. Unknown keys are errors.
#
# memoryRetrieval:
#   maxFacts: 8              # memory_search default limit (1–25)
# memory:
#   indexBudgetTokens: 4000  # token budget of .foundry/memory/INDEX.md
# mcp:
#   enabled: true            # false: foundry mcp serve refuses to start
#   read_only: false         # true: mutating tools are not exposed
#   audit: false             # true: every call is written to the audit log
#   max_concurrency: 16      # requests in flight; more are rejected
#   rate_limit: { requests_per_minute: 600, burst: 120 }
#   scopes: [read:memory, write:memory, read:runbooks, read:contracts, read:blackboard, write:blackboard, read:ops]
`

const gitignoreTemplate = "# Local event log behind `foundry tokens`, writers' lock files, and the temp\n# files a killed writer may leave; never committed.\nmetrics/\n.lock\n.foundry-tmp-*\n"

// Init creates .foundry/ and its layout in dir, without overwriting
// anything that exists.
func Init(dir string) (InitResult, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return InitResult{}, err
	}
	res := InitResult{Root: root, Created: []string{}}
	for _, d := range []string{Dir, Dir + "/memory", Dir + "/runbooks", Dir + "/blackboard", Dir + "/schemas"} {
		p := filepath.Join(root, filepath.FromSlash(d))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		res.Created = append(res.Created, d+"/")
	}
	for _, f := range []struct{ path, content string }{
		{Dir + "/.gitignore", gitignoreTemplate},
		{Dir + "/config.yaml", ConfigTemplate},
	} {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if _, err := os.Stat(p); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		if err := atomicfile.WriteFile(p, []byte(f.content), 0o644); err != nil {
			return res, fmt.Errorf("init %s: %w", root, err)
		}
		res.Created = append(res.Created, f.path)
	}
	return res, nil
}
