package cdp

import (
	"bytes"
	"context"
	"strconv"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Lenient accessibility types. The snapshot hot path decodes
// Accessibility.getFullAXTree into these rather than cdproto's accessibility
// types: every enum here (role and value types, property names) is a plain
// string, so a newer Chrome that sends values cdproto does not know still
// decodes, and unknown fields are ignored.

// FullAXTree is the result of Accessibility.getFullAXTree.
type FullAXTree struct {
	Nodes []AXNode `json:"nodes"`
}

// AXNode is one node of the accessibility tree (CDP Accessibility.AXNode).
type AXNode struct {
	NodeID           string       `json:"nodeId"`
	Ignored          bool         `json:"ignored"`
	Role             *AXValue     `json:"role,omitzero"`
	Name             *AXValue     `json:"name,omitzero"`
	Description      *AXValue     `json:"description,omitzero"`
	Value            *AXValue     `json:"value,omitzero"`
	Properties       []AXProperty `json:"properties,omitzero"`
	ChildIDs         []string     `json:"childIds,omitzero"`
	BackendDOMNodeID int64        `json:"backendDOMNodeId,omitzero"`
	FrameID          string       `json:"frameId,omitzero"`
	ParentID         string       `json:"parentId,omitzero"`
}

// AXValue is a computed accessibility value (CDP Accessibility.AXValue); Type
// is an AXValueType such as "role", "string" or "boolean".
type AXValue struct {
	Type  string       `json:"type"`
	Value jsonv2.Value `json:"value,omitzero"`
}

// String returns the value as text: a string as is, a number or a boolean
// formatted, "" when absent or null. Other JSON (objects, arrays) comes back
// as its JSON text.
func (v *AXValue) String() string {
	if v == nil {
		return ""
	}
	raw := bytes.TrimSpace(v.Value)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case 'n': // null
		return ""
	case '"':
		var s string
		if jsonv2.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return string(raw) // true, false, objects, arrays
}

// AXProperty is a named accessibility property (CDP Accessibility.AXProperty).
type AXProperty struct {
	Name  string  `json:"name"`
	Value AXValue `json:"value"`
}

// GetFullAXTree fetches the accessibility tree of the frame's document (the
// root frame when frameID is empty) with lenient decoding.
func GetFullAXTree(ctx context.Context, t Target, frameID string) ([]AXNode, error) {
	params := struct {
		FrameID string `json:"frameId,omitzero"`
	}{frameID}
	var res FullAXTree
	if err := t.Call(ctx, "Accessibility.getFullAXTree", params, &res); err != nil {
		return nil, err
	}
	return res.Nodes, nil
}
