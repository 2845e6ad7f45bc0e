package browser

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
)

// walkerJS is the page walker: an expression that evaluates to the walker
// object of the world it runs in (created on first use).
//
//go:embed walker.js
var walkerJS string

// clickHookJS remembers, in the main world, the elements given click
// listeners; __PROBE__ is replaced by probeName.
//
//go:embed clickhook.js
var clickHookJS string

// probeName names the events between the click hook and the walker: random
// per process, so that a page cannot listen for them by name.
var probeName = func() string {
	return "webpilot-" + rand.Text()[:12]
}()

// keepaliveHookJS tells the walker's world about keepalive fetches (see
// quiet.go); installed with the click hook.
//
//go:embed keepalive.js
var keepaliveHookJS string

// timersHookJS counts the page's short timers for the wait after an
// action (see quiet.go); installed with the click hook.
//
//go:embed timers.js
var timersHookJS string

// passkeyHookJS counts the page's passkey requests that wait for the
// person (W.human); installed with the click hook.
//
//go:embed passkey.js
var passkeyHookJS string

// installClickHook adds the click hook (and the keepalive, timers and passkey hooks) to every
// new document of sess, and the walker to the walker's world of each: the
// first walk of a document then finds it there (the same world that
// Page.createIsolatedWorld with worldName returns) instead of asking for the
// world and sending the walker's 40 KB source, which is two round trips
// more (through the extension on the bridge) on the way to the snapshot
// after every navigation. A document that started before is still given
// the walker on first use.
func installClickHook(ctx context.Context, sess cdp.Caller) error {
	src := strings.ReplaceAll(clickHookJS+";\n"+keepaliveHookJS+";\n"+timersHookJS+";\n"+passkeyHookJS, "__PROBE__", probeName)
	if err := sess.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": src, "runImmediately": true}, nil); err != nil {
		return err
	}
	walker := "globalThis." + worldKey + " = true;\n" + walkerJS
	return sess.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": walker, "worldName": worldName}, nil)
}

// noWalker is what an evaluation returns in a world without the walker.
const noWalker = "webpilot: no walker"

// worldName is the isolated world the walker runs in.
const worldName = "webpilot"

// maxFrameDepth bounds how deep iframes are inlined.
const maxFrameDepth = 4

// walkResult is what the walker returns for one frame.
type walkResult struct {
	Doc    string           `json:"doc"`
	Title  string           `json:"title"`
	URL    string           `json:"url"`
	Hidden int              `json:"hidden"`
	Inert  int              `json:"inert"`
	Modal  bool             `json:"modal"`
	C      []*snapshot.Node `json:"c"`
	Error  string           `json:"error"`
	// Stopped is, for a walk that ran out of its time budget, the number
	// of elements it had visited: the tree holds what came before.
	Stopped int `json:"stopped"`
	// S is the string table of the nodes' short fingerprints.
	S []string `json:"s"`
	// Reused is how many elements' visits were taken over from the last
	// walk (subtrees counted once); Verify, with verifyWalks, where the
	// walk differs from a whole walk.
	Reused int    `json:"reused"`
	Verify string `json:"verify"`
	// Look is, for a first look that left parts of a big document unread,
	// how many elements it read and how many the document has.
	Look []int `json:"look"`
	// H is what on the document waits for a person (W.human: HumanSign's
	// kind and what).
	H [][2]string `json:"h"`
}

// expand turns the walk's short fingerprints (tag, id, test id, context
// and path as numbers into S) into full ones (with role and name).
func (r *walkResult) expand() {
	str := func(v string) string {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= len(r.S) {
			return ""
		}
		return r.S[i]
	}
	var walk func(ns []*snapshot.Node)
	walk = func(ns []*snapshot.Node) {
		for _, n := range ns {
			if len(n.P) == 5 {
				n.P = []string{n.P[0], n.P[1], n.P[2], str(n.P[3]), str(n.P[4]), n.R, n.N}
			}
			walk(n.C)
		}
	}
	walk(r.C)
	r.S = nil
}

