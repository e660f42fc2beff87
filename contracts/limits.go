package contracts

// This file defines how a schema's count limits larger than an int are
// read. The JSON Schema library converts minLength, maxItems and the other
// counts to an int, and a larger value wraps: maxLength 2^64 is read as 0
// and rejects every string, minLength 999999999999 is negative on 32-bit
// systems and accepts every string. No string, array or object has more
// than math.MaxInt characters, items or properties, so a larger limit
// means, exactly, math.MaxInt: a maximum that bounds nothing, a minimum
// that nothing meets. Schemas are given that value before they compile.

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// countLimits are the keywords whose value is a count of characters,
// items or properties.
var countLimits = map[string]bool{
	"minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true,
	"minContains": true, "maxContains": true,
}

// Keywords whose values are schemas (of every draft the library reads):
// one schema, or an array of them, or an object of them by name.
var (
	schemaKeywords = map[string]bool{
		"additionalProperties": true, "propertyNames": true, "items": true, "additionalItems": true,
		"contains": true, "not": true, "if": true, "then": true, "else": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true,
		"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true,
	}
	schemaMapKeywords = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true,
	}
)

// maxCount is math.MaxInt as a number of the parsed document.
var maxCount = json.Number(strconv.Itoa(math.MaxInt))

// clampLimits gives every count limit of the schema doc (as parse returns
// it) that is larger than math.MaxInt that value, in place; values in
// other places (a const, an enum, a default) are data and stay as they
// are.
func clampLimits(doc any) {
	switch v := doc.(type) {
	case []any:
		for _, s := range v {
			clampLimits(s)
		}
	case map[string]any:
		for k, val := range v {
			switch {
			case countLimits[k]:
				if n, ok := val.(json.Number); ok && overCount(n) {
					v[k] = maxCount
				}
			case schemaKeywords[k]:
				clampLimits(val) // one schema, or an array of them
			case schemaMapKeywords[k]:
				if m, ok := val.(map[string]any); ok {
					for _, s := range m {
						if _, ok := s.(map[string]any); ok {
							clampLimits(s)
						}
					}
				}
			}
		}
	}
}

// overCount reports whether n is larger than math.MaxInt.
func overCount(n json.Number) bool {
	if _, err := strconv.ParseInt(string(n), 10, 0); err == nil {
		return false // the common case: a small integer
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.Cmp(new(big.Rat).SetInt64(math.MaxInt)) > 0
}
