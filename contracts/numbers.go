package contracts

// This file defines the guard against numbers the JSON Schema library
// cannot compare.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Bounds of a number literal that validation accepts.
//
// github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 turns a json.Number into a
// *big.Rat with SetString to check minimum, maximum, exclusiveMinimum,
// exclusiveMaximum and multipleOf, ignores SetString's failure and calls
// Cmp on the nil result (validator.go, numValidate). The minimal input that
// panics it is the number 1e1000000000 against any schema with "minimum";
// exponents SetString does accept still build a Rat of that many digits (a
// gigabyte for 1e1000000000 if it did). No contract needs more than a few
// dozen digits, so every number is held to these bounds before validation.
const (
	maxNumberDigits   = 1000
	maxNumberExponent = 10000
)

// checkNumber reports why the literal s is refused, or nil.
func checkNumber(s string) error {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	digits := 0
	for _, c := range mant {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits > maxNumberDigits {
		return fmt.Errorf("%w: %d digits, at most %d", ErrHostileNumber, digits, maxNumberDigits)
	}
	if hasExp {
		e := strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
		if n, err := strconv.Atoi(e); len(e) > 6 || err == nil && n > maxNumberExponent {
			return fmt.Errorf("%w: exponent %s, at most ±%d", ErrHostileNumber, exp, maxNumberExponent)
		}
	}
	return nil
}

// checkValue is the syntax scan's number check (see scanner.number) for a
// decoded value: it returns the JSON pointer of the first json.Number over
// the bounds and the reason.
func checkValue(v any, ptr string) (string, error) {
	switch v := v.(type) {
	case json.Number:
		if err := checkNumber(string(v)); err != nil {
			return ptr, err
		}
	case map[string]any:
		for k, e := range v {
			if p, err := checkValue(e, ptr+"/"+escapeToken(k)); err != nil {
				return p, err
			}
		}
	case []any:
		for i, e := range v {
			if p, err := checkValue(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}
