package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// WaitCondIn is one condition of browser_wait: a target (the shared flat
// fields) with a state, or url, title, network_idle, download or time_ms;
// tier ranks it in mode any. Its fields are explained in the conditions
// description, which costs fewer tokens than one per field.
type WaitCondIn struct {
	LocatorIn
	State       string `json:"state,omitempty"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	NetworkIdle bool   `json:"network_idle,omitempty"`
	Download    bool   `json:"download,omitempty"`
	TimeMs      int    `json:"time_ms,omitempty"`
	Tier        int    `json:"tier,omitempty"`
}

// WaitIn is browser_wait's input.
type WaitIn struct {
	Conditions []WaitCondIn `json:"conditions" jsonschema:"each: a target and state (visible|hidden|attached|detached|enabled), or url|title (glob or /re/), network_idle: true, download: true, time_ms; tier 0 beats 1+"`
	Mode       string       `json:"mode,omitempty" default:"\"any\"" enum:"any,all"`
	TimeoutMs  int          `json:"timeout_ms,omitempty" default:"10000" minimum:"1" maximum:"120000"`
	Session    string       `json:"session,omitempty"`
	Tab        string       `json:"tab,omitempty"`
}

// maxWaitConditions bounds the conditions of one wait.
const maxWaitConditions = 20

// Check refuses numbers out of range in the conditions (their bounds are
// not in the schema, to keep it short).
func (in WaitIn) Check() error {
	if len(in.Conditions) > maxWaitConditions {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("%d conditions: at most %d", len(in.Conditions), maxWaitConditions),
			Hint: "wait for the few things that tell the page is ready"}
	}
	for i, c := range in.Conditions {
		if c.TimeMs < 0 || c.TimeMs > 120_000 {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("conditions[%d].time_ms takes 1 to 120000 (got %d)", i, c.TimeMs),
				Suggestions: []string{`"time_ms": 1000`}}
		}
		if c.Tier < 0 || c.Tier > 100 {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("conditions[%d].tier takes 0 to 100 (got %d)", i, c.Tier),
				Hint: "tier 0 is the content being ready, 1 and up fallbacks"}
		}
	}
	return nil
}

var waitTool = Def(Tool{
	Name:        "browser_wait",
	Description: "Wait until conditions hold (any: lowest tier wins; or all); a timeout says why not.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupWait,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in WaitIn) (*Result, error) {
	o := browser.WaitOptions{All: in.Mode == "all", Timeout: timeout(in.TimeoutMs)}
	for _, c := range in.Conditions {
		o.Conditions = append(o.Conditions, browser.WaitCondition{Target: c.target(), State: strings.TrimSpace(c.State),
			URL: c.URL, Title: c.Title, NetworkIdle: c.NetworkIdle, Download: c.Download,
			Time: time.Duration(c.TimeMs) * time.Millisecond, Tier: c.Tier})
	}
	res, err := h.Wait(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Result{Text: describeWait(res, o)}, nil
})

func describeWait(res *browser.WaitResult, o browser.WaitOptions) string {
	var b strings.Builder
	if res.Index < 0 {
		fmt.Fprintf(&b, "All %d conditions met after %d ms.", len(o.Conditions), res.Elapsed.Milliseconds())
	} else {
		fmt.Fprintf(&b, "Condition %d (tier %d: %s) met after %d ms.", res.Index, res.Tier, browser.Echo(res.What), res.Elapsed.Milliseconds())
		if len(res.Holding) > 1 {
			others := make([]string, 0, len(res.Holding))
			for _, i := range res.Holding {
				if i != res.Index {
					others = append(others, fmt.Sprint(i))
				}
			}
			fmt.Fprintf(&b, " Also holding: %s.", strings.Join(others, ", "))
		}
	}
	for _, d := range res.Downloads {
		b.WriteString("\nDownload: " + d.String())
	}
	return b.String()
}
