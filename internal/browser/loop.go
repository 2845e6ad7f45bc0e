package browser

import (
	"context"
	"runtime/pprof"
	"slices"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// loop is one CDP session of a tab, its page's or one of its
// out-of-process frames', with the one goroutine that reads its events
// (run) and the state those events keep: the walker's worlds, the requests
// in flight, and (the page's) the documents' statuses, the frames attached
// and the tab's features, which take the events
// they asked for (feature). The loop answers what the browser asks of the
// tab while nobody else is listening (JavaScript dialogs under an accept or
// dismiss policy, document requests paused for the origin policy); calls
// to the browser and other slow work go to workers (spawn), which the loop
// joins when it ends.
//
// Everything the loop writes is read by the session's calls under a mutex
// (worldCache.mu, requestTable.mu, noteBox.mu, netLog.mu, each feature's own);
// only the loop writes it, except where a call repairs what it found stale
// (a world that failed, dropped from the cache).
type loop struct {
	cdp.Caller
	tab *Tab
	// page: the tab's own session; else an out-of-process frame's.
	page   bool
	worlds *worldCache
	reqs   *requestTable
	// docs are the HTTP statuses of the latest documents the page loaded
	// (the page's loop only).
	docs docLog
	// kids are the tab's out-of-process iframes, attached automatically
	// (on the page's loop, whichever loop attached them).
	kids children
	// mainID is the main frame's id as a call last read it (mainFrameID;
	// the page's loop only). Only the session's calls, while it is held,
	// write it.
	mainID string
	// shown is the main frame's URL as the page's events last told it
	// (the page's loop only), for the person's approvals.
	shown shownURL
	// ctx ends when the loop ends (the session ended, or stop); workers
	// make their calls with it.
	ctx  context.Context
	stop context.CancelFunc
	// workers are the running workers (spawn); once closed (the loop is
	// ending) no worker starts. spawnMu guards closed and the workers'
	// start.
	workers sync.WaitGroup
	spawnMu sync.Mutex
	closed  bool
	// features are the page's features by the event methods they follow
	// (none for a frame's loop).
	features map[string][]feature
	// ended is closed once the loop has returned and its workers (and, for
	// the page, its frames' loops) have ended.
	ended chan struct{}
}

// tabLabel is the pprof label a tab's loops and workers carry: the tab's
// target id.
const tabLabel = "webpilot.tab"

// The events a loop follows.
const (
	evContextCreated   = "Runtime.executionContextCreated"
	evContextDestroyed = "Runtime.executionContextDestroyed"
	evContextsCleared  = "Runtime.executionContextsCleared"
	evAttached         = "Target.attachedToTarget"
	evFrameNavigated   = "Page.frameNavigated"
	evWindowOpen       = "Page.windowOpen"
)

// A feature is a part of a tab that keeps what some of its page's events
// tell (the console, dialogs, downloads, the crash, the screencast, the
// recorder): the page's loop follows the events it names from the start
// and hands each to apply, in the order the browser sent them, beside the
// core's own. apply runs on the loop: it must not wait, and what is slow
// goes to a worker (loop.spawn). A feature owns its state and its
// mutex.
type feature interface {
	events() []string
	apply(g *loop, ev cdp.Event)
}

// A loopEnder is a feature told when its page's loop ends (the tab closed
// or its session ended), before the loop's workers are joined: it may
// still spawn one.
type loopEnder interface {
	loopEnded(g *loop)
}

// newLoop wraps sess, a session of tab t (page: its own), and starts its
// loop. The loop follows the session's events from here on, so call it
// before enabling the domains whose events it keeps.
func newLoop(t *Tab, sess cdp.Caller, page bool) *loop {
	g := &loop{Caller: sess, tab: t, page: page, worlds: newWorldCache(), reqs: newRequestTable(), ended: make(chan struct{})}
	g.ctx, g.stop = context.WithCancel(context.Background())
	methods := []string{evContextCreated, evContextDestroyed, evContextsCleared, evAttached}
	methods = append(methods, netMethods[:]...)
	if page {
		methods = append(methods, evWindowOpen)
	}
	methods = append(methods, t.pauses.follows()...)
	if page {
		methods = append(methods, evFrameNavigated)
	}
	if page {
		g.features = map[string][]feature{}
		for _, f := range t.features() {
			for _, m := range f.events() {
				if !slices.Contains(methods, m) {
					methods = append(methods, m)
				}
				g.features[m] = append(g.features[m], f)
			}
		}
	}
	events, cancel := sess.Events(methods...)
	go g.run(events, cancel)
	return g
}

// run is the loop: it applies the session's events in the order the
// browser sent them until the session ends or stop is called.
func (g *loop) run(events <-chan cdp.Event, cancel func()) {
	// The label names the tab in goroutine profiles; workers carry it too.
	pprof.SetGoroutineLabels(g.labels())
	defer func() {
		cancel()
		g.stop()
		if g.page {
			for _, f := range g.tab.features() {
				if e, ok := f.(loopEnder); ok {
					e.loopEnded(g)
				}
			}
		}
		g.spawnMu.Lock()
		g.closed = true
		g.spawnMu.Unlock()
		g.workers.Wait()
		if g.page {
			// Frames attached from now on are stopped as they come; those
			// attached before are stopped here, until none is left.
			for ks := g.kids.close(); len(ks) > 0; ks = g.kids.close() {
				for _, k := range ks {
					k.stop()
					<-k.ended
				}
			}
		}
		close(g.ended)
	}()
	// The subscription closes when the session ends, after the events
	// that came before its end.
	for {
		select {
		case <-g.ctx.Done():
			return
		case ev, ok := <-events:
			if !ok || g.ctx.Err() != nil {
				return
			}
			g.apply(ev)
		}
	}
}

// apply takes one event: the features that follow it, then the core.
func (g *loop) apply(ev cdp.Event) {
	t := g.tab
	for _, f := range g.features[ev.Method] {
		f.apply(g, ev)
	}
	switch ev.Method {
	case evContextCreated:
		g.worlds.onCreated(ev.Params)
	case evContextDestroyed:
		g.worlds.onDestroyed(ev.Params)
	case evContextsCleared:
		g.worlds.onCleared()
	case evAttached:
		g.attached(ev.Params)
	case evPaused, evAuthRequired:
		t.pauses.apply(g, ev)
	case evFrameNavigated:
		g.shown.committed(ev.Params)
		if t.link.origin != nil {
			g.committed(ev.Params)
		}
	case evWindowOpen:
		var p struct {
			URL string `json:"url"`
		}
		_ = jsonv2.Unmarshal(ev.Params, &p)
		t.link.asked.add(p.URL)
		t.link.windowOpens.Add(1)
	default:
		if kind, ok := netKinds[ev.Method]; ok {
			var ne netEvent
			if jsonv2.Unmarshal(ev.Params, &ne) != nil || ne.RequestID == "" {
				return
			}
			ne.kind = kind
			if g.page {
				g.reqs.apply(&ne)
				if kind == evResponse && ne.Type == "Document" && ne.Response != nil {
					g.docs.note(ne.LoaderID, ne.Response.Status)
				}
			}
			if l := t.link.net; l != nil {
				l.apply(t, g, &ne)
			}
		}
	}
}

// spawn runs fn on a worker, with the loop's context, labelled with the
// tab (tabLabel). The loop calls it, and so may anything of the tab's
// while the loop runs: once the loop is ending, fn is not run and spawn
// reports false.
func (g *loop) spawn(fn func(ctx context.Context)) bool {
	g.spawnMu.Lock()
	defer g.spawnMu.Unlock()
	if g.closed {
		return false
	}
	g.workers.Add(1)
	go func() {
		defer g.workers.Done()
		pprof.SetGoroutineLabels(g.labels())
		fn(g.ctx)
	}()
	return true
}

// labels is a context carrying the tab's pprof label.
func (g *loop) labels() context.Context {
	return pprof.WithLabels(context.Background(), pprof.Labels(tabLabel, g.tab.target))
}

// attached takes an out-of-process iframe attached under this session: it
// gets a target (and loop) of its own at once, so that none of its events
// is missed, and a worker sets it up.
func (g *loop) attached(raw jsonv2.Value) {
	var ev struct {
		SessionID  string `json:"sessionId"`
		TargetInfo struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfo"`
	}
	op, ok := g.Caller.(childOpener)
	if !ok || jsonv2.Unmarshal(raw, &ev) != nil || ev.TargetInfo.Type != "iframe" {
		return
	}
	t := g.tab
	child := newLoop(t, op.Child(ev.SessionID), false)
	t.page.kids.add(ev.TargetInfo.TargetID, child)
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		child.setUp(ctx)
	})
}

