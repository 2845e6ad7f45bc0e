package browser

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// One pointer path. Every pointer input (click, dblclick, right_click,
// hover, drag, upload's click, and browser_mouse's gestures) goes the same
// way: check that the target takes pointer input and aim at it (one page
// call, aimJS, which also arms the look at the press), act at that point,
// and verify the hit (where the press landed). A button that went down is
// released whatever happens, a cancelled call included. The mouse events
// (Input.dispatchMouseEvent) are sent from this file only.

// pointerState is the tab's pointer: the one skeleton of pointer input
// (pointerInput) and the mouse events it sends, and, between calls, the
// mouse buttons browser_mouse's down holds pressed. The session's calls
// use and write it while the session is held.
type pointerState struct {
	t *Tab
	// buttons are the buttons held (input's bit mask: 1 left, 2 right, 4
	// middle).
	buttons int64
	// at is where the pointer is, in the tab's viewport, once moved is set
	// (the first mouse event webpilot sent the tab): the browser keeps it
	// there across calls and pages, and what comes under it is hovered.
	at    [2]float64
	moved bool
}

// buttonBit is a button's bit in the mask of buttons held.
func buttonBit(b input.MouseButton) int64 {
	return map[input.MouseButton]int64{input.MouseButtonLeft: 1, input.MouseButtonRight: 2, input.MouseButtonMiddle: 4}[b]
}

// gesture is what a pointer input does at its point: count presses of
// button (none: the pointer only moves there).
type gesture struct {
	button input.MouseButton
	count  int64
}

// gestureOf is the gesture of a pointer action kind (click, dblclick,
// right_click, hover).
func gestureOf(kind string) gesture {
	switch kind {
	case "hover":
		return gesture{}
	case "dblclick":
		return gesture{input.MouseButtonLeft, 2}
	case "right_click":
		return gesture{input.MouseButtonRight, 1}
	}
	return gesture{input.MouseButtonLeft, 1}
}

// aimed is where a pointer input went, in the tab's viewport, and what the
// aim's page call saw besides: blocked, a submit button of a form the
// browser's validation would stop (asked with aimFor.submit).
type aimed struct {
	x, y    float64
	blocked bool
}

// aimFor says what the page call that checks an element (aimJS) does
// besides: arm a look at the press (watch), tell whether the element is a
// submit the browser's validation would stop (submit), mark the start of
// the quiet wait (quiet).
type aimFor struct {
	watch  *pressWatch
	submit bool
	// quiet: the call marks the start of the action's quiet wait too
	// (quietWatch.aimMark), right before the input.
	quiet *quietWatch
}

// pointerInput is the one skeleton of pointer input on an element: it waits
// until el takes pointer input and aims at it (arming the look at the
// press in the same page call), sends g there, and verifies that the press
// landed on el. The aim is returned even with an error (its blocked holds
// for the DOM fallback).
func (p *pointerState) pointerInput(ctx context.Context, el *element, tg Locator, g gesture, submit bool) (aimed, error) {
	var watch *pressWatch
	if g.count > 0 {
		watch = p.watchPress(ctx, el)
		defer watch.stop()
	}
	at, err := p.aim(ctx, el, tg, aimFor{watch: watch, submit: submit, quiet: p.t.settling})
	if err != nil {
		return at, err
	}
	p.t.settling.markNow(ctx) // (when the aim did not)
	if err := p.mouseClick(ctx, at.x, at.y, g.button, g.count); err != nil {
		return at, err
	}
	return at, watch.landed(ctx, tg)
}

// aimsFirst says whether an action's input is aimed before anything is
// sent (pointerAction), or its field checked (prepareEdit): the aim or the
// check marks the start of the quiet wait in the same page call, and the
// envelope leaves the mark to it.
func aimsFirst(a Action) bool {
	switch a.Kind {
	case "click", "dblclick", "right_click", "hover", "fill", "clear", "type":
		return a.InputMode != InputDOM
	}
	return false
}

