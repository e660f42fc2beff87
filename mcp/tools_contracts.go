// This file defines contract_validate, over package contracts.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/foundryhq/foundry/artifacts"
	"github.com/foundryhq/foundry/contracts"
	"github.com/foundryhq/foundry/internal/confined"
)

type contractValidateArgs struct {
	Schema string          `json:"schema"`
	Data   json.RawMessage `json:"data"`
	Path   *string         `json:"path"`
}

type contractValidateResult struct {
	Schema     string                    `json:"schema"`
	Path       string                    `json:"path,omitempty"`
	Valid      bool                      `json:"valid"`
	Violations []artifacts.ViolationJSON `json:"violations"`
}

// contracts returns the project's contracts: the embedded ones plus
// .foundry/schemas/ as of the served source. The registry is kept between
// calls with what it compiled, and loaded again when .foundry/schemas/
// changes: a schema edited during the session is seen at once.
func (f *foundry) contracts() (*contracts.Registry, error) {
	return f.warm.get()
}

func (f *foundry) addContractValidate(r *Registry) error {
	return addDeferred(r, Tool{
		Name:  "contract_validate",
		Title: "Validate against a contract",
		Description: "Validates a JSON artifact against a Foundry contract schema (JSON Schema 2020-12) and returns the list of violations, " +
			"one \"<json-pointer>: <problem>\" line each. Call it when checking an artifact before or instead of writing it. " +
			"Pass exactly one of data (the artifact) or path (a JSON file, resolved against the project root when relative). " +
			"An INVALID result is a successful check, not an error.",
		Scope:      ScopeReadContracts,
		Governance: Governance{AuditCategory: "contracts.validate"},
		Idempotent: true,
	}, func() (in, out json.RawMessage) {
		in = schema(`{
			"type": "object",
			"properties": {
				"schema": {"type": "string", "minLength": 1, "description": "Contract id, e.g. finding.v1"},
				"data": {"type": "object", "description": "The artifact to validate"},
				"path": {"type": "string", "minLength": 1, "description": "Alternatively, a path to a JSON file, resolved against the project root when relative"}
			},
			"required": ["schema"],
			"additionalProperties": false
		}`)
		out = schema(`{
			"type": "object",
			"properties": {
				"schema": {"type": "string"},
				"path": {"type": "string"},
				"valid": {"type": "boolean"},
				"violations": {"type": "array", "items": {
					"type": "object",
					"properties": {
						"pointer": {"type": "string", "description": "# followed by a JSON pointer"},
						"message": {"type": "string"},
						"line": {"type": "integer", "description": "1-based, in the file given as path"},
						"column": {"type": "integer"}
					},
					"required": ["pointer", "message"]
				}}
			},
			"required": ["schema", "valid", "violations"]
		}`)
		return in, out
	}, func(ctx context.Context, _ *Call, in contractValidateArgs) (Output, error) {
		hasData := len(in.Data) > 0
		if hasData == (in.Path != nil) {
			return Output{}, Verbatim("Provide either `data` or `path`.")
		}
		reg, err := f.contracts()
		if err != nil {
			return Output{}, err
		}
		out := contractValidateResult{Schema: in.Schema}
		doc := []byte(in.Data)
		if !hasData {
			if doc, out.Path, err = f.readFile(*in.Path); err != nil {
				return Output{}, err
			}
		}
		if err := ctx.Err(); err != nil {
			return Output{}, err
		}
		vs, err := reg.Validate(in.Schema, doc)
		if err != nil {
			return Output{}, err
		}
		out.Valid = len(vs) == 0
		out.Violations = artifacts.ViolationsJSON(vs)
		if hasData { // positions in the arguments would mislead
			for i := range out.Violations {
				out.Violations[i].Line, out.Violations[i].Column = 0, 0
			}
		}
		return Output{Text: artifacts.Verdict(in.Schema, vs, "- "), Structured: out}, nil
	})
}

// readFile reads a JSON file named by a tool from the served source (the
// working tree, the index or the revision): a relative path or an absolute
// one inside the project; anything else is refused before it is opened. The
// read follows a symbolic link only to a target inside the project and goes
// through the validation core's exact read, held to artifacts.MaxBytes.
// Only a regular file is read: a FIFO or a device would block the call.
// It also returns the file's path relative to the project root, the form
// every path in structured output takes.
func (f *foundry) readFile(name string) (data []byte, rel string, err error) {
	rel, err = confined.Rel(f.p.Root, name)
	if err != nil {
		return nil, "", fmt.Errorf("read artifact: %w", err)
	}
	data, err = artifacts.ReadFile(f.p.FS, rel)
	if err != nil {
		return nil, "", fmt.Errorf("read artifact %s: %w", name, err)
	}
	return data, rel, nil
}
