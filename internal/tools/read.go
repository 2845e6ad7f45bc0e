package tools

import (
	"context"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// ReadIn is browser_read's input: what to read, and an optional element
// (LocatorIn's fields; none: the page).
type ReadIn struct {
	What      string `json:"what,omitempty" default:"\"text\"" enum:"text,markdown,main,html,outer_html,attribute,value,title,url"`
	Attribute string `json:"attribute,omitempty" jsonschema:"its name"`
	LocatorIn
	MaxChars        int    `json:"max_chars,omitempty" minimum:"1" maximum:"1000000"`
	Offset          int    `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Session         string `json:"session,omitempty"`
	Tab             string `json:"tab,omitempty"`
	AutoScrollRetry *bool  `json:"auto_scroll_retry,omitempty" default:"true"`
}

// ReadMaxChars is browser_read's default max_chars (DESIGN.md).
const ReadMaxChars = 20_000

var readTool = Def(Tool{
	Name:        "browser_read",
	Description: "Page or element content as data (a snapshot is for acting).",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupRead,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in ReadIn) (*Result, error) {
	if in.MaxChars == 0 {
		in.MaxChars = ReadMaxChars
	}
	res, err := h.Read(ctx, browser.ReadOptions{What: strings.TrimSpace(in.What), Attribute: strings.TrimSpace(in.Attribute), Target: in.target(),
		MaxChars: in.MaxChars, Offset: in.Offset, ScrollRetry: in.AutoScrollRetry == nil || *in.AutoScrollRetry})
	if err != nil {
		return nil, err
	}
	return &Result{Text: res.Text, Value: &res.Content}, nil
})
