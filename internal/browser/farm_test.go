package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint/farmtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// farmManager is a Manager whose sessions each connect to the endpoint on
// their own (--endpoint-per-session).
func farmManager(t *testing.T, url string) (*browser.Manager, *endpoint.Farm) {
	t.Helper()
	ef := endpoint.NewFarm(endpoint.Options{URL: url})
	m := browser.NewManager(browser.Options{
		Farm:          ef,
		ActionTimeout: backendtest.Timeout(10 * time.Second),
		NavTimeout:    backendtest.Timeout(60 * time.Second),
	})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	return m, ef
}

// whoami serves /whoami?n=N: a page whose title shows the cookie and the
// localStorage keys it found ("seen:who=3|who3"), and which then sets its
// own (who=N, whoN): a visit tells whose browser state it is in.
func whoami(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil {
			http.Error(w, "n?", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>loading</title><h1>Who am I</h1><script>
			document.title = "seen:" + document.cookie + "|" + Object.keys(localStorage).sort().join(",");
			document.cookie = "who=%d; path=/"; localStorage.setItem("who%d", "yes");</script>`, n, n)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// visit navigates the session's current tab to url and snapshots it.
func visit(ctx context.Context, s *browser.Session, url string) (*browser.Snapshot, error) {
	var snap *browser.Snapshot
	err := s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		if _, err := h.On(tab).Navigate(ctx, url, 0); err != nil {
			return err
		}
		snap, err = h.On(tab).Snapshot(ctx, browser.SnapshotOptions{})
		return err
	})
	return snap, err
}

// listTabs lists the session's tabs.
func listTabs(ctx context.Context, s *browser.Session) ([]browser.TabView, error) {
	var tabs []browser.TabView
	err := s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		var err error
		tabs, err = h.Tabs().List(ctx)
		return err
	})
	return tabs, err
}

// With a farm that gives every connection a fresh browser, eight sessions
// in parallel get eight browsers: each navigates and snapshots in its own,
// a cookie and localStorage set in one are not seen in another, tabs are
// listed per session, and removing a session ends its connection (the farm
// kills that browser) while the others work on.
func TestFarmSessionsInParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	// Eight browsers of its own, whatever the suite's backend: it runs once,
	// in the suite's endpoint pass (make test runs all three).
	if backendtest.Kind() != "endpoint" {
		t.Skip("an endpoint feature: runs in the endpoint pass (WEBPILOT_TEST_BACKEND=endpoint)")
	}
	const n = 8
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: n})
	m, ef := farmManager(t, farm.URL())
	base := whoami(t)
	ctx := backendtest.Context(t, 300*time.Second)
	page := func(i int) string { return fmt.Sprintf("%s/whoami?n=%d", base, i) }

	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("agent%d", i)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	snaps := make([]*browser.Snapshot, n)
	began := time.Now()
	for i, name := range names {
		wg.Go(func() { snaps[i], errs[i] = visit(ctx, m.Session(name), page(i)) })
	}
	wg.Wait()
	took := time.Since(began)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("session %s: %v", names[i], err)
		}
		if snaps[i].Title != "seen:|" || !strings.Contains(snaps[i].Text, "Who am I") {
			t.Errorf("session %s: first visit titled %q, want a fresh browser (seen:|):\n%s", names[i], snaps[i].Title, snaps[i].Text)
		}
	}
	t.Logf("%d sessions in parallel, each connect + new tab + navigate + snapshot on a fresh farm browser: %v",
		n, took.Round(time.Millisecond))

	if l, err := farm.Pressure(ctx); err != nil || l.Running != n || l.Queued != 0 || ef.Connections() != n {
		t.Fatalf("farm load %+v (%v), endpoint connections = %d; want %d each", l, err, ef.Connections(), n)
	}
	if got, err := farm.WaitBrowsers(ctx, n); err != nil {
		t.Fatalf("%d farm browsers, want %d: %v", got, n, err)
	}
	if info := m.Info(); info.Kind != "endpoint" || !info.Running || !strings.Contains(info.Version, "Chrome/") {
		t.Errorf("Backend().Info() = %+v, want a running endpoint", info)
	}

	// Each browser is its own: on a second visit each session finds the
	// cookie and localStorage its first visit set, and no other's.
	for i, name := range names {
		snap, err := visit(ctx, m.Session(name), page(i))
		if err != nil {
			t.Fatalf("session %s: second visit: %v", name, err)
		}
		if want := fmt.Sprintf("seen:who=%d|who%d", i, i); snap.Title != want {
			t.Errorf("session %s sees %q, want %q (its own browser's state only)", name, snap.Title, want)
		}
	}

	// Tabs are the session's own: a second tab in one session is listed
	// there only.
	s0 := m.Session(names[0])
	if err := s0.Do(ctx, func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().New(ctx); return err }); err != nil {
		t.Fatalf("new tab: %v", err)
	}
	if tabs, err := listTabs(ctx, s0); err != nil || len(tabs) != 2 {
		t.Errorf("session %s lists %+v, %v; want its 2 tabs", names[0], tabs, err)
	}
	if tabs, err := listTabs(ctx, m.Session(names[1])); err != nil || len(tabs) != 1 || !strings.Contains(tabs[0].URL, "/whoami?n=1") {
		t.Errorf("session %s lists %+v, %v; want its one tab", names[1], tabs, err)
	}
	if farmTabs, err := ef.Tabs(ctx); err != nil || len(farmTabs) < n+1 {
		t.Errorf("Farm.Tabs = %d tabs, %v; want every session's (at least %d)", len(farmTabs), err, n+1)
	}

	// Removing a session ends its connection: the farm sees the
	// disconnect and kills that browser; the others work on.
	if ok, err := m.Remove(ctx, names[0]); !ok || err != nil {
		t.Fatalf("Remove(%s) = %v, %v", names[0], ok, err)
	}
	if _, err := farm.WaitLoad(ctx, fmt.Sprintf("%d running", n-1), func(l farmtest.Load) bool { return l.Running == n-1 }); err != nil {
		t.Fatalf("after Remove: %v", err)
	}
	if got := ef.Connections(); got != n-1 {
		t.Errorf("endpoint connections after Remove = %d, want %d", got, n-1)
	}
	if _, err := visit(ctx, m.Session(names[1]), page(1)); err != nil {
		t.Errorf("another session after the Remove: %v", err)
	}
	// The name comes back as a new session on a new browser, without the
	// removed one's state.
	snap, err := visit(ctx, m.Session(names[0]), page(0))
	if err != nil {
		t.Fatalf("the removed session's name again: %v", err)
	}
	if snap.Title != "seen:|" {
		t.Errorf("a new session under a removed name sees %q, want a fresh browser (seen:|)", snap.Title)
	}
	if l, err := farm.Pressure(ctx); err != nil || l.Running != n {
		t.Errorf("farm load %+v, %v; want %d running (one more for the new session)", l, err, n)
	}

	// Closing the manager ends every connection.
	if err := m.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := farm.WaitLoad(ctx, "none running", func(l farmtest.Load) bool { return l.Running == 0 && l.Queued == 0 }); err != nil {
		t.Fatalf("after Close: %v", err)
	}
	if got := ef.Connections(); got != 0 {
		t.Errorf("endpoint connections after Close = %d", got)
	}
}

// A farm that cannot be reached is an agent-facing NO_BROWSER error that
// names the endpoint flags, not a crash; the session can still be removed.
func TestFarmUnreachable(t *testing.T) {
	m, _ := farmManager(t, "ws://127.0.0.1:1/")
	ctx := backendtest.Context(t, 30*time.Second)
	s := m.Session("lonely")
	err := s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		_, err := h.Tabs().Current(ctx)
		return err
	})
	be, ok := browser.AsError(err)
	if !ok || be.Code != browser.CodeNoBrowser || !strings.Contains(be.Hint, "--cdp-endpoint") || !strings.Contains(be.Message, "endpoint") {
		t.Fatalf("CurrentTab on an unreachable farm = %#v (%v), want NO_BROWSER naming --cdp-endpoint", be, err)
	}
	if ok, err := m.Remove(ctx, "lonely"); !ok || err != nil {
		t.Errorf("Remove = %v, %v", ok, err)
	}
}
