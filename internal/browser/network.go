package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// NetworkCap is how many requests a session keeps (DESIGN.md: the network
// buffer holds 500 entries per session); older ones are dropped.
const NetworkCap = 500

// Bounds on what one recorded request keeps: a page's 5 MB data URL or
// form post must not make the buffer grow without bound.
const (
	netMaxURL        = 8_192  // chars of a URL
	netMaxHeaders    = 100    // headers of a request or response
	netMaxHeaderLen  = 4_096  // chars of a header value
	netMaxPostData   = 65_536 // chars of a request body kept
	netMaxPending    = 1_000  // chains of requests whose start was not seen
	netIgnoredMemory = 1_000  // request ids left out (data: URLs)
)

// netLog is a session's network buffer: the requests of all its tabs,
// oldest first, at most NetworkCap. Its own lock guards it: the tabs'
// recorders write to it while no call holds the session.
type netLog struct {
	mu      sync.Mutex
	entries []*netEntry
	seq     int // the last request number given (n1, n2, …); never reused
	dropped int // requests dropped since the last clear because the buffer was full
	// chains follow a request id (per CDP session) through its redirect
	// hops, each an entry of its own.
	chains  map[netKey]*netChain
	ignored map[netKey]bool
}

func newNetLog() *netLog {
	return &netLog{chains: make(map[netKey]*netChain), ignored: make(map[netKey]bool)}
}

// netKey names a request: CDP's request id within one CDP session.
type netKey struct {
	sess cdp.Caller
	id   string
}

// netChain is one request id's hops (a redirect makes a new hop), and the
// raw headers the ExtraInfo events reported for them, matched in order.
type netChain struct {
	hops      []*netEntry
	reqExtra  [][]Header
	respExtra []respExtra
}

type respExtra struct {
	status  int
	headers []Header
}

// Header is one HTTP header as network output shows it.
type Header struct {
	Name, Value string
}

// netEntry is one recorded request (one hop of a redirect chain).
type netEntry struct {
	seq   int
	tab   *Tab
	sess  cdp.Caller // where its body is asked for
	reqID string
	chain *netChain

	method, url, typ string
	wall             time.Time // when it started
	startTS, endTS   float64   // CDP monotonic seconds
	status           int
	statusText       string
	mime, protocol   string
	remote           string
	cache            string // "disk cache", "service worker", "prefetch cache"
	responded        bool
	finished         bool
	failed           string // the error text of a failed load
	canceled         bool
	blocked          string
	encoded, decoded int64
	initiator        string

	reqHeaders, respHeaders       []Header // as the main events report them
	rawReqHeaders, rawRespHeaders []Header // as sent and received (ExtraInfo), when reported
	hasPostData                   bool
	postData                      string
	postDataCut                   bool
	redirectTo                    *netEntry
}

// netEvent is any of the Network events recorded, decoded leniently (our
// own struct: cdproto's closed enums would refuse a newer browser's values).
type netEvent struct {
	kind      int
	RequestID string  `json:"requestId"`
	LoaderID  string  `json:"loaderId"`
	Timestamp float64 `json:"timestamp"`
	WallTime  float64 `json:"wallTime"`
	Type      string  `json:"type"`
	Request   *struct {
		URL         string       `json:"url"`
		URLFragment string       `json:"urlFragment"`
		Method      string       `json:"method"`
		Headers     jsonv2.Value `json:"headers"`
		HasPostData bool         `json:"hasPostData"`
		PostData    string       `json:"postData"`
	} `json:"request"`
	Initiator *struct {
		Type         string `json:"type"`
		URL          string `json:"url"`
		LineNumber   *int   `json:"lineNumber"`
		ColumnNumber *int   `json:"columnNumber"`
		Stack        *struct {
			CallFrames []struct {
				URL        string `json:"url"`
				LineNumber int    `json:"lineNumber"`
			} `json:"callFrames"`
		} `json:"stack"`
	} `json:"initiator"`
	RedirectResponse  *netResponse `json:"redirectResponse"`
	Response          *netResponse `json:"response"`
	DataLength        int64        `json:"dataLength"`
	EncodedDataLength int64        `json:"encodedDataLength"`
	ErrorText         string       `json:"errorText"`
	Canceled          bool         `json:"canceled"`
	BlockedReason     string       `json:"blockedReason"`
	Headers           jsonv2.Value `json:"headers"`
	StatusCode        int          `json:"statusCode"`
}

