package cdp

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// axTreeUnknownEnum is a hand-written Accessibility.getFullAXTree reply as a
// newer Chrome might send it: an unknown role value ("futureWidgetRole"), an
// unknown property name ("futureProperty"), an unknown AXValueType
// ("futureType"), an unknown ignored reason and an unknown node field.
const axTreeUnknownEnum = "testdata/axtree-unknown-enum.json"

func readAXTree(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(axTreeUnknownEnum)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAXTreeCdprotoDecode pins what cdproto does with unknown enum values.
//
// With cdproto v0.160.4 decoding WORKS: its enums (accessibility.ValueType,
// PropertyName, ValueSourceType, ...) are plain string types with no
// UnmarshalJSON method, and jsonv2 ignores unknown fields, so unknown values
// come through as strings. Should a cdproto upgrade add strict enum decoding,
// this test fails; the snapshot path does not depend on it either way, as it
// decodes into the lenient [AXNode] (TestAXTreeLenient).
func TestAXTreeCdprotoDecode(t *testing.T) {
	var res accessibility.GetFullAXTreeResult
	if err := jsonv2.Unmarshal(readAXTree(t), &res); err != nil {
		t.Fatalf("cdproto no longer decodes unknown enum values: %v", err)
	}
	if len(res.Nodes) != 5 {
		t.Fatalf("decoded %d nodes, want 5", len(res.Nodes))
	}
	button := res.Nodes[1]
	if button.Role.Type != accessibility.ValueTypeRole || string(button.Role.Value) != `"button"` {
		t.Errorf("button role = %+v", button.Role)
	}
	future := button.Properties[1]
	if future.Name != "futureProperty" || future.Value.Type != "futureType" {
		t.Errorf("unknown property decoded as %q of type %q", future.Name, future.Value.Type)
	}
	if got := string(res.Nodes[2].Role.Value); got != `"futureWidgetRole"` {
		t.Errorf("unknown role decoded as %s", got)
	}
}

func TestAXTreeLenient(t *testing.T) {
	var tree FullAXTree
	if err := jsonv2.Unmarshal(readAXTree(t), &tree); err != nil {
		t.Fatal(err)
	}
	type prop struct{ name, typ, value string }
	tests := []struct {
		id, role, roleType, name, description, value string
		ignored                                      bool
		props                                        []prop
		children                                     []string
		parent, frame                                string
		backend                                      int64
	}{
		{
			id: "1", role: "RootWebArea", roleType: "internalRole", name: "Checkout",
			props:    []prop{{"focusable", "booleanOrUndefined", "true"}, {"focused", "booleanOrUndefined", "true"}},
			children: []string{"2", "3", "5"}, frame: "A1B2C3D4E5F60718293A4B5C6D7E8F90", backend: 1,
		},
		{
			id: "2", role: "button", roleType: "role", name: "Pay now", description: "Charges your saved card",
			props: []prop{
				{"focusable", "booleanOrUndefined", "true"},
				{"futureProperty", "futureType", `{"nested": [1, 2]}`},
				{"level", "integer", "2"},
			},
			children: []string{"4"}, parent: "1", frame: "A1B2C3D4E5F60718293A4B5C6D7E8F90", backend: 12,
		},
		{
			id: "3", role: "futureWidgetRole", roleType: "role", name: "Quantity", value: "3.5",
			props:  []prop{{"futureProperty", "futureType", "on"}, {"valuemin", "number", "0"}},
			parent: "1", backend: 13,
		},
		{id: "4", role: "StaticText", roleType: "role", name: "Pay now", parent: "2", backend: 14},
		{id: "5", role: "none", roleType: "role", ignored: true, parent: "1", backend: 15},
	}
	if len(tree.Nodes) != len(tests) {
		t.Fatalf("decoded %d nodes, want %d", len(tree.Nodes), len(tests))
	}
	for i, want := range tests {
		n := &tree.Nodes[i]
		t.Run(want.id, func(t *testing.T) {
			if n.NodeID != want.id || n.Ignored != want.ignored || n.ParentID != want.parent ||
				n.FrameID != want.frame || n.BackendDOMNodeID != want.backend {
				t.Errorf("node = id %q ignored %v parent %q frame %q backend %d",
					n.NodeID, n.Ignored, n.ParentID, n.FrameID, n.BackendDOMNodeID)
			}
			if n.Role == nil || n.Role.Type != want.roleType || n.Role.String() != want.role {
				t.Errorf("role = %+v, want %s %q", n.Role, want.roleType, want.role)
			}
			if got := n.Name.String(); got != want.name {
				t.Errorf("name = %q, want %q", got, want.name)
			}
			if got := n.Description.String(); got != want.description {
				t.Errorf("description = %q, want %q", got, want.description)
			}
			if got := n.Value.String(); got != want.value {
				t.Errorf("value = %q, want %q", got, want.value)
			}
			var props []prop
			for _, p := range n.Properties {
				props = append(props, prop{p.Name, p.Value.Type, p.Value.String()})
			}
			if !slices.Equal(props, want.props) {
				t.Errorf("properties = %q, want %q", props, want.props)
			}
			if len(n.ChildIDs) != 0 || len(want.children) != 0 {
				if !slices.Equal(n.ChildIDs, want.children) {
					t.Errorf("children = %q, want %q", n.ChildIDs, want.children)
				}
			}
		})
	}
}

func TestAXValueString(t *testing.T) {
	tests := []struct {
		name string
		v    *AXValue
		want string
	}{
		{"nil", nil, ""},
		{"absent", &AXValue{Type: "string"}, ""},
		{"null", &AXValue{Type: "string", Value: jsonv2.Value(`null`)}, ""},
		{"string", &AXValue{Type: "string", Value: jsonv2.Value(`"Pay now"`)}, "Pay now"},
		{"escaped string", &AXValue{Type: "string", Value: jsonv2.Value(`"a\"b\u00e9\n"`)}, "a\"bé\n"},
		{"empty string", &AXValue{Type: "string", Value: jsonv2.Value(`""`)}, ""},
		{"integer", &AXValue{Type: "integer", Value: jsonv2.Value(`2`)}, "2"},
		{"negative", &AXValue{Type: "number", Value: jsonv2.Value(`-1`)}, "-1"},
		{"fraction", &AXValue{Type: "number", Value: jsonv2.Value(`0.25`)}, "0.25"},
		{"exponent", &AXValue{Type: "number", Value: jsonv2.Value(`1e3`)}, "1000"},
		{"trailing zero", &AXValue{Type: "number", Value: jsonv2.Value(`2.0`)}, "2"},
		{"true", &AXValue{Type: "boolean", Value: jsonv2.Value(`true`)}, "true"},
		{"false", &AXValue{Type: "tristate", Value: jsonv2.Value(`false`)}, "false"},
		{"spaces", &AXValue{Type: "boolean", Value: jsonv2.Value(" true\n")}, "true"},
		{"object", &AXValue{Type: "futureType", Value: jsonv2.Value(`{"a":1}`)}, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGetFullAXTree(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	s := c.Session("S")
	recorded := readAXTree(t)

	tests := []struct {
		frameID, wantParams string
	}{
		{"", `{}`},
		{"F1", `{"frameId":"F1"}`},
	}
	for _, tt := range tests {
		t.Run("frame "+tt.frameID, func(t *testing.T) {
			type out struct {
				nodes []AXNode
				err   error
			}
			ch := make(chan out, 1)
			go func() {
				nodes, err := GetFullAXTree(context.Background(), s, tt.frameID)
				ch <- out{nodes, err}
			}()
			m := ft.next(t)
			if m.Method != "Accessibility.getFullAXTree" || string(m.Params) != tt.wantParams {
				t.Errorf("sent %s %s, want Accessibility.getFullAXTree %s", m.Method, m.Params, tt.wantParams)
			}
			ft.reply(t, m.ID, string(recorded))
			r := <-ch
			if r.err != nil {
				t.Fatal(r.err)
			}
			if len(r.nodes) != 5 || r.nodes[2].Role.String() != "futureWidgetRole" {
				t.Errorf("got %d nodes", len(r.nodes))
			}
		})
	}

	t.Run("browser error", func(t *testing.T) {
		ch := make(chan error, 1)
		go func() {
			_, err := GetFullAXTree(context.Background(), s, "gone")
			ch <- err
		}()
		ft.replyErr(t, ft.next(t).ID, -32000, "Frame with the given id was not found.")
		var ce *Error
		if err := <-ch; !errors.As(err, &ce) || ce.Method != "Accessibility.getFullAXTree" {
			t.Errorf("error = %v, want a *cdp.Error for the method", err)
		}
	})
}
