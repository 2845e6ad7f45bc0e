package browser

import (
	"net/url"
	"sync"
	"sync/atomic"
)

// sessionLink is what the tabs of a session share of it, through one
// pointer each (Tab.link): its policy, who calls it, the count of windows
// its pages asked for, its network log and its routes. The session makes
// it with itself and owns it; a tab of no session has an empty one of its
// own (newTab), in which everything is off.
//
// What guards what: pol, origin and httpAuth are fixed when the session is
// made; caller is written and read only while the session is held;
// client, hide and windowOpens are atomic (the tabs' loops and a
// recorder's cleanup read or add to them between calls); asked, net and
// routes have their own locks (the tabs' loops write and read them between
// calls).
type sessionLink struct {
	// pol is the session's policy: its output directory keeps the tabs'
	// downloads (nil in a tab of no session).
	pol *Policy
	// origin is the session's origin policy; nil allows everything.
	origin func(*url.URL) *Error
	// httpAuth are the session's login answers (--http-auth).
	httpAuth []HTTPAuth
	// caller is what the client holding the session brought for its call
	// (Held.SetCaller); the zero Caller between holds.
	caller Caller
	// client is the client whose files the session's outputs are (the last
	// Caller.Client it was called with; "" for none): downloads that land
	// between calls are its too.
	client atomic.Value // string
	// hide is what the page-side matchers hide (the last Caller.Hide the
	// session was called with, as a hider): read by walker calls that run
	// outside a hold too (a recorder's cleanup), so it is not in caller.
	hide atomic.Value // hider
	// windowOpens counts the new windows the pages of the session's tabs
	// asked for (Page.windowOpen, counted by the tabs' loops).
	windowOpens atomic.Int64
	// asked is the URLs of the windows asked for that no popup has
	// answered yet, oldest first (a few): a popup listed before its first
	// load committed shows the URL it is loading.
	asked openURLs
	// net is the requests of the session's tabs (browser_network); nil in
	// a tab of no session.
	net *netLog
	// routes are browser_route's, read by the tabs' loops; nil in a tab of
	// no session.
	routes *routeTable
}

// newSessionLink is the link of a session under policy pol.
func newSessionLink(pol *Policy) *sessionLink {
	l := &sessionLink{pol: pol, net: newNetLog(), routes: &routeTable{}}
	if pol != nil {
		l.httpAuth = pol.opts.HTTPAuth
		if pol.policySet() {
			l.origin = pol.originPolicy
		}
	}
	return l
}

// setCaller tells the link who calls, until the hold ends.
func (l *sessionLink) setCaller(c Caller) {
	l.caller = c
	if c.Client != "" {
		l.client.Store(c.Client)
	}
	l.hide.Store(hider(c.Hide))
}

// hider is what the walker's matchers hide now (nil: no secrets).
func (l *sessionLink) hider() hider {
	h, _ := l.hide.Load().(hider)
	return h
}

// clientID is the client the session's outputs are written for ("": any).
func (l *sessionLink) clientID() string {
	id, _ := l.client.Load().(string)
	return id
}

// openURLs is the URLs of the latest windows a session's pages asked for
// (Page.windowOpen), oldest first; the tabs' loops add, the session's
// holder takes.
type openURLs struct {
	mu   sync.Mutex
	urls []string
}

// maxOpenURLs bounds the windows remembered: a page that opens many keeps
// only the latest.
const maxOpenURLs = 16

// add remembers that a page asked for a window on raw.
func (o *openURLs) add(raw string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, raw)
	if n := len(o.urls); n > maxOpenURLs {
		o.urls = o.urls[n-maxOpenURLs:]
	}
}

// take answers one window asked for with a popup the browser lists on
// listed, and returns the URL to show for the popup. A popup listed on a
// URL answers the window asked on it, if one was; one listed blank (its
// first load not committed yet) answers the oldest, and shows the URL
// asked for.
func (o *openURLs) take(listed string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	blank := listed == "" || listed == "about:blank"
	for i, u := range o.urls {
		if blank || u == listed {
			o.urls = append(o.urls[:i:i], o.urls[i+1:]...)
			if blank && u != "" {
				return u
			}
			return listed
		}
	}
	return listed
}

// clear forgets the windows asked for that no popup listed by now
// answered (closed at once, refused before they were listed, opened with
// noopener): their URLs are not handed to a later popup.
func (o *openURLs) clear() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = o.urls[:0]
}
