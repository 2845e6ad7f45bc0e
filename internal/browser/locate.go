package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Locator names the element an action is for: exactly one of Ref, Selector
// (CSS), Text, or Role (with an optional Name, matched exactly when Exact),
// optionally Within an element (a ref or selector) and in a Frame (the ref
// or selector of an iframe element).
type Locator struct {
	Ref      string
	Selector string
	Text     string
	Role     string
	Name     string
	Exact    bool
	Within   string
	Frame    string
	// contains, with Role, matches the elements of that role whose text
	// holds it (a part, or /re/): the container form of Within, `row "A-1"`.
	contains string
}

// withinRole is Within's container form: a role and a quoted text,
// `row "A-1002"`: the one element of that role (a row, a list item, a
// card's article) whose text holds the text.
var withinRole = regexp.MustCompile(`^\s*([a-z]+)\s+"(.+)"\s*$`)

// Describe says how the target was named, for messages.
func (tg Locator) Describe() string {
	var d string
	switch {
	case tg.Ref != "":
		return "ref " + tg.Ref
	case tg.Selector != "":
		d = "selector " + quote(tg.Selector)
	case tg.Text != "":
		d = "text " + quote(tg.Text)
	case tg.Role != "":
		d = tg.Role
		if tg.Name != "" {
			d += " " + quote(tg.Name)
		}
		if tg.contains != "" {
			d += " holding " + quote(tg.contains)
		}
	}
	if tg.Within != "" {
		d += " within " + tg.Within
	}
	if tg.Frame != "" {
		d += " in frame " + tg.Frame
	}
	return d
}

// Empty says no target was named.
func (tg Locator) Empty() bool {
	return tg.Ref == "" && tg.Selector == "" && tg.Text == "" && tg.Role == "" && tg.Name == ""
}

// element is a located DOM node, held by a remote object in the walker's
// world of its frame.
type element struct {
	world      frameWorld
	frame      *frameRefs // the frame's refs; nil for a selector match outside them
	objectID   runtime.RemoteObjectID
	ref        string // the node's ref, when it has one
	matchLevel string // exact, stable or reidentified
	// tag is the element's tag name in lower case when known without a
	// look (a ref's fingerprint), else "": checks that only concern some
	// tags are skipped for others.
	tag string
}

// maybe says whether el may have the tag (one of tags, lower case): true
// when its tag is not known.
func (el *element) maybe(tags ...string) bool {
	return el.tag == "" || slices.Contains(tags, el.tag)
}

// finder finds what a tab's calls name: the element of a Locator (by ref
// in the tab's ref table, or by selector, text or role in the page and its
// frames), the world of a frame, what is at a point. It keeps no state of
// its own: it is a view of its tab (Tab.finder), and what it finds it
// writes to the tab's ref table (the refs of matches, the frames' tables)
// and the page's target (the main frame's id), as the session's calls do,
// while the session is held.
type finder struct{ t *Tab }

// finder is the tab's finder.
func (t *Tab) finder() finder { return finder{t} }

// sender is a session that can write a command without waiting for its
// reply (cdp.Session.Send).
type sender interface {
	Send(ctx context.Context, method string, params any) (wait func(result any) error, err error)
}

// objectGroup holds the remote objects of one action; it is released after.
const objectGroup = "webpilot-action"

func (t *Tab) releaseObjects(ctx context.Context) {
	if t.dialogs.open() != nil {
		return // the page answers nothing until then; the next action releases them
	}
	// Near the call's deadline the release is left to the next call (it
	// releases the same group): the answer must not wait for a busy page.
	wait := handleTimeout
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)-answerMargin)
	}
	objects := &t.page.worlds.objects
	if wait <= 0 || !objects.Load() {
		return
	}
	// Where the session can send without waiting (a CDP session), the
	// release is not waited for: the page runs its commands in order, so
	// no later call meets the group.
	if s, ok := t.page.Caller.(sender); ok {
		if _, err := s.Send(ctx, "Runtime.releaseObjectGroup", runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup}); err == nil {
			objects.Store(false)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	if _, err := cdproto.Call(ctx, t.page, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup}); err == nil {
		objects.Store(false)
	}
}

