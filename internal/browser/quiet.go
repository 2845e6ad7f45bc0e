package browser

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// After an action that loaded no new page, the page is given a moment to
// finish what the action set off: requests it started (XHR, fetch,
// scripts, frame documents), the CSS transitions and animations it started,
// and the DOM changes that follow. All bounded: a page that never goes
// quiet (a ticker, a long poll) costs at most these, and the result says
// which bound was hit.
const (
	quietStart    = 20 * time.Millisecond   // nothing started by then: done
	quietFramed   = 10 * time.Millisecond   // …or by then, once the page drew a frame after the input
	quietDOM      = 25 * time.Millisecond   // the DOM counts as settled after this long unchanged
	quietMaxDOM   = 300 * time.Millisecond  // longest wait for the DOM alone
	quietAfter    = 100 * time.Millisecond  // what the DOM gets at least once requests and animations are over
	quietMaxAnim  = 1000 * time.Millisecond // longest wait for finite animations
	quietMaxTotal = 1500 * time.Millisecond // longest wait for requests
	quietPoll     = 20 * time.Millisecond   // between checks while requests or animations run
	// quietRecheck: a DOM that looks settled (quietDOM since its last
	// change) but changed since the previous check is checked again this
	// soon: a renderer starved of CPU (a busy machine) pauses a page that
	// keeps changing for longer than quietDOM between two of its changes.
	quietRecheck = 5 * time.Millisecond
)

// quietWatch follows, for the wait after an action, the requests the tab
// starts from the action on (in the tab's request table, from a mark), its
// DOM changes and its animations.
type quietWatch struct {
	t    *Tab
	w    frameWorld
	mut0 int // the document's mutation count before the action
	// unmarked: the action's start is not marked in the page yet (mut0
	// is not read); the aim of a pointer input marks it (newQuietWatch).
	unmarked bool
	mark     int // the request table's quiet mark before the action
	// inflight are the requests in flight that the wait waits for
	// (id → URL), as last read (drain).
	inflight map[string]string
	// letGo are requests the page reported as keepalive fetches: the wait
	// does not wait for them.
	letGo map[string]bool
	// keepalive counts, by URL, the keepalive fetches the page reported
	// whose request has not been seen yet; kaSeen is how many of the
	// page's reports were taken.
	keepalive map[string]int
	kaSeen    int
	started   bool
	inputAt   time.Time // when the action's input was done
	// text: the input was text (fill, clear, type without Enter), whose
	// check after the next frame does not wait quietAfterClick.
	text bool
	// ahead, when set, is closed once the first check, read ahead of the
	// wait (readAhead), is in aheadSt and aheadErr.
	ahead    chan struct{}
	drawn    chan bool
	aheadSt  quietState
	aheadErr error
	// aheadWalked: the check read ahead kept a walk (took).
	aheadWalked bool
	// walk: a snapshot follows the action, so the page is walked while
	// only its DOM changes are left to settle (at most maxPrewalks times);
	// walked is the last such walk, and last the mutation count the last
	// check read; lastWalked says that check kept walked.
	walk       bool
	walks      int
	walked     *prewalked
	last       int
	lastWalked bool
	// drained is the request table's quiet mark when drain last read the
	// requests in flight: a walk decided on then is asked for at it.
	drained int
}

// maxPrewalks bounds the walks taken during one wait: a page that keeps
// changing after each is walked for the snapshot afterwards.
const maxPrewalks = 2

// prewalkFresh is how long a walk taken during an action's wait may stand
// for the snapshot after it.
const prewalkFresh = 2 * time.Second

// prewalkBudget bounds a walk taken during an action's wait: a document
// whose walk does not fit is not walked that way again (pageView.noPrewalk).
const prewalkBudget = 150 * time.Millisecond

// prewalked is a walk of a frame's document taken during an action's wait
// (W.prewalk), with the document's mutation count then: the snapshot
// after the action uses it when the document has not changed since
// (W.walkUnless).
type prewalked struct {
	frameID   string
	mutations int
	res       walkResult // as the walker returned it: not expanded or masked
	at        time.Time
	// reqs is the request table's quiet mark when the walk was asked for:
	// a request started since may have changed what no mutation reports
	// (a field's value), so the walk does not stand for the page then.
	reqs int
	// stale, for a read ahead, says a call came between it and the
	// snapshot (one that emulates a media type, say): nil for an
	// action's walk, taken in the snapshot's own call.
	stale func() bool
	// final: the walk came with the check that ended the action's wait,
	// in the same task of the page: it is the page as the wait left it,
	// and the snapshot of the same call takes it without asking the page
	// again (the call's end clears it: tabSet.callEnded).
	final bool
}

