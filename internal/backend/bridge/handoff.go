package bridge

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// handoffs are the tabs the user has been asked to take over, each with
// the channel closed when the user presses Done (the event handoff.done).
// They outlive a connection: a Done pressed after the service worker
// restarted arrives on the next connection.
type handoffs struct {
	mu      sync.Mutex // guards waiting
	waiting map[int]chan struct{}
}

func (h *handoffs) add(tab int) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting == nil {
		h.waiting = map[int]chan struct{}{}
	}
	if ch, ok := h.waiting[tab]; ok {
		return ch // one hand-off per tab: a second start waits with the first
	}
	ch := make(chan struct{})
	h.waiting[tab] = ch
	return ch
}

// done closes the tab's channel; false when nothing waited on it.
func (h *handoffs) done(tab int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.waiting[tab]
	if ok {
		close(ch)
		delete(h.waiting, tab)
	}
	return ok
}

func (h *handoffs) remove(tab int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.waiting, tab)
}

// StartHandoff implements backend.Handoff: the extension brings the tab to
// the front (its window focused), shows the message (badge, notification,
// popup) and sends handoff.done when the user presses Done.
func (b *Backend) StartHandoff(ctx context.Context, id, message string) (<-chan struct{}, error) {
	n, err := tabID(id)
	if err != nil {
		return nil, err
	}
	r, _, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	done := b.handoffs.add(n)
	params := map[string]any{"tabId": n, "message": message}
	if name := backend.SessionOf(ctx); name != "" && len(name) <= 100 {
		params["session"] = name
	}
	if err := r.Request(ctx, "handoff.start", params, nil); err != nil {
		b.handoffs.remove(n)
		return nil, opErr(err, id)
	}
	return done, nil
}

// EndHandoff implements backend.Handoff.
func (b *Backend) EndHandoff(ctx context.Context, id string) error {
	n, err := tabID(id)
	if err != nil {
		return err
	}
	b.handoffs.remove(n)
	r := b.srv.Current() // ending never waits for a connection
	if r == nil {
		// Not connected: the extension's entry stays in its popup until
		// the user presses Done or closes the tab; nothing waits for it.
		return nil
	}
	return opErr(r.Request(ctx, "handoff.end", map[string]any{"tabId": n}, nil), id)
}

// handoffDone is the event handoff.done: the user pressed Done.
func (b *Backend) handoffDone(params json.RawMessage) {
	var e struct {
		TabID int `json:"tabId"`
	}
	if json.Unmarshal(params, &e) != nil {
		return
	}
	if !b.handoffs.done(e.TabID) {
		b.log.Debug("bridge: handoff.done for a tab nothing waits on", "tab", e.TabID)
	}
}

var _ backend.Handoff = (*Backend)(nil)
