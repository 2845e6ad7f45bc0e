package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// FormField is one field of FillForm: its target and what to put in it.
// Type (textbox, checkbox, radio, select, date, file) is optional: the
// element's own kind decides when it is empty.
type FormField struct {
	Target Locator
	Value  string
	Values []string // select (several in a multiple select), file (several files)
	Type   string
	// Guard, when set, is asked with the URL of the field's document before
	// it is set (see Action.Guard).
	Guard func(docURL string) error
}

// Submit strategies of FillForm.
const (
	SubmitNone  = "none"
	SubmitForm  = "form"  // the form's requestSubmit with its default button
	SubmitEvent = "event" // Enter in the last text field, as a user would
	SubmitBoth  = "both"  // Enter, then requestSubmit if that submitted nothing
)

// FormFill is a FillForm call.
type FormFill struct {
	Fields []FormField
	Submit string
	Roots  func() []string // more directories files may come from, asked only for an upload
}

// FieldDone is a field FillForm set, as it reads back.
type FieldDone struct {
	Ref   string `json:"ref,omitempty"`
	Field string `json:"field"` // how it was named
	Value string `json:"value"`
}

// FormResult reports a FillForm call.
type FormResult struct {
	Completed      []FieldDone `json:"completed"`
	Submit         string      `json:"submit"`
	Submitted      bool        `json:"submitted,omitempty"`       // a submit was sent
	SubmitVerified bool        `json:"submit_verified,omitempty"` // a submit event fired or the page navigated
	URLBefore      string      `json:"url_before"`
	URLAfter       string      `json:"url_after"`
	Title          string      `json:"title"`
	Navigated      bool        `json:"navigated,omitempty"`
	Note           string      `json:"note,omitempty"`
	// Downloads are the files the fills or the submit started
	// downloading, as they were when the call returned.
	Downloads []Download `json:"downloads,omitempty"`
	// ConsoleErrors are errors and uncaught exceptions the page logged
	// during the call (up to 5; ConsoleErrorCount says how many).
	ConsoleErrors     []ConsoleEntry `json:"console_errors,omitempty"`
	ConsoleErrorCount int            `json:"console_error_count,omitempty"`
	NewTabs           []TabView      `json:"new_tabs,omitempty"`
	Dialog            *DialogView    `json:"dialog,omitempty"`
	// Stopped is the field being filled when a dialog opened, and Skipped
	// the fields after it, left alone.
	Stopped string   `json:"stopped,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
}

// fieldKindJS says what kind of form control the element is.
const fieldKindJS = `function(){
  const t=this.tagName, ty=(this.type||"").toLowerCase();
  if(t==="SELECT") return "select";
  if(t==="INPUT"&&ty==="checkbox") return "checkbox";
  if(t==="INPUT"&&ty==="radio") return "radio";
  if(t==="INPUT"&&ty==="file") return "file";
  const r=this.getAttribute("role");
  if(r==="checkbox"||r==="switch") return "checkbox";
  if(r==="radio") return "radio";
  if(t==="TEXTAREA"||this.isContentEditable) return "multiline";
  return "text";
}`

// fieldTypes maps a field's type argument to the kind of control.
var fieldTypes = map[string]string{"": "", "textbox": "text", "text": "text", "date": "text", "checkbox": "checkbox",
	"radio": "radio", "select": "select", "combobox": "select", "file": "file"}

// FillForm sets many fields in one call, in order, stopping at the first
// failure (an error whose diagnosis lists the fields completed, the one
// that failed and those skipped), then submits as asked.
func (h *Held) FillForm(ctx context.Context, f FormFill) (*FormResult, error) {
	s, t := h.s, h.t
	defer t.stopIfCancelled(ctx)
	if len(f.Fields) == 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "fields is empty", Hint: `e.g. {"fields":[{"role":"textbox","name":"Email","value":"ada@example.com"}],"submit":"form"}`}
	}
	if f.Submit == "" {
		f.Submit = SubmitNone
	}
	switch f.Submit {
	case SubmitNone, SubmitForm, SubmitEvent, SubmitBoth:
	default:
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown submit %q", f.Submit), Hint: "use none, form, event or both"}
	}
	for i, fd := range f.Fields {
		if _, ok := fieldTypes[fd.Type]; !ok {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("field %d: unknown type %q", i+1, fd.Type), Hint: "use textbox, checkbox, radio, select, date or file, or omit type"}
		}
		if err := fd.Target.validate(); err != nil {
			var we *Error
			if errors.As(err, &we) {
				we.Message = fmt.Sprintf("field %d: %s", i+1, we.Message)
			}
			return nil, err
		}
	}
	return untilDialog(ctx, t, func(ctx context.Context) (*FormResult, error) {
		return actor{s}.fillForm(ctx, t, f)
	}, func(res *FormResult, d *DialogView) { res.Dialog = d })
}

// fillForm fills the form's fields and submits it as asked, inside one
// envelope (envelope.go), as an action's input is.
//
// The envelope opens before the fields are filled: a field's fill may
// itself log errors or start a download (a handler of its input or change
// events), and the call reports those with the submit's. Its watches, the
// navigation window and the quiet wait, start at the submit: each field's
// fill already waited for what it set off (fill, check, selectOptions,
// upload read the field back), and a form not submitted waits for nothing
// more (no navigation window, no quiet wait), as before.
func (ac actor) fillForm(ctx context.Context, t *Tab, f FormFill) (*FormResult, error) {
	s := ac.s
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, s.pol.opts.ActionTimeout*2)
	defer cancel()
	defer t.releaseObjects(ctx)
	t.view.cache = nil
	// What the envelope reports (ActionResult) goes into the form's result.
	ar := &ActionResult{Action: "submit"}
	// Popups that opened late (after the previous call) join now, and the
	// current tab is brought back to the front before input goes to it.
	ac.adoptPopups(callCtx, ar)
	before, err := t.page.mainFrame(callCtx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	ar.URLBefore = before.URL
	res := &FormResult{Submit: f.Submit, URLBefore: before.URL, NewTabs: ar.NewTabs}
	env := ac.open(t, Action{Kind: "submit"}, before)
	defer env.close()
	var last *element
	lastText := -1
	for i, fd := range f.Fields {
		done, el, kind, err := ac.fillField(ctx, t, fd, f.Roots)
		if err != nil {
			if errors.Is(context.Cause(ctx), errDialogOpened) {
				res.Stopped = fd.Target.Describe()
				for _, rest := range f.Fields[i+1:] {
					res.Skipped = append(res.Skipped, rest.Target.Describe())
				}
				return res, err
			}
			return res, fieldFailure(err, i, f.Fields, res.Completed)
		}
		res.Completed = append(res.Completed, done)
		last = el
		if kind == "text" {
			lastText = i
		}
	}
	env.watch(callCtx, f.Submit != SubmitNone)
	if f.Submit != SubmitNone {
		if err := ac.submit(ctx, t, f, last, lastText, res); err != nil {
			return res, err
		}
	}
	if err := env.settle(callCtx, ar); err != nil {
		return res, err
	}
	env.report(callCtx, nil, ar)
	ac.adoptPopups(callCtx, ar)
	res.URLAfter, res.Title, res.Navigated, res.Note = ar.URL, ar.Title, ar.Navigated, ar.Note
	res.ConsoleErrors, res.ConsoleErrorCount, res.Downloads, res.NewTabs = ar.ConsoleErrors, ar.ConsoleErrorCount, ar.Downloads, ar.NewTabs
	if res.Navigated {
		res.SubmitVerified = res.Submitted || res.SubmitVerified
	}
	return res, nil
}

// fillField sets one field and reads it back.
func (ac actor) fillField(ctx context.Context, t *Tab, fd FormField, roots func() []string) (FieldDone, *element, string, error) {
	done := FieldDone{Field: fd.Target.Describe()}
	el, err := t.finder().locate(ctx, fd.Target)
	if err != nil {
		return done, nil, "", err
	}
	done.Ref = el.ref
	if fd.Guard != nil {
		if err := t.guard(ctx, el, "", fd.Guard); err != nil {
			return done, el, "", err
		}
	}
	kind := fieldTypes[fd.Type]
	if kind == "" {
		if err := t.callEl(ctx, el, fieldKindJS, &kind); err != nil {
			return done, el, "", backendError("read "+fd.Target.Describe(), err)
		}
	}
	a := Action{Target: fd.Target, Value: fd.Value, Values: fd.Values, InputMode: InputAuto}
	r := &ActionResult{}
	switch kind {
	case "checkbox", "radio":
		on, ok := truth(fd.Value)
		if !ok {
			return done, el, kind, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is a %s: value %q is not true or false", fd.Target.Describe(), kind, fd.Value),
				Hint: `use "true" to check it, "false" to uncheck it`}
		}
		a.Kind = "uncheck"
		if on {
			a.Kind = "check"
		}
		err = ac.check(ctx, t, el, a, r)
		done.Value = map[bool]string{true: "checked", false: "unchecked"}[on]
	case "select":
		a.Kind = "select"
		err = ac.selectOptions(ctx, t, el, a, r)
		done.Value = r.Value
	case "file":
		a.Kind, a.Files = "upload", fd.Values
		if roots != nil {
			a.Roots = roots()
		}
		if len(a.Files) == 0 && fd.Value != "" {
			a.Files = []string{fd.Value}
		}
		err = ac.upload(ctx, t, el, a, r)
		done.Value = r.Value
	default:
		a.Kind = "fill"
		err = ac.fill(ctx, t, el, a, r)
		done.Value = r.Value
		if kind != "multiline" {
			kind = "text"
		}
	}
	if err == nil && r.Outcome != "verified" {
		err = &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s did not take the value", fd.Target.Describe())}
	}
	// What was filled goes back to the agent (in results and in a failure's
	// diagnosis): bounded like every echo.
	done.Field, done.Value = Echo(done.Field), Echo(done.Value)
	return done, el, kind, err
}

func truth(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "yes", "checked", "1", "":
		return true, true
	case "false", "off", "no", "unchecked", "0":
		return false, true
	}
	return false, false
}

// fieldFailure wraps a field's error with what was completed and skipped.
func fieldFailure(err error, i int, fields []FormField, completed []FieldDone) error {
	var we *Error
	if !errors.As(backendError("fill the field", err), &we) {
		return err
	}
	var skipped []string
	for _, f := range fields[i+1:] {
		skipped = append(skipped, f.Target.Describe())
	}
	if we.Diagnosis == nil {
		we.Diagnosis = map[string]any{}
	}
	we.Diagnosis["completed"] = completed
	we.Diagnosis["failed"] = map[string]any{"index": i + 1, "field": fields[i].Target.Describe()}
	we.Diagnosis["skipped"] = skipped
	we.Message = fmt.Sprintf("field %d of %d (%s): %s; %d filled before it, %d skipped", i+1, len(fields), fields[i].Target.Describe(), we.Message, len(completed), len(skipped))
	return we
}

// submitJS submits the element's form with its default button, after
// checking the form is valid; it notes in the walker's world that a submit
// event fired.
const submitJS = `function(){
  const form=this.form||this.closest("form");
  if(!form) return {err:"noform"};
  if(!form.checkValidity()){
    const groups=new Set(); // a required radio group counts once
    const bad=Array.from(form.elements).filter(e=>e.willValidate&&!e.validity.valid&&!(e.type==="radio"&&e.name&&(groups.has(e.name)||!groups.add(e.name))));
    const name=e=>(e.labels&&e.labels[0]?e.labels[0].innerText.trim():e.getAttribute("aria-label")||e.name||e.id)||"a field";
    let why=bad.slice(0,5).map(e=>name(e)+": "+e.validationMessage).join("; ");
    if(bad.length>5) why+="; and "+(bad.length-5)+" more";
    return {err:"invalid", why:why||"a field is invalid", n:bad.length};
  }
  const btn=form.querySelector('button[type=submit],button:not([type]),input[type=submit],input[type=image]');
  form.requestSubmit(btn&&btn.form===form?btn:undefined);
  return {ok:true};
}`

// listenSubmitJS records in the walker's world that a form was submitted.
const listenSubmitJS = `function(){
  const W=globalThis.__webpilot; W.submitted=false;
  if(!W.submitListener){ W.submitListener=true; document.addEventListener("submit",()=>{ globalThis.__webpilot.submitted=true; },true); }
}`

func (ac actor) submit(ctx context.Context, t *Tab, f FormFill, last *element, lastText int, res *FormResult) error {
	_ = t.callEl(ctx, last, listenSubmitJS, nil)
	submitted := func() bool {
		var ok bool
		if err := t.callEl(ctx, last, `function(){ return !!globalThis.__webpilot.submitted }`, &ok); err != nil {
			return pageGone(err) // the document is gone: the submit navigated
		}
		return ok
	}
	var r struct {
		Err string `json:"err"`
		Why string `json:"why"`
		N   int    `json:"n"` // invalid fields
	}
	if f.Submit == SubmitEvent || f.Submit == SubmitBoth {
		if lastText < 0 {
			if f.Submit == SubmitEvent {
				return &Error{Code: CodeInvalidArgument, Message: "submit event presses Enter in a one-line text field, and no field is one", Hint: `use submit "form"`}
			}
		} else {
			el, err := t.finder().locate(ctx, f.Fields[lastText].Target)
			if err != nil {
				return err
			}
			if err := t.callEl(ctx, el, focusJS, nil); err != nil {
				return backendError("focus the field", err)
			}
			if err := pressKey(ctx, t, "Enter"); err != nil {
				return err
			}
			res.Submitted = true
			sleep(ctx, 50)
			if res.SubmitVerified = submitted(); res.SubmitVerified || f.Submit == SubmitEvent {
				return nil
			}
		}
	}
	if err := t.callEl(ctx, last, submitJS, &r); err != nil {
		if res.Submitted {
			return nil // Enter navigated meanwhile
		}
		return backendError("submit the form", err)
	}
	switch r.Err {
	case "noform":
		return &Error{Code: CodeInvalidArgument, Message: "the last field is in no <form>", Hint: `use submit "event" (Enter), or click the page's submit button with browser_action`}
	case "invalid":
		hint := "fix that field (browser_snapshot shows it [invalid]) and submit again"
		if r.N > 1 {
			hint = fmt.Sprintf("fix those %d fields (browser_snapshot shows them [invalid]) and submit again", r.N)
		}
		return &Error{Code: CodeNotActionable, Message: "the form did not submit: " + r.Why, Hint: hint,
			Diagnosis: map[string]any{"failed_check": "valid", "completed": res.Completed, "invalid_fields": r.N}}
	}
	res.Submitted = true
	sleep(ctx, 50)
	res.SubmitVerified = submitted()
	return nil
}
