package browser_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A session binds tabs the user opened (by match, by id), attaching only
// those; an ambiguous or unknown match is refused with candidates; unbind
// and browser_close leave the tabs open and detached.
func TestBindUserTabs(t *testing.T) {
	e := newEnv(t, browser.Options{})
	be := e.m.Backend()
	user := map[string]string{} // who → target id
	for _, who := range []string{"alpha-one", "beta-one", "beta-two"} {
		id, err := backendtest.OpenUserTab(e.ctx, be, e.base+"/popups?who="+who)
		if err != nil {
			t.Fatal(err)
		}
		user[who] = id
		t.Cleanup(func() { _ = backendtest.CloseUserTab(context.Background(), be, id) })
	}
	attached := func(who string) bool {
		t.Helper()
		st, err := backendtest.DescribeUserTab(e.ctx, be, user[who])
		if err != nil {
			t.Fatal(err)
		}
		if !st.Open {
			t.Fatalf("user tab %s is gone", who)
		}
		return st.Attached
	}
	call := func(fn func(ctx context.Context, h *browser.Held) error) error { return e.s.Do(e.ctx, fn) }

	var cands []browser.TabView
	if err := call(func(ctx context.Context, h *browser.Held) (err error) {
		// The browser lists a new tab's URL once it has begun loading.
		for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if cands, err = h.Tabs().Bindable(ctx); err != nil || countURL(cands, "who=") == 3 {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := countURL(cands, "who="); n != 3 {
		t.Fatalf("bindable tabs %+v: %d of the 3 user tabs", cands, n)
	}

	var bound *browser.Tab
	err := call(func(ctx context.Context, h *browser.Held) (err error) {
		bound, err = h.Tabs().Bind(ctx, "", "alpha-ONE")
		return err
	})
	if err != nil {
		t.Fatalf("bind by match: %v", err)
	}
	if !bound.Bound() || bound.ID != "t1" {
		t.Errorf("bound tab %s, Bound() %v; want t1, true", bound.ID, bound.Bound())
	}
	got := e.eval("location.search")
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); got == "" && time.Now().Before(deadline); got = e.eval("location.search") {
		time.Sleep(50 * time.Millisecond) // a tab the test just opened may still be loading
	}
	if got != "?who=alpha-one" {
		t.Errorf("the session's current tab is at %q, want the bound tab", got)
	}
	if !attached("alpha-one") || attached("beta-one") || attached("beta-two") {
		t.Errorf("attached: alpha-one %v, beta-one %v, beta-two %v; want only the bound tab", attached("alpha-one"), attached("beta-one"), attached("beta-two"))
	}

	for _, c := range []struct {
		match string
		code  browser.Code
		want  int // suggestions that name a user tab
	}{
		{"beta", browser.CodeAmbiguousTarget, 2},
		{"/who=gamma/", browser.CodeTabNotFound, 2}, // the unbound user tabs
	} {
		err := call(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Tabs().Bind(ctx, "", c.match)
			return err
		})
		be, ok := browser.AsError(err)
		if !ok || be.Code != c.code {
			t.Errorf("bind %q: %v, want %s", c.match, err, c.code)
			continue
		}
		if n := countStrings(be.Suggestions, "who=beta"); n != c.want {
			t.Errorf("bind %q: suggestions %q name %d beta tabs, want %d", c.match, be.Suggestions, n, c.want)
		}
		if countStrings(be.Suggestions, "alpha-one") != 0 {
			t.Errorf("bind %q: suggestions %q offer the tab bound already", c.match, be.Suggestions)
		}
	}
	if attached("beta-one") || attached("beta-two") {
		t.Error("a refused bind attached a tab")
	}

	// By id, as list all shows it.
	betaID := ""
	_ = call(func(ctx context.Context, h *browser.Held) error {
		cands, _ = h.Tabs().Bindable(ctx)
		return nil
	})
	for _, v := range cands {
		if strings.Contains(v.URL, "who=beta-two") {
			betaID = v.ID
		}
	}
	var beta *browser.Tab
	if err := call(func(ctx context.Context, h *browser.Held) (err error) {
		beta, err = h.Tabs().Bind(ctx, betaID, "")
		return err
	}); err != nil {
		t.Fatalf("bind by id %q: %v", betaID, err)
	}
	var list []browser.TabView
	_ = call(func(ctx context.Context, h *browser.Held) (err error) { list, err = h.Tabs().List(ctx); return err })
	if len(list) != 2 || !list[0].Bound || !list[1].Bound || list[1].ID != beta.ID || !list[1].Current {
		t.Errorf("list %+v: want t1 and %s, both bound, %s current", list, beta.ID, beta.ID)
	}
	if !attached("beta-two") || attached("beta-one") {
		t.Errorf("after bind by id: beta-two attached %v, beta-one %v", attached("beta-two"), attached("beta-one"))
	}

	// unbind: detached, still open, no longer the session's.
	if err := call(func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().Unbind(ctx, beta.ID); return err }); err != nil {
		t.Fatalf("unbind: %v", err)
	}
	waitDetached := func(who string) {
		t.Helper()
		for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); attached(who) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if attached(who) {
			t.Errorf("%s is still attached after it was released", who)
		}
	}
	waitDetached("beta-two")
	_ = call(func(ctx context.Context, h *browser.Held) (err error) { list, err = h.Tabs().List(ctx); return err })
	if len(list) != 1 || list[0].ID != "t1" {
		t.Errorf("list after unbind: %+v, want t1 only", list)
	}
	if err := call(func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().Unbind(ctx, beta.ID); return err }); err == nil {
		t.Error("unbind of a released tab: no error")
	}

	// A tab the bound tab opens joins the session, bound itself.
	t.Cleanup(func() { _, _ = backendtest.CloseUserTabsAt(context.Background(), be, "/form.html") })
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#blank")}); err != nil {
		t.Fatalf("click the bound tab's target=_blank link: %v", err)
	}
	var opened *browser.TabView
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); opened == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_ = call(func(ctx context.Context, h *browser.Held) (err error) { list, err = h.Tabs().List(ctx); return err })
		for i := range list {
			if strings.Contains(list[i].URL, "/form.html") {
				opened = &list[i]
			}
		}
	}
	if opened == nil || !opened.Bound || opened.Opener != "t1" {
		t.Fatalf("the tab the bound tab opened: %+v in %+v; want it listed, bound, opened by t1", opened, list)
	}

	// browser_close releases the bound tabs and closes nothing.
	if err := call(func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) }); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitDetached("alpha-one")
	_ = call(func(ctx context.Context, h *browser.Held) error {
		cands, _ = h.Tabs().Bindable(ctx)
		return nil
	})
	if n := countURL(cands, "who="); n != 3 {
		t.Errorf("after close and unbind, %d of the 3 user tabs are open and bindable: %+v", n, cands)
	}
	if n := countURL(cands, "/form.html"); n != 1 {
		t.Errorf("after close, the tab the bound tab opened is open and bindable %d times, want 1: %+v", n, cands)
	}
	if n, err := backendtest.CloseUserTabsAt(e.ctx, be, "/form.html"); err != nil || n != 1 {
		t.Errorf("closing the tab the bound tab opened: %d closed, %v", n, err)
	}
}

