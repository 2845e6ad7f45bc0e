package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

func (e *env) answer(accept bool) {
	e.t.Helper()
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Dialogs().Answer(ctx, accept, nil)
		return err
	})
	if err != nil {
		e.t.Fatalf("answer: %v", err)
	}
}

func (e *env) openDialog() *browser.DialogView {
	var d *browser.DialogView
	_ = e.do(func(ctx context.Context, h *browser.Held) error {
		d = h.Dialogs().Open()
		return nil
	})
	return d
}

// Dialogs that follow each other are each reported and answered, never
// lost while the page waits on one.
func TestDialogsInARow(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, page := range []string{"/twoalerts", "/alertstorm"} {
		e.navigate(page)
		res, err := e.act(browser.Action{Kind: "click", Target: sel("#b")})
		if err != nil || res.Dialog == nil {
			t.Fatalf("%s: %+v %v", page, res, err)
		}
		answered := 0
		for {
			// The next dialog opens a moment after the last is answered;
			// nothing else may touch the page meanwhile (it is blocked).
			var d *browser.DialogView
			for j := 0; j < 40 && d == nil; j++ {
				if d = e.openDialog(); d == nil {
					time.Sleep(25 * time.Millisecond)
				}
			}
			if d == nil {
				break
			}
			e.answer(true)
			answered++
		}
		if want := map[string]int{"/twoalerts": 2, "/alertstorm": 12}[page]; answered != want {
			t.Errorf("%s: answered %d dialogs, want %d", page, answered, want)
		}
		if got := e.eval(`document.title`); got != "done" {
			t.Errorf("%s: the page is stuck (title %q, dialog %+v)", page, got, e.openDialog())
		}
	}
}

// A dialog the page opens a moment after a click is reported without
// waiting out the read-back.
func TestCheckThatOpensAConfirm(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/asyncconfirm")
	start := time.Now()
	res, err := e.act(browser.Action{Kind: "check", Target: sel("#cb")})
	if err != nil || res.Dialog == nil || res.Dialog.Type != "confirm" {
		t.Fatalf("check that opens a confirm: %+v %v", res, err)
	}
	if d := time.Since(start); d > backendtest.Timeout(3*time.Second) {
		t.Errorf("took %v", d)
	}
	e.answer(true)
}

// Text inside a hidden element matches nothing, not its visible ancestor.
func TestHiddenTextIsNoTarget(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/hiddenchild")
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Cancel order"}})
	wantCode(t, err, browser.CodeTargetNotFound)
	if got := e.eval(`__log.join("|")`); got != "" {
		t.Errorf("clicked something: %q", got)
	}
}

func TestTextPatterns(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/paths")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "/api/users"}}); err != nil {
		t.Errorf("a path is plain text: %v", err)
	}
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "/save/i"}})
	wantCode(t, err, browser.CodeAmbiguousTarget)
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "/save/gi"}}) // g is no flag here: plain text
	wantCode(t, err, browser.CodeTargetNotFound)
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "/(?i)save/"}})
	wantCode(t, err, browser.CodeInvalidArgument)
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Save"}, Expect: &browser.Expect{Title: "/[/"}})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// A styled-over checkbox whose label holds a link is checked without
// following the link.
func TestLabelWithLink(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/labellink")
	res, err := e.act(browser.Action{Kind: "check", Target: sel("#cb")})
	if err != nil || res.Outcome != "verified" || res.Navigated {
		t.Fatalf("check: %+v %v", res, err)
	}
	if got := e.eval(`document.title + " " + document.getElementById("cb").checked`); got != "LL true" {
		t.Errorf("page: %q", got)
	}
	_, err = e.act(browser.Action{Kind: "uncheck", Target: sel("#cb"), InputMode: browser.InputCDP})
	wantCode(t, err, browser.CodeNotActionable)
}

// A checkbox under its own label is checked and clicked through the
// label, as a person does and as the browser forwards it (at once, not
// after the action timeout); one under another field's label is still
// covered.
func TestCheckboxUnderItsLabel(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/labelcover")
	all := browser.Locator{Role: "checkbox", Name: "Mark all as complete"}
	for _, c := range []struct {
		kind, want string
	}{{"check", "true 1"}, {"uncheck", "false 2"}} {
		res, err := e.act(browser.Action{Kind: c.kind, Target: all, Timeout: 3 * time.Second})
		if err != nil || res.Outcome != "verified" {
			t.Fatalf("%s: %+v %v", c.kind, res, err)
		}
		if got := e.eval(`document.getElementById("all").checked + " " + window.__changes`); got != c.want {
			t.Errorf("after %s: checked, changes = %q, want %q", c.kind, got, c.want)
		}
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "checkbox", Name: "Keep me signed in"}, Timeout: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`String(document.getElementById("keep").checked)`); got != "true" {
		t.Errorf("a click on a checkbox under its label: checked = %s", got)
	}
	_, err := e.act(browser.Action{Kind: "click", Target: sel("#other"), Timeout: time.Second})
	wantCode(t, err, browser.CodeNotActionable)
	if got := e.eval(`document.getElementById("other").checked + " " + document.activeElement.id`); got != "false keep" {
		t.Errorf("the covered checkbox, the focus: %q (nothing was to be clicked)", got)
	}
}

