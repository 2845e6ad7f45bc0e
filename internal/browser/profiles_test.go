package browser_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Two Chrome profiles with the extension connect to one bridge: a session
// that names neither is refused with both as choices; a session that names
// one opens its tabs in that browser only; a session that worked before
// the second profile connected stays on its own.
func TestBridgeSeveralProfiles(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.New(t)
	m := browser.NewManager(browser.Options{Backend: be, NavTimeout: backendtest.Timeout(20 * time.Second)})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)
	navigate := func(s *browser.Session, url string) error {
		return onTab(ctx, s, func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, url, 0)
			return err
		})
	}

	first := be.Info().BrowserProfile
	if first == "" {
		t.Fatalf("the first profile has no name: %+v", be.Info())
	}
	// A session of the first profile, before the second connects.
	early := m.Session("early")
	if err := navigate(early, base+"/basic.html?early"); err != nil {
		t.Fatal(err)
	}

	second, err := backendtest.StartProfile(ctx, be, "second profile")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Close() })
	if ps := be.Info().Profiles; len(ps) != 2 {
		t.Fatalf("profiles connected = %+v, want 2", ps)
	}

	// No selector: refused, with both profiles as choices.
	err = navigate(m.Session("plain"), base+"/basic.html?plain")
	if be := wantCode(t, err, browser.CodeAmbiguousTarget); be != nil {
		sugg := strings.Join(be.Suggestions, "\n")
		if len(be.Suggestions) != 2 || !strings.Contains(sugg, "--browser-profile "+first) || !strings.Contains(sugg, `--browser-profile "second profile"`) ||
			!strings.Contains(be.Message, "2 browser profiles are connected") || !strings.Contains(be.Hint, "--browser-profile") {
			t.Errorf("ambiguity = %q / %q / %q, want both profiles and how to choose", be.Message, be.Hint, be.Suggestions)
		}
	}

	// The session from before stays on its profile: its new tab opens
	// there, and its list of tabs comes from there.
	err = early.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		if _, err := h.Tabs().New(ctx); err != nil {
			return err
		}
		if _, err := h.Navigate(ctx, base+"/basic.html?early-again", 0); err != nil {
			return err
		}
		tabs, err := h.Tabs().List(ctx)
		if err == nil && len(tabs) != 2 {
			err = fmt.Errorf("tabs %+v, want its 2", tabs)
		}
		return err
	})
	if err != nil {
		t.Errorf("the session that worked before the second profile connected: %v", err)
	}

	// Each selector opens its tabs in its own browser.
	one := m.SessionFor("one", strings.ToUpper(first))
	two := m.SessionFor("two", "second profile")
	if err := navigate(one, base+"/basic.html?one"); err != nil {
		t.Fatal(err)
	}
	if err := navigate(two, base+"/basic.html?two"); err != nil {
		t.Fatal(err)
	}
	urls := func(b backend.Backend) string {
		tabs, err := b.Tabs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ti := range tabs {
			out = append(out, ti.URL)
		}
		return strings.Join(out, " ")
	}
	firstTabs, secondTabs := urls(backendtest.BridgeBrowser(t, be)), urls(second)
	for _, c := range []struct {
		tabs, has, hasNot string
	}{
		{firstTabs, "?one", "?two"},
		{firstTabs, "?early-again", "?two"},
		{secondTabs, "?two", "?one"},
		{secondTabs, "?two", "?early"},
	} {
		if !strings.Contains(c.tabs, c.has) || strings.Contains(c.tabs, c.hasNot) {
			t.Errorf("browser tabs %q: want %s there and not %s", c.tabs, c.has, c.hasNot)
		}
	}
	for _, c := range []struct {
		s    *browser.Session
		want string
	}{{one, first}, {two, "second profile"}, {early, first}} {
		if got := c.s.BrowserProfileName(); got != c.want {
			t.Errorf("session %s: profile name %q, want %q", c.s.Name(), got, c.want)
		}
	}

	// A profile that is not connected: the session says which are.
	// (Not waited for as long as a call would: the test has no time to lose.)
	short, cancel := context.WithTimeout(ctx, backendtest.Timeout(3*time.Second))
	defer cancel()
	gone := m.SessionFor("gone", "nowhere")
	err = onTab(short, gone, func(context.Context, *browser.Held) error { return nil })
	if be := wantCode(t, err, browser.CodeBridgeDisconnected); be != nil && !strings.Contains(be.Message, fmt.Sprintf(`"nowhere" is not connected (connected: %s`, first)) {
		t.Errorf("profile not connected: %q", be.Message)
	}
}

// The popup's Rename: the name shows in the popup, a new one is stored and
// webpilot learns it (the extension reconnects); a name with other
// characters is refused in the popup.
func TestBridgePopupRename(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Skip("a bridge feature: runs with WEBPILOT_TEST_BACKEND=bridge")
	}
	be := backendtest.New(t)
	ctx := backendtest.Context(t, 120*time.Second)
	first := be.Info().BrowserProfile
	page, err := backendtest.OpenExtensionPage(ctx, be, "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = page.Close(context.Background()) })
	// until polls what expr gives in the popup until it is want.
	until := func(expr, want string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
			v, err := page.Eval(ctx, expr)
			if err != nil {
				t.Fatal(err)
			}
			if got = v; got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("popup %s = %s, want %s", expr, got, want)
			}
		}
	}
	until(`document.getElementById("profilename")?.value ?? ""`, fmt.Sprintf("%q", first))
	rename := func(name string) {
		t.Helper()
		js := fmt.Sprintf(`(() => { document.getElementById("profilename").value = %q; document.getElementById("rename").click(); return true; })()`, name)
		if _, err := page.Eval(ctx, js); err != nil {
			t.Fatal(err)
		}
	}
	rename("a/b")
	until(`document.getElementById("renameresult")?.className ?? ""`, `"bad"`)
	rename("Renamed One")
	until(`document.getElementById("renameresult")?.textContent ?? ""`, `"this profile is now called Renamed One"`)
	for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); be.Info().BrowserProfile != "Renamed One"; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("webpilot calls the profile %q, want the new name", be.Info().BrowserProfile)
		}
	}
}
