package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// actionKinds are the action kinds browser_action takes.
var actionKinds = []string{"click", "dblclick", "right_click", "hover", "focus", "check", "uncheck",
	"type", "fill", "clear", "select", "press", "scroll", "upload", "drag"}

// needsTarget says an action kind acts on an element; the others (type,
// press, scroll) may go to the focus or the page.
func needsTarget(kind string) bool {
	switch kind {
	case "type", "press", "scroll":
		return false
	}
	return true
}

// focusJS focuses the element and says whether it holds the focus now.
const focusJS = `function(){
  this.focus({preventScroll:false});
  let a=document.activeElement; while(a&&a.shadowRoot&&a.shadowRoot.activeElement) a=a.shadowRoot.activeElement;
  return a===this;
}`

func (ac actor) focus(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	var ok bool
	if err := t.callEl(ctx, el, focusJS, &ok); err != nil {
		return backendError("focus "+a.Target.Describe(), err)
	}
	if !ok {
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s cannot take the focus", a.Target.Describe()),
			Hint: "only focusable elements (fields, buttons, links, tabindex) take the focus", Diagnosis: map[string]any{"failed_check": "focusable"}}
	}
	res.Outcome, res.InputMode = "verified", InputDOM
	return nil
}

// checkedJS reads whether a checkbox, radio, switch or element with
// aria-checked is checked (null: it is none of those).
const checkedJS = `function(){
  if(this.tagName==="INPUT"&&(this.type==="checkbox"||this.type==="radio")) return {state:this.checked, radio:this.type==="radio"};
  const a=this.getAttribute("aria-checked")||this.getAttribute("aria-pressed");
  if(a!==null) return {state:a==="true", radio:this.getAttribute("role")==="radio"||this.getAttribute("role")==="menuitemradio"};
  if(this.tagName==="LABEL"&&this.control&&(this.control.type==="checkbox"||this.control.type==="radio")) return {state:this.control.checked, radio:this.control.type==="radio"};
  return {none:true};
}`

type checkState struct {
	State bool `json:"state"`
	Radio bool `json:"radio"`
	None  bool `json:"none"`
}

// check sets a checkbox, radio or switch to the wanted state by clicking
// it (only when it is not in that state yet) and reads the state back.
func (ac actor) check(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	want := a.Kind == "check"
	read := func() (checkState, error) {
		var st checkState
		cctx, cancel := checkContext(ctx) // the read-back outlives the wait
		defer cancel()
		err := t.callEl(cctx, el, checkedJS, &st)
		return st, err
	}
	st, err := read()
	if err != nil {
		return backendError("read "+a.Target.Describe(), err)
	}
	if st.None {
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s is not a checkbox, radio or switch", a.Target.Describe()),
			Hint: "use click for other elements", Diagnosis: map[string]any{"failed_check": "checkable"}}
	}
	if st.Radio && !want {
		return &Error{Code: CodeInvalidArgument, Message: "a radio button cannot be unchecked", Hint: "check another radio of the group instead"}
	}
	if st.State == want {
		res.Outcome = "verified"
		res.Note = fmt.Sprintf("it was already %sed; nothing was clicked", a.Kind)
		return nil
	}
	click := a
	click.Kind = "click"
	if err := ac.pointerAction(ctx, t, el, click, res); err != nil {
		return err
	}
	for i := 0; i < 10; i++ {
		if st, err = read(); err == nil && st.State == want {
			res.Outcome = "verified"
			return nil
		}
		if pageGone(err) || errors.Is(context.Cause(ctx), errDialogOpened) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pageGone(err) {
		// The click navigated: the box is gone with its page.
		res.Note = "the click loaded another page, so the state could not be read back"
		return nil
	}
	if err != nil {
		return backendError("read "+a.Target.Describe()+" back", err)
	}
	return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("clicked %s but it is still %s", a.Target.Describe(), map[bool]string{true: "checked", false: "unchecked"}[st.State]),
		Hint:      "the page ignored the click or undid it; check the page with browser_snapshot",
		Diagnosis: map[string]any{"failed_check": "state", "expected": want, "actual": st.State}}
}