// ReadAhead walks tab t's page once this call has ended, in the
// background, for the snapshot that is likely to come next (a navigation
// that returned none): the walker then runs warm in the new document (a
// document's first walk costs 2–5 ms in the page against 0.5–1 ms later),
// and a snapshot asked for within prewalkFresh of a page that has not
// changed since (W.walkUnless: mutations, requests, focus, scroll,
// viewport, control values) takes the walk as it is. It gives way to any
// call that comes first, and waits for the session at most readAheadWait.
// The channel is closed when it is over (walked or given way). Call it
// from the call that holds the session, for the tab t it worked in.
func (s *Session) ReadAhead(t *Tab) <-chan struct{} {
	done := make(chan struct{})
	if t == nil {
		close(done)
		return done
	}
	seq, n := s.calls.Load(), s.aheads.Add(1)
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), readAheadWait)
		defer cancel()
		_ = s.hold(ctx, false, func() error {
			// (only the last one asked for: a flow's navigations ask in one call)
			if s.removed || s.calls.Load() != seq || s.aheads.Load() != n || s.tabs.current != t || !t.alive() || t.dialogs.err() != nil {
				return nil
			}
			wctx, cancel := context.WithTimeout(ctx, readAheadWalk)
			defer cancel()
			t.view.readAhead(wctx, func() bool { return s.calls.Load() != seq+1 })
			return nil
		})
	}()
	return done
}

// readAheadWait bounds a read ahead's wait for the session, readAheadWalk
// its call in the page (a page that does not answer, a long task, holds
// the next call no longer), and readAheadBudget the walker's own time: a
// first walk of a 5,000-element page takes 70-100 ms, and a walk cut at
// its budget is not kept.
const (
	readAheadWait   = time.Second
	readAheadWalk   = 400 * time.Millisecond
	readAheadBudget = 250 * time.Millisecond
)

// readAhead walks the main document (W.prewalk, a first look within
// readAheadBudget) and keeps the walk for the next snapshot (prewalk), which
// takes it only while stale says no (another call came between).
func (v *pageView) readAhead(ctx context.Context, stale func() bool) {
	t := v.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	reqs := t.page.reqs.quietMark()
	var out prewalkOut
	call := fmt.Sprintf("W.prewalk(%s, %q)", walkOpts(readAheadBudget, true), v.noPrewalk)
	if _, err := w.eval(ctx, call, &out); err != nil || out.W == nil || out.W.Stopped > 0 || out.W.Error != "" || out.W.Doc == "" {
		return
	}
	v.prewalk = &prewalked{frameID: mainID, mutations: out.M, res: *out.W, reqs: reqs, at: time.Now(), stale: stale}
}

// prewalk walks the page (W.prewalk) and returns the quiet state read
// right after the walk, which stands for the wait's next check.
func (q *quietWatch) prewalk(ctx context.Context) (st quietState, walked, ok bool) {
	var out prewalkOut
	call := fmt.Sprintf("W.prewalk(%s, %q)", walkOpts(q.prewalkBudget(ctx), true), q.t.view.noPrewalk)
	reqs := q.drained // (when the requests were last seen over)
	if _, err := q.w.eval(ctx, call, &out); err != nil {
		return quietState{}, false, false
	}
	walked = q.took(out, reqs)
	return quietFrom(out.Q), walked, true
}

// prewalkOut is what W.prewalk gives (and W.quietAfterFrame with a walk):
// the quiet state after the walk, the walk (nil: none taken) and the
// document's mutation count it saw. No says no walk was tried (an
// animation the action started still ran).
type prewalkOut struct {
	Q  []any       `json:"q"`
	W  *walkResult `json:"w"`
	M  int         `json:"m"`
	No bool        `json:"no"`
}

// prewalkBudget is the time a walk during the wait may take.
func (q *quietWatch) prewalkBudget(ctx context.Context) time.Duration {
	return min(walkBudget(ctx), prewalkBudget)
}