// pointerAction runs a pointer action with trusted input; in auto mode an
// element the pointer cannot reach because it is not visible gets DOM
// events instead, and the result says so.
func (ac actor) pointerAction(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	if a.InputMode == InputDOM {
		return ac.domAction(ctx, t, el, a, res)
	}
	if a.Kind == "click" {
		// A checkbox or radio drawn over by its label: a user clicks the
		// label, unless the label holds a link or another control, whose
		// click would do something else.
		lbl, busy, lerr := t.pointer.visibleLabel(ctx, el)
		switch {
		case lerr != nil:
		case lbl != nil:
			if _, err := t.pointer.pointerInput(ctx, lbl, a.Target, gestureOf(a.Kind), true); err != nil {
				return err
			}
			res.Note = "the control is drawn over by its label; clicked the label"
			return nil
		case busy && a.InputMode == InputAuto:
			t.settling.markNow(ctx)
			if err := ac.domAction(ctx, t, el, a, res); err != nil {
				return err
			}
			res.Note = "the control is drawn over by a label that holds a link or control, so a DOM click was sent to the control"
			return nil
		case busy:
			return &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s is drawn over by a label that holds a link or control", a.Target.Describe()),
				Hint: "use input_mode dom (or auto) to click the control itself", Diagnosis: map[string]any{"failed_check": "visible"}}
		}
	}
	// (a click on a submit button says whether the browser's validation
	// would stop its form: act notes where, should nothing load)
	at, err := t.pointer.pointerInput(ctx, el, a.Target, gestureOf(a.Kind), a.Kind == "click")
	res.submitBlocked = at.blocked
	if a.InputMode == InputAuto && failedCheck(err) == "visible" {
		// The wait used the action's time: the DOM events get their own.
		cctx, cancel := checkContext(ctx)
		defer cancel()
		t.settling.markNow(cctx)
		if err := ac.domAction(cctx, t, el, a, res); err != nil {
			return err
		}
		res.Note = "the element is not visible to the pointer, so DOM events were sent instead of trusted input"
		return nil
	}
	return err
}

