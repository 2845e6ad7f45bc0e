package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// HandoffIn is browser_handoff's input.
type HandoffIn struct {
	Message   string      `json:"message" jsonschema:"what the user should do, shown to them (≤300 chars)"`
	Until     *WaitCondIn `json:"until,omitempty" jsonschema:"ends the hand-off once it holds (a browser_wait condition); without it the user's Done in the extension popup ends it"`
	TimeoutMs int         `json:"timeout_ms,omitempty" jsonschema:"default 300000" minimum:"1" maximum:"900000"`
	Session   string      `json:"session,omitempty"`
	Tab       string      `json:"tab,omitempty"`
}

// Check refuses an until condition out of range (its bounds are not in the
// schema).
func (in HandoffIn) Check() error {
	if in.Until == nil {
		return nil
	}
	if ms := in.Until.TimeMs; ms < 0 || ms > 120_000 {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("until.time_ms takes 1 to 120000 (got %d)", ms),
			Hint: "until is what tells the user is done: a url, a title or an element; time_ms only ends the hand-off after that long", Suggestions: []string{`"until": {"url": "*/account*"}`}}
	}
	return nil
}

var handoffTool = Def(Tool{
	Name:        "browser_handoff",
	Description: "Let the user take over the tab (login, CAPTCHA, 2FA you must not do): brings it to the front with your message and waits for until or the user's Done.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupHandoff,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in HandoffIn) (*Result, error) {
	o := browser.HandoffOptions{Message: strings.TrimSpace(in.Message), Timeout: timeout(in.TimeoutMs)}
	if c := in.Until; c != nil {
		o.Until = &browser.WaitCondition{Target: c.target(), State: strings.TrimSpace(c.State), URL: c.URL, Title: c.Title,
			NetworkIdle: c.NetworkIdle, Download: c.Download, Time: time.Duration(c.TimeMs) * time.Millisecond}
	}
	if p := h.env.Progress; p != nil {
		o.Progress = func(waited, total time.Duration) {
			p(int(waited.Seconds()), int(total.Seconds()), fmt.Sprintf("waiting for the user (%d s)", int(waited.Seconds())))
		}
	}
	res, err := h.Person().Handoff(ctx, o)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if res.By == "user" {
		fmt.Fprintf(&b, "The user pressed Done after %d s.", int(res.Elapsed.Seconds()))
	} else {
		fmt.Fprintf(&b, "The hand-off ended after %d s: %s.", int(res.Elapsed.Seconds()), browser.Echo(res.What))
	}
	if res.URL != "" {
		fmt.Fprintf(&b, " Page: %s — %s.", browser.Echo(res.Title), browser.Echo(res.URL))
	}
	b.WriteString(" What changed while the user had the tab follows; refs from before it may be stale.")
	return &Result{Text: b.String(), Snapshot: browser.ModeDiff}, nil
})
