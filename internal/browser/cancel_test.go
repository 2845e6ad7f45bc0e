package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A cancelled call stops its page work: the browser gives up the
// navigation's request, and the next call finds the page as it was.
func TestCancelStopsNavigation(t *testing.T) {
	slow := backendtest.NewStuckServer(t)

	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	ctx, cancel := context.WithCancel(e.ctx)
	slow.CancelWhenStarted(cancel)
	err := e.s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		_, err = h.On(tab).Navigate(ctx, slow.URL+"/", 0)
		return err
	})
	if err == nil {
		t.Fatal("a cancelled navigation returned no error")
	}
	select {
	case <-slow.Aborted:
	case <-time.After(backendtest.Timeout(5 * time.Second)):
		t.Error("the cancelled navigation's request is still open")
	}
	// The next call reads the page that was there, and a navigation works.
	nctx, ncancel := context.WithTimeout(e.ctx, backendtest.Timeout(10*time.Second))
	defer ncancel()
	err = e.s.Do(nctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		snap, err := h.On(tab).Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeCompact})
		if err != nil {
			return err
		}
		if !strings.Contains(snap.Text, "Basic page") {
			t.Errorf("after the cancel, the page is not the one before:\n%s", snap.Text)
		}
		res, err := h.On(tab).Navigate(ctx, e.base+"/form.html", 0)
		if err == nil && !strings.Contains(res.URL, "form.html") {
			t.Errorf("navigate after the cancel = %+v", res)
		}
		return err
	})
	if err != nil {
		t.Fatalf("the call after the cancel: %v", err)
	}
}
