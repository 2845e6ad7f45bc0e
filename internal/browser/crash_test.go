package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A crashed page is told at once (issue 47, 8): a call under way when the
// renderer crashes ends with PAGE_CRASHED instead of waiting out its time,
// the next call on the tab is refused with it, and a navigate loads a page
// in a new renderer, after which the tab works again.
func TestPageCrash(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Ready(ctx, "")
		if err != nil {
			return err
		}
		wctx, done := tab.WatchCrash(ctx)
		waited := make(chan error, 1)
		go func() {
			_, err := h.Wait(wctx, browser.WaitOptions{Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "never on the page"}}}, Timeout: 50 * time.Second})
			waited <- done(err)
		}()
		browser.CrashPage(ctx, tab)
		return <-waited
	})
	wantCode(t, err, browser.CodePageCrashed)
	err = e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Tabs().Ready(ctx, "")
		return err
	})
	if be := wantCode(t, err, browser.CodePageCrashed); be != nil && !strings.Contains(be.Hint, "browser_navigate") {
		t.Errorf("the crash's hint: %q", be.Hint)
	}
	// The console is still read (it needs no page), and is not ended by
	// the crash it would show.
	err = e.do(func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().ByID(ctx, "")
		if err != nil {
			return err
		}
		cctx, done := tab.WatchCrash(ctx)
		if err := done(cctx.Err()); err != nil {
			return err
		}
		_, err = h.Navigate(ctx, e.base+"/form.html", 0)
		return err
	})
	if err != nil {
		t.Fatalf("navigate after the crash: %v", err)
	}
	if snap := e.snapshot("compact"); !strings.Contains(snap, "Sign up") {
		t.Errorf("the page after the crash:\n%s", snap)
	}
}
