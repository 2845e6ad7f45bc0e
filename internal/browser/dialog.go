package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

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

// dialogState is a tab's dialogs feature: the JavaScript dialog open in
// the page (policy ask), which its loop notes or answers by the policy.
type dialogState struct {
	policy string // DialogAsk, DialogAccept or DialogDismiss (set before the loop starts)

	mu sync.Mutex
	// cur is the dialog open in the page, and gen counts the dialogs
	// opened; signalled says the calls under way were ended for it
	// (until), until it closes.
	cur       *dialogEvent
	gen       int
	signalled bool
	waiting   callWatch
}

func newDialogState() *dialogState {
	return &dialogState{policy: DialogAsk}
}

// The events the dialogs follow.
const (
	evDialogOpening = "Page.javascriptDialogOpening"
	evDialogClosed  = "Page.javascriptDialogClosed"
)

func (d *dialogState) events() []string { return []string{evDialogOpening, evDialogClosed} }

func (d *dialogState) apply(g *loop, ev cdp.Event) {
	switch ev.Method {
	case evDialogOpening:
		d.onOpening(g, ev.Params)
	case evDialogClosed:
		d.onClosed()
	}
}

type dialogEvent struct {
	URL           string `json:"url"`
	Message       string `json:"message"`
	Type          string `json:"type"`
	DefaultPrompt string `json:"defaultPrompt"`
}

// onOpening handles a dialog that opened, by the tab's dialog policy:
// accept or dismiss it at once (a worker) and note that for the next
// result, or (ask) keep it open for browser_dialog and wake the call
// waiting on the page.
func (d *dialogState) onOpening(g *loop, raw jsonv2.Value) {
	var ev dialogEvent
	if err := jsonv2.Unmarshal(raw, &ev); err != nil {
		return
	}
	ev.Message = shorten(clean(ev.Message), 500)
	if d.policy == DialogAsk {
		d.mu.Lock()
		d.cur = &ev
		d.gen++
		if !d.signalled {
			d.signalled = true
			d.waiting.end(errDialogOpened)
		}
		d.mu.Unlock()
		return
	}
	accept := d.policy == DialogAccept || ev.Type == "alert"
	p := map[string]any{"accept": accept}
	if accept && ev.Type == "prompt" {
		p["promptText"] = ev.DefaultPrompt
	}
	policy := d.policy
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		err := g.Call(ctx, "Page.handleJavaScriptDialog", p, nil)
		verb := "dismissed"
		if accept {
			verb = "accepted"
		}
		note := fmt.Sprintf("a %s dialog said %s; webpilot %s it (--dialog-policy %s)", ev.Type, quote(shorten(ev.Message, 200)), verb, policy)
		if err != nil {
			note = fmt.Sprintf("a %s dialog said %s and could not be answered: %v", ev.Type, quote(shorten(ev.Message, 200)), err)
		}
		g.tab.notes.add(note)
	})
}

// onClosed clears the open dialog when it was answered some other way
// (by the user, or by the page going away).
func (d *dialogState) onClosed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearLocked()
}

// clearLocked forgets the open dialog; d.mu is held.
func (d *dialogState) clearLocked() {
	d.cur = nil
	d.signalled = false
}

// open returns the dialog open in the tab, if any.
func (d *dialogState) open() *DialogView {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur == nil {
		return nil
	}
	c := d.cur
	return &DialogView{Type: c.Type, Message: c.Message, DefaultPrompt: c.DefaultPrompt, URL: c.URL}
}

// err is the DIALOG_OPEN error for a call made while a dialog is open in
// the tab, or nil when none is.
func (d *dialogState) err() error {
	v := d.open()
	if v == nil {
		return nil
	}
	return &Error{Code: CodeDialogOpen, Message: fmt.Sprintf("a %s dialog is open: %s", v.Type, quote(v.Message)),
		Hint:      dialogHint(v),
		Diagnosis: map[string]any{"dialog": v}}
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

// until returns a context that ends (with cause errDialogOpened) when a
// dialog opens in the tab: input that opens one does not return until it
// is answered, and the call must not wait for that.
func (d *dialogState) until(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.signalled {
		cancel(errDialogOpened)
		return ctx, func() { cancel(nil) }
	}
	stop := d.waiting.add(cancel)
	return ctx, func() {
		d.mu.Lock()
		stop()
		d.mu.Unlock()
		cancel(nil)
	}
}

// callWatch are the calls under way that an event the loop takes ends (a
// dialog opening, the page crashing), each by its context's cancel:
// watching takes no goroutine. Its owner's mutex guards it.
type callWatch map[*context.CancelCauseFunc]bool

// add watches for the call whose context cancel ends; the function
// returned stops watching.
func (w *callWatch) add(cancel context.CancelCauseFunc) func() {
	if *w == nil {
		*w = callWatch{}
	}
	key := &cancel
	(*w)[key] = true
	return func() { delete(*w, key) }
}

// end ends the calls watched, with cause, and forgets them.
func (w *callWatch) end(cause error) {
	for cancel := range *w {
		(*cancel)(cause)
	}
	*w = nil
}

// Dialogs are the held tab's JavaScript dialogs (browser_dialog).
type Dialogs struct{ h *Held }

// Open returns the dialog open in the tab, if any.
func (ds Dialogs) Open() *DialogView { return ds.h.t.dialogs.open() }

// Answer accepts (with text for a prompt) or dismisses the dialog open in
// the tab.
func (ds Dialogs) Answer(ctx context.Context, accept bool, text *string) (*DialogView, error) {
	t := ds.h.t
	t.dialogs.mu.Lock()
	gen := t.dialogs.gen
	t.dialogs.mu.Unlock()
	d := t.dialogs.open()
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
			t.dialogs.answered(gen) // closed meanwhile (by the user or the page)
			return nil, &Error{Code: CodeInvalidArgument, Message: "the dialog closed before it was answered", Hint: "take a browser_snapshot to see the page"}
		}
		return nil, backendError("answer the dialog", err)
	}
	t.dialogs.answered(gen)
	return d, nil
}

// answered forgets the dialog of generation gen, unless the page opened
// another since (whose opening the loop has recorded already).
func (d *dialogState) answered(gen int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gen == gen {
		d.clearLocked()
	}
}

// untilAnswered runs fn on the page unless a dialog is open, and stops it
// when one opens (a dialog blocks the page until answered): the call then
// reports DIALOG_OPEN with the dialog's text.
func untilAnswered[T any](ctx context.Context, t *Tab, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := t.dialogs.err(); err != nil {
		return zero, err
	}
	dctx, stop := t.dialogs.until(ctx)
	defer stop()
	res, err := fn(dctx)
	if errors.Is(context.Cause(dctx), errDialogOpened) {
		if derr := t.dialogs.err(); derr != nil {
			return zero, derr
		}
	}
	return res, err
}
