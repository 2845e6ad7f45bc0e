package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// RouteIn is browser_route's input.
type RouteIn struct {
	Action   string           `json:"action" jsonschema:"add a route, list them, remove one (id) or all" enum:"add,list,remove"`
	Pattern  string           `json:"pattern,omitempty" jsonschema:"add: URL part, *glob* or /regex/"`
	Fulfill  *RouteFulfillIn  `json:"fulfill,omitempty" jsonschema:"add: answer with status, headers, body or file"`
	Abort    string           `json:"abort,omitempty" jsonschema:"add: fail with this network error" enum:"failed,aborted,timedout,accessdenied,connectionrefused,connectionreset,namenotresolved,internetdisconnected,blockedbyclient"`
	Continue *RouteContinueIn `json:"continue,omitempty" jsonschema:"add: send on with headers set (\"\" removes one)"`
	ID       string           `json:"id,omitempty" jsonschema:"remove: r1, or all"`
	Session  string           `json:"session,omitempty"`
}

// RouteFulfillIn is a route's response.
type RouteFulfillIn struct {
	Status  int               `json:"status,omitempty" default:"200" minimum:"100" maximum:"599"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"response headers"`
	Body    string            `json:"body,omitempty" jsonschema:"response body"`
	File    string            `json:"file,omitempty" jsonschema:"or a file's bytes"`
}

// RouteContinueIn is a route that sends the request on.
type RouteContinueIn struct {
	Headers map[string]string `json:"headers" jsonschema:"request headers to set"`
}

// Check refuses arguments of one action given to another.
func (in RouteIn) Check() error {
	if in.Action != "add" && (in.Pattern != "" || in.Fulfill != nil || in.Abort != "" || in.Continue != nil) {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "pattern, fulfill, abort and continue go with add", Hint: "list takes nothing; remove takes id"}
	}
	if in.Action == "remove" && in.ID == "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "remove needs id: a route's (r1) or all", Hint: "browser_route list shows them"}
	}
	if in.Action != "remove" && in.ID != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "id goes with remove"}
	}
	return nil
}

var routeTool = Def(Tool{
	Name:        "browser_route",
	Description: "Answer the session's requests yourself: a route fulfils (mock), aborts or changes the headers of requests whose URL matches.",
	Annotations: Annotations{Destructive: ptr(true)},
	Group:       GroupRoute,
	Hold:        HoldSession,
}, func(ctx context.Context, h *Held, in RouteIn) (*Result, error) {
	switch in.Action {
	case "add":
		r := browser.Route{Pattern: in.Pattern, Abort: in.Abort}
		if f := in.Fulfill; f != nil {
			r.Fulfill = &browser.RouteFulfill{Status: f.Status, Headers: f.Headers, Body: f.Body, File: f.File}
		}
		if c := in.Continue; c != nil {
			r.Headers = c.Headers
			if r.Headers == nil {
				r.Headers = map[string]string{}
			}
		}
		added, err := h.Routes().Add(ctx, r, h.Roots(ctx))
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Route %s. While the session has routes, every request of its tabs waits for them (the first that matches decides).", routeLine(*added))}, nil
	case "remove":
		n, err := h.Routes().Remove(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Removed %d route(s); %d left.", n, len(h.Routes().List()))}, nil
	}
	rs := h.Routes().List()
	if len(rs) == 0 {
		return &Result{Text: "No routes: the session's requests go to the network."}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Routes (%d, the first that matches decides):", len(rs))
	for _, r := range rs {
		b.WriteString("\n- " + routeLine(r))
	}
	return &Result{Text: b.String()}, nil
})

// routeLine is a route as its add and list say it: `r1 "*/api/*" → fulfil
// 200 (15 bytes) · 3 hits`.
func routeLine(r browser.Route) string {
	s := fmt.Sprintf("%s %q → ", r.ID, browser.Echo(r.Pattern))
	switch {
	case r.Fulfill != nil:
		s += fmt.Sprintf("fulfil %d", r.Fulfill.Status)
		if r.Fulfill.File != "" {
			s += " with " + r.Fulfill.File
		}
	case r.Abort != "":
		s += "abort " + r.Abort
	default:
		var hs []string
		for k, v := range r.Headers {
			if v == "" {
				hs = append(hs, "-"+k)
			} else {
				hs = append(hs, k)
			}
		}
		slices.Sort(hs)
		s += "continue, headers set: " + strings.Join(hs, ", ")
	}
	return s + fmt.Sprintf(" · %d hit(s)", r.Hits)
}
