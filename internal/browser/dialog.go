package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Dialog policies: what happens to a JavaScript dialog (alert, confirm,
// prompt, beforeunload) without the agent.
const (
	// DialogAsk keeps it open: every call on the tab reports DIALOG_OPEN
	// until browser_dialog answers it.
	DialogAsk = "ask"
	// DialogAccept accepts it at once (a prompt gets its default text).
	DialogAccept = "accept"
	// DialogDismiss dismisses it at once (an alert is accepted: it has
	// only OK).
	DialogDismiss = "dismiss"
)

// DialogPolicies lists the valid dialog policies.
var DialogPolicies = []string{DialogAsk, DialogAccept, DialogDismiss}

// DialogView describes an open dialog.
type DialogView struct {
	Type          string `json:"type"` // alert, confirm, prompt, beforeunload
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
	URL           string `json:"url,omitempty"`
}

// errDialogOpened cancels a call whose page opened a dialog.
var errDialogOpened = errors.New("a JavaScript dialog opened")

// OpenDialog returns the dialog open in the tab, if any.
func (t *Tab) OpenDialog() *DialogView {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dialog == nil {
		return nil
	}
	d := t.dialog
	return &DialogView{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt, URL: d.URL}
}

// DialogError is the DIALOG_OPEN error for a call made while a dialog is
// open in the tab, or nil when none is.
func (t *Tab) DialogError() error {
	d := t.OpenDialog()
	if d == nil {
		return nil
	}
	return &Error{Code: CodeDialogOpen, Message: fmt.Sprintf("a %s dialog is open: %s", d.Type, quote(d.Message)),
		Hint:      dialogHint(d),
		Diagnosis: map[string]any{"dialog": d}}
}

func dialogHint(d *DialogView) string {
	switch d.Type {
	case "beforeunload":
		return `the page asks before leaving: browser_dialog {"action":"accept"} leaves, {"action":"dismiss"} stays`
	case "prompt":
		return `answer it with browser_dialog {"action":"accept","text":"…"} or {"action":"dismiss"}`
	case "confirm":
		return `answer it with browser_dialog {"action":"accept"} (OK) or {"action":"dismiss"} (Cancel)`
	}
	return `close it with browser_dialog {"action":"accept"}`
}

// untilDialog returns a context that ends (with cause errDialogOpened) when
// a dialog opens in the tab: input that opens one does not return until it
// is answered, and the call must not wait for that.
func (t *Tab) untilDialog(ctx context.Context) (context.Context, context.CancelFunc) {
	t.mu.Lock()
	opened := t.dialogOpened
	t.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-opened:
			cancel(errDialogOpened)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// AnswerDialog accepts (with text for a prompt) or dismisses the dialog
// open in the tab.
func (h *Held) AnswerDialog(ctx context.Context, accept bool, text *string) (*DialogView, error) {
	t := h.t
	t.mu.Lock()
	gen := t.dialogGen
	t.mu.Unlock()
	d := t.OpenDialog()
	if d == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "no dialog is open in this tab",
			Hint: "a dialog already answered (or closed by the page) needs nothing more; take a browser_snapshot"}
	}
	if text != nil && d.Type != "prompt" {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("text is only for a prompt; this is a %s dialog", d.Type), Hint: "omit text"}
	}
	p := map[string]any{"accept": accept}
	if accept && d.Type == "prompt" {
		p["promptText"] = d.DefaultPrompt
		if text != nil {
			p["promptText"] = *text
		}
	}
	if err := t.page.Call(ctx, "Page.handleJavaScriptDialog", p, nil); err != nil {
		if cdp.Classify(err) == cdp.FaultNoDialog {
			t.answered(gen) // closed meanwhile (by the user or the page)
			return nil, &Error{Code: CodeInvalidArgument, Message: "the dialog closed before it was answered", Hint: "take a browser_snapshot to see the page"}
		}
		return nil, backendError("answer the dialog", err)
	}
	t.answered(gen)
	return d, nil
}

// answered forgets the dialog of generation gen, unless the page opened
// another since (whose opening the watcher has recorded already).
func (t *Tab) answered(gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dialogGen == gen {
		t.clearDialogLocked()
	}
}

// untilAnswered runs fn on the page unless a dialog is open, and stops it
// when one opens (a dialog blocks the page until answered): the call then
// reports DIALOG_OPEN with the dialog's text.
func untilAnswered[T any](ctx context.Context, t *Tab, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := t.DialogError(); err != nil {
		return zero, err
	}
	dctx, stop := t.untilDialog(ctx)
	defer stop()
	res, err := fn(dctx)
	if errors.Is(context.Cause(dctx), errDialogOpened) {
		if derr := t.DialogError(); derr != nil {
			return zero, derr
		}
	}
	return res, err
}
