package browser

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// requestTable is what a loop knows of the requests in flight in
// its session, for the waits: browser_wait's network_idle (idle) and the
// quiet wait after an action (quietMark, quietSince). The loop applies the
// Network events in the order the browser sent them; the session's calls
// read the table. Requests that never end on their own or are
// fire-and-forget (idleTypes) and data: URLs are left out.
type requestTable struct {
	mu       sync.Mutex
	inflight map[string]tableReq // by request id
	// ended holds ends seen before their start: the browser process runs
	// some requests for the page (keepalive fetches) and may report their
	// end first.
	ended   map[string]bool
	ignored map[string]bool // requests left out: their ends are not kept in ended
	// untracked counts requests started while inflight was full: until as
	// many unknown ends have come, the network is not idle.
	untracked int
	last      time.Time // the last start or end
	// quiet counts the starts of requests of the types the quiet wait
	// waits for (quietTypes); a mark is a count.
	quiet int
}

// tableReq is a request in flight.
type tableReq struct {
	url   string
	start time.Time
	// quiet is the table's quiet count at the start of a request of a type
	// the quiet wait waits for, else 0.
	quiet int
}

// idleTypes are the request types network_idle leaves out: they never end
// on their own (server-sent events) or are fire-and-forget (pings).
var idleTypes = map[string]bool{"EventSource": true, "Ping": true, "WebSocket": true}

// quietTypes are the request types an action's outcome waits for; beacons
// and pings (type Ping) are not among them: they never hold an action.
var quietTypes = map[string]bool{"XHR": true, "Fetch": true, "Script": true, "Document": true}

// maxTracked bounds the requests a table remembers.
const maxTracked = 1000

func newRequestTable() *requestTable {
	return &requestTable{inflight: make(map[string]tableReq), ended: make(map[string]bool), ignored: make(map[string]bool), last: time.Now()}
}

// apply takes one Network event.
func (r *requestTable) apply(ev *netEvent) {
	switch ev.kind {
	case evSent:
		url := ""
		if ev.Request != nil {
			url = ev.Request.URL
		}
		r.start(ev.RequestID, ev.Type, url)
	case evFinished, evFailed:
		r.end(ev.RequestID)
	}
}

// start notes a request's start: tracked, or left out (idleTypes, data:).
func (r *requestTable) start(id, typ, url string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	if quietTypes[typ] {
		r.quiet++
		n = r.quiet
	}
	if idleTypes[typ] || strings.HasPrefix(url, "data:") {
		if len(r.ignored) >= maxTracked {
			clear(r.ignored)
		}
		r.ignored[id] = true
		delete(r.ended, id)
		return
	}
	r.last = time.Now()
	if r.ended[id] {
		delete(r.ended, id)
	} else if _, ok := r.inflight[id]; ok || len(r.inflight) < maxTracked {
		r.inflight[id] = tableReq{url: url, start: time.Now(), quiet: n}
	} else {
		r.untracked++
	}
}

// end notes a request's end (finished or failed).
func (r *requestTable) end(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = time.Now()
	if _, ok := r.inflight[id]; ok {
		delete(r.inflight, id)
		return
	}
	if r.ignored[id] {
		delete(r.ignored, id)
		return
	}
	if r.untracked > 0 {
		r.untracked-- // one of those started while the map was full
		return
	}
	if len(r.ended) >= maxTracked {
		clear(r.ended) // the oldest early ends are the least likely to matter
	}
	r.ended[id] = true
}

// idle says whether no request has been in flight for quiet, and else
// what is in flight (oldest first) or how long ago the last ended.
func (r *requestTable) idle(quiet time.Duration) (bool, []tableReq, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	since := time.Since(r.last)
	if len(r.inflight) == 0 && r.untracked == 0 {
		return since >= quiet, nil, since
	}
	reqs := make([]tableReq, 0, len(r.inflight))
	for _, q := range r.inflight {
		reqs = append(reqs, q)
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].start.Before(reqs[j].start) })
	return false, reqs, since
}

// quietMark marks the table for the quiet wait: quietSince counts what
// starts after it.
func (r *requestTable) quietMark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.quiet
}

// quietSince says whether a request of a type the quiet wait waits for
// started after mark, and which of those are still in flight (id → URL).
func (r *requestTable) quietSince(mark int) (started bool, inflight map[string]string) {
	started, inflight, _ = r.quietNow(mark)
	return started, inflight
}

// quietNow is quietSince with the quiet mark now, read with it (a walk
// asked for then stands only while the mark stays: prewalked.reqs).
func (r *requestTable) quietNow(mark int) (started bool, inflight map[string]string, now int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	inflight = make(map[string]string)
	for id, q := range r.inflight {
		if q.quiet > mark {
			inflight[id] = q.url
		}
	}
	return r.quiet > mark, inflight, r.quiet
}