// locate finds the target's element in the tab. A selector, text or role
// must match exactly one element; one that matches none yet is looked for
// again for a moment (the page may still be rendering it).
func (find finder) locate(ctx context.Context, tg Locator) (*element, error) {
	return find.locateThen(ctx, tg, false)
}

// locateToAct is locate for an action on the element: a text or role
// target that still matches nothing is then looked for in the page's
// scrolled lists (seek), as a person scrolls a list for the item to pick.
// Reads, screenshots and scopes do not scroll the page's lists.
func (find finder) locateToAct(ctx context.Context, tg Locator) (*element, error) {
	return find.locateThen(ctx, tg, true)
}

// locateThen is locate, with the seek in lists when seek is set.
func (find finder) locateThen(ctx context.Context, tg Locator, seek bool) (*element, error) {
	if err := tg.validate(); err != nil {
		return nil, err
	}
	if tg.Ref != "" {
		return find.locateRef(ctx, tg.Ref)
	}
	if err := find.checkPatterns(ctx, tg.Text, tg.Name); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(notFoundWait)
	sought := false
	for {
		el, err := find.locateOnce(ctx, tg)
		var we *Error
		if err == nil || !errors.As(err, &we) || we.Code != CodeTargetNotFound {
			return el, err
		}
		if time.Now().After(deadline) {
			// Not rendered, maybe: a virtualised list shows only the rows
			// in view. Its box is scrolled for it, once.
			if !seek || sought || !find.seekable(tg) || !find.seek(ctx, tg) {
				return el, err
			}
			sought = true
			continue
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pollInterval):
		}
	}
}

// notFoundWait is how long a target that matches nothing is looked for.
const notFoundWait = 1500 * time.Millisecond

// seekBudget bounds the scrolling of a page's lists for a target that
// matches nothing (seek) when the call has no deadline; with one, the
// scrolling takes what is left of it but a moment for the action itself.
const seekBudget = 10 * time.Second

// seekSpare is what a seek leaves of the call's time for the action on
// what it found.
const seekSpare = 500 * time.Millisecond

// seekable says a target may be looked for in the page's scrolled lists:
// a text or a role, in the page itself, without a pattern.
func (find finder) seekable(tg Locator) bool {
	return tg.Selector == "" && tg.Frame == "" && tg.Within == "" && (tg.Text != "" || tg.Role != "") && !hasPattern(tg.Text, tg.Name)
}

// seek scrolls the main frame's list boxes until tg matches something
// there (the walker's seek): true when it does, and the list stays where
// it showed it.
func (find finder) seek(ctx context.Context, tg Locator) bool {
	t := find.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return false
	}
	q := map[string]any{"text": tg.Text, "role": strings.TrimSpace(tg.Role), "name": tg.Name, "exact": tg.Exact, "contains": tg.contains}
	qj, _ := json.Marshal(q)
	var r struct {
		Count int `json:"count"`
	}
	budget := seekBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl) - seekSpare
	}
	if budget < 200*time.Millisecond {
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, budget+seekSpare/2)
	defer cancel()
	w := frameWorld{sess: t.page, frameID: mainID}
	if _, err := w.eval(sctx, "W.seek("+string(qj)+", "+strconv.FormatInt(budget.Milliseconds(), 10)+")", &r); err != nil {
		t.log.Debug("seek in lists", "err", err)
		return false
	}
	return r.Count > 0
}

