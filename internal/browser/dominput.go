package browser

import (
	"context"
	"fmt"
)

// Input modes of an action: trusted CDP input, DOM events, or CDP with a
// DOM fallback for an element that cannot take pointer input because it is
// not visible (a styled-over native checkbox, say). A covered element never
// falls back: what covers it is what a user would hit.
const (
	InputAuto = "auto"
	InputCDP  = "cdp"
	InputDOM  = "dom"
)

// domKinds are the action kinds that have a DOM-event form.
var domKinds = map[string]bool{"click": true, "dblclick": true, "right_click": true, "hover": true,
	"check": true, "uncheck": true, "fill": true, "clear": true, "type": true, "press": true, "drag": true}

// domEventJS fires the events of a pointer action at the element (not
// trusted: isTrusted is false, and the browser runs no default action but
// the click's).
const domEventJS = `function(kind){
  if(!this.isConnected) return {err:"detached", why:"the element was removed from the page"};
  if(this.disabled) return {err:"enabled", why:"the element is disabled"};
  this.scrollIntoView({block:"center",inline:"center",behavior:"instant"});
  const r=this.getBoundingClientRect(), x=r.left+r.width/2, y=r.top+r.height/2;
  const o={bubbles:true,cancelable:true,composed:true,view:window,clientX:x,clientY:y};
  const fire=(type,extra)=>this.dispatchEvent(new (type.startsWith("pointer")?PointerEvent:MouseEvent)(type,Object.assign({},o,extra||{})));
  if(kind==="hover"){ fire("pointerover"); fire("pointerenter",{bubbles:false}); fire("mouseover"); fire("mouseenter",{bubbles:false}); fire("pointermove"); fire("mousemove"); return {}; }
  if(kind==="right_click"){ fire("pointerdown",{button:2,buttons:2}); fire("mousedown",{button:2,buttons:2}); fire("pointerup",{button:2}); fire("mouseup",{button:2}); fire("contextmenu",{button:2}); return {}; }
  const one=(detail)=>{ fire("pointerdown",{buttons:1,detail}); fire("mousedown",{buttons:1,detail}); if(this.focus) this.focus(); fire("pointerup",{detail}); fire("mouseup",{detail}); };
  if(kind==="dblclick"){ one(1); this.click(); one(2); this.click(); fire("dblclick",{detail:2}); return {}; }
  one(1); this.click(); return {};
}`

// domEditJS sets a field's value (fill, clear) or appends to it (type) the
// way a script would, and fires input and change.
const domEditJS = `function(kind,v){
  if(!this.isConnected) return {err:"detached", why:"the element was removed from the page"};
  if(this.disabled) return {err:"enabled", why:"the field is disabled"};
  if(this.readOnly) return {err:"editable", why:"the field is read-only"};
  const tag=this.tagName;
  if(tag==="INPUT"&&/^(checkbox|radio|file|button|submit|reset|image|range|color|hidden)$/.test(this.type)) return {err:"editable", why:"it is an input of type "+this.type+", not a text field"};
  if(tag==="INPUT"||tag==="TEXTAREA"){
    const proto=tag==="INPUT"?HTMLInputElement.prototype:HTMLTextAreaElement.prototype;
    const set=Object.getOwnPropertyDescriptor(proto,"value").set;
    if(this.focus) this.focus();
    set.call(this, kind==="type"?this.value+v:v);
  } else if(this.isContentEditable){
    if(this.focus) this.focus();
    this.textContent = kind==="type"?this.textContent+v:v;
  } else return {err:"editable", why:"it is a "+tag.toLowerCase()+", not a text field"};
  this.dispatchEvent(new InputEvent("input",{bubbles:true,composed:true,inputType:"insertText",data:v}));
  this.dispatchEvent(new Event("change",{bubbles:true}));
  return {};
}`

