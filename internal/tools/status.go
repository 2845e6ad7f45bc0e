package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// StatusIn is browser_status's input. The recent actions listed are those
// of the caller's session (the one its calls run in when they name none).
type StatusIn struct {
	Verbose bool `json:"verbose,omitempty" jsonschema:"everything, as JSON"`
}

var statusTool = Def(Tool{
	Name:        "browser_status",
	Description: "Backend, browser, sessions, config, recent actions.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupCore,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, in StatusIn) (*Result, error) {
	if !in.Verbose {
		return &Result{Text: shortStatus(ctx, h)}, nil
	}
	out := map[string]any{
		"backend":  h.BackendInfo(),
		"sessions": h.SessionNames(),
	}
	for k, v := range h.Status() {
		out[k] = v
	}
	if h.env.Manager != nil {
		if emu := h.env.Manager.Emulating(h.SessionName()); len(emu) > 0 {
			out["emulating"] = emu
		}
		if rules, err := h.env.Manager.ApprovalRules(ctx); rules != nil || err != nil {
			// The person's answers in their own browser, per client and site.
			ap := map[string]any{"rules": rules}
			if err != nil {
				ap["error"] = err.Error()
			}
			out["approvals"] = ap
		}
	}
	if h.env.Recent != nil {
		// What the session did lately, newest last: an agent whose context
		// was reset picks up from here.
		out["recent_actions"] = map[string]any{"session": h.SessionName(), "actions": h.env.Recent(h.SessionName())}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Result{Text: string(b)}, nil
})

// shortStatus leads with what an agent picking up needs: its session, the
// backend and browser, the tool profile, and its last actions; the rest
// comes with verbose.
func shortStatus(ctx context.Context, h *Held) string {
	var b strings.Builder
	info := h.BackendInfo()
	state := "not started"
	if info.Running {
		state = "running"
	}
	fmt.Fprintf(&b, "Session %q (%d session(s) in all).\n", h.SessionName(), len(h.SessionNames()))
	fmt.Fprintf(&b, "Backend: %s, %s", info.Kind, state)
	if info.Version != "" {
		fmt.Fprintf(&b, ", %s", info.Version)
	}
	if info.Kind == "bridge" && info.Extension != "" {
		fmt.Fprintf(&b, ", extension %s", info.Extension)
	}
	b.WriteString(".\n")
	st := h.Status()
	if p, ok := st["profile"].(string); ok {
		fmt.Fprintf(&b, "Tools: profile %s", p)
		if c, _ := st["caps"].(string); c != "" {
			fmt.Fprintf(&b, ", caps %s", c)
		}
		if n, ok := st["tools"].([]string); ok {
			fmt.Fprintf(&b, " (%d tools)", len(n))
		}
		b.WriteString(".\n")
	}
	if h.env.Manager != nil {
		if emu := h.env.Manager.Emulating(h.SessionName()); len(emu) > 0 {
			fmt.Fprintf(&b, "Emulating: %s.\n", strings.Join(emu, " · "))
		}
		if rules, err := h.env.Manager.ApprovalRules(ctx); rules != nil || err != nil {
			b.WriteString(approvalLine(rules, err))
		}
	}
	if h.env.Recent != nil {
		acts := h.env.Recent(h.SessionName())
		if len(acts) == 0 {
			b.WriteString("No actions yet in this session.\n")
		} else {
			const shown = 5
			fmt.Fprintf(&b, "Last actions (%d of %d, newest last):\n", min(shown, len(acts)), len(acts))
			for _, a := range acts[max(0, len(acts)-shown):] {
				line := "- " + a.Time + " " + a.Tool
				if a.Target != "" {
					line += " " + a.Target
				}
				b.WriteString(line + " → " + a.Outcome + "\n")
			}
		}
	}
	b.WriteString("(verbose: true adds the configuration and where each value came from, the browser's path and profile, all sessions and the last 20 actions, as JSON)")
	return b.String()
}

// approvalLine says what the person answered in their own browser: the
// sites each client may use or not.
func approvalLine(rules []browser.ApprovalRule, err error) string {
	var parts []string
	for _, r := range rules {
		word := "allowed"
		if r.Answer == "deny" {
			word = "denied"
		}
		who := r.Client
		if who == "" {
			who = "(unnamed client)"
		}
		parts = append(parts, fmt.Sprintf("%s %s for %s", r.Site, word, who))
	}
	line := "Sites the person answered (their Chrome's webpilot popup; asked the first time a client uses a site): "
	if len(parts) == 0 {
		line += "none yet"
	} else {
		line += strings.Join(parts, "; ")
	}
	if err != nil {
		line += " (" + err.Error() + ")"
	}
	return line + ".\n"
}
