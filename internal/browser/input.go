package browser

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"

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
	// submitBlocked: the action clicked a submit button of a form the
	// browser's validation would stop (seen just before the click).
	submitBlocked bool
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

// dispatchError reports input that may or may not have reached the page.
func dispatchError(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeOutcomeUnknown, Message: what + " was sent but the page did not confirm it in time",
			Hint: "check the page with browser_snapshot before repeating the action", Err: err}
	}
	return backendError(what, err)
}

// editableJS focuses an editable element and selects its content, or says
// why it cannot be edited. With o.quiet (the probe) it marks the action's
// start for the quiet wait last, when the element can be edited (the input
// follows): q, as aimJS does.
const editableJS = `function(o){
  const W=globalThis.__webpilot, mark=(r)=>{ if(o&&o.quiet&&W) r.q=W.quiet(true,o.quiet); return r; };
  if(!this.isConnected) return {err:"detached", why:"the element was removed from the page"};
  const tag=this.tagName.toLowerCase();
  const role=(this.getAttribute("role")||"").trim().split(/\s+/)[0];
  if((tag==="input"&&this.type==="range")||role==="slider"){
    // (a library's slider may hide its native input behind a drawn thumb)
    if(this.disabled||this.getAttribute("aria-disabled")==="true") return {err:"enabled", why:"the slider is disabled"};
    return mark({kind:"slider"});
  }
  const textInput=tag==="textarea"||(tag==="input"&&!/^(checkbox|radio|button|submit|reset|file|image|range|color|hidden|date|time|datetime-local|month|week)$/.test(this.type));
  const valueInput=tag==="input"&&/^(date|time|datetime-local|month|week|color)$/.test(this.type);
  if(!textInput&&!valueInput&&!this.isContentEditable&&tag!=="select") return {err:"editable", why:"it is a "+tag+(this.type?" type="+this.type:"")+", not a text field"};
  if(this.disabled) return {err:"enabled", why:"the field is disabled"};
  if(this.readOnly) return {err:"editable", why:"the field is read-only"};
  this.scrollIntoView({block:"center",inline:"center",behavior:"instant"});
  const r=this.getBoundingClientRect();
  if(r.width===0||r.height===0) return {err:"visible", why:"the field is not visible"};
  if(tag==="select") return mark({kind:"select"});
  if(tag==="input"&&/^(date|time|datetime-local|month|week|color)$/.test(this.type)) return mark({kind:"value"});
  this.focus();
  if(textInput){ this.select(); } else { const rg=document.createRange(); rg.selectNodeContents(this); const sel=getSelection(); sel.removeAllRanges(); sel.addRange(rg); }
  return mark({kind:tag==="textarea"?"textarea":textInput?"input":"editable", pw:tag==="input"&&this.type==="password"});
}`

// caretToEndJS puts the caret at the end of a field's text; a date, time
// or color input, which has no caret, gets the focus, its keys going to
// the part the browser chose.
const caretToEndJS = `function(){
  if(this.tagName==="INPUT"&&/^(date|time|datetime-local|month|week|color)$/.test(this.type)){ this.focus(); return; }
  if(typeof this.setSelectionRange==="function"&&"value" in this){ const n=this.value.length; try{ this.setSelectionRange(n,n); }catch(e){ this.focus(); } }
  else { const s=getSelection(); s.selectAllChildren(this); s.collapseToEnd(); }
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
	// Q is the quiet wait's mark, when the check took it (editableJS).
	Q []any `json:"q"`
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
		var err error
		if p := t.settling.aimMark(el.world); p != "" {
			err = t.callEl(cctx, el, editableJS, &st, map[string]any{"quiet": p})
		} else {
			err = t.callEl(cctx, el, editableJS, &st)
		}
		cancel()
		if err != nil {
			return st, backendError("focus "+tg.Describe(), err)
		}
		if st.Q != nil {
			t.settling.marked(quietFrom(st.Q), true)
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

func (ac actor) fill(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	if err := t.pointer.standOn(ctx, el); err != nil {
		return dispatchError("move the mouse", err)
	}
	st, err := t.prepareEdit(ctx, el, a.Kind, a.Target)
	if err != nil {
		return err
	}
	t.settling.markNow(ctx) // (when the check did not)
	if st.Kind == "slider" {
		return ac.setSlider(ctx, t, el, a, res)
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
func (ac actor) typeText(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	keysOnly := false // the keys go to a focusable element that is no text field
	var st editState
	if el != nil {
		if err := t.pointer.standOn(ctx, el); err != nil {
			return dispatchError("move the mouse", err)
		}
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
		} else if st.Kind == "slider" {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("cannot type into %s: it is a slider", a.Target.Describe()),
				Hint: `set it with {"action":"fill","value":"40"} (a number), or press arrow keys on it`}
		} else if err := t.callEl(ctx, el, caretToEndJS, nil); err != nil {
			// prepareEdit selected the content; typing appends, so the caret goes to the end.
			return backendError("place the caret", err)
		}
	}
	t.settling.markNow(ctx) // (when the check did not)
	before, known := "", false
	if el != nil && !keysOnly {
		known = t.callEl(ctx, el, readValueJS, &before) == nil
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
			} else if known && got == before && a.Value != "" && !strings.ContainsAny(a.Value, "\n\r\t") {
				// (a field in parts, a mask: the keys went in, nothing came of them)
				res.Note = "the keys reached the field but its value did not change; a field kept in parts (a date field) may take fill with the whole value instead"
			}
		}
	}
	return nil
}

func (ac actor) press(ctx context.Context, t *Tab, el *element, a Action) error {
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
