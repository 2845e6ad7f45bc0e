package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The envelope of an input. Every action (Act) is its input inside one
// envelope, which watches what the input sets off and reports it. Before
// the input, it notes the console's and the downloads' marks and starts
// watching for a navigation and for the page to go quiet (envelop); after
// it, it waits for a navigation the input started within its window
// (navWindow), else for the page's own work to settle (the quiet wait,
// which walks the page for a snapshot that follows: the diff's prewalk),
// then reports a submit the browser's validation stopped, the expect, the
// console errors, the downloads and the new tabs (report, adoptPopups).
// A JavaScript dialog the input opens ends the envelope at once (Act).
// A form fill (fillForm) is in one envelope too: opened (open) before its
// fields are filled, its watches started (watch) at its submit.

// actor is a call's input on a tab of a held session: an action (act) is
// its input of one kind (focus, fill, pointerAction, upload…) inside the
// envelope, and a form fill (fillForm) is fills and a submit. It owns no
// state: what an input watches is the envelope's, what it changes the
// tab's; the session gives it its policy and its tabs (for popups).
type actor struct{ s *Session }

// Act runs an action in the tab, waiting (up to the action timeout) for the
// target to be actionable, then settles.
//
// An action that opens a JavaScript dialog (kept open by the ask policy)
// returns at once with the dialog in its result; while a dialog is open,
// Act reports DIALOG_OPEN.
func (h *Held) Act(ctx context.Context, a Action) (*ActionResult, error) {
	s, t := h.s, h.t
	defer t.stopIfCancelled(ctx)
	return untilDialog(ctx, t, func(ctx context.Context) (*ActionResult, error) {
		return actor{s}.act(ctx, t, a)
	}, func(res *ActionResult, d *DialogView) {
		res.Dialog, res.Outcome = d, "dispatched"
	})
}

