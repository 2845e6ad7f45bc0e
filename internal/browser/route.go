package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// browser_route answers the session's requests itself: each route has a
// pattern (a part of the URL, a *glob* matched whole, or /regex/) and one
// outcome — fulfil (status, headers, a body or a file's), abort (a network
// error) or continue with headers changed. While a session has routes,
// every request of its tabs is paused (Fetch, requestStage Request) and
// the first route that matches decides; the origin policy still comes
// first. Routes hold for the session's tabs, those that join later too.

// Route is one of a session's routes.
type Route struct {
	ID      string
	Pattern string
	Fulfill *RouteFulfill
	Abort   string            // a network error: failed, aborted, timedout, accessdenied, connectionrefused, namenotresolved, internetdisconnected, blockedbyclient
	Headers map[string]string // continue with these headers set ("" removes one)
	Hits    int

	match func(string) bool
}

// RouteFulfill is a response a route gives.
type RouteFulfill struct {
	Status  int
	Headers map[string]string
	Body    string
	File    string // a file whose bytes are the body (read when the route is added)

	data []byte
}

// routeAborts are abort's reasons, as Fetch.failRequest names them.
var routeAborts = map[string]string{"failed": "Failed", "aborted": "Aborted", "timedout": "TimedOut", "accessdenied": "AccessDenied",
	"connectionrefused": "ConnectionRefused", "connectionreset": "ConnectionReset", "namenotresolved": "NameNotResolved",
	"internetdisconnected": "InternetDisconnected", "blockedbyclient": "BlockedByClient"}

// maxRouteBody bounds a route's body.
const maxRouteBody = 10 << 20

// routeTable is a session's routes, read by its tabs' event loops.
type routeTable struct {
	mu     sync.Mutex
	routes []*Route
	seq    int
}

// match is the first route for url, counted as hit.
func (rt *routeTable) match(url string) *Route {
	if rt == nil {
		return nil
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, r := range rt.routes {
		if r.match(url) {
			r.Hits++
			return r
		}
	}
	return nil
}

// active says the table has a route.
func (rt *routeTable) active() bool {
	if rt == nil {
		return false
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return len(rt.routes) > 0
}

// Routes are the session's routes as a held call sees them
// (Held.Routes): added, removed and listed here, applied by its tabs'
// loops (fetchPauses.routed).
type Routes struct{ h *Held }

// Add adds a route to the session and has every tab pause for it.
func (rs Routes) Add(ctx context.Context, r Route, roots []string) (*Route, error) {
	s := rs.h.s
	if strings.TrimSpace(r.Pattern) == "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: "a route needs a pattern", Hint: `a part of the URL ("/api/"), a *glob* matched whole ("*/api/items*") or /regex/`}
	}
	m, err := valueMatcher(r.Pattern)
	if err != nil {
		return nil, err
	}
	r.match = m
	n := 0
	if r.Fulfill != nil {
		n++
	}
	if r.Abort != "" {
		n++
	}
	if r.Headers != nil {
		n++
	}
	for k := range r.Headers {
		if why := forbiddenHeader(k); why != "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("continue cannot set the header %s: %s", Echo(k), why),
				Hint: "set other headers; to change where a request goes, fulfill it or navigate elsewhere"}
		}
	}
	if n != 1 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "a route takes one of fulfill, abort or continue", Hint: `e.g. {"action": "add", "pattern": "*/api/items*", "fulfill": {"status": 200, "body": "[]"}}`}
	}
	if r.Abort != "" {
		if _, ok := routeAborts[strings.ToLower(r.Abort)]; !ok {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown abort reason %q", r.Abort), Hint: "use one of " + strings.Join(slices.Sorted(maps.Keys(routeAborts)), ", ")}
		}
	}
	if f := r.Fulfill; f != nil {
		if f.Status == 0 {
			f.Status = http.StatusOK
		}
		if f.Status < 100 || f.Status > 599 {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("status %d is not an HTTP status", f.Status), Hint: "100 to 599"}
		}
		if f.File != "" && f.Body != "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: "fulfill takes body or file, not both"}
		}
		f.data = []byte(f.Body)
		if f.File != "" {
			files, err := s.localFiles([]string{f.File}, true, roots)
			if err != nil {
				return nil, err
			}
			st, err := os.Stat(files[0])
			if err != nil || st.Size() > maxRouteBody {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the file %s is over %d MB or unreadable", f.File, maxRouteBody>>20)}
			}
			if f.data, err = os.ReadFile(files[0]); err != nil {
				return nil, &Error{Code: CodeInvalidArgument, Message: "read " + f.File + ": " + err.Error()}
			}
		}
		if len(f.data) > maxRouteBody {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the body is over %d MB", maxRouteBody>>20)}
		}
	}
	rt := s.link.routes
	rt.mu.Lock()
	rt.seq++
	r.ID = "r" + strconv.Itoa(rt.seq)
	rr := &r
	rt.routes = append(rt.routes, rr)
	rt.mu.Unlock()
	if err := rs.refetch(ctx); err != nil {
		return nil, err
	}
	return rr, nil
}

