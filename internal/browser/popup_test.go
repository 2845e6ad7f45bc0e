package browser_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// popupSession is one session as the extension's popup shows it.
type popupSession struct {
	Session string     `json:"session"`
	Tabs    []popupTab `json:"tabs"`
}

// popupTab is one tab row of the popup's sessions section.
type popupTab struct {
	TabID string `json:"tabId"`
	Text  string `json:"text"`
}

// popupSessionsJS reads the popup's sessions section from its DOM.
const popupSessionsJS = `[...document.querySelectorAll("#sessions .session")].map((d) => ({
	session: d.querySelector("h3").textContent,
	tabs: [...d.querySelectorAll("li")].map((li) => ({ tabId: li.dataset.tabId, text: li.innerText })),
}))`

// The extension's popup, opened in a tab of the bridge's browser, lists a
// session's agent tab and the user's tab it bound (marked as the user's);
// its Release gives a tab back (the bound one; an agent one leaves webpilot's
// group); its Disconnect makes the session's
// calls fail with BRIDGE_DISCONNECTED, and stays so, until its Connect.
func TestBridgePopupSessionsAndDisconnect(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.New(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session("popup-test")
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)
	nav := func(ctx context.Context) error {
		return onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, base+"/basic.html", 0)
			return err
		})
	}
	if err := nav(ctx); err != nil {
		t.Fatal(err)
	}
	agentTab := ""
	_ = onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()
		agentTab = tab.TargetID()
		return nil
	})

	userTarget, err := backendtest.OpenUserTab(ctx, be, base+"/popups?who=bound-one")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backendtest.CloseUserTab(context.Background(), be, userTarget) })
	var bound *browser.Tab
	err = s.Do(ctx, func(ctx context.Context, h *browser.Held) (err error) {
		// The browser lists a new tab's URL once it has begun loading.
		for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
			bound, err = h.Tabs().Bind(ctx, "", "bound-one")
			if err == nil || time.Now().After(deadline) {
				return err
			}
		}
	})
	if err != nil {
		t.Fatalf("bind the user's tab: %v", err)
	}

	page, err := backendtest.OpenExtensionPage(ctx, be, "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = page.Close(context.Background()) })
	// read polls the popup (it refreshes every second) until ok accepts what it shows.
	read := func(what string, ok func([]popupSession) bool) []popupSession {
		t.Helper()
		var got []popupSession
		for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
			v, err := page.Eval(ctx, popupSessionsJS)
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			if err := json.Unmarshal([]byte(v), &got); err != nil {
				t.Fatalf("popup sessions %s: %v", v, err)
			}
			if ok(got) {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("the popup shows %+v; want %s", got, what)
			}
		}
	}
	stateText := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
			v, err := page.Eval(ctx, `document.getElementById("state")?.textContent ?? ""`)
			if err != nil {
				t.Fatal(err)
			}
			if v == `"`+want+`"` {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the popup's state reads %s; want %q", v, want)
			}
		}
	}
	click := func(id string) {
		t.Helper()
		if _, err := page.Eval(ctx, `document.getElementById("`+id+`").click()`); err != nil {
			t.Fatal(err)
		}
	}

	stateText("Connected")
	got := read("the session with its agent tab and the bound tab", func(ss []popupSession) bool {
		return len(ss) == 1 && len(ss[0].Tabs) == 2
	})
	if got[0].Session != "popup-test" {
		t.Errorf("the popup's session is %q, want popup-test", got[0].Session)
	}
	var agentRow, boundRow popupTab
	for _, tb := range got[0].Tabs {
		if strings.Contains(tb.Text, "your tab (bound)") {
			boundRow = tb
		} else {
			agentRow = tb
		}
	}
	host := strings.TrimPrefix(base, "http://")
	if !strings.Contains(agentRow.Text, "Basic page") || !strings.Contains(agentRow.Text, host) || agentRow.TabID != agentTab {
		t.Errorf("agent tab row %+v; want Basic page on %s, tab %s", agentRow, host, agentTab)
	}
	if !strings.Contains(boundRow.Text, "Popups") || !strings.Contains(boundRow.Text, host) || boundRow.TabID != bound.TargetID() {
		t.Errorf("bound tab row %+v; want Popups on %s marked as the user's, tab %s", boundRow, host, bound.TargetID())
	}

	// Release on the bound tab's row: detached, and no longer listed.
	if _, err := page.Eval(ctx, `document.querySelector('#sessions li[data-tab-id="`+bound.TargetID()+`"] button').click()`); err != nil {
		t.Fatal(err)
	}
	read("only the agent tab after the bound tab was released", func(ss []popupSession) bool {
		return len(ss) == 1 && len(ss[0].Tabs) == 1 && ss[0].Tabs[0].TabID == agentTab
	})
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		st, err := backendtest.DescribeUserTab(ctx, be, userTarget)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Open {
			t.Fatal("the released tab was closed")
		}
		if !st.Attached {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the released tab is still attached")
		}
	}

	// The session hears it: its call on that tab says so, and the call after opens a new tab.
	err = nav(ctx)
	if e := wantCode(t, err, browser.CodeBridgeDetached); !strings.Contains(e.Message, "released in the extension's popup") {
		t.Errorf("after Release: %q; want it to say the tab was released", e.Message)
	}
	if err := nav(ctx); err != nil {
		t.Fatalf("navigate after the release: %v", err)
	}

	// Disconnect: the connection goes and stays gone; calls fail with BRIDGE_DISCONNECTED.
	srv := be.(interface{ Server() *bridge.Server }).Server()
	relay, _ := srv.Current("")
	click("disconnect")
	stateText("Disconnected by you")
	if relay != nil {
		select {
		case <-relay.Done():
		case <-ctx.Done():
			t.Fatal("the bridge connection outlived Disconnect")
		}
	}
	short, cancel := context.WithTimeout(ctx, backendtest.Timeout(3*time.Second))
	err = nav(short)
	cancel()
	wantCode(t, err, browser.CodeBridgeDisconnected)
	if r, _ := srv.Current(""); r != nil {
		t.Fatal("the extension connected again after Disconnect")
	}
	stateText("Disconnected by you")

	// Connect: the next call works.
	click("connect")
	if err := nav(ctx); err != nil {
		t.Fatalf("navigate after Connect: %v", err)
	}
	stateText("Connected")

	// Release on the agent tab's row: it leaves webpilot's group, and is the user's.
	var current string
	_ = onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()
		current = tab.TargetID()
		return nil
	})
	read("the session's current tab", func(ss []popupSession) bool {
		return len(ss) == 1 && len(ss[0].Tabs) >= 1 && ss[0].Tabs[len(ss[0].Tabs)-1].TabID == current
	})
	if _, err := page.Eval(ctx, `document.querySelector('#sessions li[data-tab-id="`+current+`"] button').click()`); err != nil {
		t.Fatal(err)
	}
	read("no row for the released agent tab", func(ss []popupSession) bool {
		for _, x := range ss {
			for _, tb := range x.Tabs {
				if tb.TabID == current {
					return false
				}
			}
		}
		return true
	})
	wantCode(t, nav(ctx), browser.CodeBridgeDetached)
}

// The popup names a session after the client it works for (the name the
// MCP client gave in initialize), so that the user sees whose tabs they
// are; the label is the client's first and stays.
func TestBridgePopupNamesTheClient(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.Shared(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	s := m.Session("client-1a2b3c4d")
	s.SetLabel("Claude Code")
	s.SetLabel("Another Client")
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	if err := onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, base+"/basic.html", 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	page, err := backendtest.OpenExtensionPage(ctx, be, "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = page.Close(context.Background()) })
	want := "Claude Code · client-1a2b3c4d"
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		v, err := page.Eval(ctx, popupSessionsJS)
		if err != nil {
			t.Fatal(err)
		}
		var got []popupSession
		if err := json.Unmarshal([]byte(v), &got); err != nil {
			t.Fatalf("popup sessions %s: %v", v, err)
		}
		found := false
		for _, ps := range got {
			found = found || ps.Session == want && len(ps.Tabs) == 1
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the popup shows %+v; want the session %q with its tab", got, want)
		}
	}
	if _, err := m.Remove(ctx, s.Name()); err != nil {
		t.Error(err)
	}
}
