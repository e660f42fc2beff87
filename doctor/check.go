// This file defines the checks, their findings and the report.

package doctor

// Severity is how serious a finding is. Only errors make doctor fail.
type Severity string

// The severities, most serious first.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Check is one rule doctor verifies. Its ID is stable: scripts, SARIF
// consumers and the MCP tool match on it.
type Check struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Title says what holds when the check passes.
	Title string `json:"title"`
	// History is true for the checks of the history pass, which need git
	// and are skipped with --no-history.
	History bool `json:"history,omitempty"`
}

// The check ids.
const (
	CheckConflicts         = "conflict.markers"
	CheckControlChars      = "text.control"
	CheckStaleTemp         = "files.stale-temp"
	CheckSecrets           = "secrets.stored"
	CheckConfig            = "config.valid"
	CheckConfigMCP         = "config.mcp"
	CheckContractsLocal    = "contracts.local"
	CheckContractsRedefine = "contracts.redefined"
	CheckContractsBreaking = "contracts.breaking-edit"
	CheckContractsLock     = "contracts.lock"
	CheckBlackboardParse   = "blackboard.parse"
	CheckBlackboardSchema  = "blackboard.contract"
	CheckBlackboardValid   = "blackboard.valid"
	CheckBlackboardStale   = "blackboard.tightened"
	CheckFactsParse        = "facts.parse"
	CheckFactsValid        = "facts.valid"
	CheckFactsDuplicate    = "facts.duplicate-id"
	CheckFactsSupersedes   = "facts.supersedes"
	CheckFactsExpired      = "facts.expired"
	CheckFactsIndex        = "facts.index"
	CheckRunbooksParse     = "runbooks.parse"
	CheckRunbooksSlug      = "runbooks.slug"
	CheckRunbooksTemplate  = "runbooks.template"
	CheckAgentsContract    = "agents.contract"
	CheckAgentsArtifact    = "agents.artifact"
)

// Checks returns every check, in the order reports list them.
func Checks() []Check {
	return []Check{
		{CheckConflicts, Error, "no file under .foundry holds git conflict markers", false},
		{CheckControlChars, Error, "no file under .foundry but the artifacts holds control characters (newline, tab and CRLF line ends are text) or bidirectional controls", false},
		{CheckStaleTemp, Warning, "no temporary file of a killed writer is older than an hour (a later writer holding the lock removes it)", false},
		{CheckSecrets, Error, "no secret is stored under .foundry (facts, runbooks, artifacts, schemas)", false},
		{CheckConfig, Error, "config is valid", false},
		{CheckConfigMCP, Warning, "config says whether foundry mcp serve may start (an mcp block)", false},
		{CheckContractsLocal, Error, "project-local schemas are well named, parse and compile", false},
		{CheckContractsRedefine, Error, "project-local schemas do not redefine an embedded contract", false},
		{CheckContractsBreaking, Error, "published contracts were never edited in a breaking way", true},
		{CheckContractsLock, Warning, "embedded contracts match the contracts lock", false},
		{CheckBlackboardParse, Error, "blackboard artifacts are parseable JSON", false},
		{CheckBlackboardSchema, Error, "blackboard artifacts name a known contract in \"schema\"", false},
		{CheckBlackboardValid, Error, "blackboard artifacts satisfy their contract", false},
		{CheckBlackboardStale, Error, "no artifact was left invalid by a later contract edit", true},
		{CheckFactsParse, Error, "fact files parse", false},
		{CheckFactsValid, Error, "facts are valid fact.v1 artifacts", false},
		{CheckFactsDuplicate, Error, "no two facts share an id", false},
		{CheckFactsSupersedes, Error, "supersedes links point at existing facts, agree at both ends and form no cycle", false},
		{CheckFactsExpired, Info, "no fact has expired", false},
		{CheckFactsIndex, Warning, "INDEX.md matches the facts", false},
		{CheckRunbooksParse, Error, "runbooks parse", false},
		{CheckRunbooksSlug, Error, "runbook file names are valid slugs", false},
		{CheckRunbooksTemplate, Warning, "runbooks are filled in, not the template runbook new wrote", false},
		{CheckAgentsContract, Error, "contracts declared by agent definitions exist", false},
		{CheckAgentsArtifact, Error, "artifacts at paths declared by agents satisfy the declared contract", false},
	}
}

// Finding is one problem, attributed to a check and, when it has one, a
// file (project-relative, slash form) and a position in it.
type Finding struct {
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	// Pointer is the JSON pointer of a contract violation ("#/severity");
	// the message starts with it.
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	// Note is context shared by the findings of one file, e.g. "written in
	// 1a2b3c4 (2026-01-02) before note.v1 tightened in 5d6e7f8".
	Note string `json:"note,omitempty"`
	// Fix is the command that repairs the finding, when there is one.
	Fix string `json:"fix,omitempty"`
}

// CheckResult is how one check went.
type CheckResult struct {
	Check
	Checked  int    `json:"checked"`           // items the check looked at
	Findings int    `json:"findings"`          // findings it produced
	Files    int    `json:"files"`             // distinct files with a finding
	Skipped  string `json:"skipped,omitempty"` // why it did not run
}

// HistoryInfo describes the history pass.
type HistoryInfo struct {
	Ran       bool   `json:"ran"`
	Skipped   string `json:"skipped,omitempty"` // why it did not run
	From      string `json:"from,omitempty"`    // short hash of the commit walked from
	Commits   int    `json:"commits"`           // commits walked
	Truncated bool   `json:"truncated"`         // stopped at a shallow clone's boundary
}

// Report is the result of [Run].
type Report struct {
	Root     string        `json:"root"`   // project root on disk
	Source   string        `json:"source"` // "working tree", "index", "HEAD~5 (1a2b3c4)"
	Files    int           `json:"files"`  // files read
	Checks   []CheckResult `json:"checks"`
	Findings []Finding     `json:"findings"`
	History  HistoryInfo   `json:"history"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Infos    int           `json:"infos"`
}

// Failed reports whether any finding is an error.
func (r *Report) Failed() bool { return r.Errors > 0 }

// FindingsOf returns the findings of one check.
func (r *Report) FindingsOf(id string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Check == id {
			out = append(out, f)
		}
	}
	return out
}