// took keeps the walk a prewalk gave, if any, asked for at the request
// table's quiet mark reqs, and says whether it kept one.
func (q *quietWatch) took(out prewalkOut, reqs int) bool {
	if out.No {
		return false
	}
	q.walks++
	q.walked = nil
	switch {
	case out.W == nil: // a document too big for it
		q.walks = maxPrewalks
	case out.W.Stopped > 0:
		q.t.view.noPrewalk, q.walks = out.W.Doc, maxPrewalks
	case out.W.Error == "" && out.W.Doc != "":
		q.walked = &prewalked{frameID: q.w.frameID, mutations: out.M, res: *out.W, reqs: reqs}
	}
	return q.walked != nil
}

// walkedAfter is the walk taken during the wait when the document has not
// changed since, as the wait's last check read it.
func (q *quietWatch) walkedAfter() *prewalked {
	if q.walked == nil || q.walked.mutations != q.last || q.t.page.reqs.quietMark() != q.walked.reqs {
		return nil
	}
	q.walked.at = time.Now()
	q.walked.final = q.lastWalked
	return q.walked
}

// readAhead runs the wait's first check (the one after the page's next
// frame) now, beside what the action still does (the navigation window, a
// fill's read-back); the returned channel yields whether the page drew
// that frame. The wait takes the check's result instead of reading again,
// and join waits for it. With walk set, the check walks the page too when
// a snapshot follows the action (a walk of a document that a navigation
// the input started then replaces is thrown away). A second call returns
// the first one's channel.
func (q *quietWatch) readAhead(ctx context.Context, walk bool) <-chan bool {
	if q.mut0 < 0 {
		return nil
	}
	if q.ahead != nil {
		return q.drawn
	}
	q.drawn = make(chan bool, 1)
	q.ahead = make(chan struct{})
	reqs := 0
	if walk && q.walk && q.walks < maxPrewalks {
		// (a request in flight may still change the page in ways no
		// mutation reports: the walk waits until it is over)
		_, inflight, now := q.t.page.reqs.quietNow(q.mark)
		walk, reqs = len(inflight) == 0, now
	} else {
		walk = false
	}
	go func() {
		defer close(q.ahead)
		cctx, cancel := checkContext(ctx)
		defer cancel()
		if walk {
			q.aheadSt, q.aheadErr = q.readWalking(cctx, reqs)
		} else {
			q.aheadSt, q.aheadErr = q.read(cctx, false, true)
		}
		q.drawn <- q.aheadErr == nil && q.aheadSt.framed
	}()
	return q.drawn
}

// join waits for a check read ahead, if any.
func (q *quietWatch) join() {
	if q.ahead != nil {
		<-q.ahead
	}
}

// inputDone notes that the action's input was sent: the start window runs
// from here, so the navigation window after it counts too. Only the first
// call counts (an action that notes it early, before reading back).
func (q *quietWatch) inputDone() {
	if q.inputAt.IsZero() {
		q.inputAt = time.Now()
	}
}

// quietState is what W.quiet() reports: mutations since the observer
// started, ms since the last one, then the finite animations running that
// did not run when the action began (count, ms left of the longest, and
// what it is).
type quietState struct {
	mutations int
	age       time.Duration
	anims     int
	animLeft  time.Duration
	animWhat  string
	keepalive []string // URLs of the keepalive fetches started since the mark
	// url and title are the page's at the check (loc: read).
	url, title string
	loc        bool
	// queued is the count of short timers, channel messages and requests
	// the page had queued and not run or answered (-1: unknown, a document
	// without the hook: timers.js);
	// messages, how many of them are channel messages: work under way
	// that ends (a render in slices), waited for however long it is still.
	queued, messages int
	// framed: the read waited for the page's next frame, and it was drawn;
	// settled: nothing changed the DOM since that frame and nothing was
	// queued, so what the input set off has run (W.quietAfterFrame).
	framed, settled bool
	// human is what on the page waited for a person at the check (W.human);
	// humanRead says the check read it.
	human     [][2]string
	humanRead bool
}

// read reads the page's quiet state (W.quiet), marking the action's start
// when mark is set; with frame set, once the page has drawn its next frame
// or quietStart has passed (framed says which).
func (q *quietWatch) read(ctx context.Context, mark, frame bool) (quietState, error) {
	var m []any
	call := fmt.Sprintf("W.quiet(%t, %q)", mark, probeName)
	if frame {
		call = fmt.Sprintf("W.quietAfterFrame(%q, %d, %d, null, %d)", probeName, quietStart.Milliseconds(), q.least().Milliseconds(), q.afterFrame().Milliseconds())
	}
	if _, err := q.w.eval(ctx, call, &m); err != nil {
		return quietState{}, err
	}
	return quietFrom(m), nil
}

