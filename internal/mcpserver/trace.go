package mcpserver

import (
	"context"
	"maps"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// observe records a finished call: into the session's recent actions
// (browser_status) and, with --trace, into the session's trace file, with
// the page's URL and title after the call and a small screenshot after the
// tools that change the page. out is what the agent got, and failure the
// error it was rendered from (nil for a call that did not fail).
func (s *Server) observe(ctx context.Context, t tools.Tool, req *mcp.CallToolRequest, args map[string]any, session, tab string, caller browser.Caller, start time.Time, out *mcp.CallToolResult, failure *browser.Error) {
	if out == nil {
		return // a panic: the middleware answers it
	}
	if session == "" {
		session, _ = args["session"].(string)
	}
	// The manager's key: sessions of two clients may share a name.
	session = s.scopeOf(req).key(session)
	if session == "" {
		session = s.deps.DefaultSession
	}
	c := s.clientOf(ctx)
	text, ok, code, msg := outcome(out, failure)
	if u, isStr := args["url"].(string); isStr {
		// Credentials in a URL (user:pass@, token-like and OAuth code
		// parameters) are kept out of the recent actions and traces.
		args = maps.Clone(args)
		args["url"] = redact.OpenedURL(u)
	}
	target := trace.Target(t.Name, args)
	if t.Name != "browser_status" {
		word := "ok"
		if !ok {
			word = code
		}
		s.recent.Add(session, t.Name, c.mask(target), word, start)
	}
	rec := c.Deps.Trace
	if rec == nil {
		return
	}
	step := trace.Step{Time: start, Ms: time.Since(start).Milliseconds(), Tool: t.Name, Target: target,
		Args: trace.ArgsJSON(args), OK: ok, Code: code, Error: msg, Result: text}
	if t.Hold != tools.HoldNothing && s.deps.Manager != nil {
		step.URL, step.Title, step.Image = s.glance(ctx, t.Name, session, tab, caller)
		step.URL = redact.OpenedURL(step.URL)
	}
	if _, err := rec.Record(session, step); err != nil {
		s.log.Warn("trace not written", "session", session, "err", err)
	}
}

// glance reads the session's tab after a call: URL, title and, after a
// tool that changes the page, a small screenshot. It never opens a tab or
// starts a browser; nothing is read when the session or tab is gone.
func (s *Server) glance(ctx context.Context, tool, session, tab string, caller browser.Caller) (url, title string, jpeg []byte) {
	bs, ok := s.deps.Manager.Lookup(session)
	if !ok {
		return "", "", nil
	}
	// The trace waits for the session a little, never for long.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	width := 0
	if trace.Shoots(tool) {
		width = trace.ShotWidth
	}
	_ = bs.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		h.SetCaller(caller)
		bt := h.Tabs().Live(tab)
		if bt == nil && tab != "" {
			bt = h.Tabs().Live("") // the call closed its tab: the current one
		}
		if bt == nil {
			return nil
		}
		h.Use(bt)
		g, _ := h.Capture().Glance(ctx, width, trace.ShotQuality)
		url, title, jpeg = g.URL, g.Title, g.JPEG
		return nil
	})
	return url, title, jpeg
}

// outcome is a rendered result's text and, for an error, the code and
// message of failure as the agent read them (the message bounded, on one
// line).
func outcome(out *mcp.CallToolResult, failure *browser.Error) (text string, ok bool, code, msg string) {
	var b strings.Builder
	for _, c := range out.Content {
		if tc, isText := c.(*mcp.TextContent); isText {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(tc.Text)
		}
	}
	text = b.String()
	if !out.IsError {
		return text, true, "", ""
	}
	if failure == nil {
		return text, false, string(browser.CodeInternal), text
	}
	return text, false, string(failure.Code), oneLine(failure.Bounded().Message)
}
