package cdp

import (
	"context"
	"strconv"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// AXNode is one node of Accessibility.getFullAXTree, decoded leniently: every
// enum is a plain string, so values a newer Chrome adds still decode (the
// generated cdproto types would have to know them).
type AXNode struct {
	NodeID           string       `json:"nodeId"`
	Ignored          bool         `json:"ignored"`
	Role             *AXValue     `json:"role,omitempty"`
	Name             *AXValue     `json:"name,omitempty"`
	Description      *AXValue     `json:"description,omitempty"`
	Value            *AXValue     `json:"value,omitempty"`
	Properties       []AXProperty `json:"properties,omitempty"`
	ChildIDs         []string     `json:"childIds,omitempty"`
	BackendDOMNodeID int64        `json:"backendDOMNodeId,omitempty"`
	FrameID          string       `json:"frameId,omitempty"`
	ParentID         string       `json:"parentId,omitempty"`
}

// AXValue is an accessibility value of any type.
type AXValue struct {
	Type  string       `json:"type"`
	Value jsonv2.Value `json:"value,omitempty"`
}

// String returns the value as text: strings as they are, numbers and
// booleans formatted, "" when absent. It is safe on a nil AXValue.
func (v *AXValue) String() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	raw := strings.TrimSpace(string(v.Value))
	if raw == "null" {
		return ""
	}
	if strings.HasPrefix(raw, `"`) {
		var s string
		if jsonv2.Unmarshal(v.Value, &s) == nil {
			return s
		}
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return raw
}

// AXProperty is a named accessibility property.
type AXProperty struct {
	Name  string  `json:"name"`
	Value AXValue `json:"value"`
}

// FullAXTree is the result of Accessibility.getFullAXTree.
type FullAXTree struct {
	Nodes []AXNode `json:"nodes"`
}

// GetFullAXTree fetches the accessibility tree of a frame ("" for the
// target's main frame) into lenient structs.
func GetFullAXTree(ctx context.Context, t Target, frameID string) ([]AXNode, error) {
	var params struct {
		FrameID string `json:"frameId,omitzero"`
	}
	params.FrameID = frameID
	var res FullAXTree
	if err := t.Call(ctx, "Accessibility.getFullAXTree", params, &res); err != nil {
		return nil, err
	}
	return res.Nodes, nil
}