// setUp enables in a frame's session what the tab relies on: the origin
// policy's pause of document requests, the network log, the click hook,
// and the attaching of its own out-of-process frames; then lets the frame
// run.
func (g *loop) setUp(ctx context.Context) {
	t := g.tab
	if err := t.pauses.enable(ctx, g.Call); err != nil {
		t.log.Warn("origin policy or HTTP auth in a frame", "err", err)
	}
	if t.link.net != nil {
		// The frame's own requests (its document's came through the
		// parent) go to the session's network log too.
		if err := g.Call(ctx, "Network.enable", nil, nil); err != nil {
			t.log.Debug("network in a frame", "err", err)
		}
	}
	if err := installClickHook(ctx, g); err != nil {
		t.log.Debug("click hook in a frame", "err", err)
	}
	if err := g.autoAttach(ctx); err != nil {
		t.log.Debug("auto-attach in a frame", "err", err)
	}
	// The frame was paused for us only if waitForDebuggerOnStart was set;
	// resuming is harmless otherwise.
	_ = g.Call(ctx, "Runtime.runIfWaitingForDebugger", nil, nil)
}

// autoAttach makes the browser attach the session's out-of-process iframes
// (the loop takes them: attached).
func (g *loop) autoAttach(ctx context.Context) error {
	if _, ok := g.Caller.(childOpener); !ok {
		return nil // a fake session: no frames
	}
	return g.Call(ctx, "Target.setAutoAttach", map[string]any{
		"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true,
		"filter": []map[string]any{{"type": "iframe", "exclude": false}},
	}, nil)
}

