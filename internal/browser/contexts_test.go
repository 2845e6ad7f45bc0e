package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Named browser contexts keep their own cookies: a login in one is not in
// another nor in the browser's own; a storage state saved in one signs a
// fresh context in; a context goes with its last tab. The extension cannot
// make contexts: it says so.
func TestContexts(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.navigate("/storage/app.html")
	openIn := func(name string) error {
		return e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Tabs().NewIn(ctx, name)
			return err
		})
	}
	if os.Getenv("WEBPILOT_TEST_BACKEND") == "bridge" {
		if be := wantCode(t, openIn("alice"), browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "cannot open browser contexts") {
			t.Errorf("a context through the extension: %v", be)
		}
		return
	}
	store := func(o browser.StorageOptions) *browser.StorageResult {
		t.Helper()
		var res *browser.StorageResult
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			res, err = h.Storage().Run(ctx, o)
			return err
		}); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return res
	}
	who := func() string { return e.eval(`document.getElementById("who").textContent`) }
	if err := openIn("alice"); err != nil {
		t.Fatal(err)
	}
	e.navigate("/storage/app.html")
	store(browser.StorageOptions{Action: "cookies", Op: "set", Name: "sid", Value: "abc123"})
	e.navigate("/storage/app.html")
	if got := who(); got != "Signed in as ada" {
		t.Fatalf("alice after her login: %q", got)
	}
	saved := store(browser.StorageOptions{Action: "state_save"})
	if err := openIn("bob"); err != nil {
		t.Fatal(err)
	}
	e.navigate("/storage/app.html")
	if got := who(); got != "Signed out" {
		t.Errorf("bob sees alice's login: %q", got)
	}
	if res := store(browser.StorageOptions{Action: "cookies"}); res.Total != 0 {
		t.Errorf("bob's cookies: %+v", res.Cookies)
	}
	// A fresh context signed in from alice's state.
	if err := openIn("carol"); err != nil {
		t.Fatal(err)
	}
	store(browser.StorageOptions{Action: "state_load", File: filepath.Base(saved.Path)})
	e.navigate("/storage/app.html")
	if got := who(); got != "Signed in as ada" {
		t.Errorf("carol after loading alice's state: %q", got)
	}
	var tabs []browser.TabView
	var names []string
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		var err error
		tabs, err = h.Tabs().List(ctx)
		names = h.Tabs().ContextNames()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, v := range tabs {
		shown = append(shown, v.Context)
	}
	if !slices.Equal(names, []string{"alice", "bob", "carol"}) || !slices.Equal(shown, []string{"", "alice", "bob", "carol"}) {
		t.Errorf("contexts %q, tabs' contexts %q", names, shown)
	}
	// The browser's own context never saw the login.
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Tabs().Select(ctx, tabs[0].ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.navigate("/storage/app.html")
	if got := who(); got != "Signed out" {
		t.Errorf("the browser's own context: %q", got)
	}
	// bob's only tab closes: bob goes.
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		if err := h.Tabs().Close(ctx, tabs[2].ID); err != nil {
			return err
		}
		names = h.Tabs().ContextNames()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"alice", "carol"}) {
		t.Errorf("after closing bob's tab: %q", names)
	}
	if be := wantCode(t, openIn("no spaces"), browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "not a name") {
		t.Errorf("a bad name: %v", be)
	}
}
