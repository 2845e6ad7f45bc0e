package mcpserver

import (
	"reflect"
	"testing"
)

// coerce turns strings into the declared non-string type only when they
// parse; everything else is left for the validator.
func TestCoerce(t *testing.T) {
	types := map[string]string{
		"flag": "boolean", "n": "integer", "x": "number", "list": "array", "obj": "object", "s": "string",
	}
	for _, c := range []struct {
		name string
		in   any
		key  string
		want any
	}{
		{"true", "true", "flag", true},
		{"false", "false", "flag", false},
		{"TRUE", "TRUE", "flag", true},
		{"padded False", " False ", "flag", false},
		{"1 for boolean", "1", "flag", true},
		{"yes is no boolean", "yes", "flag", "yes"},
		{"real boolean untouched", true, "flag", true},
		{"integer", "3", "n", int64(3)},
		{"negative integer", "-42", "n", int64(-42)},
		{"padded integer", " 7 ", "n", int64(7)},
		{"whole float for integer", "10.0", "n", int64(10)},
		{"fraction for integer left", "2.5", "n", "2.5"},
		{"abc for integer left", "abc", "n", "abc"},
		{"empty for integer left", "", "n", ""},
		{"real number untouched", 3.0, "n", 3.0},
		{"number", "2.5", "x", 2.5},
		{"array", "[1,2]", "list", []any{1.0, 2.0}},
		{"array of strings", `["a","b"]`, "list", []any{"a", "b"}},
		{"object", `{"a":1}`, "obj", map[string]any{"a": 1.0}},
		{"bad JSON for object left", `{a:1}`, "obj", `{a:1}`},
		{"scalar JSON for object left", `3`, "obj", `3`},
		{"string true untouched", "true", "s", "true"},
		{"string number untouched", "3", "s", "3"},
		{"string array untouched", "[1,2]", "s", "[1,2]"},
		{"undeclared key untouched", "true", "other", "true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{c.key: c.in}
			coerce(args, types)
			if got := args[c.key]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("coerce(%s=%#v) = %#v (%T), want %#v (%T)", c.key, c.in, got, got, c.want, c.want)
			}
		})
	}
}

// Several arguments of one call are coerced independently, and nil types
// (a tool without properties) change nothing.
func TestCoerceMany(t *testing.T) {
	args := map[string]any{"flag": "false", "n": "12", "s": "12", "list": "[]"}
	coerce(args, map[string]string{"flag": "boolean", "n": "integer", "s": "string", "list": "array"})
	want := map[string]any{"flag": false, "n": int64(12), "s": "12", "list": []any{}}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("got %#v, want %#v", args, want)
	}
	none := map[string]any{"a": "true"}
	coerce(none, nil)
	if none["a"] != "true" {
		t.Errorf("nil types changed %v", none)
	}
}

func TestTrimValidation(t *testing.T) {
	got := trimValidation(`validating root: validating /properties/max_chars: type: abc has type "string", want "integer"`)
	if want := `max_chars: type: abc has type "string", want "integer"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
