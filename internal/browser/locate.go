package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Target names the element an action is for: exactly one of Ref or Selector.
type Target struct {
	Ref      string
	Selector string
}

// Describe says how the target was named, for messages.
func (tg Target) Describe() string {
	if tg.Ref != "" {
		return "ref " + tg.Ref
	}
	return "selector " + quote(tg.Selector)
}

// empty says no target was named.
func (tg Target) empty() bool { return tg.Ref == "" && tg.Selector == "" }

// element is a located DOM node, held by a remote object in the walker's
// world of its frame.
type element struct {
	world      frameWorld
	frame      *frameRefs // the frame's refs; nil for a selector match outside them
	objectID   runtime.RemoteObjectID
	ref        string // the node's ref, when it has one
	matchLevel string // exact, stable or reidentified
}

// objectGroup holds the remote objects of one action; it is released after.
const objectGroup = "webpilot-action"

func (t *Tab) releaseObjects(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
	defer cancel()
	_, _ = cdproto.Call(ctx, t.t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
}

// locate finds the target's element in the tab.
func (t *Tab) locate(ctx context.Context, tg Target) (*element, error) {
	switch {
	case tg.Ref != "" && tg.Selector != "":
		return nil, &Error{Code: CodeInvalidArgument, Message: "give either ref or selector, not both", Hint: "refs come from browser_snapshot; selector is CSS"}
	case tg.Ref != "":
		return t.locateRef(ctx, tg.Ref)
	case strings.TrimSpace(tg.Selector) != "":
		return t.locateSelector(ctx, tg.Selector)
	case tg.Selector != "":
		return nil, &Error{Code: CodeInvalidArgument, Message: "selector is empty", Hint: `pass a CSS selector such as "#submit", or a ref from browser_snapshot`}
	}
	return nil, &Error{Code: CodeInvalidArgument, Message: "no target: pass ref or selector", Hint: "take a browser_snapshot and pass a ref such as e3"}
}

func (t *Tab) locateRef(ctx context.Context, ref string) (*element, error) {
	e, err := t.refs.lookup(ref)
	if err != nil {
		return nil, err
	}
	f := e.frame
	w := frameWorld{sess: f.sess, frameID: f.frameID}
	fp, _ := json.Marshal(e.fp)
	var r struct {
		ID    int      `json:"id"`
		Level string   `json:"level"`
		Count int      `json:"count"`
		Near  []string `json:"near"`
	}
	doc, _ := json.Marshal(f.doc)
	if _, err := w.eval(ctx, fmt.Sprintf("W.doc === %s ? W.resolve(%d, %s) : {level: 'gone'}", doc, e.wid, fp), &r); err != nil {
		if isContextGone(err) || errors.Is(err, cdp.ErrDetached) {
			return nil, t.staleRef(e, "its frame is gone", nil)
		}
		return nil, backendError("find "+ref, err)
	}
	switch r.Level {
	case "gone":
		return nil, &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s belongs to a page that is no longer loaded", ref),
			Hint: "the page navigated or reloaded since that snapshot; take a new browser_snapshot and use its refs"}
	case "stale":
		why := "it was removed and no element matches it"
		if r.Count > 1 {
			why = fmt.Sprintf("it was removed and %d elements match it", r.Count)
		}
		return nil, t.staleRef(e, why, r.Near)
	case "reidentified":
		t.refs.rebind(e, r.ID)
	}
	obj, err := w.element(ctx, r.ID)
	if err != nil {
		return nil, backendError("find "+ref, err)
	}
	if obj == "" {
		return nil, t.staleRef(e, "it was removed", nil)
	}
	return &element{world: w, frame: f, objectID: obj, ref: e.ref, matchLevel: r.Level}, nil
}

func (t *Tab) staleRef(e *refEntry, why string, near []string) *Error {
	return &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s (%s %s) is no longer in the page: %s", e.ref, e.role(), quote(e.name()), why),
		Hint: "the page changed since the snapshot; take a new browser_snapshot (or browser_find) and use its refs", Suggestions: near}
}

func isNodeGone(err error) bool {
	var ce *cdp.Error
	return errors.As(err, &ce) && (strings.Contains(ce.Message, "No node") || strings.Contains(ce.Message, "not found") || strings.Contains(ce.Message, "Could not find"))
}

// locateSelector finds exactly one element matching a CSS selector.
func (t *Tab) locateSelector(ctx context.Context, sel string) (*element, error) {
	q, _ := json.Marshal(sel)
	expr := `(function(s){const all=document.querySelectorAll(s);if(all.length===1)return all[0];` +
		`return {count:all.length,sample:Array.from(all).slice(0,10).map(e=>{const t=(e.innerText||e.value||e.getAttribute("aria-label")||"").trim().replace(/\s+/g," ").slice(0,40);return e.tagName.toLowerCase()+(e.id?"#"+e.id:"")+(t?" \""+t+"\"":"")})}})(` + string(q) + `)`
	fr, err := t.mainFrame(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	w := frameWorld{sess: t.t, frameID: fr.ID}
	cid, err := w.context(ctx)
	if err != nil {
		return nil, backendError("query "+sel, err)
	}
	res, err := cdproto.Call(ctx, t.t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ObjectGroup: objectGroup, ContextID: cid})
	if err != nil {
		return nil, backendError("query "+sel, err)
	}
	if res.ExceptionDetails != nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a valid CSS selector: %s", sel, exceptionText(res.ExceptionDetails)),
			Hint: "use CSS syntax such as #id, .class, button[name=go]; or a ref from browser_snapshot"}
	}
	if res.Result.Subtype != "node" {
		var m struct {
			Count  int      `json:"count"`
			Sample []string `json:"sample"`
		}
		if err := t.callOn(ctx, res.Result.ObjectID, "function(){return this}", &m); err != nil {
			return nil, backendError("query "+sel, err)
		}
		if m.Count == 0 {
			return nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("no element matches %q", sel),
				Hint: "check the selector against a fresh browser_snapshot, or target by ref"}
		}
		return nil, &Error{Code: CodeAmbiguousTarget, Message: fmt.Sprintf("%d elements match %q", m.Count, sel),
			Hint: "make the selector more specific, or target by ref", Suggestions: m.Sample}
	}
	el := &element{world: w, objectID: res.Result.ObjectID, matchLevel: "exact"}
	// A selector match that has a ref says so.
	var id int
	if _, err := w.eval(ctx, "0", nil); err == nil {
		_ = t.callEl(ctx, el, "function(){ const W = globalThis.__webpilot; return W ? W.known(this) : 0 }", &id)
	}
	if f := t.refs.frames[fr.ID]; f != nil && id != 0 {
		if e, ok := f.byWid[id]; ok {
			el.ref, el.frame = e.ref, f
		}
	}
	return el, nil
}

// callEl calls a JavaScript function with this bound to the element.
func (t *Tab) callEl(ctx context.Context, el *element, fn string, out any, args ...any) error {
	return callOn(ctx, el.world.sess, el.objectID, fn, out, args...)
}

// callOn calls a JavaScript function with this bound to the object and
// decodes its value into out (may be nil).
func (t *Tab) callOn(ctx context.Context, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	return callOn(ctx, t.t, obj, fn, out, args...)
}

func callOn(ctx context.Context, sess cdp.Target, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: raw})
	}
	res, err := cdproto.Call(ctx, sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: cargs, ReturnByValue: new(true), AwaitPromise: new(true),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("page script: %s", exceptionText(res.ExceptionDetails))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}