// selectOptionsJS selects options of a select by value or visible label
// (several in a multiple select) and returns the selected values, or says
// which value matched no option.
const selectOptionsJS = `function(vals){
  if(this.tagName!=="SELECT") return {err:"select", why:"it is a "+this.tagName.toLowerCase()+", not a <select>"};
  if(this.disabled) return {err:"enabled", why:"the select is disabled"};
  const opts=Array.from(this.options), norm=s=>s.replace(/\s+/g," ").trim();
  const pick=[];
  for(const v of vals){
    const o=opts.find(o=>o.value===v)||opts.find(o=>norm(o.label)===norm(v)||norm(o.text)===norm(v))||opts.find(o=>norm(o.label).toLowerCase()===norm(v).toLowerCase());
    if(!o) return {err:"option", why:"no option "+JSON.stringify(v)+"; options: "+opts.slice(0,30).map(o=>o.label+(o.value!==o.label?" ("+o.value+")":"")).join(", ")};
    if(o.disabled) return {err:"option", why:"option "+JSON.stringify(v)+" is disabled"};
    pick.push(o);
  }
  if(pick.length>1&&!this.multiple) return {err:"multiple", why:"the select takes one value, not "+pick.length};
  this.focus();
  for(const o of opts) o.selected=pick.includes(o);
  this.dispatchEvent(new Event("input",{bubbles:true})); this.dispatchEvent(new Event("change",{bubbles:true}));
  return {values:Array.from(this.selectedOptions,o=>o.value), labels:Array.from(this.selectedOptions,o=>norm(o.label))};
}`

func (ac actor) selectOptions(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	vals := a.Values
	if len(vals) == 0 && a.Value != "" {
		vals = []string{a.Value}
	}
	if len(vals) == 0 {
		return &Error{Code: CodeInvalidArgument, Message: "select needs values (or value)", Hint: `e.g. {"action":"select","ref":"e4","values":["Paris"]}: option values or visible labels`}
	}
	if _, err := t.pointer.waitActionable(ctx, el, a.Target, aimFor{}); err != nil {
		return err
	}
	var r struct {
		Err    string   `json:"err"`
		Why    string   `json:"why"`
		Values []string `json:"values"`
		Labels []string `json:"labels"`
	}
	if err := t.callEl(ctx, el, selectOptionsJS, &r, vals); err != nil {
		return backendError("select in "+a.Target.Describe(), err)
	}
	switch r.Err {
	case "":
	case "select":
		return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("cannot select in %s: %s", a.Target.Describe(), r.Why),
			Hint: "for a custom dropdown, click it and then click the option", Diagnosis: map[string]any{"failed_check": "select"}}
	case "enabled":
		return &Error{Code: CodeNotActionable, Message: r.Why, Hint: "wait until the select is enabled", Diagnosis: map[string]any{"failed_check": "enabled"}}
	default:
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("cannot select in %s: %s", a.Target.Describe(), r.Why), Hint: "pass option values or their visible labels"}
	}
	res.Value = strings.Join(r.Labels, ", ")
	res.Outcome, res.InputMode = "verified", InputDOM
	return nil
}

