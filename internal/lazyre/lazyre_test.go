package lazyre

import (
	"strings"
	"testing"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	first := re()
	if !first.MatchString("aab") || first.MatchString("ba") {
		t.Fatalf("%v does not match as ^a+b$ does", first)
	}
	if re() != first {
		t.Error("a second call compiled the expression again")
	}
}

func TestNewPanicsOnUseOfInvalidExpression(t *testing.T) {
	re := New(`(unclosed`)
	defer func() {
		if recover() == nil {
			t.Error("using an invalid expression did not panic")
		}
	}()
	re()
}

func TestCheck(t *testing.T) {
	before, _ := Check()
	New(`ok[0-9]{1,3}`)
	New(`bad[`)
	n, err := Check()
	if n != before+2 {
		t.Errorf("Check counted %d expressions, want %d", n, before+2)
	}
	if err == nil || !strings.Contains(err.Error(), `"bad["`) || strings.Contains(err.Error(), "ok[0-9]") {
		t.Errorf("Check = %v, want an error naming bad[ alone", err)
	}
}
