// This file defines the scaffold of a project-local contract (contracts new).

package contracts

import (
	"encoding/json"
	"fmt"
	"path"
	"unicode/utf8"
)

// MaxNounLen caps the noun of a contract Scaffold writes, as runbook slugs
// are capped, so its file name stays far below every file system's limit.
const MaxNounLen = 80

// Scaffold returns the id, project-relative file path and content of a new
// local contract for noun: <noun>.v1 in .foundry/schemas/, with the fields
// every artifact carries (schema, producedBy) and a summary, extended by
// the project afterwards. It refuses a noun that is not a contract noun
// ([ErrInvalidID]) and one that names an embedded contract
// ([ErrContractRedefined]): a local schema may not redefine one.
func Scaffold(noun string) (id, file string, content []byte, err error) {
	if n := utf8.RuneCountInString(noun); n > MaxNounLen {
		// The noun is not echoed whole: it may be thousands of characters.
		return "", "", nil, fmt.Errorf("%w %.20q…: %d characters, at most %d", ErrInvalidID, noun, n, MaxNounLen)
	}
	id = noun + ".v1"
	if !ValidID(id) {
		return "", "", nil, fmt.Errorf("%w %q: a contract noun is lowercase letters, digits and dashes, starting with a letter or digit", ErrInvalidID, noun)
	}
	emb, err := embedded()
	if err != nil {
		return "", "", nil, err
	}
	if _, ok := emb.entries[id]; ok {
		return "", "", nil, fmt.Errorf("%w: %s is embedded; pick another noun", ErrContractRedefined, id)
	}
	doc := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  id + contractSuffix,
		"title":                id,
		"description":          "The " + noun + " artifact: what one wave of agents hands to the next. Describe what it records and who writes it.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"schema", "producedBy", "summary"},
		"properties": map[string]any{
			"schema":     map[string]any{"description": "The contract this artifact satisfies: always \"" + id + "\".", "const": id},
			"producedBy": map[string]any{"description": "The agent (or person) that wrote this artifact.", "type": "string", "minLength": 1, "maxLength": 80},
			"summary":    map[string]any{"description": "What the artifact says, in a line or two: blackboard read shows it.", "type": "string", "minLength": 1, "maxLength": 400},
		},
	}
	content, err = json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", "", nil, err
	}
	if _, err := Compile(content); err != nil {
		return "", "", nil, err // a scaffold that does not compile is a bug
	}
	return id, path.Join(LocalDir, id+contractSuffix), append(content, '\n'), nil
}