// scrollJS scrolls the element (a scroll container), or the page when
// this is the document, in a direction, or brings the element into view;
// it reports the scroll position before and after.
const scrollJS = `function(dir){
  const pageScroll=this===document.documentElement||this===document.body;
  const box=pageScroll?document.scrollingElement:this;
  const before=[box.scrollLeft,box.scrollTop];
  const st=pageScroll?null:getComputedStyle(this);
  const scroller=pageScroll||(/(auto|scroll|overlay)/.test(st.overflowY+st.overflowX)&&(this.scrollHeight>this.clientHeight||this.scrollWidth>this.clientWidth));
  if(!dir||!scroller){
    const r0=this.getBoundingClientRect();
    this.scrollIntoView({block:"center",inline:"nearest",behavior:"instant"});
    const r1=this.getBoundingClientRect();
    return {into:true, moved:r0.top!==r1.top||r0.left!==r1.left, scroller:scroller};
  }
  const h=pageScroll?innerHeight:box.clientHeight, w=pageScroll?innerWidth:box.clientWidth;
  const d={down:[0,h*0.8],up:[0,-h*0.8],right:[w*0.8,0],left:[-w*0.8,0]}[dir];
  if(dir==="top") box.scrollTo({top:0,behavior:"instant"});
  else if(dir==="bottom") box.scrollTo({top:box.scrollHeight,behavior:"instant"});
  else box.scrollBy({left:d[0],top:d[1],behavior:"instant"});
  const after=[box.scrollLeft,box.scrollTop];
  return {before:before, after:after, moved:before[0]!==after[0]||before[1]!==after[1],
    max:[box.scrollWidth-box.clientWidth, box.scrollHeight-box.clientHeight]};
}`

// scrollDirections are the directions scroll takes.
var scrollDirections = map[string]bool{"up": true, "down": true, "left": true, "right": true, "top": true, "bottom": true}

func (ac actor) scroll(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	if a.Direction != "" && !scrollDirections[a.Direction] {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown direction %q", a.Direction), Hint: "use up, down, left, right, top or bottom"}
	}
	if el == nil && a.Direction == "" {
		return &Error{Code: CodeInvalidArgument, Message: "scroll needs a direction, a target, or both",
			Hint: `{"action":"scroll","direction":"down"} scrolls the page; with a target it scrolls that container, or brings the element into view`}
	}
	if el == nil {
		var err error
		el, err = t.finder().documentElement(ctx)
		if err != nil {
			return err
		}
	}
	var r struct {
		Into     bool      `json:"into"`
		Moved    bool      `json:"moved"`
		Scroller bool      `json:"scroller"`
		Before   []float64 `json:"before"`
		After    []float64 `json:"after"`
		Max      []float64 `json:"max"`
	}
	if err := t.callEl(ctx, el, scrollJS, &r, a.Direction); err != nil {
		return backendError("scroll", err)
	}
	res.InputMode = "dom"
	res.Outcome = "verified"
	switch {
	case r.Into && a.Direction != "":
		res.Note = "the target is not a scroll container: it was brought into view instead"
	case r.Into && r.Moved:
		res.Note = "scrolled the element into view"
	case r.Into:
		res.Note = "the element was already in view; nothing moved"
	case r.Moved && len(r.After) == 2 && len(r.Max) == 2:
		res.Note = fmt.Sprintf("scrolled %s: now at x=%.0f y=%.0f of %.0f×%.0f", a.Direction, r.After[0], r.After[1], r.Max[0], r.Max[1])
	default:
		res.Note = fmt.Sprintf("did not move: already at the %s edge", map[string]string{"up": "top", "top": "top", "down": "bottom", "bottom": "bottom", "left": "left", "right": "right"}[a.Direction])
	}
	res.Scrolled = r.Moved
	return nil
}

// documentElement is the main frame's <html> element, for page-wide
// actions.
func (find finder) documentElement(ctx context.Context) (*element, error) {
	w, f, err := find.targetWorld(ctx, "")
	if err != nil {
		return nil, err
	}
	el, err := find.locateSelectorIn(ctx, w, f, ":root", "")
	if err != nil {
		return nil, err
	}
	return el, nil
}

