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
// restarted arrives on the next connection. Tab ids are per browser, so a
// tab is known by its browser profile's id too.
type handoffs struct {
	mu      sync.Mutex // guards waiting
	waiting map[handoffKey]chan struct{}
}

// handoffKey is a tab of a browser profile.
type handoffKey struct {
	profile string
	tab     int
}

func (h *handoffs) add(tab handoffKey) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiting == nil {
		h.waiting = map[handoffKey]chan struct{}{}
	}
	if ch, ok := h.waiting[tab]; ok {
		return ch // one hand-off per tab: a second start waits with the first
	}
	ch := make(chan struct{})
	h.waiting[tab] = ch
	return ch
}

// done closes the tab's channel; false when nothing waited on it.
func (h *handoffs) done(tab handoffKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.waiting[tab]
	if ok {
		close(ch)
		delete(h.waiting, tab)
	}
	return ok
}

func (h *handoffs) remove(tab handoffKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.waiting, tab)
}

// removeTab forgets tab n of every profile (when the profile it is of is
// not connected to say which).
func (h *handoffs) removeTab(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k := range h.waiting {
		if k.tab == n {
			delete(h.waiting, k)
		}
	}
}

// StartHandoff implements backend.Handoff: the extension brings the tab to
// the front (its window focused), shows the message (badge, notification,
// popup) and sends handoff.done when the user presses Done.
func (b *Backend) StartHandoff(ctx context.Context, id, message string) (<-chan struct{}, error) {
	return b.startNotice(ctx, id, message, "")
}

// StartRecordingNotice implements backend.RecordingNotice: the same notice
// as a hand-off's, marked as a recording (a red REC badge, "Recording" and
// a Stop button); Stop sends handoff.done too.
func (b *Backend) StartRecordingNotice(ctx context.Context, id, message string) (<-chan struct{}, error) {
	return b.startNotice(ctx, id, message, "record")
}

// EndRecordingNotice implements backend.RecordingNotice.
func (b *Backend) EndRecordingNotice(ctx context.Context, id string) error {
	return b.EndHandoff(ctx, id)
}

// startNotice asks the extension for a hand-off's notice, of kind ""
// (a hand-off, Done) or "record" (a recording, Stop).
func (b *Backend) startNotice(ctx context.Context, id, message, kind string) (<-chan struct{}, error) {
	n, err := tabID(id)
	if err != nil {
		return nil, err
	}
	r, _, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	key := handoffKey{r.hello.ProfileID, n}
	done := b.handoffs.add(key)
	params := map[string]any{"tabId": n, "message": message}
	if kind != "" {
		params["kind"] = kind
	}
	if name := b.sc().Session; name != "" && len(name) <= 100 {
		params["session"] = name
	}
	if err := r.Request(ctx, "handoff.start", params, nil); err != nil {
		b.handoffs.remove(key)
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
	r, err := b.srv.Current(b.sc().Profile) // ending never waits for a connection
	if err != nil {
		// Not connected: the extension's entry stays in its popup until
		// the user presses Done or closes the tab; nothing waits for it.
		b.handoffs.removeTab(n)
		return nil
	}
	b.handoffs.remove(handoffKey{r.hello.ProfileID, n})
	return opErr(r.Request(ctx, "handoff.end", map[string]any{"tabId": n}, nil), id)
}

// handoffDone is the event handoff.done of the browser profile with that
// id: the user pressed Done.
func (b *Backend) handoffDone(profile string, params json.RawMessage) {
	var e struct {
		TabID int `json:"tabId"`
	}
	if json.Unmarshal(params, &e) != nil {
		return
	}
	if !b.handoffs.done(handoffKey{profile, e.TabID}) {
		b.log.Debug("bridge: handoff.done for a tab nothing waits on", "tab", e.TabID)
	}
}

var (
	_ backend.Handoff         = (*Backend)(nil)
	_ backend.RecordingNotice = (*Backend)(nil)
)
