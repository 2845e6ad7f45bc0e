package tools

import (
	"reflect"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A value is a parameter only when it is one $name or ${name}: "$$ecret"
// is the literal "$ecret" and "$1abc" a literal too (issue 28, 5: no
// password may pass for a parameter).
func TestWholeParam(t *testing.T) {
	for v, want := range map[string]string{"$pw": "pw", "${pw}": "pw", "$$ecret": "", "$1abc": "", "pre$pw": "", "$pw!": ""} {
		got := ""
		if m := wholeParam.FindStringSubmatch(v); m != nil {
			got = m[1] + m[2]
		}
		if got != want {
			t.Errorf("%q: param %q, want %q", v, got, want)
		}
	}
}

// The same element is saved with the same locator by recipe_save (a step
// the agent took by ref) and by recipe_record (a step the user took): both
// write what recipes.Locate chooses.
func TestSaveAndRecordLocateAlike(t *testing.T) {
	path := browser.CSSCandidate{Kind: "structural", Selector: "main > ul > li:nth-child(2) > a"}
	for name, c := range map[string]*browser.Candidates{
		"id":          {Fingerprint: browser.Fingerprint{Tag: "input", Role: "textbox", Name: "Email", ID: "email"}, CSS: []browser.CSSCandidate{{Kind: "id", Selector: "#email"}, path}},
		"test id":     {Fingerprint: browser.Fingerprint{Tag: "button", Role: "button", Name: "Go", TestID: "go"}, CSS: []browser.CSSCandidate{{Kind: "attr", Selector: `[data-testid="go"]`}, path}},
		"role, name":  {Fingerprint: browser.Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle"}, Text: "Blue Kettle", CSS: []browser.CSSCandidate{path}},
		"look-alikes": {Fingerprint: browser.Fingerprint{Tag: "button", Role: "button", Name: "Add", Similar: 3}, Text: "Add", CSS: []browser.CSSCandidate{path}},
		"a path":      {Fingerprint: browser.Fingerprint{Tag: "div", Role: "generic"}, CSS: []browser.CSSCandidate{path}},
		"a frame":     {Fingerprint: browser.Fingerprint{Tag: "button", Role: "button", Name: "Pay"}, CSS: []browser.CSSCandidate{path}, Frame: "#checkout"},
		"by place":    {Fingerprint: browser.Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle"}, CSS: []browser.CSSCandidate{path}, Position: &browser.Position{Selector: "li > a", Count: 2}, ByPlace: true},
	} {
		nav := map[string]any{"do": "navigate", "url": "https://shop.example/"}
		click := map[string]any{"do": "action", "action": "click", "ref": "e7"}
		saved, err := buildRecipe(RecipeSaveIn{Name: "saved"}, []map[string]any{nav, click}, map[int]*browser.Candidates{2: c}, nil, 0)
		if err != nil {
			t.Fatalf("%s: recipe_save: %v", name, err)
		}
		recorded, _, err := recordedRecipe("recorded", "", &browser.Recorded{Steps: []browser.RecordedStep{
			{Kind: "navigate", URL: "https://shop.example/"}, {Kind: "click", Element: c},
		}}, nil, nil)
		if err != nil {
			t.Fatalf("%s: recipe_record: %v", name, err)
		}
		locator := func(f map[string]any) map[string]any {
			out := map[string]any{}
			for _, k := range []string{"ref", "selector", "text", "role", "name", "exact", "frame"} {
				if v, ok := f[k]; ok {
					out[k] = v
				}
			}
			return out
		}
		s, r := locator(saved.Steps[1].Fields), locator(recorded.Steps[1].Fields)
		if !reflect.DeepEqual(s, r) || len(s) == 0 {
			t.Errorf("%s: recipe_save wrote %v, recipe_record %v", name, s, r)
		}
	}
}