// untilDialog runs an input (run) under a context that ends when a
// JavaScript dialog opens: a dialog open before it refuses the call
// (DIALOG_OPEN); one the input opened ends it and comes back in its result
// (opened), or, when it opened before the input was sent (the page opened
// it on its own: the input did not run), refuses the call too.
func untilDialog[R any](ctx context.Context, t *Tab, run func(ctx context.Context) (*R, error), opened func(*R, *DialogView)) (*R, error) {
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	dctx, stop := t.dialogs.until(ctx)
	defer stop()
	res, err := run(dctx)
	if errors.Is(context.Cause(dctx), errDialogOpened) {
		if d := t.dialogs.open(); d != nil {
			if res == nil {
				return nil, t.dialogs.err()
			}
			opened(res, d)
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// act is one action: its input (input) inside the envelope (envelop,
// settle, report), once the action is checked (normalize) and its target
// found (prepare).
func (ac actor) act(ctx context.Context, t *Tab, a Action) (*ActionResult, error) {
	s := ac.s
	ctx = withCallDeadline(ctx)
	// Finding the page and the element is not waiting: only the
	// actionability wait is bounded by the action timeout (ctx); the rest
	// by the call (callCtx).
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, or(a.Timeout, s.pol.opts.ActionTimeout))
	defer cancel()
	defer t.releaseObjects(ctx)
	t.view.cache = nil
	res := &ActionResult{Action: a.Kind, InputMode: "cdp", Outcome: "dispatched"}
	// The main frame is read while the element is found.
	framed := make(chan frameRead, 1)
	go func() {
		f, err := t.page.readMainFrame(callCtx)
		framed <- frameRead{f, err}
	}()
	// Popups that opened late (after the previous call) join now, and the
	// current tab is brought back to the front before input goes to it.
	ac.adoptPopups(callCtx, res)
	if err := a.normalize(); err != nil {
		return nil, err
	}
	el, before, err := ac.prepare(callCtx, t, a, res, framed)
	if err != nil {
		return nil, err
	}
	env := ac.envelop(callCtx, t, a, before)
	defer env.close()
	if err := ac.input(ctx, t, el, a, res); err != nil {
		return res, err
	}
	if err := env.settle(callCtx, res); err != nil {
		return res, err
	}
	env.report(callCtx, el, res)
	// (the action's objects are released while new tabs are looked for)
	released := make(chan struct{})
	go func() {
		defer close(released)
		t.releaseObjects(ctx)
	}()
	ac.adoptPopups(callCtx, res)
	<-released
	return res, nil
}

// normalize checks an action's kind and arguments before anything is
// read, and fills in its input mode.
func (a *Action) normalize() error {
	if a.Kind == MouseKind {
		if a.Mouse == nil || !a.Target.Empty() {
			return &Error{Code: CodeInvalidArgument, Message: "a mouse action takes a point, not a target", Hint: "use browser_mouse with x and y"}
		}
		if err := a.Mouse.check(); err != nil {
			return err
		}
		a.InputMode = InputCDP
	} else if !slices.Contains(actionKinds, a.Kind) {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown action %q", a.Kind), Hint: "use one of " + strings.Join(actionKinds, ", ")}
	}
	if a.Kind == "clear" && a.Value != "" {
		return &Error{Code: CodeInvalidArgument, Message: "clear takes no value", Hint: `use {"action":"fill","value":"…"} to replace the text`}
	}
	switch a.InputMode {
	case "":
		a.InputMode = InputAuto
	case InputAuto, InputCDP:
	case InputDOM:
		if !domKinds[a.Kind] {
			a.InputMode = InputAuto // focus, select, scroll and upload have one way only
		}
	default:
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown input_mode %q", a.InputMode), Hint: "use auto, cdp or dom"}
	}
	return nil
}

// prepare reads what an action's input needs: its expect's patterns
// checked, the target's element found (nil for the page or a point), the
// page as it is before the input (framed: the main frame, read meanwhile),
// and the guard asked.
func (ac actor) prepare(ctx context.Context, t *Tab, a Action, res *ActionResult, framed <-chan frameRead) (*element, frame, error) {
	if a.Expect != nil {
		if err := t.finder().checkPatterns(ctx, a.Expect.Text, a.Expect.URL, a.Expect.Title); err != nil {
			return nil, frame{}, err
		}
	}
	var el *element
	if a.Kind != MouseKind && (needsTarget(a.Kind) || !a.Target.Empty()) {
		var err error
		if el, err = t.finder().locateToAct(ctx, a.Target); err != nil {
			return nil, frame{}, err
		}
		res.Ref, res.MatchLevel = el.ref, el.matchLevel
	}
	fr := <-framed
	if fr.err != nil {
		return nil, frame{}, backendError("read the page", fr.err)
	}
	t.page.mainID = fr.f.ID
	res.URLBefore = fr.f.URL
	if a.Guard != nil {
		if err := t.guard(ctx, el, fr.f.URL, a.Guard); err != nil {
			return nil, frame{}, err
		}
	}
	return el, fr.f, nil
}

// input sends an action's input: the part of act inside the envelope.
func (ac actor) input(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	switch {
	case a.Kind == MouseKind:
		return ac.mouseAction(ctx, t, a.Mouse, res)
	case a.InputMode == InputDOM && a.Kind != "check" && a.Kind != "uncheck":
		return ac.domAction(ctx, t, el, a, res)
	}
	switch a.Kind {
	case "click", "dblclick", "right_click", "hover":
		return ac.pointerAction(ctx, t, el, a, res)
	case "focus":
		return ac.focus(ctx, t, el, a, res)
	case "check", "uncheck":
		return ac.check(ctx, t, el, a, res)
	case "fill", "clear":
		return ac.fill(ctx, t, el, a, res)
	case "select":
		return ac.selectOptions(ctx, t, el, a, res)
	case "type":
		return ac.typeText(ctx, t, el, a, res)
	case "press":
		return ac.press(ctx, t, el, a)
	case "scroll":
		return ac.scroll(ctx, t, el, a, res)
	case "upload":
		return ac.upload(ctx, t, el, a, res)
	case "drag":
		return ac.drag(ctx, t, el, a, res)
	}
	return nil
}

// envelope is what watches one action's input (act), or a form's fills
// and submit (fillForm): the page before it, the console's and the
// downloads' marks, the navigation watch and the quiet wait (the tab's
// settling while the input runs).
type envelope struct {
	s                  *Session
	t                  *Tab
	a                  Action
	before             frame
	console, downloads int
	nav                *navWatch
	quiet              *quietWatch // nil: nothing is waited for (watch)
}

// envelop starts watching what an action's input is about to set off
// (open, then watch with the quiet wait). Close it when the action ends.
func (ac actor) envelop(ctx context.Context, t *Tab, a Action, before frame) *envelope {
	e := ac.open(t, a, before)
	e.watch(ctx, true)
	return e
}

// open starts an envelope at the console's and the downloads' marks: what
// the page logs and downloads from here on is reported (report). Its
// watches start with watch, right before the input they follow. Close it
// when the call ends. A walk taken before (quietWatch.walk) no longer
// stands for the page: what the input changes (a field's value) may not
// show as a mutation.
func (ac actor) open(t *Tab, a Action, before frame) *envelope {
	t.view.prewalk, t.view.waitHuman = nil, nil
	return &envelope{s: ac.s, t: t, a: a, before: before, console: t.console.mark(), downloads: t.downloads.mark()}
}

// watch starts watching for a navigation and, with quiet, for the page to
// go quiet after the input (the wait settle runs). Without quiet, settle
// only reads where the page is: no navigation window, no quiet wait.
func (e *envelope) watch(ctx context.Context, quiet bool) {
	t, a := e.t, e.a
	e.nav = t.watchNavigation()
	if !quiet {
		return
	}
	if e.quiet = t.newQuietWatch(e.before.ID); !aimsFirst(a) {
		e.quiet.markNow(ctx) // (a pointer input's aim marks it)
	}
	e.quiet.walk = a.SnapshotNext
	t.settling = e.quiet
}

// close stops the envelope's watches.
func (e *envelope) close() {
	e.t.settling = nil
	if e.quiet != nil {
		e.quiet.join()
	}
	if e.nav != nil {
		e.nav.stop()
	}
	e.t.downloads.end(e.downloads)
}

// settle waits, once the input was sent, for a navigation it started
// within its window (settle), else for the page's own work (requests, DOM
// changes, animations) to settle, whose last check says where the page is
// (it may have moved by pushState, or retitled itself).
//
// An envelope that waits for nothing (watch without quiet: a form filled
// and not submitted) only reads where the page is, once a navigation
// already under way has loaded.
func (e *envelope) settle(ctx context.Context, res *ActionResult) error {
	s, t, q, w, before := e.s, e.t, e.quiet, e.nav, e.before
	if q == nil {
		return actor{s}.settle(ctx, t, w, before, res, 0, false, nil)
	}
	q.inputDone()
	window := navWindow(e.a, res)
	var drawn <-chan bool
	if window > 0 {
		// The quiet wait's first check, which waits for the page's next
		// frame, runs now: it can end the navigation window early. It
		// walks the page too when a snapshot follows (thrown away if the
		// input loaded a new document).
		drawn = q.readAhead(ctx, true)
	}
	if err := (actor{s}).settle(ctx, t, w, before, res, window, true, drawn); err != nil || res.Navigated {
		return err
	}
	qr := q.wait(ctx)
	t.view.prewalk = q.walkedAfter()
	t.view.waitHuman = nil
	if qr.humanRead {
		t.view.waitHuman = &qr.human
	}
	if drawn != nil && w.navigationStarted(ctx, before.ID, 0, nil) {
		// The window ended at the page's next frame; a navigation a
		// script started later, while the wait ran, is waited for too
		// (and the walk taken during the wait is of the page it left).
		t.view.prewalk, t.view.waitHuman = nil, nil
		return actor{s}.settled(ctx, t, w, before, res, true, false)
	}
	res.addBusy(qr.busy)
	if url, title, err := t.locationAfter(ctx, qr); err == nil {
		res.URL, res.Title = url, title
		res.Navigated = res.URL != res.URLBefore
	}
	return nil
}

// report adds to the result what the input did beside its page: a submit
// the browser's validation stopped (on el), the expect, the console errors
// and the downloads.
func (e *envelope) report(ctx context.Context, el *element, res *ActionResult) {
	if res.submitBlocked && !res.Navigated {
		e.noteBlockedSubmit(ctx, el, res)
	}
	if e.a.Expect != nil {
		actor{e.s}.expect(ctx, e.t, e.a, res)
	}
	res.ConsoleErrors, res.ConsoleErrorCount = e.t.console.errorsSince(e.console, 5)
	e.t.downloads.await(ctx, e.nav.downloadsBegun())
	res.Downloads = e.t.downloads.since(ctx, e.downloads)
}

// adoptPopups adds to the result the tabs the session's pages opened that
// joined the session (adoptLatePopups: the tab list is read only when a
// page asked for a window).
func (ac actor) adoptPopups(ctx context.Context, res *ActionResult) {
	s := ac.s
	if adopted, err := s.tabs.adoptLatePopups(ctx); err == nil {
		res.NewTabs = append(res.NewTabs, adopted...)
	}
}

// guard asks g about the document el is in (pageURL without an element):
// where a typed value would go.
func (t *Tab) guard(ctx context.Context, el *element, pageURL string, g func(string) error) error {
	doc := pageURL
	if el != nil {
		if err := t.callEl(ctx, el, "function(){ return this.ownerDocument.location.href }", &doc); err != nil {
			return backendError("read the field's page", err)
		}
	}
	return g(doc)
}

// blockedSubmitJS lists, for a submit button of a form the browser
// validates, the fields that stop the submit: role and name as the walker
// gives them, and the browser's validation message. Reading validity fires
// no invalid event.
const blockedSubmitJS = `function(){
  const f=this.form;
  const submit=(this.tagName==="BUTTON"&&this.type==="submit")||(this.tagName==="INPUT"&&/^(submit|image)$/i.test(this.type));
  if(!submit||!f||f.noValidate||this.formNoValidate) return [];
  const W=globalThis.__webpilot, out=[], groups=new Set();
  for(const x of f.elements){
    if(!x.willValidate||x.validity.valid) continue;
    if(x.type==="radio"&&x.name){ if(groups.has(x.name)) continue; groups.add(x.name); } // a radio group counts once
    const h=W?W.hit(x):{r:x.tagName.toLowerCase(),n:x.name||""};
    out.push({r:h.r,n:h.n,m:x.validationMessage});
    if(out.length>=5) break;
  }
  return out;
}`

// invalidField is a field that stops a submit: role, name and the
// browser's validation message.
type invalidField struct {
	R string `json:"r"`
	N string `json:"n"`
	M string `json:"m"`
}

// blockedSubmit lists the fields that stop el's submit (blockedSubmitJS);
// none when el is no submit button of a validated form, or the check fails.
func (e *envelope) blockedSubmit(ctx context.Context, el *element) []invalidField {
	t := e.t
	if !el.maybe("button", "input") {
		return nil
	}
	cctx, cancel := checkContext(ctx)
	defer cancel()
	var bad []invalidField
	if err := t.callEl(cctx, el, blockedSubmitJS, &bad); err != nil {
		return nil
	}
	return bad
}

// noteBlockedSubmit says, after a click on a submit button that changed
// no page, that the browser's own validation stopped the submit, and
// where.
func (e *envelope) noteBlockedSubmit(ctx context.Context, el *element, res *ActionResult) {
	bad := e.blockedSubmit(ctx, el)
	if len(bad) == 0 {
		return
	}
	parts := make([]string, len(bad))
	for i, b := range bad {
		parts[i] = fmt.Sprintf("%s %q: %s", b.R, b.N, b.M)
	}
	if res.Note != "" {
		res.Note += "; "
	}
	res.Note += "the form did not submit: the browser's validation stopped it at " + strings.Join(parts, "; ")
}

// addBusy records that the wait after the input hit a bound.
func (res *ActionResult) addBusy(busy string) {
	if busy == "" {
		return
	}
	res.Busy = busy
	if res.Note != "" {
		res.Note += "; "
	}
	res.Note += busy
}

// navWindow is how long after an action a navigation it started is looked
// for: settleWindow after input that can start one (clicks, keys, choices
// that fire change), none after input that cannot (hover, focus, scrolling,
// and fill, clear or type without a line break, which fire input events
// but no change, no Enter).
func navWindow(a Action, res *ActionResult) time.Duration {
	if res.changed {
		return settleWindow
	}
	switch a.Kind {
	case "hover", "focus", "scroll", "fill", "clear":
		return 0
	case MouseKind:
		if a.Mouse.Action == "move" || a.Mouse.Action == "wheel" {
			return 0
		}
	case "type":
		if !strings.ContainsAny(a.Value, "\n\r") {
			return 0
		}
	}
	return settleWindow
}

// settle waits briefly for a cross-document navigation the action may have
// started; if one started, it waits (bounded by the navigation timeout and
// the call's own deadline) until it loads or stops without a document. Then
// it notes where the page is. A navigation that does not finish in time is
// OUTCOME_UNKNOWN: the action happened, what it did is not known.
//
// With quietNext, the caller waits for the page to go quiet next, and the
// last check of that wait reads where the page is (quietWatch): settle
// then reads it only after a navigation.
//
// drawn, when not nil, ends the window early (navWatch.navigationStarted).
func (ac actor) settle(ctx context.Context, t *Tab, w *navWatch, before frame, res *ActionResult, window time.Duration, quietNext bool, drawn <-chan bool) error {
	return ac.settled(ctx, t, w, before, res, w.navigationStarted(ctx, before.ID, window, drawn), quietNext)
}

// settled is settle once it is known whether a navigation started.
func (ac actor) settled(ctx context.Context, t *Tab, w *navWatch, before frame, res *ActionResult, started, quietNext bool) error {
	s := ac.s
	if started {
		nctx, cancel := context.WithTimeout(ctx, s.pol.opts.NavTimeout)
		_, err := w.waitSettled(nctx, before.ID, before.LoaderID)
		cancel()
		if blocked := t.notes.lastBlocked(); blocked != "" {
			return blockedError(blocked)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return &Error{Code: CodeOutcomeUnknown, Message: fmt.Sprintf("the %s was sent and started a navigation that did not finish loading within %v", res.Action, s.pol.opts.NavTimeout),
				Hint: "take a browser_snapshot to see where the page is before doing it again: webpilot never repeats it", Err: err}
		}
	}
	if !started && quietNext {
		res.URL = res.URLBefore
		return nil
	}
	lctx, cancel := beyondContext(ctx, handleTimeout)
	defer cancel()
	url, title, err := t.location(lctx)
	if err == nil {
		res.URL, res.Title = url, title
	}
	res.Navigated = res.URL != res.URLBefore
	return nil
}