// childOpener is a session that can name the sessions of targets attached
// through it.
type childOpener interface {
	Child(sessionID string) *cdp.Session
}

// children tracks the out-of-process iframes attached to a tab (auto-attach):
// their targets by frame (= target) id.
type children struct {
	mu   sync.Mutex
	byID map[string]*loop
	// closed: the page's loop ended; a frame attached now is stopped at
	// once. joined are the targets close handed out already.
	closed bool
	joined map[*loop]bool
}

func (c *children) add(frameID string, g *loop) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = make(map[string]*loop)
	}
	c.byID[frameID] = g
	if c.closed {
		g.stop()
	}
}

// close marks the tab's frames closed and returns those not handed out
// before (the page loop stops and joins them).
func (c *children) close() []*loop {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.joined == nil {
		c.joined = make(map[*loop]bool)
	}
	var out []*loop
	for _, g := range c.byID {
		if !c.joined[g] {
			c.joined[g] = true
			out = append(out, g)
		}
	}
	return out
}

// get is the frame's target while its session lasts, or nil.
func (c *children) get(frameID string) *loop {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.byID[frameID]
	if g != nil {
		select {
		case <-g.Done():
			delete(c.byID, frameID)
			return nil
		default:
		}
	}
	return g
}

// list is the frames' targets now.
func (c *children) list() []*loop {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*loop, 0, len(c.byID))
	for _, g := range c.byID {
		out = append(out, g)
	}
	return out
}

func (c *children) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}