// frameWorld is a frame the walker runs in.
type frameWorld struct {
	sess    *loop
	frameID string
}

// worldKey names, in the walker's world, a global that only webpilot sets
// (random per process, so a page cannot set it in its own world): a cached
// execution context that does not have it is not the walker's world.
var worldKey = "__webpilot_" + rand.Text()[:10]

// worldCache keeps, for one session, the execution context of the walker's
// world in each frame's current document, so that a call costs one
// evaluation instead of Page.createIsolatedWorld plus one. An entry is
// dropped when the browser reports its context destroyed or all contexts
// cleared (the session's Runtime domain is enabled: tabs), and when using
// it fails (a frame's new document; sessions without Runtime events:
// out-of-process frames), and the call is then made again in a fresh world.
type worldCache struct {
	mu   sync.Mutex
	ctxs map[string]runtime.ExecutionContextID // by frame id
	gen  int                                   // counts drops: a context asked for before one is not stored
	// mains are the page's own (default) contexts by frame id, for
	// browser_eval: known only from context events, so only in sessions
	// with the Runtime domain enabled.
	mains map[string]pageContext
	// origins are the walker worlds' documents' origins by context id
	// (from the context events), for what the page-side matchers hide
	// (hideList).
	origins map[runtime.ExecutionContextID]string
	// runtimeOn says browser_eval enabled the Runtime domain in the
	// session (out-of-process frames: the tab enables it itself).
	runtimeOn atomic.Bool
	// objects says remote objects of the action's group may be held in
	// this session: releasing a group with none is a round trip for
	// nothing (through the bridge, one through the extension).
	objects atomic.Bool
	// pressBound says the press binding (watchPress) is added in this
	// session.
	pressBound atomic.Bool
}

// holdsObjects notes that a call on the target may have left remote
// objects in the action's object group.
func (g *loop) holdsObjects() { g.worlds.objects.Store(true) }

func newWorldCache() *worldCache {
	return &worldCache{ctxs: make(map[string]runtime.ExecutionContextID), mains: make(map[string]pageContext), origins: make(map[runtime.ExecutionContextID]string)}
}