// readWalking is read's check after the next frame with a walk of the
// page taken right after it (kept as a prewalk).
func (q *quietWatch) readWalking(ctx context.Context, reqs int) (quietState, error) {
	var out prewalkOut
	call := fmt.Sprintf("W.quietAfterFrame(%q, %d, %d, {opts: %s, skip: %q}, %d)", probeName, quietStart.Milliseconds(), q.least().Milliseconds(),
		walkOpts(q.prewalkBudget(ctx), true), q.t.view.noPrewalk, q.afterFrame().Milliseconds())
	if _, err := q.w.eval(ctx, call, &out); err != nil {
		return quietState{}, err
	}
	q.aheadWalked = q.took(out, reqs)
	return quietFrom(out.Q), nil
}

// least is how long the check after the next frame waits at the least:
// until quietFramed after the input (the wait would only check again
// then).
func (q *quietWatch) least() time.Duration {
	if q.inputAt.IsZero() {
		return quietFramed
	}
	return max(quietFramed-time.Since(q.inputAt), 0)
}

// quietAfterClick is how long the check after the next frame waits after
// that frame, at the least, for an input that is not text, unless the page
// settled by that frame: a click that navigates from a short timer set at
// the next paint (a router after its state change) is seen navigating
// however late the frame came (in a document whose timers hook answers,
// such a timer is queued, and the page has not settled). Text inputs,
// which seldom navigate so, do not wait for it.
const quietAfterClick = 8 * time.Millisecond

// afterFrame is the wait after the next frame (quietAfterClick, or none
// for text).
func (q *quietWatch) afterFrame() time.Duration {
	if q.text {
		return 0
	}
	return quietAfterClick
}