// Remove removes a route by id ("all": every one).
func (rs Routes) Remove(ctx context.Context, id string) (int, error) {
	rt := rs.h.s.link.routes
	rt.mu.Lock()
	before := len(rt.routes)
	if id == "all" {
		rt.routes = nil
	} else {
		rt.routes = slices.DeleteFunc(rt.routes, func(r *Route) bool { return r.ID == id })
	}
	n := before - len(rt.routes)
	ids := make([]string, 0, len(rt.routes))
	for _, r := range rt.routes {
		ids = append(ids, r.ID)
	}
	rt.mu.Unlock()
	if n == 0 {
		return 0, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("no route %q", Echo(id)), Hint: `browser_route list shows the routes; "all" removes every one`, Suggestions: ids}
	}
	return n, rs.refetch(ctx)
}

// List lists the session's routes.
func (rs Routes) List() []Route {
	rt := rs.h.s.link.routes
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]Route, len(rt.routes))
	for i, r := range rt.routes {
		out[i] = *r
	}
	return out
}

// refetch sets every tab's pauses again after the routes changed.
func (rs Routes) refetch(ctx context.Context) error {
	for _, t := range rs.h.s.tabs.all {
		if !t.alive() {
			continue
		}
		if err := t.pauses.set(ctx, t.page.Call); err != nil {
			return backendError("route the tab's requests", err)
		}
		for _, k := range t.page.kids.list() {
			_ = t.pauses.set(ctx, k.Call)
		}
	}
	return nil
}

// routed answers a paused request with its route; false when none matches.
func (f *fetchPauses) routed(g *loop, p *pausedEvent) bool {
	r := f.t.link.routes.match(p.Request.URL)
	if r == nil {
		return false
	}
	method, params := "", map[string]any{"requestId": p.RequestID}
	switch {
	case r.Fulfill != nil:
		var hs []map[string]string
		hasType := false
		for k, v := range r.Fulfill.Headers {
			hs = append(hs, map[string]string{"name": k, "value": v})
			hasType = hasType || strings.EqualFold(k, "Content-Type")
		}
		if !hasType {
			hs = append(hs, map[string]string{"name": "Content-Type", "value": http.DetectContentType(r.Fulfill.data)})
		}
		method = "Fetch.fulfillRequest"
		params["responseCode"], params["responseHeaders"], params["body"] = r.Fulfill.Status, hs, base64.StdEncoding.EncodeToString(r.Fulfill.data)
	case r.Abort != "":
		method = "Fetch.failRequest"
		params["errorReason"] = routeAborts[strings.ToLower(r.Abort)]
	default:
		merged := map[string]string{}
		for k, v := range p.Request.Headers {
			merged[strings.ToLower(k)] = v
		}
		names := map[string]string{}
		for k := range p.Request.Headers {
			names[strings.ToLower(k)] = k
		}
		for k, v := range r.Headers {
			if v == "" {
				delete(merged, strings.ToLower(k))
				continue
			}
			merged[strings.ToLower(k)] = v
			if names[strings.ToLower(k)] == "" {
				names[strings.ToLower(k)] = k
			}
		}
		var hs []map[string]string
		for k, v := range merged {
			hs = append(hs, map[string]string{"name": names[k], "value": v})
		}
		method = "Fetch.continueRequest"
		params["headers"] = hs
	}
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		if err := g.Call(ctx, method, params, nil); err != nil && method == "Fetch.continueRequest" && ctx.Err() == nil {
			// Headers the browser refuses must not leave the request (and
			// the page) paused: it goes on as it was.
			f.t.log.Info("route: the browser refused the changed headers; the request goes on unchanged", "err", err)
			_ = g.Call(ctx, method, map[string]any{"requestId": params["requestId"]}, nil)
		}
	})
	return true
}

// forbiddenHeader says why a request header cannot be set by a route's
// continue ("" when it can): the browser refuses to continue a request
// with them, or they are its own to set.
func forbiddenHeader(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "" || strings.ContainsAny(n, " :\t\r\n"):
		return "not a header name"
	case n == "host", n == "content-length", n == "connection", n == "keep-alive", n == "transfer-encoding", n == "upgrade", n == "te", n == "trailer", n == "expect":
		return "the browser sets it for the connection"
	case strings.HasPrefix(n, "proxy-"), strings.HasPrefix(n, "sec-"):
		return "the browser keeps it for itself"
	}
	return ""
}