type netResponse struct {
	URL               string       `json:"url"`
	Status            int          `json:"status"`
	StatusText        string       `json:"statusText"`
	Headers           jsonv2.Value `json:"headers"`
	MIMEType          string       `json:"mimeType"`
	Protocol          string       `json:"protocol"`
	RemoteIPAddress   string       `json:"remoteIPAddress"`
	RemotePort        int          `json:"remotePort"`
	FromDiskCache     bool         `json:"fromDiskCache"`
	FromServiceWorker bool         `json:"fromServiceWorker"`
	FromPrefetchCache bool         `json:"fromPrefetchCache"`
}

// The recorded events.
const (
	evSent = iota
	evResponse
	evData
	evFinished
	evFailed
	evReqExtra
	evRespExtra
)

var netMethods = [...]string{
	evSent:      "Network.requestWillBeSent",
	evResponse:  "Network.responseReceived",
	evData:      "Network.dataReceived",
	evFinished:  "Network.loadingFinished",
	evFailed:    "Network.loadingFailed",
	evReqExtra:  "Network.requestWillBeSentExtraInfo",
	evRespExtra: "Network.responseReceivedExtraInfo",
}

// netKinds are the recorded events' kinds by method.
var netKinds = func() map[string]int {
	m := make(map[string]int, len(netMethods))
	for k, name := range netMethods {
		m[name] = k
	}
	return m
}()

// apply records one event of a CDP session of tab t (the tab's or one of
// its frames'), which that session's loop hands over in the browser's
// order.
func (l *netLog) apply(t *Tab, sess cdp.Caller, ev *netEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.take(t, sess, ev)
	// Chains whose start was never seen (ExtraInfo of a request from
	// before the recording) are bounded.
	if len(l.chains) > NetworkCap+netMaxPending {
		for k, ch := range l.chains {
			if len(ch.hops) == 0 {
				delete(l.chains, k)
			}
		}
	}
}

// take applies one event; l.mu is held.
func (l *netLog) take(t *Tab, sess cdp.Caller, ev *netEvent) {
	k := netKey{sess, ev.RequestID}
	if l.ignored[k] {
		if ev.kind == evFinished || ev.kind == evFailed {
			delete(l.ignored, k)
		}
		return
	}
	ch := l.chains[k]
	switch ev.kind {
	case evSent:
		if ev.Request == nil {
			return
		}
		if strings.HasPrefix(ev.Request.URL, "data:") {
			if len(l.ignored) >= netIgnoredMemory {
				clear(l.ignored)
			}
			l.ignored[k] = true
			return
		}
		if ch == nil {
			ch = l.newChain(k)
		}
		var prev *netEntry
		if n := len(ch.hops); n > 0 && ev.RedirectResponse != nil {
			prev = ch.hops[n-1]
			prev.respond(ev.RedirectResponse)
			prev.finished, prev.endTS = true, ev.Timestamp
		}
		e := l.newEntry(t, sess, ev, ch)
		ch.hops = append(ch.hops, e)
		if prev != nil {
			prev.redirectTo = e
		}
		ch.match()
	case evReqExtra:
		if ch == nil {
			ch = l.newChain(k)
		}
		ch.reqExtra = append(ch.reqExtra, headerList(ev.Headers))
		ch.match()
	case evRespExtra:
		if ch == nil {
			ch = l.newChain(k)
		}
		ch.respExtra = append(ch.respExtra, respExtra{status: ev.StatusCode, headers: headerList(ev.Headers)})
		ch.match()
	default:
		if ch == nil || len(ch.hops) == 0 {
			return // a request from before the recording
		}
		e := ch.hops[len(ch.hops)-1]
		switch ev.kind {
		case evResponse:
			if ev.Response != nil {
				e.respond(ev.Response)
			}
			if ev.Type != "" {
				e.typ = strings.ToLower(ev.Type)
			}
		case evData:
			e.decoded += ev.DataLength
		case evFinished:
			e.finished, e.endTS = true, ev.Timestamp
			e.encoded = ev.EncodedDataLength
		case evFailed:
			e.finished, e.endTS = true, ev.Timestamp
			e.failed, e.canceled, e.blocked = ev.ErrorText, ev.Canceled, ev.BlockedReason
			if ev.Type != "" && e.typ == "" {
				e.typ = strings.ToLower(ev.Type)
			}
		}
	}
}

func (l *netLog) newChain(k netKey) *netChain {
	ch := &netChain{}
	l.chains[k] = ch
	return ch
}

