package browser

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// Action is one thing to do to the page.
type Action struct {
	Kind      string   // one of actionKinds
	Target    Locator  // needed except by type, press and scroll
	Value     string   // fill, type; select (one value)
	Values    []string // select: option values or labels
	Key       string   // press: "Enter", "Control+A", …
	Direction string   // scroll: up, down, left, right, top, bottom
	Files     []string // upload: paths inside the upload roots
	To        Locator  // drag: the drop target
	Roots     []string // upload: more directories files may come from (the client's roots)
	Expect    *Expect  // what should hold after the action
	InputMode string   // InputAuto (default), InputCDP or InputDOM
	// Timeout bounds the wait for actionability (0: the action timeout).
	Timeout time.Duration
	// Guard, when set, is asked with the URL of the document the value goes
	// to (the target's frame; the page without a target) before any input:
	// a secret limited to origins refuses the others.
	Guard func(docURL string) error
	// SnapshotNext says a snapshot of the whole page follows the action:
	// the page is walked while its DOM changes settle, and the snapshot
	// takes that walk when the page has not changed since.
	SnapshotNext bool
	// Mouse is the gesture of kind MouseKind (browser_mouse).
	Mouse *MouseInput
}

// ActionResult says what ran and what changed.
type ActionResult struct {
	Action     string `json:"action"`
	Ref        string `json:"ref,omitempty"`
	MatchLevel string `json:"match_level,omitempty"`
	Outcome    string `json:"outcome"` // verified or dispatched
	InputMode  string `json:"input_mode"`
	Value      string `json:"value,omitempty"` // read back after fill/type
	URLBefore  string `json:"url_before,omitempty"`
	URL        string `json:"url"`
	Title      string `json:"title"`
	Navigated  bool   `json:"navigated,omitempty"`
	Scrolled   bool   `json:"scrolled,omitempty"`
	// Point is what was at a mouse gesture's point (MouseKind).
	Point *PointHit `json:"point,omitempty"`
	Note  string    `json:"note,omitempty"`
	// Busy says the wait after the input ended at a bound, and what was
	// still going on then (requests, animations, DOM changes); it is in
	// Note too.
	Busy string `json:"busy,omitempty"`
	// ExpectMet and ExpectFailed report the action's expect: met, or what
	// did not hold.
	ExpectMet    bool   `json:"expect_met,omitempty"`
	ExpectFailed string `json:"expect_failed,omitempty"`
	// Dialog is the JavaScript dialog the action opened, waiting for
	// browser_dialog.
	Dialog *DialogView `json:"dialog,omitempty"`

	changed bool // the action fired a change event (which may navigate)
	// Downloads are the files the action started downloading, as they
	// are once finished (or after a short wait).
	Downloads []Download `json:"downloads,omitempty"`
	// ConsoleErrors are errors and uncaught exceptions the page logged
	// during the action (up to 5; ConsoleErrorCount says how many).
	ConsoleErrors     []ConsoleEntry `json:"console_errors,omitempty"`
	ConsoleErrorCount int            `json:"console_error_count,omitempty"`
	// NewTabs are tabs the action opened (popups, target=_blank links);
	// they joined the session.
	NewTabs []TabView `json:"new_tabs,omitempty"`
}

// pollInterval spaces actionability checks while auto-waiting.
const pollInterval = 50 * time.Millisecond

// settleWindow is how long after an action a cross-document navigation may
// start and still be waited for. Clicks on links and form submits start
// theirs while the input is handled, well inside it.
const settleWindow = 60 * time.Millisecond

