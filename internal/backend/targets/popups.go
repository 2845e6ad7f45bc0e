package targets

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Guard holds the popup gate of a backend (backend.PopupGuard); the zero
// value lets every tab load. Its methods are safe for concurrent use.
type Guard struct {
	gate atomic.Pointer[backend.PopupGate]

	mu   sync.Mutex               // guards held
	held map[string]chan struct{} // targets waiting for their release → closed then
}

// Released waits (bounded by ctx) until the target with id, if it is
// held, has been released. Attach must wait for it: a command that runs in
// the page, sent while the page waits for its debugger, would wait forever
// and hold up the release behind it.
func (g *Guard) Released(ctx context.Context, id string) error {
	g.mu.Lock()
	ch := g.held[id]
	g.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// hold records the target as held until the returned function runs.
func (g *Guard) hold(id string) (release func()) {
	ch := make(chan struct{})
	g.mu.Lock()
	if g.held == nil {
		g.held = make(map[string]chan struct{})
	}
	g.held[id] = ch
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			if g.held[id] == ch {
				delete(g.held, id)
			}
			g.mu.Unlock()
			close(ch)
		})
	}
}

// Set sets the gate (nil: none).
func (g *Guard) Set(gate backend.PopupGate) {
	if gate == nil {
		g.gate.Store(nil)
		return
	}
	g.gate.Store(&gate)
}

// check is the gate's check for a tab opener opened, or nil.
func (g *Guard) check(opener string) backend.PopupCheck {
	if p := g.gate.Load(); p != nil && opener != "" {
		return (*p)(opener)
	}
	return nil
}

// heldTimeout bounds each command that releases, checks or closes a held
// tab.
const heldTimeout = 10 * time.Second

// heldRequests are the loads a held tab pauses for its check: documents,
// its own and its frames'.
var heldRequests = []map[string]any{{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}}

// HoldNewTabs turns on the browser-level auto-attach with
// waitForDebuggerOnStart on conn, so that every new page waits before it
// runs, and releases each according to g until conn ends: a tab without an
// opener, or whose opener the gate does not govern, goes on at once; a
// popup of a governed tab has its document requests paused and checked
// (Fetch) before it goes on, and is closed when its own first document is
// refused — no request with the user's cookies ever leaves, and no script
// of that page runs.
//
// Pages the browser attaches for other reasons (Target.attachToTarget,
// the pages open now) are not waiting and are left alone.
func HoldNewTabs(ctx context.Context, conn *cdp.Conn, g *Guard, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sess := conn.Browser()
	attached, cancel := sess.Subscribe("Target.attachedToTarget")
	params := map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
		"filter": []map[string]any{{"type": "page", "exclude": false}}}
	err := sess.Call(ctx, "Target.setAutoAttach", params, nil)
	if err != nil {
		// An older browser without target filters: every new target
		// waits, and those not pages are released at once below.
		delete(params, "filter")
		err = sess.Call(ctx, "Target.setAutoAttach", params, nil)
	}
	if err != nil {
		cancel()
		return err
	}
	go func() {
		defer cancel()
		for raw := range attached {
			var ev struct {
				SessionID  string `json:"sessionId"`
				TargetInfo struct {
					TargetID string `json:"targetId"`
					Type     string `json:"type"`
					OpenerID string `json:"openerId"`
				} `json:"targetInfo"`
				Waiting bool `json:"waitingForDebugger"`
			}
			if jsonv2.Unmarshal(raw, &ev) != nil || !ev.Waiting || ev.SessionID == "" {
				continue
			}
			var check backend.PopupCheck
			if ev.TargetInfo.Type == "page" {
				check = g.check(ev.TargetInfo.OpenerID)
			}
			release := g.hold(ev.TargetInfo.TargetID)
			go hold(conn, ev.SessionID, ev.TargetInfo.TargetID, check, release, log)
		}
	}()
	return nil
}

// hold releases the waiting target of the flat session id: at once when
// check is nil, else with its document loads paused for check; release
// runs once it goes on (or cannot).
func hold(conn *cdp.Conn, id, target string, check backend.PopupCheck, release func(), log *slog.Logger) {
	defer release()
	sess := conn.Session(id)
	ctx, cancel := context.WithTimeout(context.Background(), heldTimeout)
	if check == nil {
		defer cancel()
		// Once the resume is sent, any command after it is answered: the
		// tab is released then. Its reply is not awaited: it may come only
		// with the first document, or never (a new site process takes the
		// tab over). The holding session goes right after it, in order.
		_, _ = sess.Send(ctx, "Runtime.runIfWaitingForDebugger", nil)
		release()
		_ = conn.Browser().Call(ctx, "Target.detachFromTarget", map[string]any{"sessionId": id}, nil)
		return
	}
	paused, unsubscribe := sess.Subscribe("Fetch.requestPaused")
	defer unsubscribe()
	// A target waiting for its debugger answers nothing before it resumes,
	// and a tab of a new site process answers the resume only once its
	// first document is in — after its request, paused below, was
	// answered: both commands go out in order now, and their replies are
	// awaited beside the loop that answers the paused requests.
	enabled, err := sess.Send(ctx, "Fetch.enable", map[string]any{"patterns": heldRequests})
	var resumed func(any) error
	if err == nil {
		resumed, err = sess.Send(ctx, "Runtime.runIfWaitingForDebugger", nil)
	}
	release()
	if err != nil {
		cancel()
		closeHeld(conn, target, err, log)
		return
	}
	go func() {
		defer cancel()
		if err := enabled(nil); err != nil {
			// A tab that cannot be checked does not stay.
			closeHeld(conn, target, err, log)
			return
		}
		_ = resumed(nil)
	}()
	// The session stays for the tab's life: each document it loads (its
	// own, its frames') is checked, also after webpilot has adopted it.
	for raw := range paused {
		var p struct {
			RequestID string `json:"requestId"`
			FrameID   string `json:"frameId"`
			Request   struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if jsonv2.Unmarshal(raw, &p) != nil {
			continue
		}
		main := p.FrameID == target
		ctx, cancel := context.WithTimeout(context.Background(), heldTimeout)
		if err := check(p.Request.URL, main); err != nil {
			_ = sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": p.RequestID, "errorReason": "BlockedByClient"}, nil)
			if main {
				_ = conn.Browser().Call(ctx, "Target.closeTarget", map[string]any{"targetId": target}, nil)
			}
		} else {
			_ = sess.Call(ctx, "Fetch.continueRequest", map[string]any{"requestId": p.RequestID}, nil)
		}
		cancel()
	}
}

// closeHeld closes a held tab that could not be checked.
func closeHeld(conn *cdp.Conn, target string, why error, log *slog.Logger) {
	log.Warn("a new tab could not be checked; closing it", "tab", target, "err", why)
	ctx, cancel := context.WithTimeout(context.Background(), heldTimeout)
	defer cancel()
	_ = conn.Browser().Call(ctx, "Target.closeTarget", map[string]any{"targetId": target}, nil)
}
