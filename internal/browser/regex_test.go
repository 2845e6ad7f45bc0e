package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// catastrophic is a pattern JavaScript's backtracking engine takes minutes
// over on a line of 40 a's (the page of /evil-regex).
const catastrophic = "/(a+)+b/"

// TestCatastrophicPattern: an agent regex that backtracks for minutes is
// stopped at the pattern budget, refused with INVALID_ARGUMENT naming it,
// and the tab answers the next call — for a target text, a role name, an
// expect, and browser_find (RE2 in Go: it finishes).
func TestCatastrophicPattern(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/evil-regex.html")
	within := backendtest.Timeout(6 * time.Second)
	cases := []struct {
		name string
		a    browser.Action
	}{
		{"click text", browser.Action{Kind: "click", Target: browser.Locator{Text: catastrophic}}},
		{"click role name", browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "/(a+)+b/i"}}},
		{"expect text", browser.Action{Kind: "click", Target: browser.Locator{Selector: "#go"}, Expect: &browser.Expect{Text: catastrophic}}},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := e.act(c.a)
		took := time.Since(start)
		be := wantCode(t, err, browser.CodeInvalidArgument)
		if !strings.Contains(be.Message, "/(a+)+b/") || !strings.Contains(be.Message, "catastroph") {
			t.Errorf("%s: message does not name the pattern and the cause: %s", c.name, be.Message)
		}
		if took > within {
			t.Errorf("%s: the refusal took %v", c.name, took)
		}
		e.prompt(c.name+": a snapshot after it", backendtest.Timeout(3*time.Second), func(ctx context.Context, h *browser.Held) error {

			s, err := h.Snapshot(ctx, browser.SnapshotOptions{})
			if err == nil && !strings.Contains(s.Text, "aaaa") {
				t.Errorf("snapshot:\n%s", s.Text)
			}
			return err
		})
	}
	if got := e.eval("String(window.clicks)"); got != "0" {
		t.Errorf("clicks = %s: a refused action was sent", got)
	}
	e.prompt("browser_find with the pattern", within, func(ctx context.Context, h *browser.Held) error {

		_, err := h.Find(ctx, browser.FindOptions{Text: catastrophic})
		return err
	})
	// Text the trial does not see (hidden: not in innerText) but the
	// query tests: the query's own bound stops it.
	e.navigate("/evil-hidden.html")
	start := time.Now()
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: catastrophic}})
	if be := wantCode(t, err, browser.CodeInvalidArgument); !strings.Contains(be.Message, "/(a+)+b/") {
		t.Errorf("hidden text: message does not name the pattern: %s", be.Message)
	}
	if took := time.Since(start); took > within {
		t.Errorf("hidden text: the refusal took %v", took)
	}
	e.prompt("hidden text: a snapshot after it", backendtest.Timeout(3*time.Second), func(ctx context.Context, h *browser.Held) error {

		_, err := h.Snapshot(ctx, browser.SnapshotOptions{})
		return err
	})
	e.navigate("/evil-regex.html")
	// A plain pattern still works.
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "/^go$/"}, Expect: &browser.Expect{Text: "/clicked \\d/"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ExpectMet {
		t.Errorf("expect not met: %+v", res)
	}
}

// TestCatastrophicPatternNoWorker: on a page whose CSP forbids workers the
// patterns run on the page's main thread; through a launched browser the
// evaluation is stopped there (terminateExecution) and the pattern named.
func TestCatastrophicPatternNoWorker(t *testing.T) {
	if backendtest.Kind() == "bridge" {
		t.Skip("chrome.debugger refuses Runtime.terminateExecution to extensions: without a worker, nothing stops a pattern in the page")
	}
	e := newEnv(t, browser.Options{})
	base := bigServer(t)
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, base+"/evil-csp", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: catastrophic}})
	if be := wantCode(t, err, browser.CodeInvalidArgument); !strings.Contains(be.Message, "/(a+)+b/") {
		t.Errorf("message does not name the pattern: %s", be.Message)
	}
	if took := time.Since(start); took > backendtest.Timeout(8*time.Second) {
		t.Errorf("the refusal took %v", took)
	}
	e.prompt("a snapshot after it", backendtest.Timeout(3*time.Second), func(ctx context.Context, h *browser.Held) error {

		_, err := h.Snapshot(ctx, browser.SnapshotOptions{})
		return err
	})
}
