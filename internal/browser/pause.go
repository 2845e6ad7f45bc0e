package browser

import (
	"context"
	"fmt"
	"net/url"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// fetchPauses is a tab's use of the Fetch domain: the requests its
// sessions (the page's and its out-of-process frames') pause, and the
// answers the loops give them — the origin policy's refusals of
// documents, the session's routes (route.go) and its HTTP logins
// (httpauth.go). What it pauses is the session's (Tab.link: the origin
// policy, the routes, the logins); what it keeps of its own is the
// challenges it answered.
type fetchPauses struct {
	t *Tab
	// mu guards answered, the requests whose login challenge was answered
	// once (authRequired).
	mu       sync.Mutex
	answered map[string]bool
}

// The events fetchPauses follows.
const (
	evPaused       = "Fetch.requestPaused"
	evAuthRequired = "Fetch.authRequired"
)

// follows are the events fetchPauses takes, in every session of the tab
// (routes may come later: their pauses are followed from the start).
func (f *fetchPauses) follows() []string { return []string{evPaused, evAuthRequired} }

// apply takes one event the loop of g (a session of the tab) followed for
// it.
func (f *fetchPauses) apply(g *loop, ev cdp.Event) {
	switch ev.Method {
	case evPaused:
		f.paused(g, ev.Params)
	case evAuthRequired:
		f.authRequired(g, ev.Params)
	}
}

// allRequests pauses every request (at the request stage).
var allRequests = []map[string]any{{"urlPattern": "*", "requestStage": "Request"}}

// documentRequests is the Fetch pattern of the origin policy: every
// document request, paused before it is sent.
var documentRequests = []map[string]any{{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}}

// patterns are what a tab's (or frame's) session pauses: every request
// while the session has routes, else the origin policy's documents and
// the HTTP auth origins' requests; nil when none is set.
func (f *fetchPauses) patterns() (patterns []map[string]any, auth bool) {
	l := f.t.link
	auth = len(l.httpAuth) > 0
	if l.routes.active() {
		return allRequests, auth
	}
	if l.origin != nil {
		patterns = append(patterns, documentRequests...)
	}
	if auth {
		patterns = append(patterns, authPatterns(l.httpAuth)...)
	}
	return patterns, auth
}

// set sets the pauses patterns names in a session: on, changed, or off
// when none is left.
func (f *fetchPauses) set(ctx context.Context, call func(ctx context.Context, method string, params, result any) error) error {
	patterns, auth := f.patterns()
	if patterns == nil {
		return call(ctx, "Fetch.disable", nil, nil)
	}
	return call(ctx, "Fetch.enable", map[string]any{"patterns": patterns, "handleAuthRequests": auth}, nil)
}

// enable turns on the pauses patterns names in a session.
func (f *fetchPauses) enable(ctx context.Context, call func(ctx context.Context, method string, params, result any) error) error {
	patterns, auth := f.patterns()
	if patterns == nil {
		return nil
	}
	return call(ctx, "Fetch.enable", map[string]any{"patterns": patterns, "handleAuthRequests": auth}, nil)
}

// pausedEvent is a Fetch.requestPaused event.
type pausedEvent struct {
	RequestID string `json:"requestId"`
	Request   struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"request"`
	FrameID      string `json:"frameId"`
	ResourceType string `json:"resourceType"`
}

// paused lets a request paused in g's session go on (a worker's call):
// failed when the origin policy refuses its document, answered by the
// first route that matches it, else continued.
func (f *fetchPauses) paused(g *loop, raw jsonv2.Value) {
	t := f.t
	var p pausedEvent
	if err := jsonv2.Unmarshal(raw, &p); err != nil {
		return
	}
	method, params := "Fetch.continueRequest", map[string]any{"requestId": p.RequestID}
	u, err := url.Parse(p.Request.URL)
	// (the origin policy governs documents; the HTTP auth origins'
	// other requests are paused only for their challenges)
	if origin := t.link.origin; err == nil && origin != nil && (p.ResourceType == "" || p.ResourceType == "Document") {
		if perr := origin(u); perr != nil {
			t.notes.block(p.Request.URL, fmt.Sprintf("%s%s: %s", blockedNote, p.Request.URL, perr.Message))
			method, params = "Fetch.failRequest", map[string]any{"requestId": p.RequestID, "errorReason": "BlockedByClient"}
		}
	}
	if method == "Fetch.continueRequest" && f.routed(g, &p) {
		return
	}
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		_ = g.Call(ctx, method, params, nil)
	})
}