func (tg Locator) validate() error {
	n := 0
	for _, v := range []string{tg.Ref, tg.Selector, tg.Text, tg.Role} {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	hint := "name the element one way: ref (from browser_snapshot), selector (CSS), text, or role with name"
	switch {
	case n > 1:
		return &Error{Code: CodeInvalidArgument, Message: "give only one of ref, selector, text and role", Hint: hint}
	case n == 0 && tg.Name != "":
		return &Error{Code: CodeInvalidArgument, Message: "name goes with role", Hint: `e.g. {"role":"button","name":"Save"}`}
	case n == 0 && (tg.Ref != "" || tg.Selector != "" || tg.Text != "" || tg.Role != ""):
		return &Error{Code: CodeInvalidArgument, Message: "the target is empty", Hint: hint}
	case n == 0:
		return &Error{Code: CodeInvalidArgument, Message: "no target: pass ref, selector, text or role", Hint: "take a browser_snapshot and pass a ref such as e3"}
	case tg.Ref != "" && (tg.Within != "" || tg.Frame != ""):
		return &Error{Code: CodeInvalidArgument, Message: "a ref needs no within or frame", Hint: "a ref already names one element in one frame"}
	case tg.Name != "" && tg.Role == "":
		return &Error{Code: CodeInvalidArgument, Message: "name goes with role", Hint: `e.g. {"role":"button","name":"Save"}`}
	}
	return nil
}

// patternRe recognises a /regex/flags value; anything else is plain text.
var patternRe = regexp.MustCompile(`(?s)^/(.*)/([dimsuv]*)$`)

// checkPatterns refuses values written as /regex/flags that the page's
// JavaScript cannot compile (the page runs them), or that do not finish
// within patternBudget on the page's text (catastrophic backtracking),
// before anything is done.
func (find finder) checkPatterns(ctx context.Context, pats ...string) error {
	t := find.t
	var res []string
	for _, p := range pats {
		if patternRe.MatchString(p) {
			res = append(res, p)
		}
	}
	if len(res) == 0 {
		return nil
	}
	var bad []string
	if err := t.evalValue(ctx, `(ps => ps.flatMap(p => { const m = /^\/(.*)\/([dimsuv]*)$/s.exec(p); try { new RegExp(m[1], m[2]); return []; } catch (e) { return [p + ": " + e.message]; } }))(`+mustJSON(res)+`)`, &bad); err != nil {
		return backendError("check the patterns", err)
	}
	if len(bad) > 0 {
		return &Error{Code: CodeInvalidArgument, Message: "not a valid regular expression: " + strings.Join(bad, "; "),
			Hint: "write /pattern/ or /pattern/i (JavaScript syntax), or plain text for a case-insensitive substring"}
	}
	// A trial on the page's text as it is now: a pattern that hangs is
	// refused before an action is sent. (A page too slow to read in time
	// is no reason to refuse: the real use is bounded too.)
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return backendError("read the page", err)
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	var trial struct {
		Busy string `json:"busy"`
	}
	err = w.evalPatterns(ctx, false, res, func(ctx context.Context) error {
		var v json.RawMessage
		_, err := w.eval(ctx, "W.trial("+mustJSON(res)+", "+patternMS()+")", &v)
		if err == nil && len(v) > 0 && v[0] == '{' {
			err = json.Unmarshal(v, &trial)
		}
		return err
	})
	if trial.Busy != "" {
		return patternError(trial.Busy)
	}
	if _, isErr := AsError(err); isErr {
		return err
	}
	return nil
}

// locateOnce looks for a selector, text or role target once.
func (find finder) locateOnce(ctx context.Context, tg Locator) (*element, error) {
	if tg.Selector == "" && tg.Frame == "" && tg.Within == "" {
		return find.locateEverywhere(ctx, tg)
	}
	w, f, err := find.targetWorld(ctx, tg.Frame)
	if err != nil {
		return nil, err
	}
	var root runtime.RemoteObjectID
	if tg.Within != "" {
		in, err := find.locateIn(ctx, w, f, tg.Within, "", "within")
		if err != nil {
			return nil, err
		}
		root = in.objectID
	}
	if tg.Selector != "" {
		return find.locateSelectorIn(ctx, w, f, tg.Selector, root)
	}
	return find.locateQuery(ctx, w, tg, root)
}

// targetWorld is the walker world a target is looked for in: the main
// frame's, or that of the iframe element frame names.
func (find finder) targetWorld(ctx context.Context, frameSpec string) (frameWorld, *frameRefs, error) {
	t := find.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return frameWorld{}, nil, backendError("read the page", err)
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	f := t.refs.frames[mainID]
	if frameSpec == "" {
		return w, f, nil
	}
	var el *element
	if IsRef(frameSpec) {
		el, err = find.locateRef(ctx, frameSpec)
	} else {
		el, err = find.locateIn(ctx, w, f, frameSpec, "", "frame")
	}
	if err != nil {
		return frameWorld{}, nil, err
	}
	var id int
	if err := t.callEl(ctx, el, "function(){ return this.tagName === 'IFRAME' || this.tagName === 'FRAME' ? globalThis.__webpilot.idOf(this) : 0 }", &id); err != nil {
		return frameWorld{}, nil, backendError("read frame "+frameSpec, err)
	}
	if id == 0 {
		return frameWorld{}, nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("frame %s is not an iframe element", frameSpec),
			Hint: "frame takes the ref or CSS selector of an <iframe>, e.g. iframe[title=Checkout]"}
	}
	cw, err := find.frameOf(ctx, el.world, id)
	var cf *frameRefs
	if err == nil && cw.frameID != "" {
		cf, err = find.frameRefsOf(ctx, cw, false)
	}
	if err != nil || cf == nil {
		return frameWorld{}, nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("frame %s has no document that can be reached", frameSpec),
			Hint: "wait for the frame to load (browser_snapshot shows it inline when it has), then try again"}
	}
	if cf.parent == nil {
		pf := el.frame
		if pf == nil {
			if pf, err = find.frameRefsOf(ctx, el.world, true); err != nil {
				return frameWorld{}, nil, backendError("read the page", err)
			}
		}
		cf.parent, cf.owner = pf, id
	}
	return cw, cf, nil
}

