package flow

import (
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/vars"
)

// Variables: a step with save_as stores its value under that name, and
// $name in a string argument of a later step is replaced by it, whether the
// string is "$name" alone or text around it ("hello $name"). $$ is a
// literal $; a $ not followed by a name (a price such as $5) stays as it
// is. The lexing is package vars's (without braces: ${ is plain text).

// varsIn lists the $names used in s.
func varsIn(s string) []string {
	var names []string
	scan(s, func(name string) string { names = append(names, name); return "" })
	return names
}

// Substitute replaces the $names in s by their values; a name without a
// value is an error naming it.
func Substitute(s string, vars map[string]string) (string, error) {
	var missing string
	out := scan(s, func(name string) string {
		v, ok := vars[name]
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("$%s has no value", missing)
	}
	return out, nil
}

// scan rewrites s, calling repl for each $name and turning $$ into $.
func scan(s string, repl func(name string) string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for _, t := range vars.Lex(s, false) {
		switch t.Kind {
		case vars.Escape:
			b.WriteByte('$')
		case vars.Ref:
			b.WriteString(repl(t.Name))
		default:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// walkStrings rewrites every string in v (maps and lists included) with f
// and returns the result; v itself is not changed.
func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = walkStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = walkStrings(e, f)
		}
		return out
	}
	return v
}

// resolve is the step's arguments with the saved values put in.
func (s Step) resolve(vars map[string]string) (map[string]any, error) {
	var err error
	out := walkStrings(s.Args, func(v string) string {
		r, e := Substitute(v, vars)
		if e != nil && err == nil {
			err = e
		}
		return r
	}).(map[string]any)
	if err != nil {
		return nil, invalid(s.Index, s.Do, err.Error()+": the step that saves it was skipped",
			"mark the step that uses it optional too, or make the saving step required")
	}
	return out, nil
}
