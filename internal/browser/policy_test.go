package browser_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Tabs a page opens (target=_blank links, window.open) are held to the
// origin policy like the session's own: one on a refused origin is closed,
// never joins the session, and its content reaches no result.
func TestOriginPolicyForPopups(t *testing.T) {
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<title>Secret</title><p>SECRET-TEXT</p>"))
	}))
	defer secret.Close()
	_, sport, _ := net.SplitHostPort(strings.TrimPrefix(secret.URL, "http://"))
	far := "http://localhost:" + sport + "/"
	opener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Opener</title><a id="blank" href="%[1]s" target="_blank">new tab</a>
<button id="open" onclick="window.open('%[1]s')">popup</button>
<button id="later" onclick="const w = window.open('about:blank'); setTimeout(() => { w.location = '%[1]s' }, 50)">slow popup</button>
<button id="data" onclick="window.open('data:text/html,<title>D</title>DATA-TEXT')">data popup</button>`, far)
	}))
	defer opener.Close()
	_, oport, _ := net.SplitHostPort(strings.TrimPrefix(opener.URL, "http://"))

	for _, c := range []struct {
		name string
		opts browser.Options
	}{
		{"blocked", browser.Options{BlockedOrigins: []string{"localhost:" + sport}}},
		{"allowed", browser.Options{AllowedOrigins: []string{"127.0.0.1:" + oport}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.opts)
			err := e.do(func(ctx context.Context, h *browser.Held) error {

				_, err := h.Navigate(ctx, opener.URL+"/", 0)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			buttons := []string{"#blank", "#open", "#later"}
			if c.name == "allowed" {
				buttons = append(buttons, "#data")
			}
			for _, sel := range buttons {
				res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}})
				if err != nil {
					t.Fatalf("click %s: %v", sel, err)
				}
				for _, nt := range res.NewTabs {
					if strings.Contains(nt.URL, sport) || strings.HasPrefix(nt.URL, "data:") {
						t.Errorf("click %s: a refused tab joined the session: %+v", sel, nt)
					}
				}
				// Whatever opened, no tab of the session shows the content,
				// now or a moment later.
				deadline := time.Now().Add(700 * time.Millisecond)
				for time.Now().Before(deadline) {
					e.readEveryTab(t, sel)
					time.Sleep(150 * time.Millisecond)
				}
			}
		})
	}
}

// readEveryTab selects each of the session's tabs and reads it: no read
// may show the refused page.
func (e *env) readEveryTab(t *testing.T, during string) {
	t.Helper()
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		tabs, err := h.Tabs().List(ctx)
		if err != nil {
			return err
		}
		for _, tv := range tabs {
			if strings.Contains(tv.Title, "Secret") || strings.Contains(tv.URL, "SECRET") {
				t.Errorf("after %s: tab list shows the refused page: %+v", during, tv)
			}
			tab, err := h.Tabs().Ready(ctx, tv.ID)
			if err != nil {
				if be, ok := browser.AsError(err); ok && be.Code == browser.CodeOriginBlocked {
					continue // refused, and cleared
				}
				return err
			}
			snap, err := h.On(tab).Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull})
			if err != nil {
				continue // a tab that closed meanwhile
			}
			if strings.Contains(snap.Text, "SECRET-TEXT") || strings.Contains(snap.Text, "DATA-TEXT") {
				t.Errorf("after %s: tab %s shows the refused page:\n%s", during, tv.ID, snap.Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the tabs: %v", err)
	}
}

// A tab a page opens on a refused origin sends no request at all — not its
// document's, with the user's cookies, nor its script's — before it is
// closed: it is held before it runs and checked (issue: on launch it loaded,
// and its script ran, before webpilot closed it).
func TestPopupsHeldBeforeTheyLoad(t *testing.T) {
	var mu sync.Mutex
	var got []string
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<title>Secret</title><script>fetch("/beacon?" + document.cookie)</script>`))
	}))
	defer secret.Close()
	_, sport, _ := net.SplitHostPort(strings.TrimPrefix(secret.URL, "http://"))
	far := "http://localhost:" + sport + "/page"
	opener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Opener</title><a id="blank" href="%[1]s" target="_blank">new tab</a>
<button id="open" onclick="window.open('%[1]s')">popup</button>
<button id="later" onclick="const w = window.open('about:blank'); setTimeout(() => { w.location = '%[1]s' }, 50)">slow popup</button>`, far)
	}))
	defer opener.Close()

	e := newEnv(t, browser.Options{BlockedOrigins: []string{"localhost:" + sport}})
	if err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, opener.URL+"/", 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"#blank", "#open", "#later"} {
		if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}}); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		// Wait until webpilot has dealt with the new tab: the opener (or,
		// for the tab that first showed about:blank, that tab) tells of
		// the refused load — blocked before it went out, or, when the
		// tab's load began before its filter was on (the bridge, a busy
		// machine), replaced once it committed.
		told := ""
		for told == "" {
			if e.ctx.Err() != nil {
				t.Fatalf("click %s: no note of the refused tab", sel)
			}
			err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
				tabs, err := h.Tabs().List(ctx)
				if err != nil {
					return err
				}
				for _, tv := range tabs {
					tab, err := h.Tabs().Ready(ctx, tv.ID)
					if err != nil {
						continue
					}
					for _, n := range tab.TakeNotes() {
						if strings.Contains(n, sport) && (strings.Contains(n, "closed a new tab") || strings.Contains(n, "blocked a load") || strings.Contains(n, "which the origin policy refuses")) {
							told = n
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("click %s: list the tabs: %v", sel, err)
			}
			if told == "" {
				time.Sleep(50 * time.Millisecond)
			}
		}
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if backendtest.Kind() == "bridge" {
			// The extension cannot hold a tab before its first request
			// (chrome.debugger attaches after the navigation began): the
			// tab is closed and its content reaches no result
			// (TestOriginPolicyForPopups), but its first load may have
			// gone out. A documented limit of the bridge.
			t.Logf("bridge: click %s: the refused origin got %d requests before the tab was closed", sel, n)
			continue
		}
		if n > 0 {
			t.Fatalf("click %s: the refused origin got %d requests (%v) before the tab was closed; note %q", sel, n, got, told)
		}
	}
}