// quietFrom reads the array W.quiet returns.
func quietFrom(m []any) quietState {
	num := func(i int) float64 {
		if i < len(m) {
			if f, ok := m[i].(float64); ok {
				return f
			}
		}
		return 0
	}
	st := quietState{mutations: int(num(0)), age: msDuration(num(1)), anims: int(num(2)), animLeft: msDuration(num(3))}
	if len(m) > 4 {
		st.animWhat, _ = m[4].(string)
	}
	if len(m) > 5 {
		urls, _ := m[5].([]any)
		for _, u := range urls {
			if s, ok := u.(string); ok {
				st.keepalive = append(st.keepalive, s)
			}
		}
	}
	if len(m) > 7 {
		st.url, _ = m[6].(string)
		st.title, _ = m[7].(string)
		st.loc = true
	}
	st.queued, st.messages = -1, -1
	if len(m) > 8 {
		if f, ok := m[8].(float64); ok {
			st.queued = int(f)
		}
	}
	if len(m) > 9 {
		if f, ok := m[9].(float64); ok {
			st.messages = int(f)
		}
	}
	if len(m) > 10 {
		st.framed, _ = m[10].(bool)
	}
	if len(m) > 12 {
		if hs, ok := m[12].([]any); ok {
			st.humanRead = true
			for _, h := range hs {
				if p, ok := h.([]any); ok && len(p) == 2 {
					k, _ := p[0].(string)
					w, _ := p[1].(string)
					st.human = append(st.human, [2]string{k, w})
				}
			}
		}
	}
	if len(m) > 11 {
		st.settled, _ = m[11].(bool)
	}
	return st
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// watchQuiet starts following requests, DOM changes and animations in the
// tab's main frame; call before the action's input.
func (t *Tab) watchQuiet(ctx context.Context, main string) *quietWatch {
	q := t.newQuietWatch(main)
	q.markNow(ctx)
	return q
}

// newQuietWatch is watchQuiet with the action's start not marked in the
// page yet: the aim of a pointer input marks it in its own page call,
// right before the input (aimJS, marked), else markNow does.
func (t *Tab) newQuietWatch(main string) *quietWatch {
	t.view.prewalk, t.view.waitHuman = nil, nil
	return &quietWatch{t: t, w: frameWorld{sess: t.page, frameID: main}, mark: t.page.reqs.quietMark(), inflight: make(map[string]string), letGo: make(map[string]bool), keepalive: make(map[string]int), last: -1, unmarked: true}
}

// markNow marks the action's start in the page (W.quiet(true)), unless it
// was marked; call before the input (nil: no wait under way).
func (q *quietWatch) markNow(ctx context.Context) {
	if q == nil || !q.unmarked {
		return
	}
	st, err := q.read(ctx, true, false)
	q.marked(st, err == nil)
}

// marked takes the page's state at the action's start, as a W.quiet(true)
// read it (ok false: it could not be read, no observer: DOM changes and
// animations are not waited for).
func (q *quietWatch) marked(st quietState, ok bool) {
	q.unmarked = false
	q.mut0 = st.mutations
	if !ok {
		q.mut0 = -1
	}
}

// aimMark is the probe an aim's page call in world w marks the action's
// start with (aimJS's quiet), when the mark is still to be taken and w is
// the world the wait watches; "" otherwise.
func (q *quietWatch) aimMark(w frameWorld) string {
	if q == nil || !q.unmarked || w != q.w {
		return ""
	}
	return probeName
}

// drain reads the requests started since the mark that are still in
// flight, less the keepalive fetches the page reported.
func (q *quietWatch) drain() {
	started, inflight, now := q.t.page.reqs.quietNow(q.mark)
	q.drained = now
	q.started = q.started || started
	for id, u := range inflight {
		if q.letGo[id] {
			delete(inflight, id)
			continue
		}
		if _, seen := q.inflight[id]; !seen && q.keepalive[u] > 0 {
			q.keepalive[u]--
			q.letGo[id] = true
			delete(inflight, id)
		}
	}
	q.inflight = inflight
}

// keepaliveSeen takes the keepalive fetches the page reported: each lets go
// of a pending request to its URL, or of the next one to be seen.
func (q *quietWatch) keepaliveSeen(urls []string) {
	for _, u := range urls[min(q.kaSeen, len(urls)):] {
		found := false
		for id, have := range q.inflight {
			if have == u {
				delete(q.inflight, id)
				q.letGo[id] = true
				found = true
				break
			}
		}
		if !found {
			q.keepalive[u]++
		}
	}
	q.kaSeen = max(q.kaSeen, len(urls))
}

// quietResult is how the wait after an action ended.
type quietResult struct {
	active bool   // the action set something off
	busy   string // the bound that was hit, with what was still going on ("" none)
	// url and title are the page's at the last check, when it read them
	// (loc).
	url, title string
	loc        bool
	// human is what waited for a person at the last check (humanRead: the
	// check read it).
	human     [][2]string
	humanRead bool
}

// wait returns once the requests the action started have ended, the
// animations it started have finished and the DOM has been still for
// quietDOM, or when the bounds pass: then busy says what was still going
// on.
func (q *quietWatch) wait(ctx context.Context) quietResult {
	start := q.inputAt
	if start.IsZero() {
		start = time.Now()
	}
	over := start // when requests and animations were last seen over
	// The start window ends early once the page has drawn a frame after
	// the input (what the input set off for its next paint has run: the
	// first check waits for it), but not before quietFramed: timers of a
	// few ms are still seen. A page that settled by that frame (nothing
	// queued, nothing changed since) ends it at once: such timers would be
	// queued.
	window := quietStart
	first := true
	var pre *quietState // the state a walk read, taken as the next check
	preWalked := false  // …and whether that walk was kept
	prevMut := q.mut0   // the mutation count at the previous check
	for {
		domQuiet := true
		mutated := false
		var st quietState
		if q.mut0 >= 0 {
			var err error
			if first && q.ahead != nil {
				<-q.ahead
				st, err, q.lastWalked = q.aheadSt, q.aheadErr, q.aheadWalked
			} else if pre != nil {
				st, pre, q.lastWalked = *pre, nil, preWalked
			} else {
				cctx, cancel := checkContext(ctx)
				st, err = q.read(cctx, false, first)
				q.lastWalked = false
				cancel()
			}
			if err != nil {
				return quietResult{active: true} // the document went away (a navigation): nothing to wait for here
			}
			if first && st.framed {
				window = quietFramed
				if st.settled {
					window = 0
				}
			}
			q.keepaliveSeen(st.keepalive)
			q.last = st.mutations
			mutated = st.mutations != q.mut0
			// Settled: nothing queued and nothing changed since the frame
			// after the input (the page said so), or still for quietDOM
			// (twice that while the page has work queued: the next frame's
			// callbacks, an animation's steps) and unchanged since the
			// previous check — but not while a channel message is in
			// flight: a render in slices is under way, however long a
			// loaded machine makes it (bounded by quietMaxDOM).
			still := quietDOM
			if st.queued > 0 {
				still = 2 * quietDOM
			}
			domQuiet = st.messages <= 0 && (!mutated || st.settled || st.age >= still && st.mutations == prevMut)
			prevMut = st.mutations
		}
		first = false
		q.drain()
		elapsed := time.Since(start)
		netQuiet := len(q.inflight) == 0
		animQuiet := st.anims == 0
		active := q.started || mutated || !animQuiet || st.messages > 0
		seen := quietResult{active: active, url: st.url, title: st.title, loc: st.loc, human: st.human, humanRead: st.humanRead}
		switch {
		case !active && elapsed >= window:
			return seen // the action set nothing off
		case netQuiet && domQuiet && animQuiet && elapsed >= window:
			return seen
		case elapsed >= quietMaxTotal,
			netQuiet && !animQuiet && elapsed >= quietMaxAnim,
			netQuiet && animQuiet && elapsed >= quietMaxDOM && time.Since(over) >= quietAfter:
			seen.busy = q.busyNote(elapsed, st, netQuiet, animQuiet, domQuiet)
			return seen
		}
		if !netQuiet || !animQuiet {
			over = time.Now()
		}
		// Only the DOM's changes are left to settle: the snapshot that
		// follows is walked now, while they do, instead of after.
		if q.walk && netQuiet && animQuiet && !domQuiet && q.walks < maxPrewalks && (q.walked == nil || q.walked.mutations != st.mutations) {
			if wst, walked, ok := q.prewalk(ctx); ok {
				pre, preWalked = &wst, walked
				continue
			}
		}
		// Check again when the DOM would have been still long enough, or
		// the start window is over, whichever comes first.
		next := quietPoll
		if mutated && st.age < quietDOM {
			next = min(next, quietDOM-st.age)
		} else if !domQuiet {
			next = min(next, quietRecheck)
		}
		if elapsed < window {
			next = min(next, window-elapsed)
		}
		select {
		case <-ctx.Done():
			return seen
		case <-time.After(max(next, 2*time.Millisecond)):
		}
	}
}

// locationAfter is the page's URL and title after the quiet wait that
// ended with qr: as its last check read them, or read now.
func (t *Tab) locationAfter(ctx context.Context, qr quietResult) (url, title string, err error) {
	if qr.loc {
		return qr.url, qr.title, nil
	}
	// As settle read it: past the action's own deadline, within the call's.
	lctx, cancel := beyondContext(ctx, handleTimeout)
	defer cancel()
	return t.location(lctx)
}

// busyNote says which bound the wait hit and what was still going on.
func (q *quietWatch) busyNote(elapsed time.Duration, st quietState, netQuiet, animQuiet, domQuiet bool) string {
	var what []string
	if !netQuiet {
		urls := make([]string, 0, 3)
		for _, u := range q.inflight {
			if len(urls) == 3 {
				urls = append(urls, "…")
				break
			}
			urls = append(urls, shorten(u, 100))
		}
		what = append(what, fmt.Sprintf("%d %s pending (%s)", len(q.inflight), plural(len(q.inflight), "request", "requests"), strings.Join(urls, ", ")))
	}
	if !animQuiet {
		a := fmt.Sprintf("%d %s running", st.anims, plural(st.anims, "animation", "animations"))
		if st.animWhat != "" {
			a += fmt.Sprintf(" (%s, %.1f s left)", st.animWhat, st.animLeft.Seconds())
		}
		what = append(what, a)
	}
	switch {
	case !domQuiet && st.messages > 0 && st.age >= quietDOM:
		what = append(what, fmt.Sprintf("the page kept working (%d channel %s in flight)", st.messages, plural(st.messages, "message", "messages")))
	case !domQuiet:
		what = append(what, "the page kept changing")
	}
	if len(what) == 0 {
		what = append(what, "the page kept changing")
	}
	return fmt.Sprintf("still busy after %.1f s: %s; the result shows the page as it was then", elapsed.Seconds(), strings.Join(what, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