// Expect is what should hold after an action: every field given must.
// Text is visible text of the page (a part, or /re/flags), Selector a
// visible element; URL and Title match the page's as browser_wait's do: a
// glob (* any run of characters) matched whole, /re/flags, or a part.
type Expect struct {
	Text     string `json:"text,omitempty"`
	Selector string `json:"selector,omitempty"`
	URL      string `json:"url,omitempty"`
	Title    string `json:"title,omitempty"`
}

func (e *Expect) empty() bool {
	return e.Text == "" && e.Selector == "" && e.URL == "" && e.Title == ""
}

// expectJS checks an Expect in the page (in the walker's world, W) and
// returns what does not hold ({bad}), or the pattern that ran out of time
// ({busy}): patterns run in a worker, within ms (W.rxAll).
const expectJS = `async (W,e,ms)=>{
  const text=W.unsecret((document.body?document.body.innerText:"").replace(/\s+/g," "));
  const checks=[["text",e.text,text]].filter(c=>c[1]);
  const rx=checks.filter(c=>W.isPattern(c[1])).map(c=>[c[1],c[2]]);
  const r=await W.rxAll(rx,ms);
  if(r.busy) return {busy:r.busy};
  let k=0; const ok={};
  for(const c of checks) ok[c[0]]=W.isPattern(c[1])?r.res[k++]:c[2].toLowerCase().includes(c[1].toLowerCase());
  const bad=[];
  if(e.text&&!ok.text) bad.push("no visible text "+JSON.stringify(e.text));
  if(e.selector){ let hit=null; try{ hit=Array.from(document.querySelectorAll(e.selector)).find(x=>x.checkVisibility?x.checkVisibility({visibilityProperty:true}):x.getClientRects().length>0); }catch(err){ bad.push("selector "+JSON.stringify(e.selector)+" is not valid CSS"); }
    if(!hit&&!bad.length) bad.push("no visible element matches "+JSON.stringify(e.selector)); }
  return {bad};
}`

// expectWait bounds how long an action's expect is waited for.
const expectWait = 5 * time.Second