// frameRefsOf is the ref table of the document now in world w.
func (find finder) frameRefsOf(ctx context.Context, w frameWorld, main bool) (*frameRefs, error) {
	t := find.t
	var doc string
	if _, err := w.eval(ctx, "W.doc", &doc); err != nil {
		return nil, err
	}
	return t.refs.frame(w.frameID, main, w.sess, doc), nil
}

// locateIn finds the one element spec (a ref or a CSS selector) names in
// world w, for an argument (within, frame) of a target.
func (find finder) locateIn(ctx context.Context, w frameWorld, f *frameRefs, spec string, _ runtime.RemoteObjectID, arg string) (*element, error) {
	if m := withinRole.FindStringSubmatch(spec); m != nil && arg == "within" {
		el, err := find.locateQuery(ctx, w, Locator{Role: m[1], contains: m[2]}, "")
		if we, ok := AsError(err); ok {
			we.Message = arg + ": " + we.Message
		}
		return el, err
	}
	if IsRef(spec) {
		el, err := find.locateRef(ctx, spec)
		if err != nil {
			return nil, err
		}
		if el.world.frameID != w.frameID {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s %s is in another frame than the target", arg, spec),
				Hint: "within and the target must be in the same frame"}
		}
		return el, nil
	}
	el, err := find.locateSelectorIn(ctx, w, f, spec, "")
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			we.Message = arg + ": " + we.Message
		}
		return nil, err
	}
	return el, nil
}

// queryHit is an element the walker's query matched.
type queryHit struct {
	ID int      `json:"id"`
	R  string   `json:"r"`
	N  string   `json:"n"`
	P  []string `json:"p"`
}

// queryResult is what the walker's query answers for one frame.
type queryResult struct {
	Count  int        `json:"count"`
	Hits   []queryHit `json:"hits"`
	Near   []queryHit `json:"near"`
	Doc    string     `json:"doc"`
	Busy   string     `json:"busy"`   // a pattern that ran out of time
	Frames []int      `json:"frames"` // the frame's shown iframes, when asked
}

// frameQuery is one frame's answer with the frame's world and refs.
type frameQuery struct {
	w frameWorld
	f *frameRefs
	r queryResult
}

