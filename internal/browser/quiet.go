package browser

import (
	"context"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// After an action that loaded no new page, the page is given a moment to
// finish what the action set off: requests it started (XHR, fetch,
// scripts, frame documents) and the DOM changes that follow. All bounded:
// a page that never goes quiet (a ticker, a long poll) costs at most these.
var (
	quietStart    = 20 * time.Millisecond   // nothing started by then: done
	quietDOM      = 25 * time.Millisecond   // the DOM counts as settled after this long unchanged
	quietMaxDOM   = 300 * time.Millisecond  // longest wait for the DOM alone
	quietMaxTotal = 1500 * time.Millisecond // longest wait for requests
	quietPoll     = 20 * time.Millisecond   // between checks while requests run
)

// quietWatch follows the requests a tab starts from its creation on.
type quietWatch struct {
	t        *Tab
	w        frameWorld
	mut0     int // the document's mutation count before the action
	sent     <-chan jsonv2.Value
	finished <-chan jsonv2.Value
	failed   <-chan jsonv2.Value
	cancels  []func()
	inflight map[string]bool
	started  bool
	inputAt  time.Time // when the action's input was done
}

// inputDone notes that the action's input was sent: the start window runs
// from here, so the navigation window after it counts too.
func (q *quietWatch) inputDone() { q.inputAt = time.Now() }

// watchQuiet starts following requests and DOM changes in the tab's main
// frame; call before the action's input.
func (t *Tab) watchQuiet(ctx context.Context, main string) *quietWatch {
	q := &quietWatch{t: t, w: frameWorld{sess: t.t, frameID: main}, inflight: make(map[string]bool)}
	sub := func(method string) <-chan jsonv2.Value {
		ch, cancel := t.t.Subscribe(method)
		q.cancels = append(q.cancels, cancel)
		return ch
	}
	q.sent, q.finished, q.failed = sub("Network.requestWillBeSent"), sub("Network.loadingFinished"), sub("Network.loadingFailed")
	var m [2]float64
	if _, err := q.w.eval(ctx, "W.quiet()", &m); err == nil {
		q.mut0 = int(m[0])
	} else {
		q.mut0 = -1 // no observer: DOM changes are not waited for
	}
	return q
}

func (q *quietWatch) stop() {
	for _, c := range q.cancels {
		c()
	}
}

// quietTypes are the request types an action's outcome waits for.
var quietTypes = map[string]bool{"XHR": true, "Fetch": true, "Script": true, "Document": true}

// drain takes the queued request events.
func (q *quietWatch) drain() {
	for {
		select {
		case raw := <-q.sent:
			var e struct {
				RequestID string `json:"requestId"`
				Type      string `json:"type"`
			}
			if jsonv2.Unmarshal(raw, &e) == nil && quietTypes[e.Type] {
				q.inflight[e.RequestID] = true
				q.started = true
			}
		case raw := <-q.finished:
			q.done(raw)
		case raw := <-q.failed:
			q.done(raw)
		default:
			return
		}
	}
}

func (q *quietWatch) done(raw jsonv2.Value) {
	var e struct {
		RequestID string `json:"requestId"`
	}
	if jsonv2.Unmarshal(raw, &e) == nil {
		delete(q.inflight, e.RequestID)
	}
}

// wait returns once the requests the action started have ended and the DOM
// has been still for quietDOM, or when the bounds pass. It says whether
// the action set anything off.
func (q *quietWatch) wait(ctx context.Context) (active bool) {
	start := q.inputAt
	if start.IsZero() {
		start = time.Now()
	}
	for {
		q.drain()
		elapsed := time.Since(start)
		domQuiet := true
		mutated := false
		var age time.Duration
		if q.mut0 >= 0 {
			var m [2]float64
			cctx, cancel := checkContext(ctx)
			_, err := q.w.eval(cctx, "W.quiet()", &m)
			cancel()
			if err != nil {
				return true // the document went away (a navigation): nothing to wait for here
			}
			mutated = int(m[0]) != q.mut0
			age = time.Duration(m[1] * float64(time.Millisecond))
			domQuiet = !mutated || age >= quietDOM
		}
		netQuiet := len(q.inflight) == 0
		active = q.started || mutated
		switch {
		case !active && elapsed >= quietStart:
			return false // the action set nothing off
		case netQuiet && domQuiet && elapsed >= quietStart:
			return active
		case elapsed >= quietMaxTotal:
			return active
		case netQuiet && elapsed >= quietMaxDOM:
			return active // the DOM keeps changing on its own
		}
		// Check again when the DOM would have been still long enough, or
		// the start window is over, whichever comes first.
		next := quietPoll
		if mutated && age < quietDOM {
			next = min(next, quietDOM-age)
		}
		if elapsed < quietStart {
			next = min(next, quietStart-elapsed)
		}
		select {
		case <-ctx.Done():
			return active
		case <-time.After(max(next, 2*time.Millisecond)):
		}
	}
}
