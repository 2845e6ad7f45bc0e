package recipes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// good is a recipe that checks; the validation cases each break one thing.
const good = `{
  "name": "shop-search",
  "site": "shop.example.com",
  "description": "Search the shop and read the first result's price",
  "version": 1,
  "params": {
    "query": {"type": "string", "description": "what to look for", "default": "socks"},
    "limit": {"type": "number", "minimum": 1, "maximum": 50, "default": 5},
    "exact": {"type": "boolean", "default": false},
    "sort":  {"type": "enum", "values": ["price", "rating"], "default": "price"}
  },
  "steps": [
    {"do": "navigate", "url": "https://shop.example.com/search?q=$query&sort=${sort}"},
    {"do": "action", "action": "click", "selector": "#go", "candidates": {"css": ["#go", "button.go"], "text": "Go"}},
    {"do": "read", "what": "text", "selector": ".price", "save_as": "price"}
  ],
  "output": ["price"],
  "budget_ms": 30000
}`

// edit is good with a JSON edit applied: path elements then the new value
// (nil deletes).
func edit(t *testing.T, path []any, val any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(good), &m); err != nil {
		t.Fatal(err)
	}
	var cur any = m
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			k := p.(string)
			if last {
				if val == nil {
					delete(c, k)
				} else {
					c[k] = val
				}
			}
			cur = c[k]
		case []any:
			k := p.(int)
			if last {
				c[k] = val
			}
			cur = c[k]
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseGood(t *testing.T) {
	r, err := Parse("/r/shop-search.json", []byte(good))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if r.Name != "shop-search" || r.Site != "shop.example.com" || len(r.Steps) != 3 || r.Params["limit"].Default != 5.0 || r.Budget().Milliseconds() != 30000 {
		t.Errorf("recipe: %+v", r)
	}
	if got := r.Steps[1].Candidates; !strings.Contains(string(got), `"button.go"`) {
		t.Errorf("candidates: %s", got)
	}
	if got := r.ParamNames(); !reflect.DeepEqual(got, []string{"exact", "limit", "query", "sort"}) {
		t.Errorf("ParamNames = %v", got)
	}
	// Written and read again, the recipe is the same.
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{
      "do": "action",`) {
		t.Errorf("do is not a step's first field:\n%s", b)
	}
	r2, err := Parse("/r/shop-search.json", b)
	if err != nil {
		t.Fatalf("Parse(JSON()): %v\n%s", err, b)
	}
	r2.Path = r.Path
	b2, _ := r2.JSON()
	if string(b) != string(b2) {
		t.Errorf("not stable:\n%s\n---\n%s", b, b2)
	}
}

func TestValidation(t *testing.T) {
	const path = "/recipes/shop-search.json"
	cases := []struct {
		name string
		path string // default path
		data string
		want []string // each a whole line of the error
	}{
		{"syntax", "", "{\n  \"name\": \"shop-search\",\n  \"site\": oops\n}",
			[]string{path + ": line 3:11: invalid JSON: invalid character 'o' looking for beginning of value"}},
		{"truncated", "", "{\n  \"name\": \"x\"", []string{path + ": line 2:14: invalid JSON: the file ends in the middle of a value"}},
		{"not an object", "", `[1]`, []string{path + ": line 1:1: the file must hold a JSON object, not array"}},
		{"trailing", "", good + " {}", []string{path + ": line 19:3: more data after the recipe's object"}},
		{"unknown field", "", edit(t, []any{"author"}, "me"),
			[]string{path + ": author: unknown field (a recipe has name, site, description, version, params, steps, output, budget_ms)"}},
		{"name mismatch", "/recipes/shop.json", good,
			[]string{`/recipes/shop.json: name: "shop-search" does not match the file name "shop.json" (the file must be shop-search.json)`}},
		{"bad name", "/recipes/Shop.json", edit(t, []any{"name"}, "Shop"),
			[]string{`/recipes/Shop.json: name: "Shop" is not a recipe name: lower-case letters, digits, - _ and ., starting with a letter or digit, at most 64`}},
		{"no site", "", edit(t, []any{"site"}, nil), []string{path + `: site: missing: the host the recipe is for, e.g. "shop.example.com"`}},
		{"site url", "", edit(t, []any{"site"}, "https://shop.example.com/"),
			[]string{path + `: site: "https://shop.example.com/" is not a host: write the host alone, e.g. "shop.example.com"`}},
		{"version", "", edit(t, []any{"version"}, 2), []string{path + ": version: 2 is not a recipe format this webpilot reads (it reads 1)"}},
		{"budget", "", edit(t, []any{"budget_ms"}, 200000), []string{path + ": budget_ms: must be a whole number of milliseconds from 1 to 120000; got 200000"}},
		{"default above max", "", edit(t, []any{"params", "limit", "default"}, 99), []string{path + ": params.limit.default: 99 is above maximum 50"}},
		{"default below min", "", edit(t, []any{"params", "limit", "default"}, 0), []string{path + ": params.limit.default: 0 is below minimum 1"}},
		{"default type", "", edit(t, []any{"params", "query", "default"}, 3), []string{path + ": params.query.default: 3 is not a string"}},
		{"enum default", "", edit(t, []any{"params", "sort", "default"}, "cheap"), []string{path + `: params.sort.default: "cheap" is not one of "price", "rating"`}},
		{"enum without values", "", edit(t, []any{"params", "sort", "values"}, nil),
			[]string{path + `: params.sort.values: missing: an enum lists its allowed values, e.g. ["price", "rating"]`, path + `: params.sort.default: "price" is not one of ` + ""}},
		{"param type", "", edit(t, []any{"params", "exact", "type"}, "bool"), []string{path + `: params.exact.type: "bool" is not a parameter type: string, number, boolean or enum`}},
		{"param field", "", edit(t, []any{"params", "query", "pattern"}, "x"),
			[]string{path + ": params.query.pattern: unknown field (a parameter has type, description, default, minimum, maximum, values)"}},
		{"min on string", "", edit(t, []any{"params", "query", "minimum"}, 1), []string{path + ": params.query.minimum: is for number parameters only"}},
		{"param name", "", edit(t, []any{"params", "9lives"}, map[string]any{"type": "string"}),
			[]string{path + `: params.9lives: "9lives" is not a parameter name: letters, digits and _, not starting with a digit, at most 32`}},
		{"selector empty", "", edit(t, []any{"steps", 1, "selector"}, ""), []string{path + `: step 2 (action): "selector": must be a non-empty string; got ""`}},
		{"url number", "", edit(t, []any{"steps", 0, "url"}, 5), []string{path + `: step 1 (navigate): "url": must be a non-empty string; got 5`}},
		{"unknown ref", "", edit(t, []any{"steps", 0, "url"}, "https://shop.example.com/?q=$qurey"),
			[]string{path + `: step 1 (navigate): "url": $qurey is neither a parameter nor saved by an earlier step (did you mean $query?) (write $$ for a literal $)`}},
		{"ref before save", "", edit(t, []any{"steps", 1, "selector"}, "$price"),
			[]string{path + `: step 2 (action): "selector": $price is saved only by a later step (3); a step can use the values of earlier steps`}},
		{"output unknown", "", edit(t, []any{"output"}, []any{"cost"}), []string{path + `: output: "cost" is not a save_as name of any step`}},
		{"collision", "", edit(t, []any{"params", "price"}, map[string]any{"type": "string"}),
			[]string{path + `: step 3 (read): "save_as": "price" is also a parameter's name; parameters and saved values share $names: rename one`}},
		{"candidates not object", "", edit(t, []any{"steps", 1, "candidates"}, []any{"#go"}), []string{path + `: step 2 (action): "candidates": must be an object; got ["#go"]`}},
		{"step not object", "", edit(t, []any{"steps", 2}, "read"), []string{path + `: step 3: must be an object such as {"do": "navigate", "url": "https://…"}; got "read"`, ""}},
		{"no steps", "", edit(t, []any{"steps"}, []any{}), []string{path + ": steps: is empty: give at least one step", path + `: output: "price" is not a save_as name of any step`}},
		// The flow's own fields, checked by flow.Parse.
		{"flow kind", "", edit(t, []any{"steps", 1, "do"}, "hover"), []string{path + `: step 2: unknown step kind "hover" (do is one of navigate, snapshot, find, action, fill_form, wait, read, collect, back, screenshot, tabs)`}},
		{"flow retry", "", edit(t, []any{"steps", 1, "retry"}, 2), []string{path + `: step 2 (action): retry must be 0 or 1; got 2 (retry: 1 runs a failed step once more; flows have no loops)`}},
		{"flow nth", "", edit(t, []any{"steps", 1, "nth"}, 2), []string{path + `: step 2 (action): nth is for find steps only (use nth on a find step with save_as, then "$name" here)`}},
		{"flow save_as", "", edit(t, []any{"steps", 2, "save_as"}, "the price"), []string{path + `: step 3 (read): "save_as": must be a name of letters, digits and _ (not starting with a digit, at most 32); got "the price"`, ""}},
		{"flow timeout from param", "", edit(t, []any{"steps", 1, "timeout_ms"}, "$limit"), nil}, // a number parameter as a whole string is a number
		{"flow timeout string param", "", edit(t, []any{"steps", 1, "timeout_ms"}, "$query"), []string{path + `: step 2 (action): timeout_ms must be an integer from 1 to 120000; got "socks" (leave timeout_ms out for the tool's own timeout)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.path
			if p == "" {
				p = path
			}
			_, err := Parse(p, []byte(c.data))
			if c.want == nil {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			ve, ok := AsValidationError(err)
			if !ok {
				t.Fatalf("Parse: %v, want a *ValidationError", err)
			}
			lines := strings.Split(ve.Error(), "\n")
			if lines[0] != c.want[0] {
				t.Errorf("first problem:\n got %s\nwant %s", lines[0], c.want[0])
			}
			if len(c.want) == 1 && len(lines) != 1 {
				t.Errorf("more problems than one:\n%s", ve.Error())
			}
		})
	}
}

// Every problem is found, not only the first.
func TestValidationListsAll(t *testing.T) {
	data := edit(t, []any{"params", "limit", "default"}, 99)
	var m map[string]any
	json.Unmarshal([]byte(data), &m)
	m["output"] = []any{"cost"}
	m["site"] = ""
	b, _ := json.Marshal(m)
	_, err := Parse("/r/shop-search.json", b)
	ve, ok := AsValidationError(err)
	if !ok || len(ve.Problems) != 3 {
		t.Fatalf("Parse: %v, want 3 problems", err)
	}
}

func TestShortPath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil || home == "/" {
		t.Skip("no home directory")
	}
	p := filepath.Join(home, ".config", "webpilot", "recipes", "shop.json")
	ve := &ValidationError{Path: p, Problems: []Problem{{Step: 3, Do: "action", Field: "selector", Message: "must be a non-empty string"}}}
	want := filepath.Join("~", ".config", "webpilot", "recipes", "shop.json") + `: step 3 (action): "selector": must be a non-empty string`
	if ve.Error() != want {
		t.Errorf("Error() = %s, want %s", ve.Error(), want)
	}
}
