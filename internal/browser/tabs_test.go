package browser_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Tabs a session's page opens (target=_blank, window.open) join the session
// and are reported by the action that opened them; select and close work on
// them; a tab of another session is refused.
func TestTabsLifecycleAndPopups(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/popups")
	first := ""
	_ = e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()
		first = tab.ID
		return nil
	})

	opened := func(sel string) browser.TabView {
		t.Helper()
		var got []browser.TabView
		deadline := time.Now().Add(5 * time.Second)
		res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}})
		if err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		got = res.NewTabs
		for len(got) == 0 && time.Now().Before(deadline) {
			// A slow popup joins on the next call at the latest.
			_ = e.do(func(ctx context.Context, h *browser.Held) error {

				tabs, err := browser.AdoptPopups(ctx, e.s)
				for _, ti := range tabs {
					got = append(got, browser.TabView{ID: ti.ID, URL: ti.URL, Opener: ti.Opener})
				}
				return err
			})
			time.Sleep(50 * time.Millisecond)
		}
		if len(got) != 1 || got[0].Opener != first {
			t.Fatalf("click %s opened %+v, want one tab opened by %s", sel, got, first)
		}
		return got[0]
	}
	blank := opened("#blank")
	pop := opened("#open")
	if first != "t1" || blank.ID != "t2" || pop.ID != "t3" || blank.Opener != "t1" {
		t.Errorf("ids: first %s, target=_blank %s (opened by %s), popup %s; want t1, t2 (by t1), t3", first, blank.ID, blank.Opener, pop.ID)
	}

	var list []browser.TabView
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		var err error
		list, err = h.Tabs().List(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, v := range list {
		ids = append(ids, v.ID)
		if v.Current != (v.ID == first) {
			t.Errorf("tab %s current = %v", v.ID, v.Current)
		}
	}
	for _, want := range []string{first, blank.ID, pop.ID} {
		if !slices.Contains(ids, want) {
			t.Errorf("list %v lacks %s", ids, want)
		}
	}
	// Select the target=_blank tab: the session now works there.
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Select(ctx, blank.ID)
		if err != nil {
			return err
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			snap, err := h.On(tab).Snapshot(ctx, browser.SnapshotOptions{})
			if err != nil {
				return err
			}
			if strings.HasPrefix(snap.Text, "# Sign up") || time.Now().After(deadline) {
				if !strings.HasPrefix(snap.Text, "# Sign up") {
					t.Errorf("the selected tab shows %q", strings.SplitN(snap.Text, "\n", 2)[0])
				}
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Another session's tab is refused; the popup closes.
	other := e.m.Session(t.Name() + "/other")
	defer other.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	var otherID string
	_ = other.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err == nil {
			// Short ids are per session (the other session's t1 is this
			// one's t1); the browser's id names that tab everywhere.
			otherID = tab.TargetID()
		}
		return err
	})
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().Close(ctx, otherID) })
	wantCode(t, err, browser.CodeTabNotFound)
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().Close(ctx, pop.ID) })
	if err != nil {
		t.Fatalf("close the popup: %v", err)
	}
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		list, err = h.Tabs().List(ctx)
		return err
	})
	for _, v := range list {
		if v.ID == pop.ID {
			t.Errorf("closed popup still listed")
		}
	}
}

