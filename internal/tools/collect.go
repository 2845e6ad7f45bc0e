package tools

import (
	"context"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// CollectFieldIn is one field of browser_collect.
type CollectFieldIn struct {
	Name     string `json:"name"`
	Selector string `json:"selector,omitempty"`
	Property string `json:"property,omitempty" jsonschema:"text|href|src|value|html|attr:X"`
}

// CollectIn is browser_collect's input. The page side also takes within
// and frame (browser.CollectOptions); they are left out of the schema to
// keep tools/list small (a selector can scope itself: "#results li").
type CollectIn struct {
	Selector      string            `json:"selector,omitempty" jsonschema:"CSS of the items"`
	Fields        []CollectFieldIn  `json:"fields,omitempty" jsonschema:"per item; selector: CSS inside it"`
	Limit         int               `json:"limit,omitempty" default:"50" minimum:"1" maximum:"1000"`
	DeduplicateBy string            `json:"deduplicate_by,omitempty" jsonschema:"a field"`
	Exclude       map[string]string `json:"exclude,omitempty" jsonschema:"field: regex"`
	FallbackText  bool              `json:"fallback_text,omitempty" jsonschema:"keep empty items as text"`
	Scroll        bool              `json:"scroll,omitempty" jsonschema:"load more"`
	Discover      bool              `json:"discover,omitempty" jsonschema:"propose item selectors first"`
	MaxChars      int               `json:"max_chars,omitempty" minimum:"1" maximum:"1000000"`
	Offset        int               `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Session       string            `json:"session,omitempty"`
	Tab           string            `json:"tab,omitempty"`
}

var collectTool = Def(Tool{
	Name:        "browser_collect",
	Description: "Repeated items (products, results) as JSON rows, cheaper than a snapshot.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupRead,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in CollectIn) (*Result, error) {
	o := browser.CollectOptions{Selector: in.Selector, Limit: in.Limit, DeduplicateBy: in.DeduplicateBy, Exclude: in.Exclude,
		FallbackText: in.FallbackText, Scroll: in.Scroll, Discover: in.Discover,
		MaxChars: in.MaxChars, Offset: in.Offset}
	if o.MaxChars == 0 {
		o.MaxChars = SnapshotMaxChars
	}
	for _, f := range in.Fields {
		o.Fields = append(o.Fields, browser.CollectField{Name: f.Name, Selector: f.Selector, Property: f.Property})
	}
	c, err := h.Collect(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Result{Text: c.Text}, nil
})
