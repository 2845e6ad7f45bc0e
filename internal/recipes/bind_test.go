package recipes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/flow"
)

const bindRecipe = `{
  "name": "b", "site": "example.com",
  "params": {
    "query": {"type": "string"},
    "limit": {"type": "number", "minimum": 1, "maximum": 50, "default": 5},
    "exact": {"type": "boolean", "default": false},
    "sort":  {"type": "enum", "values": ["price", "rating"], "default": "price"}
  },
  "steps": [
    {"do": "navigate", "url": "https://example.com/s?q=${query}&n=$limit&exact=$exact&sort=$sort"},
    {"do": "find", "text": "$query", "limit": "$limit", "save_as": "item"},
    {"do": "action", "action": "click", "ref": "$item", "timeout_ms": "$limit", "candidates": {"text": "$query"}},
    {"do": "fill_form", "fields": [{"selector": "#q", "value": "$query costs $$5 and ${item}"}]},
    {"do": "collect", "selector": ".row", "fields": {"flag": "$exact"}}
  ]
}`

func TestBind(t *testing.T) {
	r, err := Parse("", []byte(bindRecipe))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	cases := []struct {
		name   string
		params map[string]any
		check  func(t *testing.T, steps []map[string]any)
		err    string // the error's text; "" for none
	}{
		{name: "defaults and substitution", params: map[string]any{"query": "red socks"}, check: func(t *testing.T, s []map[string]any) {
			if got := s[0]["url"]; got != "https://example.com/s?q=red+socks&n=5&exact=false&sort=price" {
				t.Errorf("url = %v", got)
			}
			if got := s[1]["text"]; got != "red socks" {
				t.Errorf("text = %v", got)
			}
			if got, ok := s[1]["limit"].(float64); !ok || got != 5 {
				t.Errorf("whole-string number = %#v, want 5.0", s[1]["limit"])
			}
			if got := s[2]["ref"]; got != "$item" {
				t.Errorf("saved value = %v, want $item left for the flow", got)
			}
			if got := s[3]["fields"].([]any)[0].(map[string]any)["value"]; got != "red socks costs $$5 and $item" {
				t.Errorf("fields value = %v", got)
			}
			if got := s[4]["fields"].(map[string]any)["flag"]; got != false {
				t.Errorf("whole-string boolean = %#v", got)
			}
			c, ok := s[2][CandidatesField].(json.RawMessage)
			if !ok || string(c) != `{"text": "$query"}` {
				t.Errorf("candidates = %#v, want the file's object untouched", s[2][CandidatesField])
			}
			if _, ok := s[0][CandidatesField]; ok {
				t.Error("a step without candidates got some")
			}
		}},
		{name: "given values", params: map[string]any{"query": "x", "limit": 7.0, "exact": true, "sort": "rating"}, check: func(t *testing.T, s []map[string]any) {
			if got := s[0]["url"]; got != "https://example.com/s?q=x&n=7&exact=true&sort=rating" {
				t.Errorf("url = %v", got)
			}
		}},
		{name: "strings for number and boolean", params: map[string]any{"query": "x", "limit": "12", "exact": "true"}, check: func(t *testing.T, s []map[string]any) {
			if got := s[1]["limit"]; got != 12.0 {
				t.Errorf("limit = %#v", got)
			}
		}},
		{name: "a $ in a value stays literal", params: map[string]any{"query": "$item $$"}, check: func(t *testing.T, s []map[string]any) {
			if got := s[1]["text"]; got != "$$item $$$$" {
				t.Errorf("text = %v", got)
			}
			// The flow reads it back as the value.
			out, err := flow.Substitute(s[1]["text"].(string), map[string]string{"item": "NO"})
			if err != nil || out != "$item $$" {
				t.Errorf("the flow reads %q, %v", out, err)
			}
		}},
		{name: "missing required", params: nil, err: "params.query: missing: the string parameter is required (it has no default)"},
		{name: "unknown", params: map[string]any{"query": "x", "color": "red"}, err: "params.color: no such parameter (recipe b takes exact, limit, query, sort)"},
		{name: "above maximum", params: map[string]any{"query": "x", "limit": 99}, err: "params.limit: 99 is above maximum 50"},
		{name: "below minimum", params: map[string]any{"query": "x", "limit": 0.5}, err: "params.limit: 0.5 is below minimum 1"},
		{name: "not a number", params: map[string]any{"query": "x", "limit": "many"}, err: `params.limit: "many" is not a number`},
		{name: "not a string", params: map[string]any{"query": 5}, err: "params.query: 5 is not a string"},
		{name: "not a boolean", params: map[string]any{"query": "x", "exact": "maybe"}, err: `params.exact: "maybe" is not true or false`},
		{name: "enum", params: map[string]any{"query": "x", "sort": "cheap"}, err: `params.sort: "cheap" is not one of "price", "rating"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := r.Bind(c.params)
			if c.err != "" {
				if _, ok := AsValidationError(err); !ok || err.Error() != c.err {
					t.Fatalf("Bind: %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Bind: %v", err)
			}
			c.check(t, steps)
			// The bound steps are a flow.
			if _, err := flow.Parse(steps, r.BudgetMs, true); err != nil {
				t.Errorf("flow.Parse(bound steps): %v", err)
			}
		})
	}
}

// Binding leaves the recipe as it was.
func TestBindDoesNotChangeRecipe(t *testing.T) {
	r, err := Parse("", []byte(bindRecipe))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := r.JSON()
	steps, err := r.Bind(map[string]any{"query": "q"})
	if err != nil {
		t.Fatal(err)
	}
	steps[3]["fields"].([]any)[0].(map[string]any)["value"] = "changed"
	if got := TakeCandidates(steps[2]); string(got) != `{"text": "$query"}` || steps[2][CandidatesField] != nil {
		t.Errorf("TakeCandidates = %s, step %v", got, steps[2])
	}
	after, _ := r.JSON()
	if string(before) != string(after) {
		t.Errorf("Bind changed the recipe:\n%s\n---\n%s", before, after)
	}
	if !strings.Contains(string(after), `"$query costs $$5 and ${item}"`) {
		t.Errorf("recipe JSON lost its text:\n%s", after)
	}
}

// fakeExec checks a step's arguments as a tool would, only a little: a
// click needs a selector starting with # or . here.
type fakeExec struct{ flow.Executor }

func (fakeExec) Check(tool string, args map[string]any) error {
	if _, ok := args[CandidatesField]; ok {
		return errors.New("candidates reached the tool")
	}
	if sel, ok := args["selector"].(string); ok && !strings.HasPrefix(sel, "#") && !strings.HasPrefix(sel, ".") {
		return fmt.Errorf("selector %q is not an id or a class", sel)
	}
	return nil
}

func (fakeExec) Takes(tool, arg string) bool { return false }

func TestCheckWithExecutor(t *testing.T) {
	r, err := Parse("/r/shop-search.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(fakeExec{}); err != nil {
		t.Errorf("Check of a good recipe: %v", err)
	}
	r.Steps[2].Fields["selector"] = "price"
	err = r.Check(fakeExec{})
	if ve, ok := AsValidationError(err); !ok || ve.Error() != `/r/shop-search.json: step 3 (read): selector "price" is not an id or a class` {
		t.Errorf("Check = %v", err)
	}
	// Every step's problem, not only the first.
	r.Steps[1].Fields["selector"] = "go"
	err = r.Check(fakeExec{})
	if ve, ok := AsValidationError(err); !ok || ve.Error() != `/r/shop-search.json: step 2 (action): selector "go" is not an id or a class`+"\n"+
		`/r/shop-search.json: step 3 (read): selector "price" is not an id or a class` {
		t.Errorf("Check of two bad steps = %v", err)
	}
}

// A string parameter given as a Secret stays a value: alone in a string it
// is the Secret, among other text a Secret marked InText; a parameter of
// another type refuses it.
func TestBindSecret(t *testing.T) {
	r, err := Parse("", []byte(bindRecipe))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	steps, err := r.Bind(map[string]any{"query": Secret{Name: "PW"}})
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if got := steps[1]["text"]; got != (Secret{Name: "PW"}) {
		t.Errorf("whole $query = %#v, want the Secret", got)
	}
	for _, got := range []any{steps[0]["url"], steps[3]["fields"].([]any)[0].(map[string]any)["value"]} {
		if got != (Secret{Name: "PW", InText: true}) {
			t.Errorf("$query among text = %#v, want the Secret InText", got)
		}
	}
	_, err = r.Bind(map[string]any{"query": "x", "limit": Secret{Name: "PW"}})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != "params.limit" || !strings.Contains(ve.Problems[0].Message, `{"secret":"PW"}`) {
		t.Errorf("a secret number: %v", err)
	}
}

// A value put into a navigation's URL stays one value: query-escaped in
// the query, path-escaped in the path, as it is in the host or as the
// whole URL; other fields get it as it is.
func TestBindURL(t *testing.T) {
	r, err := Parse("", []byte(`{"name": "u", "site": "example.com",
  "params": {"q": {"type": "string"}, "page": {"type": "string"}, "host": {"type": "string", "default": "example.com"}, "whole": {"type": "string", "default": "https://example.com/a b"}},
  "steps": [{"do": "navigate", "url": "https://${host}/shop/${page}/list?q=${q}#${q}"}, {"do": "navigate", "url": "$whole"}, {"do": "find", "text": "$q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := r.Bind(map[string]any{"q": "a&b c/d", "page": "x/y z"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := steps[0]["url"], "https://example.com/shop/x%2Fy%20z/list?q=a%26b+c%2Fd#a%26b+c%2Fd"; got != want {
		t.Errorf("url = %v, want %v", got, want)
	}
	if got := steps[1]["url"]; got != "https://example.com/a b" {
		t.Errorf("whole url = %v", got)
	}
	if got := steps[2]["text"]; got != "a&b c/d" {
		t.Errorf("text = %v", got)
	}
}