// Tabs get short ids (t1, t2, …) in the order they join a session, never
// reused; select takes a short id, the browser's id, or match (a URL or
// title substring, or /regex/): one match selects, several are refused
// with the candidates, none lists the session's tabs.
func TestTabsShortIDsAndMatch(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	open := func(path string) string {
		t.Helper()
		var id string
		err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
			tab, err := h.Tabs().New(ctx)
			if err != nil {
				return err
			}
			id = tab.ID
			_, err = h.On(tab).Navigate(ctx, e.base+path, 0)
			return err
		})
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		return id
	}
	if a, b := open("/form.html"), open("/links"); a != "t2" || b != "t3" {
		t.Fatalf("new tabs are %s and %s, want t2 and t3", a, b)
	}
	list := func() []browser.TabView {
		t.Helper()
		var out []browser.TabView
		if err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
			var err error
			out, err = h.Tabs().List(ctx)
			return err
		}); err != nil {
			t.Fatalf("list: %v", err)
		}
		return out
	}
	var ids []string
	for _, v := range list() {
		ids = append(ids, v.ID)
	}
	if !slices.Equal(ids, []string{"t1", "t2", "t3"}) {
		t.Errorf("list ids = %v, want [t1 t2 t3]", ids)
	}
	selectMatch := func(match string) (string, error) {
		var id string
		err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
			tab, err := h.Tabs().SelectMatching(ctx, match)
			if err == nil {
				id = tab.ID
			}
			return err
		})
		return id, err
	}
	if id, err := selectMatch("form.html"); err != nil || id != "t2" {
		t.Errorf("match form.html = %s, %v; want t2", id, err)
	}
	for _, v := range list() {
		if v.Current != (v.ID == "t2") {
			t.Errorf("after selecting t2, %s current = %v", v.ID, v.Current)
		}
	}
	_, err := selectMatch("/basic|links/")
	wantCode(t, err, browser.CodeAmbiguousTarget)
	if be, ok := browser.AsError(err); ok {
		if len(be.Suggestions) != 2 || !strings.HasPrefix(be.Suggestions[0], "t1 ") || !strings.HasPrefix(be.Suggestions[1], "t3 ") {
			t.Errorf("ambiguous candidates = %q, want t1 and t3", be.Suggestions)
		}
	}
	_, err = selectMatch("no-such-page")
	wantCode(t, err, browser.CodeTabNotFound)
	if be, ok := browser.AsError(err); ok && len(be.Suggestions) != 3 {
		t.Errorf("no-match suggestions = %q, want the 3 tabs", be.Suggestions)
	}
	// The browser's own id is still accepted.
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		cur, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		tab, err := h.Tabs().Select(ctx, cur.TargetID())
		if err == nil && tab.ID != "t2" {
			t.Errorf("select by the browser's id gave %s", tab.ID)
		}
		return err
	})
	if err != nil {
		t.Errorf("select by the browser's id: %v", err)
	}
	// A closed tab's number is not given out again.
	if err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().Close(ctx, "t2") }); err != nil {
		t.Fatalf("close t2: %v", err)
	}
	if id := open("/basic.html"); id != "t4" {
		t.Errorf("the tab opened after closing t2 is %s, want t4", id)
	}
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().Select(ctx, "t2"); return err })
	wantCode(t, err, browser.CodeTabNotFound)
	if be, ok := browser.AsError(err); ok && !slices.Equal(be.Suggestions, []string{"t1", "t3", "t4"}) {
		t.Errorf("tab-not-found suggestions = %q, want [t1 t3 t4]", be.Suggestions)
	}
}

// Closing the current tab makes the tab used most recently before it
// current (selected, or worked on by a call), never another one; the
// same holds when the next current tab closes in its turn.
func TestTabsCloseCurrentPicksMostRecentlyUsed(t *testing.T) {
	e := newEnv(t, browser.Options{})
	do := func(what string, fn func(ctx context.Context, h *browser.Held) error) {
		t.Helper()
		if err := e.s.Do(e.ctx, fn); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// t1 … t6, each made current as it opens (t6 last).
	for range 6 {
		do("open a tab", func(ctx context.Context, h *browser.Held) error {
			_, err := h.Tabs().New(ctx)
			return err
		})
	}
	// Used in this order: t3, t1, t5 and t2 selected; then a call works
	// on t4 without selecting it; then t2 is selected again.
	for _, id := range []string{"t3", "t1", "t5", "t2"} {
		do("select "+id, func(ctx context.Context, h *browser.Held) error {
			_, err := h.Tabs().Select(ctx, id)
			return err
		})
	}
	do("work on t4", func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Ready(ctx, "t4")
		if err == nil {
			h.Use(tab)
		}
		return err
	})
	do("select t2", func(ctx context.Context, h *browser.Held) error {
		_, err := h.Tabs().Select(ctx, "t2")
		return err
	})
	current := func() string {
		t.Helper()
		id := ""
		do("read the current tab", func(ctx context.Context, h *browser.Held) error {
			if tab := h.Tabs().Live(""); tab != nil {
				id = tab.ID
			}
			return nil
		})
		return id
	}
	if got := current(); got != "t2" {
		t.Fatalf("current is %s, want t2", got)
	}
	// Each close of the current tab goes back one step in the use order:
	// t2 → t4 (a call worked on it) → t5 → t1 → t3 → t6 (never used since
	// it opened).
	for _, want := range []string{"t4", "t5", "t1", "t3", "t6"} {
		closing := current()
		do("close "+closing, func(ctx context.Context, h *browser.Held) error {
			return h.Tabs().Close(ctx, closing)
		})
		if got := current(); got != want {
			t.Fatalf("after closing %s the current tab is %q, want %s, the one used most recently", closing, got, want)
		}
	}
}