// Act runs an action in the tab, waiting (up to the action timeout) for the
// target to be actionable, then settles.
//
// An action that opens a JavaScript dialog (kept open by the ask policy)
// returns at once with the dialog in its result; while a dialog is open,
// Act reports DIALOG_OPEN.
func (h *Held) Act(ctx context.Context, a Action) (*ActionResult, error) {
	s, t := h.s, h.t
	defer t.stopIfCancelled(ctx)
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	dctx, stop := t.dialogs.until(ctx)
	defer stop()
	res, err := s.act(dctx, t, a)
	if errors.Is(context.Cause(dctx), errDialogOpened) {
		if d := t.dialogs.open(); d != nil {
			if res == nil {
				// It opened before the action's input was sent (the page
				// opened it on its own): the action did not run.
				return nil, t.dialogs.err()
			}
			res.Dialog, res.Outcome = d, "dispatched"
			return res, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
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

func (s *Session) act(ctx context.Context, t *Tab, a Action) (*ActionResult, error) {
	ctx = withCallDeadline(ctx)
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, or(a.Timeout, s.pol.opts.ActionTimeout))
	defer cancel()
	defer t.releaseObjects(ctx)
	t.cache = nil

	res := &ActionResult{Action: a.Kind, InputMode: "cdp", Outcome: "dispatched"}
	// Finding the page and the element is not waiting: only the
	// actionability wait below is bounded by the action timeout. The main
	// frame is read while the element is found.
	framed := make(chan frameRead, 1)
	go func() {
		f, err := t.readMainFrame(callCtx)
		framed <- frameRead{f, err}
	}()
	// Popups that opened late (after the previous call) join now, and the
	// current tab is brought back to the front before input goes to it;
	// the tab list is read for them only when a page asked for a window.
	if adopted, err := s.adoptLatePopups(callCtx); err == nil {
		res.NewTabs = append(res.NewTabs, adopted...)
	}

	if a.Kind == MouseKind {
		if a.Mouse == nil || !a.Target.Empty() {
			return nil, &Error{Code: CodeInvalidArgument, Message: "a mouse action takes a point, not a target", Hint: "use browser_mouse with x and y"}
		}
		if err := a.Mouse.check(); err != nil {
			return nil, err
		}
		a.InputMode = InputCDP
	} else if !slices.Contains(actionKinds, a.Kind) {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown action %q", a.Kind), Hint: "use one of " + strings.Join(actionKinds, ", ")}
	}
	if a.Kind == "clear" && a.Value != "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: "clear takes no value", Hint: `use {"action":"fill","value":"…"} to replace the text`}
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
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown input_mode %q", a.InputMode), Hint: "use auto, cdp or dom"}
	}
	if a.Expect != nil {
		if err := t.checkPatterns(callCtx, a.Expect.Text, a.Expect.URL, a.Expect.Title); err != nil {
			return nil, err
		}
	}
	var el *element
	var err error
	if a.Kind != MouseKind && (needsTarget(a.Kind) || !a.Target.Empty()) {
		el, err = t.locate(callCtx, a.Target)
		if err != nil {
			return nil, err
		}
		res.Ref, res.MatchLevel = el.ref, el.matchLevel
	}
	fr := <-framed
	if fr.err != nil {
		return nil, backendError("read the page", fr.err)
	}
	before := fr.f
	t.mainID = before.ID
	res.URLBefore = before.URL
	if a.Guard != nil {
		if err := t.guard(callCtx, el, before.URL, a.Guard); err != nil {
			return nil, err
		}
	}

	// A submit the browser's validation will stop: known before the click,
	// so that a form a script submits and then resets (emptying a required
	// field) is not taken for one.
	blockedBefore := a.Kind == "click" && el != nil && a.InputMode != InputDOM && len(t.blockedSubmit(callCtx, el)) > 0
	mark, dmark := t.console.mark(), t.downloads.mark()
	defer t.downloads.end(dmark)
	w := t.watchNavigation()
	defer w.stop()
	q := t.watchQuiet(callCtx, before.ID)
	q.walk = a.SnapshotNext
	t.settling = q
	defer func() { t.settling = nil; q.join() }()
	switch {
	case a.Kind == MouseKind:
		err = s.mouseAction(ctx, t, a.Mouse, res)
	case a.InputMode == InputDOM && a.Kind != "check" && a.Kind != "uncheck":
		err = s.domAction(ctx, t, el, a, res)
	case a.Kind == "click" || a.Kind == "dblclick" || a.Kind == "right_click" || a.Kind == "hover":
		err = s.pointerAction(ctx, t, el, a, res)
	default:
		err = s.runKind(ctx, t, el, a, res)
	}
	if err != nil {
		return res, err
	}
	q.inputDone()
	window := navWindow(a, res)
	var drawn <-chan bool
	if window > 0 {
		// The quiet wait's first check, which waits for the page's next
		// frame, runs now: it can end the navigation window early.
		drawn = q.readAhead(callCtx, false)
	}
	if err := s.settle(callCtx, t, w, before, res, window, true, drawn); err != nil {
		return res, err
	}
	if !res.Navigated {
		// No new document: the page's own work (requests, DOM changes,
		// animations) is given a moment, and its last check says where
		// the page is (it may have moved by pushState, or retitled itself).
		qr := q.wait(callCtx)
		t.prewalk = q.walkedAfter()
		if drawn != nil && w.navigationStarted(callCtx, before.ID, 0, nil) {
			// The window ended at the page's next frame; a navigation a
			// script started later, while the wait ran, is waited for too.
			if err := s.settled(callCtx, t, w, before, res, true, false); err != nil {
				return res, err
			}
		} else {
			res.addBusy(qr.busy)
			if url, title, err := t.locationAfter(callCtx, qr); err == nil {
				res.URL, res.Title = url, title
				res.Navigated = res.URL != res.URLBefore
			}
		}
	}
	if blockedBefore && !res.Navigated {
		t.noteBlockedSubmit(callCtx, el, res)
	}
	if a.Expect != nil {
		s.expect(callCtx, t, a, res)
	}
	res.ConsoleErrors, res.ConsoleErrorCount = t.console.errorsSince(mark, 5)
	t.downloads.await(callCtx, w.downloadsBegun())
	res.Downloads = t.downloads.since(callCtx, dmark)
	// (the action's objects are released while new tabs are looked for)
	released := make(chan struct{})
	go func() {
		defer close(released)
		t.releaseObjects(ctx)
	}()
	if adopted, err := s.AdoptPopups(callCtx); err == nil {
		res.NewTabs = append(res.NewTabs, adopted...)
	}
	<-released
	return res, nil
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
func (t *Tab) blockedSubmit(ctx context.Context, el *element) []invalidField {
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
func (t *Tab) noteBlockedSubmit(ctx context.Context, el *element, res *ActionResult) {
	bad := t.blockedSubmit(ctx, el)
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

// runKind runs the action kinds without a DOM form in act's switch.
func (s *Session) runKind(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	var err error
	switch a.Kind {
	case "focus":
		err = s.focus(ctx, t, el, a, res)
	case "check", "uncheck":
		err = s.check(ctx, t, el, a, res)
	case "fill", "clear":
		err = s.fill(ctx, t, el, a, res)
	case "select":
		err = s.selectOptions(ctx, t, el, a, res)
	case "type":
		err = s.typeText(ctx, t, el, a, res)
	case "press":
		err = s.press(ctx, t, el, a)
	case "scroll":
		err = s.scroll(ctx, t, el, a, res)
	case "upload":
		err = s.upload(ctx, t, el, a, res)
	case "drag":
		err = s.drag(ctx, t, el, a, res)
	}
	return err
}

// pointerAction runs a pointer action with trusted input; in auto mode an
// element the pointer cannot reach because it is not visible gets DOM
// events instead, and the result says so.
func (s *Session) pointerAction(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	if a.InputMode == InputDOM {
		return s.domAction(ctx, t, el, a, res)
	}
	if a.Kind == "click" {
		// A checkbox or radio drawn over by its label: a user clicks the
		// label, unless the label holds a link or another control, whose
		// click would do something else.
		lbl, busy, lerr := t.visibleLabel(ctx, el)
		switch {
		case lerr != nil:
		case lbl != nil:
			if err := s.pointer(ctx, t, lbl, a); err != nil {
				return err
			}
			res.Note = "the control is drawn over by its label; clicked the label"
			return nil
		case busy && a.InputMode == InputAuto:
			if err := s.domAction(ctx, t, el, a, res); err != nil {
				return err
			}
			res.Note = "the control is drawn over by a label that holds a link or control, so a DOM click was sent to the control"
			return nil
		case busy:
			return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s is drawn over by a label that holds a link or control", a.Target.Describe()),
				Hint: "use input_mode dom (or auto) to click the control itself", Diagnosis: map[string]any{"failed_check": "visible"}}
		}
	}
	err := s.pointer(ctx, t, el, a)
	if a.InputMode == InputAuto && failedCheck(err) == "visible" {
		// The wait used the action's time: the DOM events get their own.
		cctx, cancel := checkContext(ctx)
		defer cancel()
		if err := s.domAction(cctx, t, el, a, res); err != nil {
			return err
		}
		res.Note = "the element is not visible to the pointer, so DOM events were sent instead of trusted input"
		return nil
	}
	return err
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

// failedCheck is the actionability check an error names, if any.
func failedCheck(err error) string {
	var we *Error
	if errors.As(err, &we) && we.Code == CodeNotActionable && we.Diagnosis != nil {
		c, _ := we.Diagnosis["failed_check"].(string)
		return c
	}
	return ""
}

// checkContext bounds one page-side check: it outlives the action's own
// deadline by up to handleTimeout (never past the call's), so the last
// check always completes.
// A dialog opening still ends it: the page answers nothing until the
// dialog is.
func checkContext(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := beyondContext(ctx, handleTimeout)
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(context.Cause(ctx), errDialogOpened) {
			cancel()
		}
	})
	return c, func() { stop(); cancel() }
}

// actionableJS is the page-side check before pointer input: the element is
// attached, visible, enabled, and receives events at its centre.
const actionableJS = `async function(afterFrame){
  // The second look comes a frame later: a box moved by a transition or an
  // animation differs then (two looks in one busy frame would agree).
  if(afterFrame) await new Promise(r=>{requestAnimationFrame(r); setTimeout(r,200);});
  if(!this.isConnected) return {err:"detached", why:"the element was removed from the page"};
  this.scrollIntoView({block:"center",inline:"center",behavior:"instant"});
  const st=getComputedStyle(this), box=this.getBoundingClientRect();
  const rects=Array.from(this.getClientRects()).filter(q=>q.width>0&&q.height>0);
  if(!rects.length||box.width===0||box.height===0||st.visibility==="hidden"||st.display==="none") return {err:"visible", why:"the element is not visible"};
  if(this.disabled||this.getAttribute("aria-disabled")==="true") return {err:"enabled", why:"the element is disabled"};
  // A finite animation or transition that moves it or a container (a
  // dialog sliding in) makes it not yet stable, however busy the frames.
  const moving=document.getAnimations?document.getAnimations().find(a=>{
    const t=a.effect&&a.effect.target; if(a.playState!=="running"||!t||!t.contains||!t.contains(this)) return false;
    const end=a.effect.getComputedTiming().endTime; if(!isFinite(end)) return false;
    const p=a.transitionProperty||(a.effect.getKeyframes?a.effect.getKeyframes().flatMap(k=>Object.keys(k)).join(" "):"");
    return /transform|translate|scale|rotate|top|left|right|bottom|margin|inset|all/.test(p);
  }):null;
  if(moving) return {err:"stable", why:"it is moving (an animation runs on it or a container)"};
  const deep=(x,y)=>{let hit=document.elementFromPoint(x,y); while(hit&&hit.shadowRoot){const inner=hit.shadowRoot.elementFromPoint(x,y); if(!inner||inner===hit) break; hit=inner;} return hit;};
  // The hit is this element, inside it (across slots and shadow roots), or
  // the host of the shadow tree it lives in (slotted text hits the host).
  const reaches=(hit)=>{ if(!hit) return true; if(hit.shadowRoot&&hit.shadowRoot.contains(this)) return true;
    for(let n=hit;n;n=n.assignedSlot||n.parentNode||n.host||null){ if(n===this) return true; } return false; };
  // An inline element broken over lines is tried line by line.
  let cover=null;
  for(const q of rects.length>1?rects:[box]){
    const x=q.left+q.width/2, y=q.top+q.height/2, hit=deep(x,y);
    if(reaches(hit)) return {x:x,y:y};
    if(!cover) cover=hit;
  }
  const d=cover.tagName.toLowerCase()+(cover.id?"#"+cover.id:"")+(cover.className&&typeof cover.className==="string"&&cover.className.trim()?"."+cover.className.trim().split(/\s+/).join("."):"");
  return {err:"receives events", why:"another element covers it: "+d, cover:d};
}`

// actionableTwiceJS looks twice (actionableJS), the second time a painted
// frame after the first when that one found the element actionable: {a}
// or {a, b}.
const actionableTwiceJS = `async function(){
  const look = ` + actionableJS + `;
  const a = await look.call(this, false);
  if (a.err) return {a};
  return {a, b: await look.call(this, true)};
}`

type actionability struct {
	Err   string  `json:"err"`
	Why   string  `json:"why"`
	Cover string  `json:"cover"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

// waitActionable polls the element until it can take pointer input.
func (t *Tab) waitActionable(ctx context.Context, el *element, tg Locator) (actionability, error) {
	var last actionability
	for {
		// Each check runs to its end even when the wait is over, so that a
		// short timeout still reports the check that failed.
		cctx, cancel := checkContext(ctx)
		// A stable box: the centre must not move between two looks, a
		// painted frame apart (both in one call).
		var looks struct {
			A actionability  `json:"a"`
			B *actionability `json:"b"`
		}
		err := t.callEl(cctx, el, actionableTwiceJS, &looks)
		a, b := looks.A, looks.B
		if err == nil && a.Err == "" && b != nil && b.Err == "" && b.X == a.X && b.Y == a.Y {
			cancel()
			return *b, nil
		}
		cancel()
		if err != nil {
			return a, backendError("check "+tg.Describe(), err)
		}
		if a.Err == "detached" {
			return a, &Error{Code: CodeStaleRef, Message: fmt.Sprintf("%s was removed from the page", tg.Describe()),
				Hint: "take a new browser_snapshot and use its refs"}
		}
		last = a
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
			continue
		}
		break
	}
	check, why := last.Err, last.Why
	if check == "" {
		check, why = "stable", "the element kept moving"
	}
	return last, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("cannot act on %s: %s", tg.Describe(), why),
		Hint:      "wait for the page to settle, close what covers it, or pick another element",
		Diagnosis: map[string]any{"failed_check": check, "covered_by": last.Cover}}
}

func (s *Session) click(ctx context.Context, t *Tab, el *element, tg Locator) error {
	pt, err := t.waitActionable(ctx, el, tg)
	if err != nil {
		return err
	}
	ox, oy, err := t.frameOffset(ctx, el.frame)
	if err != nil {
		return backendError("place "+tg.Describe(), err)
	}
	return mouseClick(ctx, t, pt.X+ox, pt.Y+oy)
}

func mouseClick(ctx context.Context, t *Tab, x, y float64) error {
	steps := []input.DispatchMouseEventParams{
		{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1},
		{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
	}
	for _, p := range steps {
		if _, err := cdproto.Call(ctx, t.page, input.DispatchMouseEvent, p); err != nil {
			return dispatchError("click", err)
		}
	}
	return nil
}

// dispatchError reports input that may or may not have reached the page.
func dispatchError(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeOutcomeUnknown, Message: what + " was sent but the page did not confirm it in time",
			Hint: "check the page with browser_snapshot before repeating the action", Err: err}
	}
	return backendError(what, err)
}

// editableJS focuses an editable element and selects its content, or says
// why it cannot be edited.
const editableJS = `function(){
  if(!this.isConnected) return {err:"detached", why:"the element was removed from the page"};
  const tag=this.tagName.toLowerCase();
  const textInput=tag==="textarea"||(tag==="input"&&!/^(checkbox|radio|button|submit|reset|file|image|range|color|hidden|date|time|datetime-local|month|week)$/.test(this.type));
  const valueInput=tag==="input"&&/^(date|time|datetime-local|month|week|color)$/.test(this.type);
  if(!textInput&&!valueInput&&!this.isContentEditable&&tag!=="select") return {err:"editable", why:"it is a "+tag+(this.type?" type="+this.type:"")+", not a text field"};
  if(this.disabled) return {err:"enabled", why:"the field is disabled"};
  if(this.readOnly) return {err:"editable", why:"the field is read-only"};
  this.scrollIntoView({block:"center",inline:"center",behavior:"instant"});
  const r=this.getBoundingClientRect();
  if(r.width===0||r.height===0) return {err:"visible", why:"the field is not visible"};
  if(tag==="select") return {kind:"select"};
  if(tag==="input"&&/^(date|time|datetime-local|month|week|color)$/.test(this.type)) return {kind:"value"};
  this.focus();
  if(textInput){ this.select(); } else { const rg=document.createRange(); rg.selectNodeContents(this); const sel=getSelection(); sel.removeAllRanges(); sel.addRange(rg); }
  return {kind:tag==="textarea"?"textarea":textInput?"input":"editable", pw:tag==="input"&&this.type==="password"};
}`

// keysJS focuses an element that reads keys without being a text field
// (a web terminal's div, a canvas): not a control with a meaning of its
// own (a button, a link, a checkbox), whose keys would press or toggle it.
const keysJS = `function(){
  if(/^(BUTTON|A|AREA|INPUT|SELECT|TEXTAREA|SUMMARY|OPTION)$/.test(this.tagName)) return false;
  const r=(this.getAttribute("role")||"").trim().split(/\s+/)[0];
  if(r&&!/^(application|document|log|region|group|none|presentation|generic|img)$/.test(r)) return false;
  this.focus({preventScroll:false});
  let a=document.activeElement; while(a&&a.shadowRoot&&a.shadowRoot.activeElement) a=a.shadowRoot.activeElement;
  return a===this;
}`

// setValueJS sets the value of a date, time or color input the way a
// picker would, and checks the browser kept it.
const setValueJS = `function(v){
  const set=Object.getOwnPropertyDescriptor(HTMLInputElement.prototype,"value").set;
  set.call(this,v);
  if(this.value!==v) return {err:"value", why:JSON.stringify(v)+" is not a valid "+this.type+" value", hint:"use the input's format, e.g. 2026-12-31 for a date, 13:45 for a time, #ff8800 for a color"};
  this.dispatchEvent(new Event("input",{bubbles:true})); this.dispatchEvent(new Event("change",{bubbles:true}));
  return {kind:"value"};
}`

// readValueJS reads a field's value (text of a contenteditable).
const readValueJS = `function(){ return this.isContentEditable && !("value" in this) ? this.innerText.replace(/\n$/,"") : String(this.value) }`

// selectJS picks an option of a select by value or label.
const selectJS = `function(v){
  const o=Array.from(this.options).find(o=>o.value===v)||Array.from(this.options).find(o=>o.label.trim()===v.trim()||o.text.trim()===v.trim());
  if(!o) return {err:"option", why:"no option "+JSON.stringify(v)+"; options: "+Array.from(this.options).map(o=>o.label).join(", ")};
  this.value=o.value; o.selected=true;
  this.dispatchEvent(new Event("input",{bubbles:true})); this.dispatchEvent(new Event("change",{bubbles:true}));
  return {kind:"select"};
}`

type editState struct {
	Err  string `json:"err"`
	Why  string `json:"why"`
	Hint string `json:"hint"`
	Kind string `json:"kind"`
	// Password: a password field, whose value the agent is shown as the
	// page shows it, as dots (shownValue).
	Password bool `json:"pw"`
}

// shownValue is a field's value as the result tells it: a password
// field's as dots, one per character up to 8, as a snapshot shows it —
// unless it holds nothing but declared secrets, which the result's masking
// names (<secret:NAME>).
func (st editState) shownValue(v string, mask func(string) string) string {
	if !st.Password || v == "" || mask != nil && onlySecrets.MatchString(mask(v)) {
		return v
	}
	return strings.Repeat("•", min(utf8.RuneCountInString(v), 8))
}

// onlySecrets matches a masked text that is secrets' names only.
var onlySecrets = regexp.MustCompile(`^(?:<secret:[^<>]+>)+$`)

func (t *Tab) prepareEdit(ctx context.Context, el *element, kind string, tg Locator) (editState, error) {
	verb := map[string]string{"type": "type into", "clear": "clear"}[kind]
	if verb == "" {
		verb = "fill"
	}
	for {
		var st editState
		cctx, cancel := checkContext(ctx)
		err := t.callEl(cctx, el, editableJS, &st)
		cancel()
		if err != nil {
			return st, backendError("focus "+tg.Describe(), err)
		}
		if st.Err == "" {
			return st, nil
		}
		if st.Err == "editable" || st.Err == "detached" {
			code := CodeNotActionable
			if st.Err == "detached" {
				code = CodeStaleRef
			}
			return st, &Error{Code: code, Message: fmt.Sprintf("cannot %s %s: %s", verb, tg.Describe(), st.Why),
				Hint: kind + " targets text inputs, textareas, contenteditable elements and selects", Diagnosis: map[string]any{"failed_check": st.Err}}
		}
		select {
		case <-ctx.Done():
			return st, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("cannot %s %s: %s", verb, tg.Describe(), st.Why),
				Hint: "wait until the field is enabled and visible", Diagnosis: map[string]any{"failed_check": st.Err}}
		case <-time.After(pollInterval):
		}
	}
}

func (s *Session) fill(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	st, err := t.prepareEdit(ctx, el, a.Kind, a.Target)
	if err != nil {
		return err
	}
	if st.Kind == "value" || st.Kind == "select" {
		res.changed = true // a change event: a jump menu may navigate
	}
	if st.Kind == "value" {
		var r editState
		if err := t.callEl(ctx, el, setValueJS, &r, a.Value); err != nil {
			return backendError("set the value", err)
		}
		if r.Err != "" {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("cannot fill %s: %s", a.Target.Describe(), r.Why), Hint: r.Hint}
		}
	} else if st.Kind == "select" {
		var r editState
		if err := t.callEl(ctx, el, selectJS, &r, a.Value); err != nil {
			return backendError("select", err)
		}
		if r.Err != "" {
			return &Error{Code: CodeInvalidArgument, Message: r.Why, Hint: "pass an option's value or its visible label"}
		}
	} else if a.Value == "" {
		if err := pressKey(ctx, t, "Delete"); err != nil {
			return err
		}
	} else if _, err := cdproto.Call(ctx, t.page, input.InsertText, input.InsertTextParams{Text: a.Value}); err != nil {
		return dispatchError("fill", err)
	} else {
		t.inputSent(ctx)
	}
	var got string
	if err := t.callEl(ctx, el, readValueJS, &got); err != nil {
		return backendError("read the field back", err)
	}
	res.Value = st.shownValue(got, t.mask())
	want := strings.ReplaceAll(a.Value, "\r\n", "\n")
	if st.Kind == "input" {
		want = strings.NewReplacer("\n", " ", "\r", " ").Replace(want) // typed line breaks become spaces in one-line inputs
	}
	if st.Kind == "select" || st.Kind == "value" || got == want {
		res.Outcome = "verified"
		return nil
	}
	if m := t.mask(); m != nil && m(a.Value) != a.Value {
		// A declared secret: what the field kept of it may be a part too
		// short to mask (a code box's one digit), so it is not shown.
		res.Value = ""
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("filled %s with a declared secret but it holds %d character(s), not the value sent (not shown: it may be a part of the secret)", a.Target.Describe(), utf8.RuneCountInString(got)),
			Hint:      "the page rewrote the input (a length limit, or boxes that take one character each?); check it with browser_snapshot",
			Diagnosis: map[string]any{"failed_check": "value", "actual_chars": utf8.RuneCountInString(got)}}
	}
	if st.Password {
		res.Value = ""
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("filled the password field %s but it holds %d character(s), not the %d sent", a.Target.Describe(), utf8.RuneCountInString(got), utf8.RuneCountInString(a.Value)),
			Hint:      "the page rewrote the input (a length limit?); check it with browser_snapshot",
			Diagnosis: map[string]any{"failed_check": "value", "expected_chars": utf8.RuneCountInString(a.Value), "actual_chars": utf8.RuneCountInString(got)}}
	}
	return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("filled %s but it holds %q, not the value sent", a.Target.Describe(), got),
		Hint:      "the page rewrote the input (a mask or a length limit?); check it with browser_snapshot",
		Diagnosis: map[string]any{"failed_check": "value", "expected": a.Value, "actual": got}}
}

// inputSent notes, for the quiet wait of the action under way, that its
// input was sent, and starts the wait's first check (with the walk, when
// a snapshot follows) beside what the action still does: a text input
// that loads no new page.
func (t *Tab) inputSent(ctx context.Context) {
	if q := t.settling; q != nil {
		q.inputDone()
		if q.ahead == nil { // (once the check runs, it reads text)
			q.text = true
		}
		q.readAhead(ctx, true)
	}
}

// typeText types text as key presses at the focus (or into the target,
// focused first, caret at the end). Characters without a key go in as text.
func (s *Session) typeText(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	keysOnly := false // the keys go to a focusable element that is no text field
	var st editState
	if el != nil {
		var err error
		if st, err = t.prepareEdit(ctx, el, a.Kind, a.Target); err != nil {
			// A terminal, a game, a custom editor: an element that takes the
			// focus and reads keys gets them as a user's typing.
			var focused bool
			if failedCheck(err) != "editable" || t.callEl(ctx, el, keysJS, &focused) != nil || !focused {
				return err
			}
			keysOnly = true
			res.Note = "it is not a text field: the keys were typed into it while it had the focus"
		} else if err := t.callEl(ctx, el, `function(){ if(typeof this.setSelectionRange==="function"&&"value" in this){const n=this.value.length;this.setSelectionRange(n,n);} else {const s=getSelection(); s.selectAllChildren(this); s.collapseToEnd();} }`, nil); err != nil {
			// prepareEdit selected the content; typing appends, so the caret goes to the end.
			return backendError("place the caret", err)
		}
	}
	for _, r := range a.Value {
		var err error
		switch {
		case r == '\n':
			err = pressKey(ctx, t, "Enter")
		case r == '\t':
			err = pressKey(ctx, t, "Tab")
		default:
			if k, ok := charKey(r); ok {
				err = dispatchKey(ctx, t, k, 0, string(r))
			} else {
				_, err = cdproto.Call(ctx, t.page, input.InsertText, input.InsertTextParams{Text: string(r)})
			}
		}
		if err != nil {
			return dispatchError("type", err)
		}
	}
	if !strings.ContainsAny(a.Value, "\n\r") {
		t.inputSent(ctx) // (a line break may submit: the navigation window reads that check)
	}
	if el != nil && !keysOnly {
		var got string
		if err := t.callEl(ctx, el, readValueJS, &got); err == nil {
			res.Value = st.shownValue(got, t.mask())
			if strings.HasSuffix(got, strings.ReplaceAll(a.Value, "\t", "")) {
				res.Outcome = "verified"
			}
		}
	}
	return nil
}

func (s *Session) press(ctx context.Context, t *Tab, el *element, a Action) error {
	if strings.TrimSpace(a.Key) == "" {
		return &Error{Code: CodeInvalidArgument, Message: "key is empty", Hint: `pass a key such as "Enter", "Tab", "ArrowDown" or "Control+A"`}
	}
	if el != nil {
		var focused bool
		if err := t.callEl(ctx, el, focusJS, &focused); err != nil {
			return backendError("focus "+a.Target.Describe(), err)
		}
		if !focused {
			// The key would go to whatever holds the focus now.
			return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s cannot take the focus, so the key would go elsewhere", a.Target.Describe()),
				Hint: "press on a field, button or link (or without a target, at the current focus)", Diagnosis: map[string]any{"failed_check": "focusable"}}
		}
	}
	return pressKey(ctx, t, a.Key)
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
func (s *Session) settle(ctx context.Context, t *Tab, w *navWatch, before frame, res *ActionResult, window time.Duration, quietNext bool, drawn <-chan bool) error {
	return s.settled(ctx, t, w, before, res, w.navigationStarted(ctx, before.ID, window, drawn), quietNext)
}

// settled is settle once it is known whether a navigation started.
func (s *Session) settled(ctx context.Context, t *Tab, w *navWatch, before frame, res *ActionResult, started, quietNext bool) error {
	if started {
		nctx, cancel := context.WithTimeout(ctx, s.pol.opts.NavTimeout)
		_, err := w.waitSettled(nctx, before.ID, before.LoaderID)
		cancel()
		if blocked := t.lastBlocked(); blocked != "" {
			return t.blockedError(blocked)
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

// visibleLabel is, for a checkbox or radio input with no box of its own
// (drawn over by its label), its first visible label; busy when that
// label holds a link or another control (its centre may be one); nothing
// for other elements.
func (t *Tab) visibleLabel(ctx context.Context, el *element) (label *element, busy bool, err error) {
	if !el.maybe("input") {
		return nil, false, nil
	}
	el.world.sess.holdsObjects()
	res, err := cdproto.Call(ctx, el.world.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: `function(){
  if (this.tagName !== "INPUT" || (this.type !== "checkbox" && this.type !== "radio")) return null;
  const own = this.getBoundingClientRect(), st = getComputedStyle(this);
  if (own.width > 1 && own.height > 1 && st.opacity !== "0" && st.visibility !== "hidden") return null;
  for (const l of this.labels || []) {
    const r = l.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    const other = Array.from(l.querySelectorAll("a[href],button,input,select,textarea,[onclick],[role=link],[role=button]")).some(e => e !== this);
    return other ? "busy" : l;
  }
  return null; }`,
		ObjectID: el.objectID, ObjectGroup: objectGroup,
	})
	if err != nil {
		return nil, false, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return nil, false, nil
	}
	if res.Result.Type == "string" {
		return nil, true, nil
	}
	if res.Result.Subtype != "node" {
		return nil, false, nil
	}
	return &element{world: el.world, frame: el.frame, objectID: res.Result.ObjectID}, false, nil
}
