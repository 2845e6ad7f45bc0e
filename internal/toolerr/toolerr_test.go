package toolerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestAs(t *testing.T) {
	cause := errors.New("socket closed")
	e := &Error{Code: CodeTimeout, Message: "waited 5 s", Err: cause}
	wrapped := fmt.Errorf("step 2: %w", e)
	got, ok := As(wrapped)
	if !ok || got != e {
		t.Fatalf("As(%v) = %v, %v", wrapped, got, ok)
	}
	if !errors.Is(wrapped, cause) {
		t.Error("the cause is not in the chain")
	}
	if _, ok := As(cause); ok {
		t.Error("As found an *Error in a plain error")
	}
	if got := e.Error(); got != "TIMEOUT: waited 5 s: socket closed" {
		t.Errorf("Error() = %q", got)
	}
}

func TestBounded(t *testing.T) {
	long := strings.Repeat("é", 5000)
	e := &Error{Code: CodeInvalidArgument, Message: long, Hint: long, Suggestions: []string{long},
		Diagnosis: map[string]any{"value": long, "list": []any{long}}}
	b := e.Bounded()
	if b == e || e.Message != long {
		t.Fatal("Bounded changed its receiver")
	}
	for name, s := range map[string]string{"message": b.Message, "hint": b.Hint, "suggestion": b.Suggestions[0],
		"diagnosis": b.Diagnosis["value"].(string), "list": b.Diagnosis["list"].([]any)[0].(string)} {
		if len([]rune(s)) > maxMessage+20 || !strings.Contains(s, "chars)") {
			t.Errorf("%s not bounded: %d chars", name, len([]rune(s)))
		}
	}
	if got := Echo(long); len([]rune(got)) > MaxEcho {
		t.Errorf("Echo kept %d chars", len([]rune(got)))
	}
}