// onCreated notes a new context: the walker's world of a new document (the
// walker is preinstalled there: the first call in it needs no
// Page.createIsolatedWorld), or a frame's page context.
func (c *worldCache) onCreated(raw jsonv2.Value) {
	var ev struct {
		Context struct {
			ID       runtime.ExecutionContextID `json:"id"`
			UniqueID string                     `json:"uniqueId"`
			Name     string                     `json:"name"`
			Origin   string                     `json:"origin"`
			AuxData  struct {
				FrameID   string `json:"frameId"`
				IsDefault bool   `json:"isDefault"`
			} `json:"auxData"`
		} `json:"context"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil || ev.Context.AuxData.FrameID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ev.Context.Name == worldName:
		c.ctxs[ev.Context.AuxData.FrameID] = ev.Context.ID
		c.origins[ev.Context.ID] = ev.Context.Origin
	case ev.Context.AuxData.IsDefault:
		c.mains[ev.Context.AuxData.FrameID] = pageContext{id: ev.Context.ID, unique: ev.Context.UniqueID}
	}
}

func (c *worldCache) onDestroyed(raw jsonv2.Value) {
	var ev struct {
		ID runtime.ExecutionContextID `json:"executionContextId"`
	}
	if jsonv2.Unmarshal(raw, &ev) == nil {
		c.dropID(ev.ID)
	}
}

func (c *worldCache) onCleared() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.ctxs)
	clear(c.mains)
	clear(c.origins)
	c.gen++
}

// has says the frame has a walker world in the cache: the frame is there.
func (c *worldCache) has(frameID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ctxs[frameID]
	return ok
}

func (c *worldCache) get(frameID string) (runtime.ExecutionContextID, int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ctxs[frameID]
	return id, c.gen, ok
}

// put stores a frame's context, unless something was dropped since gen
// (the context may be one of those).
func (c *worldCache) put(frameID string, id runtime.ExecutionContextID, gen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.ctxs[frameID] = id
	}
}

func (c *worldCache) dropID(id runtime.ExecutionContextID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for f, have := range c.ctxs {
		if have == id {
			delete(c.ctxs, f)
		}
	}
	for f, have := range c.mains {
		if have.id == id {
			delete(c.mains, f)
		}
	}
	delete(c.origins, id)
	c.gen++
}

// origin is the origin of the walker world id's document, if an event
// told it.
func (c *worldCache) origin(id runtime.ExecutionContextID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.origins[id]
	return o, ok
}

// setOrigin notes the origin of world id's document, read from the page.
func (c *worldCache) setOrigin(id runtime.ExecutionContextID, origin string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.origins[id] = origin
}

// pageContext is the page's own execution context (its main world) in a
// frame's document: its id and its id unique across processes.
type pageContext struct {
	id     runtime.ExecutionContextID
	unique string
}

// main returns the page's own context in the frame, when known.
func (c *worldCache) main(frameID string) (pageContext, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, ok := c.mains[frameID]
	return pc, ok
}

// dropMain forgets the frame's page context if it is still pc (its
// document went).
func (c *worldCache) dropMain(frameID string, pc pageContext) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mains[frameID] == pc {
		delete(c.mains, frameID)
	}
}

// createWorld asks the browser for the walker world's execution context in
// the frame's current document. The world is created once per document;
// asking again returns the same one.
func (w frameWorld) createWorld(ctx context.Context) (runtime.ExecutionContextID, error) {
	var res struct {
		ID runtime.ExecutionContextID `json:"executionContextId"`
	}
	err := w.sess.Call(ctx, "Page.createIsolatedWorld", map[string]any{"frameId": w.frameID, "worldName": worldName, "grantUniveralAccess": false}, &res)
	return res.ID, err
}

// context returns the walker world's execution context in the frame's
// current document: the cached one, else a new one (cached is then false).
func (w frameWorld) context(ctx context.Context) (id runtime.ExecutionContextID, cached bool, gen int, err error) {
	id, gen, cached = w.sess.worlds.get(w.frameID)
	if cached {
		return id, true, gen, nil
	}
	id, err = w.createWorld(ctx)
	return id, false, gen, err
}

// callFunction calls a function in the walker's world of the frame (p
// without an object or context), once more in a fresh world when the
// cached one is gone.
func (w frameWorld) callFunction(ctx context.Context, p runtime.CallFunctionOnParams) (runtime.CallFunctionOnResult, error) {
	for {
		cid, cached, gen, err := w.context(ctx)
		if err != nil {
			return runtime.CallFunctionOnResult{}, err
		}
		p.ExecutionContextID = cid
		res, err := cdproto.Call(ctx, w.sess, runtime.CallFunctionOn, p)
		if cached && isContextGone(err) {
			w.sess.worlds.dropID(cid)
			continue
		}
		if err == nil && !cached {
			w.sess.worlds.put(w.frameID, cid, gen)
		}
		return res, err
	}
}

// eval evaluates call on the walker (as "W.method(args)" with W bound) in
// the frame and decodes the value into out; with out nil it returns the
// result as a remote object in the action's object group.
func (w frameWorld) eval(ctx context.Context, call string, out any) (*runtime.RemoteObject, error) {
	cid, cached, gen, err := w.context(ctx)
	if err != nil {
		return nil, err
	}
	// The walker's source is sent only when the world does not have it yet.
	// A value comes back as one JSON string (asJSON): the browser copies a
	// string across far faster than it converts a tree of objects.
	wrap := func(v string) string { return v }
	if out != nil {
		wrap = func(v string) string { return asJSON + "(" + v + ")" }
	}
	// Every call first tells the walker what its matchers hide: the
	// calling client's secrets that may be typed on this document (none
	// when the client has none), so that no agent pattern or text is ever
	// compared with a secret's characters (hideList); made anew for each
	// context the call is tried in.
	hidden := func(cid runtime.ExecutionContextID) (string, error) {
		list, err := w.hideList(ctx, cid)
		return "(W.hide(" + list + "), " + call + ")", err
	}
	hcall, err := hidden(cid)
	if err != nil && !cached {
		return nil, err
	}
	expr := func(hcall string) string {
		return "globalThis." + worldKey + " === true && globalThis.__webpilot ? " + wrap("((W) => "+hcall+")(globalThis.__webpilot)") + " : " + strconv.Quote(noWalker)
	}
	p := runtime.EvaluateParams{Expression: expr(hcall), ContextID: cid, ReturnByValue: new(out != nil), ObjectGroup: objectGroup, AwaitPromise: new(true)}
	if out == nil {
		w.sess.holdsObjects()
	}
	var res runtime.EvaluateResult
	if err == nil {
		res, err = cdproto.Call(ctx, w.sess, runtime.Evaluate, p)
	}
	if cached && (err != nil && isContextGone(err) || err == nil && isNoWalker(res)) {
		// The document the cached world belonged to is gone (or the id
		// now names another context): a fresh world, with what its
		// document hides.
		w.sess.worlds.dropID(cid)
		if cid, cached, gen, err = w.context(ctx); err != nil {
			return nil, err
		}
		if hcall, err = hidden(cid); err != nil {
			return nil, err
		}
		p.ContextID, p.Expression = cid, expr(hcall)
		res, err = cdproto.Call(ctx, w.sess, runtime.Evaluate, p)
	}
	if !cached && err == nil && isNoWalker(res) {
		p.Expression = wrap("((W) => " + hcall + ")((globalThis." + worldKey + " = true, " + walkerJS + "))")
		res, err = cdproto.Call(ctx, w.sess, runtime.Evaluate, p)
	}
	stopScript(ctx, w.sess, err)
	if err != nil {
		return nil, err
	}
	if !cached {
		w.sess.worlds.put(w.frameID, cid, gen)
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page walker: %s", exceptionText(res.ExceptionDetails))
	}
	if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
		var text string
		if err := json.Unmarshal(res.Result.Value, &text); err != nil {
			return nil, fmt.Errorf("page walker: %w", err)
		}
		if err := json.Unmarshal([]byte(text), out); err != nil {
			return nil, fmt.Errorf("page walker: %w", err)
		}
	}
	return res.Result, nil
}

// hideList is the JSON list of what the walker's matchers hide in world
// cid: the forms of the calling client's secrets that may be typed on the
// world's document, each with its name (Caller.Hide); "null" when the
// client declared none. The document's origin comes from the context's
// event, else from the page (one evaluation); when it cannot be read the
// call fails rather than compare without it.
func (w frameWorld) hideList(ctx context.Context, cid runtime.ExecutionContextID) (string, error) {
	t := w.sess.tab
	if t == nil {
		return "null", nil
	}
	hide := t.link.hider()
	if hide == nil {
		return "null", nil
	}
	origin, ok := w.sess.worlds.origin(cid)
	if !ok {
		// (a document whose origin is unknown is not let compare: the
		// error is the context's, which the caller tries afresh)
		res, err := cdproto.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{Expression: "location.origin", ContextID: cid, ReturnByValue: new(true)})
		if err != nil {
			return "", err
		}
		if res.Result == nil || json.Unmarshal(res.Result.Value, &origin) != nil {
			return "", fmt.Errorf("read the document's origin: %v", res.ExceptionDetails)
		}
		w.sess.worlds.setOrigin(cid, origin)
	}
	list := hide(origin)
	if len(list) == 0 {
		return "null", nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return "", fmt.Errorf("what the page hides: %w", err)
	}
	return string(b), nil
}

// asJSON is a function that turns a value (or what a promise gives) into
// its JSON text, leaving undefined as it is.
const asJSON = "((v) => { const s = (x) => x === undefined ? undefined : JSON.stringify(x); return v instanceof Promise ? v.then(s) : s(v) })"

// isNoWalker says an evaluation answered that its world has no walker.
func isNoWalker(res runtime.EvaluateResult) bool {
	return res.ExceptionDetails == nil && res.Result != nil && res.Result.Type == "string" && (res.Result.Value == nil || string(res.Result.Value) == strconv.Quote(noWalker))
}

// walkScope says where a walk starts: the whole document, or one element.
type walkScope struct {
	obj runtime.RemoteObjectID // an element in the walker's world
	// look: a first look at a big document (opts.look in the walker):
	// of long containers only what is on screen and near it is read.
	look bool
}

// walk runs the walker over the frame's document (or the scope element),
// within budget (0: none): past it the walker stops and returns what it
// has, with Stopped set.
func (w frameWorld) walk(ctx context.Context, scope walkScope, budget time.Duration) (*walkResult, error) {
	var out walkResult
	ms := strconv.FormatInt(budget.Milliseconds(), 10)
	if scope.obj != "" {
		res, err := cdproto.Call(ctx, w.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: "function(){ return (" + walkerJS + ").snapshot(this, {budget: " + ms + "}) }",
			ObjectID:            scope.obj, ReturnByValue: new(true),
		})
		stopScript(ctx, w.sess, err)
		if err != nil {
			return nil, err
		}
		if res.ExceptionDetails != nil {
			return nil, fmt.Errorf("page walker: %s", exceptionText(res.ExceptionDetails))
		}
		if err := json.Unmarshal(res.Result.Value, &out); err != nil {
			return nil, fmt.Errorf("page walker: %w", err)
		}
		return out.ready(w)
	}
	if _, err := w.eval(ctx, "W.snapshot(null, "+walkOpts(budget, scope.look)+")", &out); err != nil {
		return nil, err
	}
	return out.ready(w)
}

// verifyWalks says every walk of a whole document is followed by a whole
// walk that takes nothing over from the last, and compared with it
// (WEBPILOT_WALK_VERIFY=1; the browser tests set it): a difference is an
// error.
func verifyWalks() bool { return os.Getenv("WEBPILOT_WALK_VERIFY") == "1" }

// walkOpts are the walker's options for a walk of a whole document within
// budget.
func walkOpts(budget time.Duration, look bool) string {
	return fmt.Sprintf("{probe: %q, budget: %d, verify: %t, look: %t}", probeName, budget.Milliseconds(), verifyWalks(), look)
}

// ready is the walk of w's document as Go uses it: checked (verifyWalks:
// a walk that differs from a whole walk of the page is an error), its
// fingerprints expanded and the call's secrets masked.
func (r *walkResult) ready(w frameWorld) (*walkResult, error) {
	if r.Verify != "" {
		return nil, fmt.Errorf("page walker: the walk that took over the last one's parts differs from a whole walk %s", r.Verify)
	}
	r.expand()
	r.mask(w.sess.tab.mask())
	return r, nil
}

// walkSince is walk over the frame's whole document, taking the walk pre
// when the document has not changed since it was taken (or, for a walk
// that ended the action's wait, at once: the page as the wait left it).
func (w frameWorld) walkSince(ctx context.Context, pre *prewalked, budget time.Duration) (*walkResult, error) {
	var out *walkResult
	if !pre.final {
		call := fmt.Sprintf("W.walkUnless(%q, %d, %s)", pre.res.Doc, pre.mutations, walkOpts(budget, true))
		if _, err := w.eval(ctx, call, &out); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = &pre.res
	}
	return out.ready(w)
}

// mask hides the call's secrets (Caller.Mask) in everything of the page the
// walk read that an agent may see: texts, names, values, link targets,
// options, the title and URL. It runs before any rendering cuts a line, so
// no cut leaves part of a secret; and search (browser_find) sees the
// masked values too. Fingerprints stay as read: the page compares them.
func (r *walkResult) mask(m func(string) string) {
	if m == nil {
		return
	}
	r.Title, r.URL = m(r.Title), m(r.URL)
	var walk func(ns []*snapshot.Node)
	walk = func(ns []*snapshot.Node) {
		for _, n := range ns {
			if n.T != nil {
				t := m(*n.T)
				n.T = &t
			}
			if n.V != nil {
				v := m(*n.V)
				n.V = &v
			}
			n.N, n.U = m(n.N), m(n.U)
			for i, o := range n.O {
				n.O[i] = m(o)
			}
			walk(n.C)
		}
	}
	walk(r.C)
	maskSplitValues(r.C, m)
}

// maskSplitValues masks the values of fields that show a secret between
// them, one or two characters each: a one-time code typed into the first
// of its boxes, which the page spreads over the rest. Runs of such fields,
// in document order, whose values together hold a secret show each value
// as the secret's mask.
func maskSplitValues(ns []*snapshot.Node, m func(string) string) {
	var run []*snapshot.Node
	flush := func() {
		if len(run) > 1 {
			var b strings.Builder
			for _, n := range run {
				b.WriteString(*n.V)
			}
			joined := b.String()
			if masked := m(joined); masked != joined {
				name := masked
				if i := strings.Index(masked, "<secret:"); i >= 0 {
					if j := strings.Index(masked[i:], ">"); j > 0 {
						name = masked[i : i+j+1]
					}
				}
				for _, n := range run {
					v := name
					n.V = &v
				}
			}
		}
		run = run[:0]
	}
	var walk func(ns []*snapshot.Node)
	walk = func(ns []*snapshot.Node) {
		for _, n := range ns {
			if n.V != nil {
				if v := *n.V; v != "" && utf8.RuneCountInString(v) <= 2 {
					run = append(run, n)
				} else {
					flush()
				}
			}
			walk(n.C)
		}
	}
	walk(ns)
	flush()
}

// element returns the walker's element number id as a remote object.
func (w frameWorld) element(ctx context.Context, id int) (runtime.RemoteObjectID, error) {
	obj, err := w.eval(ctx, "W.get("+strconv.Itoa(id)+")", nil)
	if err != nil {
		return "", err
	}
	if obj == nil || obj.ObjectID == "" || obj.Subtype == "null" {
		return "", nil
	}
	return obj.ObjectID, nil
}

// frameOf finds the frame an iframe element shows: its id, and the session
// its document lives in (the parent's, or an out-of-process child's).
func (find finder) frameOf(ctx context.Context, parent frameWorld, iframeID int) (frameWorld, error) {
	t := find.t
	obj, err := parent.element(ctx, iframeID)
	if err != nil || obj == "" {
		return frameWorld{}, err
	}
	d, err := cdproto.Call(ctx, parent.sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
	if err != nil {
		return frameWorld{}, err
	}
	fid := string(d.Node.FrameID)
	if fid == "" {
		return frameWorld{}, nil
	}
	if s := t.page.kids.get(fid); s != nil {
		return frameWorld{sess: s, frameID: fid}, nil
	}
	return frameWorld{sess: parent.sess, frameID: fid}, nil
}

// isContextGone matches the errors of a world whose document went away.
func isContextGone(err error) bool {
	return cdp.Classify(err) == cdp.FaultContextGone
}

// frameOffset is where the viewport of frame f starts in the tab's viewport
// (0, 0 for the main frame): input coordinates of its elements add it.
func (find finder) frameOffset(ctx context.Context, f *frameRefs) (x, y float64, err error) {
	for ; f != nil && f.parent != nil; f = f.parent {
		pw := frameWorld{sess: f.parent.sess, frameID: f.parent.frameID}
		var box []float64
		if _, err := pw.eval(ctx, "W.frameBox("+strconv.Itoa(f.owner)+")", &box); err != nil {
			return 0, 0, err
		}
		if len(box) != 2 {
			return 0, 0, fmt.Errorf("the frame %s is no longer in its page", f.key)
		}
		x += box[0]
		y += box[1]
	}
	return x, y, nil
}

// terminateWait bounds the Runtime.terminateExecution sent after a call
// ran out of time while the page was still running its script.
const terminateWait = 500 * time.Millisecond

// stopScript stops the script running in sess's page when ctx ended before
// an evaluation of ours answered (err) and the page's thread is still busy:
// it would otherwise stay busy with it, and every later call on the tab
// would wait behind it. Chromium dispatches Runtime.terminateExecution by interrupt,
// even while the thread runs script (also through chrome.debugger). The
// termination applies to the script running now; in the rare case that the
// evaluation ended just as ctx did, it applies to the next script of the
// page instead, which is then cut short.
func stopScript(ctx context.Context, sess cdp.Caller, err error) {
	if err == nil || ctx.Err() == nil {
		return
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminateWait)
	defer cancel()
	// An evaluation that awaits a promise (patterns tested in a worker)
	// leaves the page's thread idle, and a termination then cuts the next
	// script that runs, the page's own or the worker's timer. So the
	// thread is asked first: one that answers at once runs nothing of ours.
	pctx, pcancel := context.WithTimeout(tctx, idleProbe)
	idle := sess.Call(pctx, "Runtime.evaluate", map[string]any{"expression": "0"}, nil) == nil
	pcancel()
	if idle {
		return
	}
	_ = sess.Call(tctx, "Runtime.terminateExecution", nil, nil)
}

// idleProbe is how long a page's thread may take to answer before it is
// taken to be busy with a script of ours.
const idleProbe = 150 * time.Millisecond

// answerMargin is the time kept, before a call's deadline, for answering:
// stopping a script in the page, rendering, writing the result.
const answerMargin = 1500 * time.Millisecond

// innerContext is ctx with its deadline moved answerMargin earlier (or, for
// a short deadline, to halfway), for the work a call does before it
// answers.
func innerContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	left := time.Until(d)
	return context.WithDeadline(ctx, d.Add(-min(answerMargin, left/2)))
}

// callDeadlineKey holds, in a context, the deadline of the whole call: a
// deadline, which is what a context carries (the engine's dependencies are
// arguments).
type callDeadlineKey struct{}

// withCallDeadline records ctx's deadline as the call's: checks that may
// outlive an inner deadline (checkContext) still end before it.
func withCallDeadline(ctx context.Context) context.Context {
	if d, ok := ctx.Deadline(); ok {
		return context.WithValue(ctx, callDeadlineKey{}, d)
	}
	return ctx
}

// beyondContext is ctx without its cancellation, for a last check after
// ctx's own end, bounded by d and by the call's deadline (less a moment to
// answer) when one was recorded.
func beyondContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if end, ok := ctx.Value(callDeadlineKey{}).(time.Time); ok {
		d = min(d, max(time.Until(end)-answerMargin/3, 50*time.Millisecond))
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// maxWalkBudget bounds the time of one walk: past it a snapshot is cut
// (and says so) rather than keeping the agent waiting.
const maxWalkBudget = 20 * time.Second

// walkBudget is how long a walk may run in the page before it stops and
// returns what it has: the time left before ctx's deadline, less what the
// answer needs: sending the tree over and decoding it take about as long
// as the walk through a launched browser, two to three times as long
// through the bridge's extension (more on a loaded machine: a 200,000-element
// page took 17 s of a 15 s call at a quarter); then rendering and frames.
// A fifth of the time left, at most maxWalkBudget.
func walkBudget(ctx context.Context) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return maxWalkBudget
	}
	left := time.Until(d)
	return max(min(left/5, maxWalkBudget), 50*time.Millisecond)
}

// sleep waits ms milliseconds or until ctx ends.
func sleep(ctx context.Context, ms int) {
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
