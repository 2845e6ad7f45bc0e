package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// argError explains arguments the tool's schema refused: the first argument
// at fault (fields[0].value for nested ones), what it must be and what was
// sent, with a hint and suggestions. Without a fault it can name, it falls
// back on the validator's own message.
func argError(root *jsonschema.Schema, args map[string]any, verr error) *browser.Error {
	f := locate("", root, nil, args)
	if f.kind == "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "invalid arguments: " + trimValidation(verr.Error()),
			Hint: "check the tool's input schema (tools/list) for names and types"}
	}
	e := &browser.Error{Code: browser.CodeInvalidArgument}
	switch f.kind {
	case "unknown":
		names := propNames(f.parent)
		e.Message = fmt.Sprintf("unknown argument %q", f.path)
		e.Hint = "this takes only: " + strings.Join(names, ", ")
		if len(names) == 0 {
			e.Hint = "this tool takes no arguments; pass {}"
		}
		last := f.path[strings.LastIndexAny(f.path, ".]")+1:]
		e.Suggestions = append(e.Suggestions, text.Nearest(last, names, 0)...)
	case "missing":
		e.Message = fmt.Sprintf("missing required argument %s: %s", f.path, describe(f.want))
		e.Hint = fmt.Sprintf("pass %s", f.path)
	case "enum":
		// The values once, in the message; the ones near what was sent
		// (nearest first) as the suggestions and the hint.
		e.Message = fmt.Sprintf("%s must be %s; got %s", f.path, describe(f.want), show(f.got))
		name := f.path[strings.LastIndexAny(f.path, ".]")+1:]
		for _, v := range nearValues(f.got, f.want.Enum) {
			e.Suggestions = append(e.Suggestions, fmt.Sprintf("%q: %s", name, show(v)))
		}
		if len(e.Suggestions) > 0 {
			e.Hint = "did you mean " + strings.TrimPrefix(e.Suggestions[0], fmt.Sprintf("%q: ", name)) + "?"
		} else {
			e.Hint = fmt.Sprintf("pass %s as one of the values above", f.path)
		}
		if !slices.Contains(f.parent.Required, name) {
			e.Hint += " (or leave it out for the default)"
		}
		return e
	default:
		e.Message = fmt.Sprintf("%s must be %s; got %s", f.path, describe(f.want), show(f.got))
		e.Hint = fmt.Sprintf("pass %s as %s", f.path, describe(f.want))
		if !slices.Contains(f.parent.Required, f.path[strings.LastIndexAny(f.path, ".]")+1:]) {
			e.Hint += ", or leave it out for the default"
		}
	}
	e.Suggestions = append(e.Suggestions, suggestions(f)...)
	return e
}

// nearValues are the string enum values near got, nearest first, by
// text.Nearest.
func nearValues(got any, values []any) []string {
	g, ok := got.(string)
	if !ok {
		return nil
	}
	var names []string
	for _, v := range values {
		if s, ok := v.(string); ok {
			names = append(names, s)
		}
	}
	return text.Nearest(g, names, 0)
}

// fault is where arguments depart from a schema.
type fault struct {
	kind   string // "unknown", "missing", "type", "enum", "range"; "" for none found
	path   string // the argument, e.g. max_chars or fields[0].value
	want   *jsonschema.Schema
	parent *jsonschema.Schema // the object schema holding the argument
	got    any
}