// expect waits (bounded by the action timeout and expectWait) for the
// action's expect to hold: met makes the outcome verified; else it stays
// dispatched and the result says what did not hold.
func (ac actor) expect(ctx context.Context, t *Tab, a Action, res *ActionResult) {
	s := ac.s
	ctx, cancel := context.WithTimeout(ctx, min(or(a.Timeout, s.pol.opts.ActionTimeout), expectWait))
	defer cancel()
	inPage := *a.Expect
	inPage.URL, inPage.Title = "", ""
	call := fmt.Sprintf("(%s)(W, %s, %s)", expectJS, mustJSON(&inPage), patternMS())
	pats := []string{a.Expect.Text}
	// url and title: the matcher of browser_wait, in Go.
	var urlOK, titleOK func(string) bool
	for _, f := range []struct {
		name, v string
		m       *func(string) bool
	}{{"url", a.Expect.URL, &urlOK}, {"title", a.Expect.Title, &titleOK}} {
		if f.v == "" {
			continue
		}
		m, err := valueMatcher(f.v)
		if err != nil {
			res.ExpectFailed = fmt.Sprintf("expect %s %s is not a valid regular expression: %v (%s)", f.name, f.v, err, patternHint)
			return
		}
		*f.m = m
	}
	var bad []string
	for {
		cctx, ccancel := checkContext(ctx)
		var r struct {
			Bad  []string `json:"bad"`
			Busy string   `json:"busy"`
		}
		err := t.evalInPage(cctx, call, pats, &r)
		ccancel()
		if be, ok := AsError(err); ok && be.Code == CodeInvalidArgument || r.Busy != "" {
			// A pattern that hangs on the page's text: the check stops.
			if r.Busy != "" {
				be = patternError(r.Busy)
			}
			res.ExpectFailed = be.Message
			return
		}
		got := r.Bad
		if err == nil && (urlOK != nil || titleOK != nil) {
			lctx, lcancel := checkContext(ctx)
			url, title, lerr := t.location(lctx)
			lcancel()
			switch {
			case lerr != nil:
				err = lerr
			default:
				if urlOK != nil && !urlOK(url) {
					got = append(got, fmt.Sprintf("url is %s (%q read as %s)", url, a.Expect.URL, readAs(a.Expect.URL)))
				}
				if titleOK != nil && !titleOK(title) {
					got = append(got, fmt.Sprintf("title is %q (%q read as %s)", title, a.Expect.Title, readAs(a.Expect.Title)))
				}
			}
		}
		if err == nil {
			bad = got
			if len(got) == 0 {
				res.ExpectMet = true
				res.Outcome = "verified"
				return
			}
		}
		select {
		case <-ctx.Done():
			if len(bad) == 0 {
				bad = []string{"the page could not be checked"}
			}
			res.ExpectFailed = strings.Join(bad, "; ")
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// evalInPage evaluates call (with W, the walker) in the main frame's walker
// world, where agent patterns among pats run within patternBudget.
func (t *Tab) evalInPage(ctx context.Context, call string, pats []string, out any) error {
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return err
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	return w.evalPatterns(ctx, false, pats, func(ctx context.Context) error {
		_, err := w.eval(ctx, call, out)
		return err
	})
}

// mustJSON is v as JSON (v holds only strings).
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// drag presses the mouse on the target, moves it in steps to the drop
// target and releases it there: trusted pointer events, which drive both
// pointer-based drag libraries and the browser's own HTML5 drag and drop.
func (ac actor) drag(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	if a.To.Empty() {
		return &Error{Code: CodeInvalidArgument, Message: "drag needs a drop target: to_ref or to_selector", Hint: `e.g. {"action":"drag","ref":"e3","to_ref":"e9"}`}
	}
	to, err := t.finder().locate(ctx, a.To)
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			we.Message = "drop target: " + we.Message
		}
		return err
	}
	from, err := t.pointer.aim(ctx, el, a.Target, aimFor{})
	if err != nil {
		return err
	}
	// The drop target is placed only once the press went out: pressing
	// may have moved things.
	err = t.pointer.mouseDrag(ctx, from.x, from.y, func() (float64, float64, error) { return t.pointer.dropPoint(ctx, to, a.To) }, input.MouseButtonLeft)
	if _, ok := AsError(err); err != nil && !ok {
		return dispatchError("drag", err)
	} else if err != nil {
		return err
	}
	res.Note = "dropped on " + a.To.Describe()
	if to.ref != "" && a.To.Ref == "" {
		res.Note += " (" + to.ref + ")"
	}
	return nil
}

// dropPoint is the centre of the drop target in the tab's viewport, without
// scrolling (the drag has started) and without the hit test (the dragged
// element may cover it).
func (p *pointerState) dropPoint(ctx context.Context, el *element, tg Locator) (x, y float64, err error) {
	t := p.t
	var pt []float64
	if err := t.callEl(ctx, el, `function(){ if(!this.isConnected) return null; const r=this.getBoundingClientRect(); if(!r.width||!r.height) return null; return [r.left+r.width/2, r.top+r.height/2] }`, &pt); err != nil {
		return 0, 0, backendError("place "+tg.Describe(), err)
	}
	if len(pt) != 2 {
		return 0, 0, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("the drop target %s is not visible", tg.Describe()), Diagnosis: map[string]any{"failed_check": "visible"}}
	}
	ox, oy, err := t.finder().frameOffset(ctx, el.frame)
	if err != nil {
		return 0, 0, backendError("place "+tg.Describe(), err)
	}
	return pt[0] + ox, pt[1] + oy, nil
}

// pageGone says a call failed because the element's document went away
// (the page navigated or the frame was removed).
func pageGone(err error) bool {
	f := cdp.Classify(err)
	return f == cdp.FaultContextGone || f == cdp.FaultObjectGone || f == cdp.FaultTargetGone
}