func countURL(tabs []browser.TabView, part string) int {
	n := 0
	for _, v := range tabs {
		if strings.Contains(v.URL, part) {
			n++
		}
	}
	return n
}

func countStrings(ss []string, part string) int {
	n := 0
	for _, s := range ss {
		if strings.Contains(s, part) {
			n++
		}
	}
	return n
}

// bind with neither tab nor match takes the tab the user is looking at: on
// the bridge the active tab of the last-focused normal window; where the
// browser does not say (launch, endpoint), the only candidate, else the
// candidates as AMBIGUOUS_TARGET.
func TestBindLookedAt(t *testing.T) {
	e := newEnv(t, browser.Options{})
	be := e.m.Backend()
	id, err := backendtest.OpenUserTab(e.ctx, be, e.base+"/popups?who=looked-at")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backendtest.CloseUserTab(context.Background(), be, id) })
	var cands []browser.TabView
	_ = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) (err error) {
		for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if cands, err = h.Tabs().Bindable(ctx); err != nil || countURL(cands, "looked-at") == 1 {
				return err
			}
		}
		return nil
	})
	var looked []browser.TabView
	for _, v := range cands {
		if v.Current {
			looked = append(looked, v)
		}
	}
	if backendtest.Kind() == "bridge" && (len(looked) != 1 || !strings.Contains(looked[0].URL, "looked-at")) {
		t.Fatalf("bridge: the tab looked at is %+v, want the user tab just opened in its own window (candidates %+v)", looked, cands)
	}
	var tab *browser.Tab
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) (err error) {
		tab, err = h.Tabs().Bind(ctx, "", "")
		return err
	})
	switch {
	case len(looked) == 1 || len(cands) == 1:
		if err != nil {
			t.Fatalf("bind the tab looked at: %v", err)
		}
		want := cands[0].URL
		if len(looked) == 1 {
			want = looked[0].URL
		}
		var list []browser.TabView
		_ = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) (err error) { list, err = h.Tabs().List(ctx); return err })
		if len(list) != 1 || list[0].ID != tab.ID || list[0].URL != want || !list[0].Bound {
			t.Errorf("bound %+v, want the tab at %s", list, want)
		}
	default:
		if be, ok := browser.AsError(err); !ok || be.Code != browser.CodeAmbiguousTarget || len(be.Suggestions) != len(cands) {
			t.Errorf("bind with neither among %d tabs, none looked at: %v, want AMBIGUOUS_TARGET with them", len(cands), err)
		}
	}
}