// newEntry records a request's start as a new entry, dropping the oldest
// when the buffer is full.
func (l *netLog) newEntry(t *Tab, sess cdp.Caller, ev *netEvent, ch *netChain) *netEntry {
	l.seq++
	r := ev.Request
	e := &netEntry{seq: l.seq, tab: t, sess: sess, reqID: ev.RequestID, chain: ch,
		method: r.Method, url: capText(r.URL+r.URLFragment, netMaxURL), typ: strings.ToLower(ev.Type),
		startTS: ev.Timestamp, reqHeaders: headerList(r.Headers), hasPostData: r.HasPostData}
	if ev.WallTime > 0 {
		sec, frac := math.Modf(ev.WallTime)
		e.wall = time.Unix(int64(sec), int64(frac*1e9))
	} else {
		e.wall = time.Now()
	}
	if r.PostData != "" {
		e.postData = r.PostData
		if len(e.postData) > netMaxPostData {
			e.postData, e.postDataCut = capText(e.postData, netMaxPostData), true
		}
	}
	if in := ev.Initiator; in != nil {
		e.initiator = in.Type
		where, line := in.URL, 0
		if in.LineNumber != nil {
			line = *in.LineNumber + 1
		}
		if where == "" && in.Stack != nil {
			// The first frame with a URL: webpilot's own wrappers (the
			// keepalive fetch hook) have none.
			for _, f := range in.Stack.CallFrames {
				if f.URL != "" {
					where, line = f.URL, f.LineNumber+1
					break
				}
			}
		}
		if where != "" {
			e.initiator += " " + capText(where, netMaxURL)
			if line > 0 {
				e.initiator += fmt.Sprintf(":%d", line)
			}
		}
	}
	l.entries = append(l.entries, e)
	if len(l.entries) > NetworkCap {
		old := l.entries[0]
		l.entries[0] = nil
		l.entries = l.entries[1:]
		l.dropped++
		l.forget(old)
	}
	return e
}

// forget drops an entry's chain once its newest hop has left the buffer.
func (l *netLog) forget(old *netEntry) {
	ch := old.chain
	if ch == nil || len(ch.hops) == 0 || ch.hops[len(ch.hops)-1] != old {
		return
	}
	k := netKey{old.sess, old.reqID}
	if l.chains[k] == ch {
		delete(l.chains, k)
	}
}

// respond records a response (or a redirect's response) on the entry.
func (e *netEntry) respond(r *netResponse) {
	e.responded = true
	e.status, e.statusText = r.Status, r.StatusText
	e.mime, e.protocol = r.MIMEType, r.Protocol
	e.respHeaders = headerList(r.Headers)
	if r.RemoteIPAddress != "" {
		e.remote = r.RemoteIPAddress
		if strings.Contains(e.remote, ":") {
			e.remote = "[" + e.remote + "]"
		}
		if r.RemotePort > 0 {
			e.remote += fmt.Sprintf(":%d", r.RemotePort)
		}
	}
	switch {
	case r.FromServiceWorker:
		e.cache = "service worker"
	case r.FromPrefetchCache:
		e.cache = "prefetch cache"
	case r.FromDiskCache:
		e.cache = "disk cache"
	}
}

// match gives each hop the raw headers the ExtraInfo events reported, in
// order: the browser sends one of each per hop that went to the network.
func (ch *netChain) match() {
	for i, h := range ch.hops {
		if i < len(ch.reqExtra) && h.rawReqHeaders == nil {
			h.rawReqHeaders = ch.reqExtra[i]
		}
		if i < len(ch.respExtra) && h.rawRespHeaders == nil {
			x := ch.respExtra[i]
			// A revalidated cache entry reports 304 on the wire and 200 to
			// the page.
			if !h.responded || x.status == 0 || x.status == h.status || x.status == 304 {
				h.rawRespHeaders = x.headers
			}
		}
	}
}

// headerList reads a CDP Headers object in its order, bounded; values the
// browser joined with newlines (Set-Cookie) become headers of their own.
func headerList(raw jsonv2.Value) []Header {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	out := []Header{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil && err != io.EOF {
			break
		}
		val := fmt.Sprint(v)
		if s, ok := v.(string); ok {
			val = s
		}
		for line := range strings.SplitSeq(val, "\n") {
			if len(out) >= netMaxHeaders {
				return out
			}
			out = append(out, Header{Name: name, Value: capText(line, netMaxHeaderLen)})
		}
	}
	return out
}

// capText cuts s to at most n bytes, at a character boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
