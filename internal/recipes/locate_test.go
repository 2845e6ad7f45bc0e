package recipes

import (
	"reflect"
	"testing"
)

// Locate's order: by place, id or attribute, role and a name that told the
// element apart, exact text, structural path, tag; the frame is kept.
func TestLocate(t *testing.T) {
	id := Selector{"id", "#go"}
	attr := Selector{"attr", `[data-testid="go"]`}
	path := Selector{"structural", "ul.results > li:nth-child(1) > a"}
	for _, c := range []struct {
		name string
		e    Element
		want map[string]any
	}{
		{"id first", Element{Tag: "button", Role: "button", Name: "Go", CSS: []Selector{id, attr, path}}, map[string]any{"selector": "#go"}},
		{"attribute", Element{Tag: "button", Role: "button", Name: "Go", CSS: []Selector{attr, path}}, map[string]any{"selector": `[data-testid="go"]`}},
		{"role and name over a path", Element{Tag: "a", Role: "link", Name: "Blue Kettle", Text: "Blue Kettle", CSS: []Selector{path}},
			map[string]any{"role": "link", "name": "Blue Kettle", "exact": true}},
		{"a name shared with others: text", Element{Tag: "a", Role: "link", Name: "More", Similar: 2, Text: "More info", CSS: []Selector{path}},
			map[string]any{"text": "More info", "exact": true}},
		{"a generic role: text", Element{Tag: "div", Role: "generic", Name: "Box", Text: "Box", CSS: []Selector{path}},
			map[string]any{"text": "Box", "exact": true}},
		{"nothing but a path", Element{Tag: "div", Role: "generic", CSS: []Selector{path}}, map[string]any{"selector": path.CSS}},
		{"nothing but a tag", Element{Tag: "canvas"}, map[string]any{"selector": "canvas"}},
		{"nothing", Element{}, map[string]any{}},
		{"by place", Element{Tag: "a", Role: "link", Name: "Blue Kettle", CSS: []Selector{attr, path}, ByPlace: true}, map[string]any{"selector": path.CSS}},
		{"by place without a path", Element{Tag: "a", Role: "link", Name: "Blue Kettle", CSS: []Selector{attr}, ByPlace: true}, map[string]any{"selector": attr.CSS}},
		{"in a frame", Element{Tag: "button", Role: "button", Name: "Pay", Frame: "#checkout"}, map[string]any{"frame": "#checkout", "role": "button", "name": "Pay", "exact": true}},
	} {
		if got := Locate(c.e); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Locate = %v, want %v", c.name, got, c.want)
		}
	}
}
