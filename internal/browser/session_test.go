package browser_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Calls in one session run one at a time; a caller that cannot get the
// session before its deadline gets TIMEOUT; other sessions are not blocked.
func TestSessionSerializesCalls(t *testing.T) {
	m := browser.NewManager(browser.Options{Backend: backendtest.NewFake()})
	s := m.Session("a")
	var running, maxRunning atomic.Int32
	done := make(chan struct{})
	work := func(ctx context.Context, h *browser.Held) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			old := maxRunning.Load()
			if n <= old || maxRunning.CompareAndSwap(old, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		return nil
	}
	for range 4 {
		go func() {
			_ = s.Do(context.Background(), work)
			done <- struct{}{}
		}()
	}
	for range 4 {
		<-done
	}
	if maxRunning.Load() != 1 {
		t.Errorf("%d calls ran at once in one session", maxRunning.Load())
	}

	hold := make(chan struct{})
	started := make(chan struct{})
	go s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { close(started); <-hold; return nil })
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.Do(ctx, work)
	if be, ok := browser.AsError(err); !ok || be.Code != browser.CodeTimeout {
		t.Errorf("busy session: got %v, want TIMEOUT", err)
	}
	other := m.Session("b")
	if err := other.Do(context.Background(), work); err != nil {
		t.Errorf("another session was blocked: %v", err)
	}
	close(hold)
}

// The browser side going away between calls is recovered by the next call:
// on launch, the browser is killed and started again; on the bridge, the
// extension's service worker is stopped (as Chrome does to idle workers)
// and comes back by itself. A call racing the loss may fail once, with a
// hint that says the next call recovers.
func TestBackendRecovers(t *testing.T) {
	be := backendtest.New(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session("recover")
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	nav := func() error {
		return s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
			tab, err := h.Tabs().Current(ctx)
			if err != nil {
				return err
			}
			_, err = h.On(tab).Navigate(ctx, base+"/basic.html", 0)
			return err
		})
	}
	if err := nav(); err != nil {
		t.Fatal(err)
	}
	switch backendtest.Kind() {
	case "launch":
		pid := be.Info().PID
		if pid == 0 {
			t.Fatal("no browser pid")
		}
		if err := killPID(pid); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if got := be.Info().PID; got == 0 || got == pid {
				t.Errorf("browser pid after relaunch = %d (was %d)", got, pid)
			}
		}()
	case "bridge":
		if err := backendtest.StopExtensionWorker(ctx, be); err != nil {
			t.Fatal(err)
		}
	}
	if err := nav(); err != nil {
		be2, ok := browser.AsError(err)
		if !ok || (be2.Code != browser.CodeNoBrowser && be2.Code != browser.CodeBridgeDisconnected && be2.Code != browser.CodeTabNotFound) || be2.Hint == "" {
			t.Fatalf("navigate right after the loss: %v", err)
		}
		if err := nav(); err != nil {
			t.Fatalf("navigate after the loss: %v", err)
		}
	}
	if backendtest.Kind() == "launch" {
		// The agent is told that it is on a new tab of a new browser.
		var lead string
		_ = s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
			tab, err := h.Tabs().Current(ctx)
			if err == nil {
				lead = tab.TakeLead()
			}
			return err
		})
		if lead != browser.LostNote {
			t.Errorf("after the browser restarted, the lead = %q; want the lost-session note", lead)
		}
	}
}

// onTab runs fn on the session's current tab.
func onTab(ctx context.Context, s *browser.Session, fn func(ctx context.Context, h *browser.Held) error) error {
	return s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		h.Use(tab)
		return fn(ctx, h)
	})
}