// A slider is filled with a number: a native range input takes it as a
// drag leaves it, an ARIA slider by its arrow keys; a value off its steps
// or out of its range is an error that says so.
func TestFillSlider(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/sliders")
	vol, price := browser.Locator{Role: "slider", Name: "Volume"}, browser.Locator{Role: "slider", Name: "Price"}
	res, err := e.act(browser.Action{Kind: "fill", Target: vol, Value: "7"})
	if err != nil || res.Outcome != "verified" || res.Value != "7" {
		t.Fatalf("fill the range input: %+v %v", res, err)
	}
	if got := e.eval(`window.__vol`); got != "7" {
		t.Errorf("the page's input event saw %q", got)
	}
	for _, v := range []string{"120", "35", "200"} {
		res, err = e.act(browser.Action{Kind: "fill", Target: price, Value: v})
		if err != nil || res.Outcome != "verified" || res.Value != v+" ($"+v+")" {
			t.Fatalf("fill the ARIA slider with %s: %+v %v", v, res, err)
		}
		if got := e.eval(`String(window.__price)`); got != v {
			t.Errorf("the page's slider is at %s, want %s", got, v)
		}
	}
	_, err = e.act(browser.Action{Kind: "fill", Target: price, Value: "33"})
	wantCode(t, err, browser.CodeNotActionable)
	_, err = e.act(browser.Action{Kind: "fill", Target: price, Value: "250"})
	wantCode(t, err, browser.CodeInvalidArgument)
	_, err = e.act(browser.Action{Kind: "fill", Target: vol, Value: "loud"})
	wantCode(t, err, browser.CodeInvalidArgument)
	// A slider that runs the other way (right to left) still gets there.
	res, err = e.act(browser.Action{Kind: "fill", Target: browser.Locator{Role: "slider", Name: "Discount"}, Value: "25"})
	if err != nil || res.Outcome != "verified" || res.Value != "25" {
		t.Fatalf("fill the reversed slider: %+v %v", res, err)
	}
	// type is for text: on a slider it says so, and no key goes anywhere.
	before := e.eval(`String(window.__price) + " " + window.__vol`)
	_, err = e.act(browser.Action{Kind: "type", Target: price, Value: "40"})
	wantCode(t, err, browser.CodeInvalidArgument)
	if got := e.eval(`String(window.__price) + " " + window.__vol`); got != before {
		t.Errorf("a type on the slider changed %q to %q", before, got)
	}
}

// Typing into a time field is what a person's keys do there; it has no
// caret to place, which is no error.
func TestTypeIntoTimeField(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/timefield")
	res, err := e.act(browser.Action{Kind: "type", Target: sel("#t"), Value: "0930PM"})
	if err != nil {
		t.Fatalf("type: %v", err)
	}
	if got := e.eval(`document.getElementById("t").value`); got != "21:30" || res.Value != "21:30" {
		t.Errorf("the field holds %q (result %q), want 21:30", got, res.Value)
	}
}

// press on an element that cannot take the focus sends no key anywhere.
func TestPressNeedsFocus(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/focuspress")
	if _, err := e.act(browser.Action{Kind: "focus", Target: sel("#del")}); err != nil {
		t.Fatal(err)
	}
	_, err := e.act(browser.Action{Kind: "press", Target: sel("#plain"), Key: "Enter"})
	wantCode(t, err, browser.CodeNotActionable)
	if got := e.eval(`__log.join("|")`); got != "" {
		t.Errorf("the key went to the focused button: %q", got)
	}
}

// The ref a selector match reports belongs to the page it is in.
func TestSelectorRefAfterNavigation(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/links")
	e.snapshot(browser.ModeCompact)
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#form")}); err != nil {
		t.Fatal(err)
	}
	res, err := e.act(browser.Action{Kind: "focus", Target: sel("#name")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.act(browser.Action{Kind: "focus", Target: browser.Locator{Ref: res.Ref}}); err != nil {
		t.Errorf("the reported ref %s does not work: %v", res.Ref, err)
	}
}

// A dialog in the middle of a form fill says where the fill stopped.
func TestFillFormInterruptedByDialog(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/formdialog")
	var res *browser.FormResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.FillForm(ctx, browser.FormFill{Submit: browser.SubmitForm, Fields: []browser.FormField{
			{Target: sel("#a"), Value: "one"}, {Target: sel("#s"), Value: "y"}, {Target: sel("#c"), Value: "three"}}})
		return err
	})
	if err != nil || res.Dialog == nil || res.Stopped != `selector "#s"` || len(res.Skipped) != 1 || res.Submitted {
		t.Fatalf("fill interrupted: %+v %v", res, err)
	}
	e.answer(true)
	if got := e.eval(`document.getElementById("c").value`); got != "" {
		t.Errorf("a skipped field was filled: %q", got)
	}
}