// visibleLabel is, for a checkbox or radio input with no box of its own
// (drawn over by its label), its first visible label; busy when that
// label holds a link or another control (its centre may be one); nothing
// for other elements.
func (p *pointerState) visibleLabel(ctx context.Context, el *element) (label *element, busy bool, err error) {
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

// aim waits until el takes pointer input and returns the point to send it
// to, in the tab's viewport.
func (p *pointerState) aim(ctx context.Context, el *element, tg Locator, o aimFor) (aimed, error) {
	t := p.t
	pt, err := p.waitActionable(ctx, el, tg, o)
	at := aimed{blocked: pt.Blocked}
	if err != nil {
		return at, err
	}
	ox, oy, err := t.finder().frameOffset(ctx, el.frame)
	if err != nil {
		return at, backendError("place "+tg.Describe(), err)
	}
	at.x, at.y = pt.X+ox, pt.Y+oy
	return at, nil
}

// forwardsJS says whether a click on hit, which is not el nor in it,
// still reaches el as a person's click would: hit is in a label whose
// control is el, with no other interactive element between them (a link
// inside a label takes the click itself), as the browser's label
// activation decides; or el is the text input of a library's select or
// combobox field and hit is the field's own drawn part around it (the
// choice it shows, its box), whose press the field's handler takes — never
// a button or an option of its own, and never as far as the field's label.
const forwardsJS = `(hit,el)=>{
  const CTL="a[href],button,input,select,textarea,summary,[contenteditable=''],[contenteditable=true]";
  for(let n=hit;n&&n.nodeType===1;n=n.parentElement){
    if(n.tagName==="LABEL") return n.control===el;
    if(n!==el&&n.matches(CTL)) break;
  }
  if(el.tagName!=="INPUT"||!el.matches('[role="combobox"],[aria-haspopup]:not([aria-haspopup="false"]),[aria-autocomplete]')) return false;
  if(hit.closest(CTL+',[role=button],[role=option],[role=listbox],[role=menu],[role=dialog]')) return false;
  const labels=el.labels?Array.from(el.labels):[];
  let b=el.parentElement;
  for(let i=0;b&&i<3&&b!==document.body;i++,b=b.parentElement){
    if(labels.some(l=>b.contains(l))) return false;
    if(b.contains(hit)) return true;
  }
  return false;
}`

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
  // A hit on the element's own label, or on a field's drawn part around
  // its input, counts too (forwardsJS).
  const reaches=(hit)=>{ if(!hit) return true; if(hit.shadowRoot&&hit.shadowRoot.contains(this)) return true;
    for(let n=hit;n;n=n.assignedSlot||n.parentNode||n.host||null){ if(n===this) return true; } return (` + forwardsJS + `)(hit,this); };
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

// aimJS is the one page call of an aim (waitActionable): it looks twice
// (actionableJS), the second time a painted frame after the first when that
// one found the element actionable ({a} or {a, b}); ok when both looks
// found it actionable at the same point (a stable box), and then it arms
// the look at the press (pressWatchJS, when o.key is given). With o.submit
// it says too whether the element is a submit button of a form the
// browser's validation would stop (blockedSubmitJS): blocked. With o.quiet
// (the probe), it marks the action's start for the quiet wait last
// (W.quiet(true)): q, only when ok (the press follows at once): a look that
// failed marks nothing, so a fallback after it (the DOM events) takes its
// own mark (quietWatch.markNow). With o.front, a page whose tab is in the
// background (hidden) is not looked at: hidden, for the caller to bring
// the tab to the front first.
const aimJS = `async function(o){
  if (o.front && document.visibilityState === "hidden") return {a: {err: "hidden", why: "its tab is in the background, where the page draws no frames"}, hidden: true};
  const look = ` + actionableJS + `;
  const W = globalThis.__webpilot, mark = () => o.quiet && W ? W.quiet(true, o.quiet) : null;
  let blocked = false;
  if (o.submit) { try { blocked = (` + blockedSubmitJS + `).call(this).length > 0; } catch (e) {} }
  const a = await look.call(this, false);
  if (a.err) return {a, blocked, q: null};
  const b = await look.call(this, true);
  const ok = !b.err && b.x === a.x && b.y === a.y;
  if (ok && o.key) (` + pressWatchJS + `).call(this, o.key, o.binding);
  return {a, b, ok, blocked, q: ok ? mark() : null};
}`

// actionability is one look of actionableJS: the point, or the check that
// failed and why; Blocked is aimJS's word on a blocked submit.
type actionability struct {
	Err     string  `json:"err"`
	Why     string  `json:"why"`
	Cover   string  `json:"cover"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Blocked bool    `json:"-"`
}

// waitActionable polls the element until it can take pointer input (aimJS,
// which does what o asks besides).
func (p *pointerState) waitActionable(ctx context.Context, el *element, tg Locator, o aimFor) (actionability, error) {
	t := p.t
	arg := map[string]any{"submit": o.submit}
	if o.watch != nil {
		arg["key"], arg["binding"] = o.watch.key, pressBinding
	}
	if p := o.quiet.aimMark(el.world); p != "" {
		arg["quiet"] = p
	}
	// A tab in the background draws no frames: a pointer event there
	// waits for one (seconds), and a transition never ends. It is brought
	// to the front once (as a person would look at it); a page that stays
	// hidden after that is looked at as it is.
	arg["front"] = true
	var last actionability
	for {
		// Each check runs to its end even when the wait is over, so that a
		// short timeout still reports the check that failed.
		cctx, cancel := checkContext(ctx)
		var looks struct {
			A       actionability  `json:"a"`
			B       *actionability `json:"b"`
			OK      bool           `json:"ok"`
			Blocked bool           `json:"blocked"`
			Hidden  bool           `json:"hidden"`
			Q       []any          `json:"q"`
		}
		err := t.callEl(cctx, el, aimJS, &looks, arg)
		cancel()
		if err == nil && looks.Hidden {
			arg["front"] = false
			if err := toFront(ctx, t.page); err != nil {
				return looks.A, err
			}
			continue
		}
		if err == nil && looks.Q != nil && arg["quiet"] != nil {
			o.quiet.marked(quietFrom(looks.Q), true)
		}
		a := looks.A
		a.Blocked = looks.Blocked
		if err == nil && looks.OK && looks.B != nil {
			b := *looks.B
			b.Blocked = looks.Blocked
			return b, nil
		}
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

// toFront brings page's tab to the front of its window (Page.bringToFront,
// bounded): a tab in the background draws no frames, so input sent there
// waits for one, and a capture or a screencast gets none. A tab that
// cannot be brought forward is left as it is; only the call's own end is
// an error.
func toFront(ctx context.Context, page *loop) error {
	bctx, cancel := context.WithTimeout(ctx, bringToFrontTimeout)
	err := page.Call(bctx, "Page.bringToFront", nil, nil)
	cancel()
	if err != nil && ctx.Err() != nil {
		return backendError("bring the tab to the front", ctx.Err())
	}
	return nil
}

// pressWatchJS arms a one-time look at the next pointerdown (in webpilot's
// world, capture phase on the window: through the walker's listener, added
// at the start of the document before the page's own, else its own):
// whether the element it was aimed at is on its path, and what it hit,
// told at once through the press binding — a call into the page after the
// click would wait behind a navigation it started.
const pressWatchJS = `function(key, binding){
  const el=this, tell=globalThis[binding], W=globalThis.__webpilot;
  let off;
  const on=(e)=>{ off();
    const p=e.composedPath(), h=p[0];
    let hit=""; if(h&&h.tagName) hit=h.tagName.toLowerCase()+(h.id?"#"+h.id:"")+(typeof h.className==="string"&&h.className.trim()?"."+h.className.trim().split(/\s+/).join("."):"");
    tell(JSON.stringify({key:key, inside:p.includes(el)||(h&&h.nodeType===1&&(` + forwardsJS + `)(h,el)), hit:hit})); };
  if(W&&W.onPress) off=W.onPress(on);
  else { addEventListener("pointerdown", on, true); off=()=>removeEventListener("pointerdown", on, true); }
  setTimeout(off, 30000);
}`

// pressBinding is the binding (Runtime.addBinding, in webpilot's world
// only) through which pressWatchJS tells where a press landed.
var pressBinding = "__webpilot_press_" + rand.Text()[:10]

// pressWait bounds the wait, after a click's input was answered, for the
// word of where its press landed (it is normally in already).
const pressWait = 250 * time.Millisecond

// pressWatch is a look at the press a click is about to send to an
// element: armed in the page by the aim (aimJS, with its key), read by
// landed.
type pressWatch struct {
	key    string
	called <-chan jsonv2.Value
	cancel func()
}

// watchPress readies a look at the press a click is about to send to el (the
// page side is armed by the aim's call); nil, a look that finds nothing,
// when the binding it answers through cannot be added.
func (p *pointerState) watchPress(ctx context.Context, el *element) *pressWatch {
	sess := el.world.sess
	wc := sess.worlds
	if !wc.pressBound.Load() {
		if err := sess.Call(ctx, "Runtime.addBinding", map[string]any{"name": pressBinding, "executionContextName": worldName}, nil); err != nil {
			return nil
		}
		wc.pressBound.Store(true)
	}
	called, cancel := sess.Subscribe("Runtime.bindingCalled")
	return &pressWatch{key: rand.Text()[:10], called: called, cancel: cancel}
}

// stop ends the look (nil: nothing to end).
func (w *pressWatch) stop() {
	if w != nil {
		w.cancel()
	}
}

// landed is the check to run once a press was sent (with ctx done it
// returns at once): NOT_ACTIONABLE when the press landed on another element
// than the one aimed at (the target moved, or something covered it,
// between the check and the press), so that a click that hit nothing is
// never reported done. A press not seen (the page stopped the event before
// webpilot's look) is not held against the click.
func (w *pressWatch) landed(ctx context.Context, tg Locator) error {
	if w == nil || ctx.Err() != nil {
		return nil
	}
	wait := time.NewTimer(pressWait)
	defer wait.Stop()
	for {
		select {
		case raw, ok := <-w.called:
			if !ok {
				return nil
			}
			var ev struct {
				Name    string `json:"name"`
				Payload string `json:"payload"`
			}
			var rec struct {
				Key    string `json:"key"`
				Inside bool   `json:"inside"`
				Hit    string `json:"hit"`
			}
			if json.Unmarshal(raw, &ev) != nil || ev.Name != pressBinding || json.Unmarshal([]byte(ev.Payload), &rec) != nil || rec.Key != w.key {
				continue
			}
			if rec.Inside {
				return nil
			}
			return &Error{Code: CodeNotActionable,
				Message:   fmt.Sprintf("the click meant for %s landed on %s: the element moved, or something covered it, at the moment of the click", tg.Describe(), rec.Hit),
				Hint:      "take a browser_snapshot (that click may have changed the page), then retry once the page has settled",
				Diagnosis: map[string]any{"failed_check": "receives events", "landed_on": rec.Hit}}
		case <-wait.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// finishing is a context for the step that completes an input already
// begun (a release after a press): ctx while it lasts (a message sent goes
// to the browser even if ctx ends while it is answered); once ctx has
// ended, a context that outlives it, bounded by handleTimeout, so that a
// cancelled call still releases what it pressed. Not when a dialog ended
// ctx: input waits behind an open dialog, and the call must return with it.
func finishing(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil || errors.Is(context.Cause(ctx), errDialogOpened) {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
}

// dispatchMouse sends one mouse event to the tab's page.
func (p *pointerState) dispatchMouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, buttons, count int64) error {
	t := p.t
	_, err := cdproto.Call(ctx, t.page, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: button, Buttons: buttons, ClickCount: count})
	if typ != input.DispatchMouseEventTypeMouseWheel {
		p.at, p.moved = [2]float64{x, y}, true
	}
	return err
}

// standOnJS gives the centre of the element's box, in its frame's
// viewport, when the point (x, y) of that viewport is outside the box; else
// null.
const standOnJS = `function(x,y){
  const r=this.getBoundingClientRect();
  if(r.width===0||r.height===0||(x>=r.left&&x<=r.right&&y>=r.top&&y<=r.bottom)) return null;
  return [r.left+r.width/2, r.top+r.height/2, document.visibilityState==="hidden"?1:0];
}`

// standOn moves the pointer onto el before keys go to it, as a person's
// hand is on the field they type into, when an earlier pointer action left
// it elsewhere: what opens as the field takes the focus (a date picker's
// calendar) would else open under the pointer and take its hover (Ant
// Design's picker shows a hovered day as the field's text). Nothing is
// sent when the pointer never moved in this tab, or is on el already.
func (p *pointerState) standOn(ctx context.Context, el *element) error {
	if !p.moved || p.buttons != 0 {
		return nil
	}
	ox, oy, err := p.t.finder().frameOffset(ctx, el.frame)
	if err != nil {
		return nil // (a frame that cannot be placed: the keys go as they are)
	}
	var c []float64
	if err := p.t.callEl(ctx, el, standOnJS, &c, p.at[0]-ox, p.at[1]-oy); err != nil || len(c) != 3 {
		return nil
	}
	if c[2] == 1 {
		if err := toFront(ctx, p.t.page); err != nil {
			return err
		}
	}
	return p.mouseMove(ctx, c[0]+ox, c[1]+oy)
}

// release lets button go at (x, y), even once ctx has ended (finishing).
func (p *pointerState) release(ctx context.Context, x, y float64, button input.MouseButton, buttons, count int64) error {
	fctx, cancel := finishing(ctx)
	defer cancel()
	return p.dispatchMouse(fctx, input.DispatchMouseEventTypeMouseReleased, x, y, button, buttons, count)
}

// mouseMove moves the pointer to (x, y) with the buttons held.
func (p *pointerState) mouseMove(ctx context.Context, x, y float64) error {
	return p.dispatchMouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, "", p.buttons, 0)
}

// mouseClick sends one mouse gesture at (x, y): a move, then count presses
// and releases of button (none: it moves only). A button pressed is always
// released, even when the call is cancelled in between or the press's
// answer was cut off (it may have reached the page).
func (p *pointerState) mouseClick(ctx context.Context, x, y float64, button input.MouseButton, count int64) error {
	if err := p.dispatchMouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, "", 0, 0); err != nil {
		return dispatchError("move the mouse", err)
	}
	for i := int64(1); i <= count; i++ {
		err := p.dispatchMouse(ctx, input.DispatchMouseEventTypeMousePressed, x, y, button, buttonBit(button), i)
		if rerr := p.release(ctx, x, y, button, 0, i); err == nil {
			err = rerr
		}
		if err != nil {
			return dispatchError("click", err)
		}
	}
	return nil
}

// mouseDown moves to (x, y) and presses button there, which stays held
// (pointerState) until mouseUp.
func (p *pointerState) mouseDown(ctx context.Context, x, y float64, button input.MouseButton) error {
	if err := p.mouseMove(ctx, x, y); err != nil {
		return err
	}
	held := p.buttons | buttonBit(button)
	if err := p.dispatchMouse(ctx, input.DispatchMouseEventTypeMousePressed, x, y, button, held, 1); err != nil {
		return err
	}
	p.buttons = held
	return nil
}

// mouseUp moves to (x, y) and lets button go there, even once ctx has
// ended.
func (p *pointerState) mouseUp(ctx context.Context, x, y float64, button input.MouseButton) error {
	if err := p.mouseMove(ctx, x, y); err != nil {
		return err
	}
	err := p.release(ctx, x, y, button, p.buttons&^buttonBit(button), 1)
	p.buttons &^= buttonBit(button)
	return err
}

// mouseWheel turns the wheel at (x, y) by the deltas, in CSS pixels.
func (p *pointerState) mouseWheel(ctx context.Context, x, y, dx, dy float64) error {
	t := p.t
	// (both deltas go out, zero or not: the browser wants them)
	return t.page.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}, nil)
}

// mouseDrag presses button at (x0, y0), moves in steps to the point end
// gives (asked once the press went out: pressing may move things) and
// releases it there; a press that went out is always released, even when
// the call ends or end fails.
func (p *pointerState) mouseDrag(ctx context.Context, x0, y0 float64, end func() (float64, float64, error), button input.MouseButton) error {
	bit := buttonBit(button)
	if err := p.dispatchMouse(ctx, input.DispatchMouseEventTypeMouseMoved, x0, y0, "", 0, 0); err != nil {
		return err
	}
	if err := p.dispatchMouse(ctx, input.DispatchMouseEventTypeMousePressed, x0, y0, button, bit, 1); err != nil {
		_ = p.release(ctx, x0, y0, button, 0, 1) // (the press may have reached the page)
		return err
	}
	x1, y1, err := end()
	if err != nil {
		_ = p.release(ctx, x0, y0, button, 0, 1)
		return err
	}
	const n = 12
	x, y := x0, y0
	for i := 1; i <= n && err == nil; i++ {
		x, y = x0+(x1-x0)*float64(i)/n, y0+(y1-y0)*float64(i)/n
		err = p.dispatchMouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, button, bit, 0)
	}
	if rerr := p.release(ctx, x, y, button, 0, 1); err == nil {
		err = rerr
	}
	return err
}