// query runs a text or role query in world w (under root when given),
// listing the frame's iframes too when frames is set.
func (find finder) query(ctx context.Context, w frameWorld, tg Locator, root runtime.RemoteObjectID, frames bool) (frameQuery, error) {
	t := find.t
	q := map[string]any{"text": tg.Text, "role": strings.TrimSpace(tg.Role), "name": tg.Name, "exact": tg.Exact, "frames": frames, "contains": tg.contains}
	var r queryResult
	err := w.evalPatterns(ctx, true, []string{tg.Text, tg.Name, tg.contains}, func(ctx context.Context) error {
		if root != "" {
			err := callOn(ctx, w.sess, root, "function(q, ms){ return globalThis.__webpilot.find(q, this, ms) }", &r, q, patternBudget.Milliseconds())
			stopScript(ctx, w.sess, err)
			return err
		}
		qj, _ := json.Marshal(q)
		_, err := w.eval(ctx, "W.find("+string(qj)+", null, "+patternMS()+")", &r)
		return err
	})
	if err != nil {
		return frameQuery{}, backendError("look for "+tg.Describe(), err)
	}
	if r.Busy != "" {
		return frameQuery{}, patternError(r.Busy)
	}
	f := t.refs.frames[w.frameID]
	if f == nil || f.doc != r.Doc {
		mainID, err := t.page.mainFrameID(ctx)
		if err != nil {
			return frameQuery{}, backendError("read the page", err)
		}
		f = t.refs.frame(w.frameID, w.frameID == mainID, w.sess, r.Doc)
	}
	return frameQuery{w: w, f: f, r: r}, nil
}

// locateQuery finds the one element a text or role target matches in
// world w.
func (find finder) locateQuery(ctx context.Context, w frameWorld, tg Locator, root runtime.RemoteObjectID) (*element, error) {
	fq, err := find.query(ctx, w, tg, root, false)
	if err != nil {
		return nil, err
	}
	return find.pick(ctx, tg, []frameQuery{fq})
}

