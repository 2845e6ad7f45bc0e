package browser

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// EvalWalkerWorld evaluates call (with W, the walker) in the main frame's
// walker world, the way snapshots and queries do: when ctx ends first, the
// script is stopped in the page.
func EvalWalkerWorld(ctx context.Context, t *Tab, call string) error {
	fr, err := t.page.mainFrame(ctx)
	if err != nil {
		return err
	}
	var out any
	_, err = frameWorld{sess: t.page, frameID: fr.ID}.eval(ctx, call, &out)
	return err
}

// DownloadsNow are the tab's downloads as they are now.
func DownloadsNow(t *Tab) []Download { return t.downloads.now(0) }

// RefElement is a ref of the last snapshot, as the snapshot gave it, with
// the DOM node it stands for.
type RefElement struct {
	Ref, Role, Name string
	Tag             string // the element's node name: "SELECT"
	BackendNodeID   int64
	Attrs           map[string]string // the element's attributes
}

// RefElements gives the refs of the tab's main frame named in refs with
// their DOM nodes (the elements they stand for now), sorted by ref number.
func RefElements(ctx context.Context, t *Tab, refs []string) ([]RefElement, error) {
	var out []RefElement
	for _, ref := range refs {
		e, err := t.refs.lookup(ref)
		if err != nil {
			return nil, err
		}
		if e.frame.key != "" {
			continue
		}
		el, err := t.finder().locateRef(ctx, ref)
		if err != nil {
			return nil, err
		}
		var d struct {
			Node struct {
				NodeName      string   `json:"nodeName"`
				BackendNodeID int64    `json:"backendNodeId"`
				Attributes    []string `json:"attributes"`
			} `json:"node"`
		}
		if err := el.world.sess.Call(ctx, "DOM.describeNode", map[string]any{"objectId": el.objectID}, &d); err != nil {
			return nil, err
		}
		attrs := map[string]string{}
		for i := 0; i+1 < len(d.Node.Attributes); i += 2 {
			attrs[d.Node.Attributes[i]] = d.Node.Attributes[i+1]
		}
		out = append(out, RefElement{Ref: ref, Role: e.role(), Name: e.name(), Tag: d.Node.NodeName, BackendNodeID: d.Node.BackendNodeID, Attrs: attrs})
	}
	t.releaseObjects(ctx)
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(out[i].Ref, "e"))
		b, _ := strconv.Atoi(strings.TrimPrefix(out[j].Ref, "e"))
		return a < b
	})
	return out, nil
}

// MarkRefs sets the attribute attr (to the ref) on the elements of the
// main frame's refs.
func MarkRefs(ctx context.Context, t *Tab, attr string, refs []string) error {
	for _, ref := range refs {
		e, err := t.refs.lookup(ref)
		if err != nil {
			return err
		}
		if e.frame.key != "" {
			continue
		}
		el, err := t.finder().locateRef(ctx, ref)
		if err != nil {
			return err
		}
		if err := t.callEl(ctx, el, "function(a, r) { this.setAttribute(a, r) }", nil, attr, ref); err != nil {
			return err
		}
	}
	t.releaseObjects(ctx)
	return nil
}

// Update reports the -update flag (golden_test.go), for the external tests
// that rewrite what they check.
func Update() bool { return *update }

// Prewalked says the tab holds a walk its last action took while the page
// settled, for the snapshot after it.
func Prewalked(t *Tab) bool { return t.view.prewalk != nil }

// LastReused is how many elements (subtrees counted once) the tab's last
// walk of its main document took over from the walk before.
func LastReused(t *Tab) int { return t.view.reused }

// CastFrames is how many frames the tab's screencast under way kept, and
// when it kept the last.
func CastFrames(t *Tab) (int, time.Time) {
	c := t.cast.running()
	if c == nil {
		return 0, time.Time{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.frames) == 0 {
		return 0, time.Time{}
	}
	return len(c.frames), c.frames[len(c.frames)-1].at
}

// CrashPage crashes the tab's renderer (Page.crash, which never answers).
func CrashPage(ctx context.Context, t *Tab) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_ = t.page.Call(cctx, "Page.crash", nil, nil)
}

// AdoptPopups adopts the popups the session's tabs opened (tabSet's
// AdoptPopups); call it within Do.
func AdoptPopups(ctx context.Context, s *Session) ([]TabView, error) {
	return s.tabs.AdoptPopups(ctx)
}

// WalkStands walks the page as a read ahead does (W.prewalk), runs between
// in the page's main world, and says whether the walk still stands for the
// page (W.walkUnless answers null).
func WalkStands(ctx context.Context, t *Tab, between string) (bool, error) {
	fr, err := t.page.mainFrame(ctx)
	if err != nil {
		return false, err
	}
	w := frameWorld{sess: t.page, frameID: fr.ID}
	var out prewalkOut
	if _, err := w.eval(ctx, "W.prewalk("+walkOpts(time.Second, true)+", \"\")", &out); err != nil {
		return false, err
	}
	if out.W == nil {
		return false, nil
	}
	if err := t.evalValue(ctx, between, nil); err != nil {
		return false, err
	}
	var again *walkResult
	if _, err := w.eval(ctx, "W.walkUnless("+strconv.Quote(out.W.Doc)+", "+strconv.Itoa(out.M)+", "+walkOpts(time.Second, true)+")", &again); err != nil {
		return false, err
	}
	return again == nil, nil
}

// FramesWhileChecking marks an action's start in the tab's walker
// (W.quiet(true)), runs before in the page's main world (a promise is
// awaited), then runs the quiet wait's first check (W.quietAfterFrame, no
// least, no after) and returns how many frames the page began while it
// ran, and whether it saw a frame drawn.
func FramesWhileChecking(ctx context.Context, t *Tab, before string) (frames int, drawn bool, err error) {
	fr, err := t.page.mainFrame(ctx)
	if err != nil {
		return 0, false, err
	}
	w := frameWorld{sess: t.page, frameID: fr.ID}
	if _, err := w.eval(ctx, "W.quiet(true, "+strconv.Quote(probeName)+")", nil); err != nil {
		return 0, false, err
	}
	res, err := cdproto.Call(ctx, t.page, runtime.Evaluate, runtime.EvaluateParams{Expression: before, AwaitPromise: new(true)})
	if err != nil {
		return 0, false, err
	}
	if res.ExceptionDetails != nil {
		return 0, false, fmt.Errorf("evaluate: %s", exceptionText(res.ExceptionDetails))
	}
	var out struct {
		Q      []any `json:"q"`
		Frames int   `json:"frames"`
	}
	// (the count starts in the check's own task: a frame it counts began
	// after the check did)
	check := `(() => { let frames = 0, id = 0; const tick = () => { frames++; id = requestAnimationFrame(tick); }; id = requestAnimationFrame(tick);
	  return W.quietAfterFrame(` + strconv.Quote(probeName) + `, 1000, 0, null, 0).then((q) => { cancelAnimationFrame(id); return {q, frames}; }); })()`
	if _, err := w.eval(ctx, check, &out); err != nil {
		return 0, false, err
	}
	return out.Frames, quietFrom(out.Q).framed, nil
}
