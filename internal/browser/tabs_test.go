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
	_ = e.do(func(ctx context.Context, tab *browser.Tab) error { first = tab.ID; return nil })

	opened := func(sel string) browser.TabView {
		t.Helper()
		var got []browser.TabView
		deadline := time.Now().Add(5 * time.Second)
		res, err := e.act(browser.Action{Kind: "click", Target: browser.Target{Selector: sel}})
		if err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		got = res.NewTabs
		for len(got) == 0 && time.Now().Before(deadline) {
			// A slow popup joins on the next call at the latest.
			_ = e.do(func(ctx context.Context, tab *browser.Tab) error {
				tabs, err := e.s.AdoptPopups(ctx)
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

	var list []browser.TabView
	err := e.s.Do(e.ctx, func(ctx context.Context) error {
		var err error
		list, err = e.s.ListTabs(ctx)
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
	err = e.s.Do(e.ctx, func(ctx context.Context) error {
		tab, err := e.s.SelectTab(ctx, blank.ID)
		if err != nil {
			return err
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			snap, err := e.s.Snapshot(ctx, tab, browser.SnapshotOptions{})
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
	defer other.Do(context.Background(), other.CloseTabs)
	var otherID string
	_ = other.Do(e.ctx, func(ctx context.Context) error {
		tab, err := other.CurrentTab(ctx)
		if err == nil {
			otherID = tab.ID
		}
		return err
	})
	err = e.s.Do(e.ctx, func(ctx context.Context) error { return e.s.CloseTab(ctx, otherID) })
	wantCode(t, err, browser.CodeTabNotFound)
	err = e.s.Do(e.ctx, func(ctx context.Context) error { return e.s.CloseTab(ctx, pop.ID) })
	if err != nil {
		t.Fatalf("close the popup: %v", err)
	}
	err = e.s.Do(e.ctx, func(ctx context.Context) error {
		list, err = e.s.ListTabs(ctx)
		return err
	})
	for _, v := range list {
		if v.ID == pop.ID {
			t.Errorf("closed popup still listed")
		}
	}
}