// locateEverywhere finds the one element a text or role target matches in
// the page and all its frames (same-process and out-of-process, as deep as
// snapshots inline them): a button inside an iframe is found by its role
// and name as it is in the main document, and a match in two frames is
// ambiguous.
func (find finder) locateEverywhere(ctx context.Context, tg Locator) (*element, error) {
	t := find.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	var all []frameQuery
	var visit func(w frameWorld, parent *frameRefs, owner, depth int) error
	visit = func(w frameWorld, parent *frameRefs, owner, depth int) error {
		fq, err := find.query(ctx, w, tg, "", depth < maxFrameDepth)
		if err != nil {
			if parent != nil {
				if _, agent := AsError(err); !agent {
					// A frame that cannot be read now (still loading, just
					// gone) is left out; the search is repeated for a while.
					t.log.Debug("look in a frame", "frame", w.frameID, "err", err)
					return nil
				}
			}
			return err
		}
		if parent != nil && fq.f.parent == nil {
			fq.f.parent, fq.f.owner = parent, owner
		}
		all = append(all, fq)
		for _, id := range fq.r.Frames {
			cw, err := find.frameOf(ctx, w, id)
			if err != nil || cw.frameID == "" {
				continue
			}
			if err := visit(cw, fq.f, id, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(frameWorld{sess: t.page, frameID: mainID}, nil, 0, 0); err != nil {
		return nil, err
	}
	return find.pick(ctx, tg, all)
}

// pick decides on the answers of one or more frames: exactly one match is
// the element; none is TARGET_NOT_FOUND with the nearest candidates, more
// than one AMBIGUOUS_TARGET with the matches (refs of their frames).
func (find finder) pick(ctx context.Context, tg Locator, qs []frameQuery) (*element, error) {
	t := find.t
	line := func(f *frameRefs, h queryHit) string {
		s := h.R + " " + t.refs.refFor(f, h.ID, h.P)
		if h.N != "" {
			s += " " + quote(shorten(h.N, 60))
		}
		if len(h.P) > 3 && h.P[3] != "" {
			s += " (in " + quote(shorten(h.P[3], 40)) + ")"
		}
		return s
	}
	count := 0
	var one *frameQuery
	for i := range qs {
		count += qs[i].r.Count
		if qs[i].r.Count > 0 && one == nil {
			one = &qs[i]
		}
	}
	switch {
	case count == 0:
		var near []string
		for _, q := range qs {
			for _, h := range q.r.Near {
				if len(near) < 5 {
					near = append(near, line(q.f, h))
				}
			}
		}
		return nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("nothing visible matches %s", tg.Describe()),
			Hint: "check the text or role against a fresh browser_snapshot or browser_find; text and name match a case-insensitive substring unless exact", Suggestions: near}
	case count > 1:
		var cands []string
		for _, q := range qs {
			for _, h := range q.r.Hits[:min(len(q.r.Hits), q.r.Count)] {
				if len(cands) < 10 {
					cands = append(cands, line(q.f, h))
				}
			}
		}
		where := ""
		if len(qs) > 1 {
			where = " in the page and its frames"
		}
		return nil, &Error{Code: CodeAmbiguousTarget, Message: fmt.Sprintf("%d elements match %s%s", count, tg.Describe(), where),
			Hint: "act on one of these refs, or narrow the target with exact, within (a container: its ref, a selector, or a role and a text it holds, row \"A-1002\"), frame or role and name", Suggestions: cands}
	}
	h := one.r.Hits[0]
	ref := t.refs.refFor(one.f, h.ID, h.P)
	obj, err := one.w.element(ctx, h.ID)
	if err != nil || obj == "" {
		return nil, backendError("find "+tg.Describe(), err)
	}
	return &element{world: one.w, frame: one.f, objectID: obj, ref: ref, matchLevel: "exact"}, nil
}

func (find finder) locateRef(ctx context.Context, ref string) (*element, error) {
	t := find.t
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
	// One evaluation: the element itself when the ref is still exactly in
	// the page; else what resolve found, as JSON text.
	doc, _ := json.Marshal(f.doc)
	res, err := w.eval(ctx, fmt.Sprintf(`W.doc === %s ? W.take(%d, %s) : '{"level":"gone"}'`, doc, e.wid, fp), nil)
	if err != nil {
		if isContextGone(err) || errors.Is(err, cdp.ErrDetached) {
			return nil, find.staleRef(e, "its frame is gone", nil)
		}
		return nil, backendError("find "+ref, err)
	}
	if res != nil && res.Type == "object" && res.Subtype != "null" && res.ObjectID != "" {
		return &element{world: w, frame: f, objectID: res.ObjectID, ref: e.ref, matchLevel: "exact", tag: fpField(e.fp, 0)}, nil
	}
	var text string
	if res == nil || res.Type != "string" || json.Unmarshal(res.Value, &text) != nil || json.Unmarshal([]byte(text), &r) != nil {
		return nil, find.staleRef(e, "it was removed", nil)
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
		return nil, find.staleRef(e, why, r.Near)
	case "reidentified":
		t.refs.rebind(e, r.ID)
	}
	obj, err := w.element(ctx, r.ID)
	if err != nil {
		return nil, backendError("find "+ref, err)
	}
	if obj == "" {
		return nil, find.staleRef(e, "it was removed", nil)
	}
	return &element{world: w, frame: f, objectID: obj, ref: e.ref, matchLevel: r.Level}, nil
}

func (find finder) staleRef(e *refEntry, why string, near []string) *Error {
	return &Error{Code: CodeStaleRef, Message: fmt.Sprintf("ref %s (%s %s) is no longer in the page: %s", e.ref, e.role(), quote(e.name()), why),
		Hint: "the page changed since the snapshot; take a new browser_snapshot (or browser_find) and use its refs", Suggestions: near}
}

func isNodeGone(err error) bool {
	f := cdp.Classify(err)
	return f == cdp.FaultNodeGone || f == cdp.FaultObjectGone
}

// locateSelectorIn finds exactly one element matching a CSS selector in
// world w (under root when given; open shadow roots are not pierced).
func (find finder) locateSelectorIn(ctx context.Context, w frameWorld, f *frameRefs, sel string, root runtime.RemoteObjectID) (*element, error) {
	t := find.t
	fn := `function(s){const all=(this&&this.querySelectorAll?this:document).querySelectorAll(s);if(all.length===1)return all[0];` +
		`return {count:all.length,sample:Array.from(all).slice(0,10).map(e=>{const t=String(e.innerText||e.value||e.getAttribute("aria-label")||"").trim().replace(/\s+/g," ").slice(0,40);return e.tagName.toLowerCase()+(e.id?"#"+e.id:"")+(t?" \""+t+"\"":"")})}}`
	var res runtime.CallFunctionOnResult
	var err error
	arg, _ := json.Marshal(sel)
	w.sess.holdsObjects()
	if root != "" {
		res, err = cdproto.Call(ctx, w.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ObjectID: root, ObjectGroup: objectGroup,
			Arguments: []*runtime.CallArgument{{Value: arg}}})
	} else {
		res, err = w.callFunction(ctx, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ObjectGroup: objectGroup,
			Arguments: []*runtime.CallArgument{{Value: arg}}})
	}
	if err != nil {
		return nil, backendError("query "+sel, err)
	}
	if res.ExceptionDetails != nil {
		msg := exceptionText(res.ExceptionDetails)
		if !strings.Contains(msg, "SyntaxError") && !strings.Contains(msg, "not a valid selector") {
			return nil, backendError("query "+sel, errors.New(msg))
		}
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a valid CSS selector: %s", sel, msg),
			Hint: "use CSS syntax such as #id, .class, button[name=go]; or a ref from browser_snapshot"}
	}
	if res.Result.Subtype != "node" {
		var m struct {
			Count  int      `json:"count"`
			Sample []string `json:"sample"`
		}
		if err := callOn(ctx, w.sess, res.Result.ObjectID, "function(){return this}", &m); err != nil {
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
	// The match gets a ref (its own when it has one) in the ref table of
	// the document it is in now, which the result reports.
	if _, err := w.eval(ctx, "0", nil); err != nil {
		return nil, backendError("query "+sel, err)
	}
	var h struct {
		queryHit
		Doc string `json:"doc"`
	}
	if err := t.callEl(ctx, el, "function(){ const W = globalThis.__webpilot; return Object.assign(W.hit(this), {doc: W.doc}) }", &h); err != nil {
		return nil, backendError("query "+sel, err)
	}
	if f == nil || f.doc != h.Doc {
		main := f != nil && f.key == ""
		if f == nil {
			mainID, err := t.page.mainFrameID(ctx)
			if err != nil {
				return nil, backendError("read the page", err)
			}
			main = mainID == w.frameID
		}
		f = t.refs.frame(w.frameID, main, w.sess, h.Doc)
	}
	el.frame = f
	if h.ID != 0 {
		el.ref = t.refs.refFor(f, h.ID, h.P)
	}
	return el, nil
}

// callEl calls a JavaScript function with this bound to the element.
func (t *Tab) callEl(ctx context.Context, el *element, fn string, out any, args ...any) error {
	return callOn(ctx, el.world.sess, el.objectID, fn, out, args...)
}

// callOn calls a JavaScript function with this bound to the object and
// decodes its value into out (may be nil).
func callOn(ctx context.Context, sess cdp.Caller, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: raw})
	}
	return callWith(ctx, sess, obj, fn, out, cargs)
}

// callOnObjects calls a JavaScript function with this bound to obj and
// remote objects (of the same world) as its arguments.
func callOnObjects(ctx context.Context, sess cdp.Caller, obj runtime.RemoteObjectID, fn string, out any, args ...runtime.RemoteObjectID) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		cargs = append(cargs, &runtime.CallArgument{ObjectID: a})
	}
	return callWith(ctx, sess, obj, fn, out, cargs)
}

// callWith runs Runtime.callFunctionOn and decodes the value into out.
func callWith(ctx context.Context, sess cdp.Caller, obj runtime.RemoteObjectID, fn string, out any, args []*runtime.CallArgument) error {
	res, err := cdproto.Call(ctx, sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: args, ReturnByValue: new(true), AwaitPromise: new(true),
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
