package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/dom"
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

// element is a located DOM node, held by a remote object in the page.
type element struct {
	backendID  int64
	objectID   runtime.RemoteObjectID
	ref        string // the node's ref, when it has one
	matchLevel string // exact for refs and selectors today
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
	fr, err := t.mainFrame(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	if t.refs.loaderID != "" && fr.LoaderID != t.refs.loaderID {
		t.refs.document(fr.LoaderID)
	}
	e, err := t.refs.lookup(ref)
	if err != nil {
		return nil, err
	}
	res, err := cdproto.Call(ctx, t.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: cdproto.BackendNodeID(e.backendID), ObjectGroup: objectGroup})
	if err != nil || res.Object == nil || res.Object.ObjectID == "" {
		if err != nil && !isNodeGone(err) {
			return nil, backendError("find "+ref, err)
		}
		return nil, t.staleRef(e)
	}
	var connected bool
	if err := t.callOn(ctx, res.Object.ObjectID, "function(){return this.isConnected}", &connected); err != nil {
		return nil, backendError("find "+ref, err)
	}
	if !connected {
		return nil, t.staleRef(e)
	}
	return &element{backendID: e.backendID, objectID: res.Object.ObjectID, ref: e.ref, matchLevel: "exact"}, nil
}

func (t *Tab) staleRef(e *refEntry) *Error {
	return &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s (%s %s) is no longer in the page", e.ref, e.role, quote(e.name)),
		Hint: "the page changed since the snapshot; take a new browser_snapshot and use its refs"}
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
	res, err := cdproto.Call(ctx, t.t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ObjectGroup: objectGroup})
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
	d, err := cdproto.Call(ctx, t.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		return nil, backendError("query "+sel, err)
	}
	el := &element{backendID: int64(d.Node.BackendNodeID), objectID: res.Result.ObjectID, matchLevel: "exact"}
	if e, ok := t.refs.byNode[el.backendID]; ok {
		el.ref = e.ref
	}
	return el, nil
}

// callOn calls a JavaScript function with this bound to the object and
// decodes its value into out (may be nil).
func (t *Tab) callOn(ctx context.Context, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: raw})
	}
	res, err := cdproto.Call(ctx, t.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
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
