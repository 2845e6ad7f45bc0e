package tools

import (
	"context"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// ConsoleIn is browser_console's input.
type ConsoleIn struct {
	Level    string `json:"level,omitempty" jsonschema:"error (with exceptions), warning, info, log, debug; comma list; default all"`
	Clear    bool   `json:"clear,omitempty" jsonschema:"empty the buffer after reading"`
	Limit    int    `json:"limit,omitempty" jsonschema:"newest entries shown (50)" minimum:"1" maximum:"200"`
	MaxChars int    `json:"max_chars,omitempty" minimum:"1" maximum:"1000000"`
	Offset   int    `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Session  string `json:"session,omitempty"`
	Tab      string `json:"tab,omitempty"`
}

// Check refuses an unknown level before anything is held.
func (in ConsoleIn) Check() error {
	_, err := browser.ParseConsoleLevels(in.Level)
	return err
}

var consoleTool = Def(Tool{
	Name:        "browser_console",
	Description: "The tab's console messages and uncaught exceptions (newest last, with source and stack).",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupConsole,
	Hold:        HoldTabAsIs,
}, func(ctx context.Context, h *Held, in ConsoleIn) (*Result, error) {
	levels, err := browser.ParseConsoleLevels(in.Level)
	if err != nil {
		return nil, err
	}
	res, err := h.Console().List(ctx, browser.ConsoleOptions{Levels: levels, Clear: in.Clear, Limit: in.Limit, MaxChars: in.MaxChars, Offset: in.Offset})
	if err != nil {
		return nil, err
	}
	return &Result{Text: res.Text}, nil
})