// Bridge: a session's tabs are grouped as "webpilot · <session>" in the
// agent window; a tab the user drags out of the group is released: the
// debugger detached, the tab open, the session told once.
func TestTabGroupRelease(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs in the bridge pass (WEBPILOT_TEST_BACKEND=bridge)")
	}
	e := newEnv(t, browser.Options{})
	be := e.m.Backend()
	e.navigate("/popups")
	var tab *browser.Tab
	_ = e.do(func(ctx context.Context, h *browser.Held) error { tab = h.Tab(); return nil })
	id := tab.TargetID()
	title, err := backendtest.EvalInExtension(e.ctx, be, `(async () => { const t = await chrome.tabs.get(`+id+`); return (await chrome.tabGroups.get(t.groupId)).title; })()`)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	_ = json.Unmarshal([]byte(title), &got)
	if want := "webpilot · " + t.Name(); got != want {
		t.Errorf("group title %s, want %q", title, want)
	}
	if _, err := backendtest.EvalInExtension(e.ctx, be, `chrome.tabs.ungroup(`+id+`)`); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tab.Target().Done():
	case <-time.After(backendtest.Timeout(5 * time.Second)):
		t.Fatal("the tab dragged out of the group is still attached")
	}
	open, err := backendtest.EvalInExtension(e.ctx, be, `chrome.tabs.get(`+id+`).then((t) => t.url)`)
	if err != nil || !strings.Contains(open, "/popups") {
		t.Errorf("the released tab: %s, %v; want it open on /popups", open, err)
	}
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().Current(ctx); return err })
	if be, ok := browser.AsError(err); !ok || be.Code != browser.CodeBridgeDetached {
		t.Errorf("the next call: %v, want BRIDGE_DETACHED once", err)
	}
	var list []browser.TabView
	_ = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) (err error) { list, err = h.Tabs().List(ctx); return err })
	for _, v := range list {
		if strings.Contains(v.URL, "/popups") {
			t.Errorf("the released tab is still the session's: %+v", list)
		}
	}
	// The tab is the user's: the next call does not take it back, and
	// closing the session's tabs leaves it open.
	var cur *browser.Tab
	if err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) (err error) { cur, err = h.Tabs().Current(ctx); return err }); err != nil || cur.TargetID() == id {
		t.Errorf("the call after: tab %v, %v; want a new tab", cur, err)
	}
	if err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) }); err != nil {
		t.Fatal(err)
	}
	if open, err := backendtest.EvalInExtension(e.ctx, be, `chrome.tabs.get(`+id+`).then((t) => t.url)`); err != nil || !strings.Contains(open, "/popups") {
		t.Errorf("the released tab after closing the session's tabs: %s, %v; want it open", open, err)
	}
	t.Cleanup(func() { _, _ = backendtest.EvalInExtension(context.Background(), be, `chrome.tabs.remove(`+id+`)`) })
}
