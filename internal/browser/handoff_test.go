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

// handoffCall runs a hand-off on the session's current tab in the
// background; the result arrives on the channel.
func (e *env) handoffCall(o browser.HandoffOptions) <-chan handoffOutcome {
	out := make(chan handoffOutcome, 1)
	go func() {
		var o2 handoffOutcome
		o2.err = e.do(func(ctx context.Context, h *browser.Held) (err error) {
			o2.res, err = h.Person().Handoff(ctx, o)
			return err
		})
		out <- o2
	}()
	return out
}

type handoffOutcome struct {
	res *browser.HandoffResult
	err error
}

func (e *env) handoffWait(ch <-chan handoffOutcome) handoffOutcome {
	e.t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(backendtest.Timeout(45 * time.Second)):
		e.t.Fatal("the hand-off did not end")
	}
	return handoffOutcome{}
}

// popupHandoffs are the hand-offs the extension's popup shows: each row's
// message, and whether it has a Done button.
func popupHandoffs(t *testing.T, ctx context.Context, p *backendtest.ExtensionPage) []string {
	t.Helper()
	var rows []string
	v, err := p.Eval(ctx, `(async () => {
		await new Promise((r) => setTimeout(r, 0));
		const box = document.getElementById("handoffs");
		if (!box.classList.contains("waiting")) return [];
		return [...document.querySelectorAll(".handoff")].map((r) => r.querySelector(".msg").textContent + (r.querySelector("button.done") ? " [Done]" : ""));
	})()`)
	if err == nil {
		err = json.Unmarshal([]byte(v), &rows)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// openPopup opens the extension's popup page and waits until its script
// has shown the status once.
func openPopup(t *testing.T, ctx context.Context, e *env) *backendtest.ExtensionPage {
	t.Helper()
	p, err := backendtest.OpenExtensionPage(ctx, e.m.Backend(), "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	var v string
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		// Errors while the page is still loading (its context replaced).
		if v, err = p.Eval(ctx, `document.readyState === "complete" && document.getElementById("version").textContent !== "?"`); err == nil && v == "true" {
			return p
		}
	}
	t.Fatalf("the popup did not load: %s %v", v, err)
	return nil
}

// untilPopup polls the popup (it refreshes every second) until want says
// its hand-off rows are right.
func untilPopup(t *testing.T, ctx context.Context, p *backendtest.ExtensionPage, what string, want func([]string) bool) []string {
	t.Helper()
	var rows []string
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if rows = popupHandoffs(t, ctx, p); want(rows) {
			return rows
		}
	}
	t.Fatalf("the popup never showed %s: it shows %q", what, rows)
	return nil
}

// A hand-off gives the tab to the user: on the bridge the extension's popup
// shows the message with a Done button, and the call ends when the until
// condition holds (the user signed in), when the user presses Done, or
// with TIMEOUT; afterwards the popup no longer lists it. A headless launched
// browser refuses (nobody could see the tab); without the extension an
// until condition is required.
func TestHandoff(t *testing.T) {
	e := newEnv(t, browser.Options{})
	kind := backendtest.Kind()
	e.navigate("/signin?case=cond")
	signIn := func(c string) {
		t.Helper()
		if err := backendtest.ActAsUser(e.ctx, e.m.Backend(), "/signin?case="+c,
			`document.getElementById("user").value = "ada"; document.querySelector("form").requestSubmit()`); err != nil {
			t.Fatal(err)
		}
	}
	until := &browser.WaitCondition{URL: "*/account*"}

	// Refused before anything happens, on every backend.
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Person().Handoff(ctx, browser.HandoffOptions{Message: " ", Until: until})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("a blank message: %v, want INVALID_ARGUMENT about the message", err)
	}

	switch kind {
	case "launch":
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Person().Handoff(ctx, browser.HandoffOptions{Message: "Sign in", Until: until})
			return err
		})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "headless") {
			t.Errorf("headless launch: %v, want a refusal naming headless", be)
		}
		return
	case "endpoint":
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Person().Handoff(ctx, browser.HandoffOptions{Message: "Sign in"})
			return err
		})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "until") {
			t.Errorf("no until without the extension: %v, want a refusal naming until", be)
		}
		ch := e.handoffCall(browser.HandoffOptions{Message: "Please sign in", Until: until, Timeout: backendtest.Timeout(30 * time.Second)})
		time.Sleep(300 * time.Millisecond) // the user takes a moment
		signIn("cond")
		o := e.handoffWait(ch)
		if o.err != nil || o.res.By != "condition" || !strings.Contains(o.res.URL, "/account?user=ada") {
			t.Fatalf("hand-off by condition: %+v, %v", o.res, o.err)
		}
		return
	}

	popup := openPopup(t, e.ctx, e)
	if rows := popupHandoffs(t, e.ctx, popup); len(rows) != 0 {
		t.Fatalf("the popup shows hand-offs before any: %q", rows)
	}

	// 1. By condition: the user signs in, the URL changes.
	ch := e.handoffCall(browser.HandoffOptions{Message: "Please sign in as Ada", Until: until, Timeout: backendtest.Timeout(30 * time.Second)})
	untilPopup(t, e.ctx, popup, "the sign-in hand-off", func(r []string) bool { return len(r) == 1 && r[0] == "Please sign in as Ada [Done]" })
	signIn("cond")
	o := e.handoffWait(ch)
	if o.err != nil {
		t.Fatalf("hand-off by condition: %v", o.err)
	}
	if o.res.By != "condition" || !strings.Contains(o.res.What, "account") || !strings.Contains(o.res.URL, "/account?user=ada") || o.res.Title != "Account" {
		t.Errorf("hand-off by condition: %+v", o.res)
	}
	untilPopup(t, e.ctx, popup, "no hand-off once the condition held", func(r []string) bool { return len(r) == 0 })

	// 2. By the popup's Done: no condition, the user says so.
	e.navigate("/signin?case=done")
	ch = e.handoffCall(browser.HandoffOptions{Message: "Solve the CAPTCHA, then press Done", Timeout: backendtest.Timeout(30 * time.Second)})
	untilPopup(t, e.ctx, popup, "the CAPTCHA hand-off", func(r []string) bool { return len(r) == 1 && strings.HasPrefix(r[0], "Solve the CAPTCHA") })
	select {
	case o := <-ch:
		t.Fatalf("the hand-off ended before Done: %+v, %v", o.res, o.err)
	default:
	}
	if _, err := popup.Eval(e.ctx, `document.querySelector("#handofflist button.done").click()`); err != nil {
		t.Fatal(err)
	}
	o = e.handoffWait(ch)
	if o.err != nil || o.res.By != "user" || !strings.Contains(o.res.URL, "/signin?case=done") {
		t.Fatalf("hand-off by Done: %+v, %v", o.res, o.err)
	}
	untilPopup(t, e.ctx, popup, "no hand-off after Done", func(r []string) bool { return len(r) == 0 })

	// 3. Timeouts, with a condition that never holds and without one; the
	// notice goes away either way.
	for _, o := range []browser.HandoffOptions{
		{Message: "Never done", Until: &browser.WaitCondition{Target: browser.Locator{Text: "Never here"}}, Timeout: 1500 * time.Millisecond},
		{Message: "Nobody presses Done", Timeout: 1500 * time.Millisecond},
	} {
		out := e.handoffWait(e.handoffCall(o))
		if be := wantCode(t, out.err, browser.CodeTimeout); be != nil && !strings.Contains(be.Hint, "browser_handoff again") {
			t.Errorf("%s: hint %q", o.Message, be.Hint)
		}
		untilPopup(t, e.ctx, popup, "no hand-off after the timeout", func(r []string) bool { return len(r) == 0 })
	}

	// The session goes on as before on the same tab.
	if got := e.eval("location.search"); got != "?case=done" {
		t.Errorf("after the hand-offs the tab is at %q", got)
	}
}

// A hand-off (or a recording's notice) that ends at once, its tab closed
// right after, leaves the extension connected: the next call works. (An
// action popup the extension opened for the notice, left open in the
// agent window as its last tab closed, took the extension's worker down.)
func TestHandoffQuickThenClose(t *testing.T) {
	if backendtest.Kind() != "bridge" {
		t.Log("only the bridge shows a notice; the other backends refuse or need until (TestHandoff)")
		return
	}
	for i := range 3 {
		e := newEnv(t, browser.Options{})
		e.navigate("/basic.html")
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Person().Handoff(ctx, browser.HandoffOptions{Message: "Quick", Timeout: 100 * time.Millisecond})
			return err
		})
		if be := wantCode(t, err, browser.CodeTimeout); be == nil {
			return
		}
		if err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) }); err != nil {
			t.Fatalf("round %d: close: %v", i, err)
		}
	}
	e := newEnv(t, browser.Options{})
	if nav := e.navigate("/basic.html"); nav.Title != "Basic page" {
		t.Errorf("after quick hand-offs: %+v", nav)
	}
}