// reattachedSnapshot is the session's next call after its tab lost the
// debugger: a snapshot on the same tab, whose notes say it was re-attached;
// then a click on a ref of that snapshot works.
func reattachedSnapshot(t *testing.T, ctx context.Context, s *browser.Session, target string) {
	t.Helper()
	var snap string
	var notes []string
	start := time.Now()
	defer func() { t.Logf("the call that re-attached took %v", time.Since(start).Round(time.Millisecond)) }()
	err := onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		if tab.TargetID() != target || tab.ID != "t1" {
			t.Errorf("the call ran on tab %s (%s), want t1 (%s): a new tab, not the same one", tab.ID, tab.TargetID(), target)
		}
		notes = tab.TakeNotes()
		sn, err := h.Snapshot(ctx, browser.SnapshotOptions{})
		if err != nil {
			return err
		}
		snap = sn.Text
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot after re-attaching: %v", err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "re-attached") || !strings.Contains(strings.Join(notes, "\n"), "stale") {
		t.Errorf("notes = %q; want one saying the tab was re-attached and refs are stale", notes)
	}
	ref := refOf(t, snap, "button", "Clicked 0 times")
	var text string
	err = onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		if _, err := h.Act(ctx, browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}}); err != nil {
			return err
		}
		var err error
		text, err = browser.EvalString(ctx, tab, `document.getElementById("counter").textContent`)
		return err
	})
	if err != nil || text != "Clicked 1 times" {
		t.Fatalf("click after re-attaching: %q, %v", text, err)
	}
}

// The user cancels debugging of one of the agent's tabs (the bridge's
// test hook detaches it and reports canceled_by_user): the session's next
// call says BRIDGE_DETACHED, and the call after re-attaches the same tab.
func TestBridgeCancelledTabReattaches(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.Shared(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session(t.Name())
	t.Cleanup(func() {
		_ = s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	})
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	var tab *browser.Tab
	err := onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab = h.Tab()
		_, err := h.Navigate(ctx, base+"/basic.html", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	reported, err := backendtest.CancelDebugging(ctx, be, tab.TargetID())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Chrome's own onDetach for the extension's detach: %q", reported)
	select {
	case <-tab.Target().Done():
	case <-ctx.Done():
		t.Fatal("the tab's CDP session outlived the cancel")
	}
	err = onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		return nil
	})
	if e := wantCode(t, err, browser.CodeBridgeDetached); !strings.Contains(e.Hint, "re-attaches") {
		t.Errorf("hint = %q; want it to say the next call re-attaches", e.Hint)
	}
	reattachedSnapshot(t, ctx, s, tab.TargetID())
}

// The extension's service worker is stopped (as Chrome stops an idle one)
// between two calls: it comes back by itself, and the session's next call
// waits for it, re-attaches the same tab and works.
func TestBridgeWorkerRestartKeepsTab(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.New(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session("worker")
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	var target string
	err := onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		target = tab.TargetID()
		_, err := h.Navigate(ctx, base+"/basic.html", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := backendtest.StopExtensionWorker(ctx, be); err != nil {
		t.Fatal(err)
	}
	reattachedSnapshot(t, ctx, s, target)
}

// Chrome quits and starts again (the same profile): the extension
// reconnects by itself from what it stored when paired, with no pairing
// and no provisioning, and the session's next call works — on a new tab,
// since the old ones went with the browser, and it says so.
func TestBridgeChromeRestartReconnects(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.New(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session("restart")
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	nav := func() (string, string, error) {
		var title, id string
		err := onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
			tab := h.Tab()

			id = tab.ID
			res, err := h.Navigate(ctx, base+"/basic.html", 0)
			if err == nil {
				title = res.Title
			}
			return err
		})
		return title, id, err
	}
	_, before, err := nav()
	if err != nil {
		t.Fatal(err)
	}
	refused := be.(interface{ Server() *bridge.Server }).Server().Refusals()
	if err := backendtest.RestartBrowser(ctx, be); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	title, after, err := nav()
	t.Logf("the first call after the restart took %v (waiting for the extension included)", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("navigate after Chrome restarted: %v", err)
	}
	if title != "Basic page" || after == before {
		t.Errorf("after the restart: title %q on tab %s (was %s); want the page on a new tab", title, after, before)
	}
	if n := be.(interface{ Server() *bridge.Server }).Server().Refusals(); n != refused {
		t.Errorf("%d connections refused during the restart; want none (the stored secret is enough)", n-refused)
	}
}