// locate finds the first place where v departs from p: unknown and missing
// properties, types, enums and numeric bounds, depth first, properties in
// name order.
func locate(path string, p, parent *jsonschema.Schema, v any) fault {
	if p == nil {
		return fault{}
	}
	if !typeFits(p, v) {
		return fault{kind: "type", path: path, want: p, parent: parent, got: v}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, r := range p.Required {
			if _, ok := v[r]; !ok {
				return fault{kind: "missing", path: join(path, r), want: p.Properties[r], parent: p}
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, known := p.Properties[k]
			if !known {
				if p.AdditionalProperties != nil && p.AdditionalProperties.Not != nil {
					return fault{kind: "unknown", path: join(path, k), parent: p, got: v[k]}
				}
				continue
			}
			if f := locate(join(path, k), sub, p, v[k]); f.kind != "" {
				return f
			}
		}
	case []any:
		for i, item := range v {
			if f := locate(fmt.Sprintf("%s[%d]", path, i), p.Items, parent, item); f.kind != "" {
				return f
			}
		}
	default:
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
			return fault{kind: "enum", path: path, want: p, parent: parent, got: v}
		}
		if n, ok := number(v); ok && (p.Minimum != nil && n < *p.Minimum || p.Maximum != nil && n > *p.Maximum) {
			return fault{kind: "range", path: path, want: p, parent: parent, got: v}
		}
	}
	return fault{}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// types are the JSON types a schema allows.
func types(p *jsonschema.Schema) []string {
	if p.Type != "" {
		return []string{p.Type}
	}
	return p.Types
}

func typeFits(p *jsonschema.Schema, v any) bool {
	ts := types(p)
	if len(ts) == 0 {
		return true
	}
	for _, t := range ts {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		default:
			if n, ok := number(x); ok && (t == "number" || t == "integer" && n == math.Trunc(n) && !math.IsInf(n, 0)) {
				return true
			}
		}
	}
	return false
}

// number reads a JSON number as decoded (float64) or coerced (int64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// describe says in a few words what a schema takes.
func describe(p *jsonschema.Schema) string {
	if p == nil {
		return "a value"
	}
	if len(p.Enum) > 0 {
		var vs []string
		for _, v := range p.Enum {
			vs = append(vs, show(v))
		}
		return "one of " + strings.Join(vs, ", ")
	}
	t := ""
	for _, x := range types(p) {
		if x != "null" {
			t = x
		}
	}
	switch t {
	case "integer", "number":
		noun := "an integer"
		if t == "number" {
			noun = "a number"
		}
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			return fmt.Sprintf("%s from %s to %s", noun, num(*p.Minimum), num(*p.Maximum))
		case p.Minimum != nil:
			return fmt.Sprintf("%s of at least %s", noun, num(*p.Minimum))
		case p.Maximum != nil:
			return fmt.Sprintf("%s of at most %s", noun, num(*p.Maximum))
		}
		return noun
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "array":
		if p.Items != nil {
			switch it := types(p.Items); {
			case slices.Contains(it, "string"):
				return "an array of strings"
			case slices.Contains(it, "object"):
				return "an array of objects (" + strings.Join(propNames(p.Items), ", ") + ")"
			}
		}
		return "an array"
	case "object":
		if names := propNames(p); len(names) > 0 {
			return "an object (" + strings.Join(names, ", ") + ")"
		}
		return "an object"
	}
	return "a value"
}

// suggestions are values that would be taken in place of the faulty one.
func suggestions(f fault) []string {
	if f.want == nil {
		return nil
	}
	name := f.path[strings.LastIndexAny(f.path, ".]")+1:]
	switch {
	case len(f.want.Enum) > 0:
		var out []string
		for _, v := range f.want.Enum {
			out = append(out, fmt.Sprintf("%q: %s", name, show(v)))
		}
		return out
	case f.kind == "range" || f.kind == "type" && slices.Contains(types(f.want), "integer"):
		n, _ := number(f.got)
		switch {
		case f.want.Maximum != nil && n > *f.want.Maximum:
			return []string{fmt.Sprintf("%q: %s", name, num(*f.want.Maximum))}
		case f.want.Minimum != nil && (n < *f.want.Minimum || f.kind == "type"):
			if f.kind == "type" && n == n && n >= *f.want.Minimum {
				return []string{fmt.Sprintf("%q: %s", name, num(math.Round(n)))}
			}
			return []string{fmt.Sprintf("%q: %s", name, num(*f.want.Minimum))}
		}
	}
	return nil
}

func propNames(p *jsonschema.Schema) []string {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.Properties))
	for n := range p.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// show renders a sent value briefly, as JSON.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 60
	if head, more := text.Head(string(b), most); more > 0 {
		return head + "…"
	}
	return string(b)
}
