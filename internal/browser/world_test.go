package browser_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// The walker's world is asked for once per document: a second click on the
// same page sends no Page.createIsolatedWorld; after a navigation, and in a
// frame that loaded a new document, the walker still works.
func TestWalkerWorldIsKept(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	m := regexp.MustCompile(`button (e\d+) "Save changes"`).FindStringSubmatch(e.snapshot(browser.ModeInteractive))
	if m == nil {
		t.Fatal("no Save changes button")
	}
	click := func(tg browser.Locator) {
		t.Helper()
		if _, err := e.act(browser.Action{Kind: "click", Target: tg}); err != nil {
			t.Fatal(err)
		}
	}
	click(browser.Locator{Ref: m[1]})
	n0 := cdp.MethodSent("Page.createIsolatedWorld")
	click(browser.Locator{Ref: m[1]})
	click(sel("#save"))
	if n := cdp.MethodSent("Page.createIsolatedWorld") - n0; n != 0 {
		t.Errorf("clicks on the same page sent Page.createIsolatedWorld %d times", n)
	}
	if got := e.log(); got != "save|save|save" {
		t.Errorf("log %q", got)
	}

	// A new document: the walker works in it, and the first snapshot of
	// it finds the walker's world from the browser's context events: no
	// Page.createIsolatedWorld, no Page.getFrameTree.
	e.navigate("/quiet/keepalive.html")
	w0, f0 := cdp.MethodSent("Page.createIsolatedWorld"), cdp.MethodSent("Page.getFrameTree")
	e.snapshot(browser.ModeCompact)
	if w, f := cdp.MethodSent("Page.createIsolatedWorld")-w0, cdp.MethodSent("Page.getFrameTree")-f0; w+f != 0 {
		t.Errorf("the first snapshot of a document sent Page.createIsolatedWorld %d times, Page.getFrameTree %d times", w, f)
	}
	click(browser.Locator{Frame: "#f", Selector: "#keep"})
	if snap := e.snapshot(browser.ModeFull); !regexp.MustCompile(`keep sent`).MatchString(snap) {
		t.Errorf("after the navigation:\n%s", snap)
	}
	// The frame loads a new document: the walker works in that one too.
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		return tab.Target().Call(ctx, "Runtime.evaluate", map[string]any{"expression": `new Promise(r => { const f = document.getElementById("f"); f.onload = r; f.contentWindow.location.reload() })`, "awaitPromise": true}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	click(browser.Locator{Frame: "#f", Selector: "#beacon"})
	if snap := e.snapshot(browser.ModeFull); !regexp.MustCompile(`beacon sent`).MatchString(snap) || regexp.MustCompile(`keep sent`).MatchString(snap) {
		t.Errorf("after the frame's reload:\n%s", snap)
	}
	// Back to the first page (possibly from the back/forward cache).
	err = e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.History(ctx, "back", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	click(sel("#save"))
	if got := e.log(); got != "save|save|save|save" && got != "save" {
		t.Errorf("after going back: log %q", got)
	}
}

// A snapshot holds no remote objects, so it releases none (a round trip
// saved, through the extension on the bridge); an action that located its
// element releases the objects it held.
func TestObjectsReleasedWhenHeld(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	e.snapshot(browser.ModeCompact)
	n0 := cdp.MethodSent("Runtime.releaseObjectGroup")
	e.snapshot(browser.ModeCompact)
	e.snapshot(browser.ModeInteractive)
	if n := cdp.MethodSent("Runtime.releaseObjectGroup") - n0; n != 0 {
		t.Errorf("snapshots sent Runtime.releaseObjectGroup %d times", n)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#save")}); err != nil {
		t.Fatal(err)
	}
	if n := cdp.MethodSent("Runtime.releaseObjectGroup") - n0; n < 1 {
		t.Errorf("the click released no objects")
	}
	n1 := cdp.MethodSent("Runtime.releaseObjectGroup")
	e.snapshot(browser.ModeCompact)
	if n := cdp.MethodSent("Runtime.releaseObjectGroup") - n1; n != 0 {
		t.Errorf("a snapshot after the click sent Runtime.releaseObjectGroup %d times", n)
	}
}

// The walker is put into its world as each document starts: the first
// snapshot after a navigation is one evaluation, without the walker's
// source.
func TestWalkerWaitsInNewDocuments(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, p := range []string{"/basic.html", "/form.html", "/basic.html"} {
		e.navigate(p)
		n0 := cdp.MethodSent("Runtime.evaluate")
		snap := e.snapshot(browser.ModeCompact)
		if n := cdp.MethodSent("Runtime.evaluate") - n0; n != 1 {
			t.Errorf("%s: the first snapshot sent %d evaluations, want 1", p, n)
		}
		if !strings.Contains(snap, " refs") {
			t.Errorf("%s: %s", p, snap)
		}
	}
}