// domKeyJS fires keydown and keyup at the element (or the focus).
const domKeyJS = `function(key){
  let t=this&&this.nodeType===1?this:document.activeElement||document.body;
  const o={key:key,bubbles:true,cancelable:true,composed:true};
  t.dispatchEvent(new KeyboardEvent("keydown",o)); t.dispatchEvent(new KeyboardEvent("keyup",o));
  return {};
}`

// domDragJS runs an HTML5 drag and drop between two elements with a shared
// DataTransfer.
const domDragJS = `function(to){
  if(!this.isConnected||!to.isConnected) return {err:"detached", why:"an element was removed from the page"};
  const dt=new DataTransfer();
  const at=(el)=>{ const r=el.getBoundingClientRect(); return {clientX:r.left+r.width/2, clientY:r.top+r.height/2}; };
  const fire=(el,type)=>el.dispatchEvent(new DragEvent(type,Object.assign({bubbles:true,cancelable:true,composed:true,dataTransfer:dt},at(el))));
  fire(this,"dragstart"); fire(to,"dragenter"); fire(to,"dragover"); fire(to,"drop"); fire(this,"dragend");
  return {};
}`

type domResult struct {
	Err string `json:"err"`
	Why string `json:"why"`
}

// domAction runs a.Kind as DOM events on el.
func (ac actor) domAction(ctx context.Context, t *Tab, el *element, a Action, res *ActionResult) error {
	res.InputMode = InputDOM
	var r domResult
	var err error
	switch a.Kind {
	case "click", "dblclick", "right_click", "hover":
		err = t.callEl(ctx, el, domEventJS, &r, a.Kind)
	case "check", "uncheck":
		return ac.check(ctx, t, el, a, res) // clicks through s.click, which honours the mode
	case "fill", "clear", "type":
		if el == nil {
			return &Error{Code: CodeInvalidArgument, Message: "type with input_mode dom needs a target", Hint: "name the field, or use input_mode cdp to type at the focus"}
		}
		err = t.callEl(ctx, el, domEditJS, &r, a.Kind, a.Value)
		if err == nil && r.Err == "" {
			var got string
			if err := t.callEl(ctx, el, readValueJS, &got); err == nil {
				res.Value = got
				if a.Kind != "type" && got == a.Value || a.Kind == "type" {
					res.Outcome = "verified"
				}
			}
		}
	case "press":
		if el == nil {
			el, err = t.finder().documentElement(ctx)
			if err != nil {
				return err
			}
			err = t.callEl(ctx, el, `function(key){ return (`+domKeyJS+`).call(null, key) }`, &r, a.Key)
		} else {
			err = t.callEl(ctx, el, domKeyJS, &r, a.Key)
		}
	case "drag":
		if a.To.Empty() {
			return &Error{Code: CodeInvalidArgument, Message: "drag needs a drop target: to_ref or to_selector"}
		}
		to, lerr := t.finder().locate(ctx, a.To)
		if lerr != nil {
			return lerr
		}
		if to.world.frameID != el.world.frameID {
			return &Error{Code: CodeInvalidArgument, Message: "a DOM drag stays in one frame", Hint: "use input_mode cdp to drag between frames"}
		}
		err = callOnWith(ctx, el, domDragJS, &r, to)
	}
	if err != nil {
		return backendError(a.Kind+" (DOM events)", err)
	}
	if r.Err != "" {
		code := CodeNotActionable
		if r.Err == "detached" {
			code = CodeStaleRef
		}
		return &Error{Code: code, Message: fmt.Sprintf("cannot %s %s: %s", a.Kind, a.Target.Describe(), r.Why), Diagnosis: map[string]any{"failed_check": r.Err}}
	}
	return nil
}

// callOnWith calls fn on el with another element of the same world as its
// argument.
func callOnWith(ctx context.Context, el *element, fn string, out any, arg *element) error {
	return callOnObjects(ctx, el.world.sess, el.objectID, fn, out, arg.objectID)
}
