package browser_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// frames lists the current tab's frames.
func (e *env) frames() []browser.FrameInfo {
	e.t.Helper()
	var out []browser.FrameInfo
	if err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		out, err = h.Frames(ctx)
		return err
	}); err != nil {
		e.t.Fatalf("frames: %v", err)
	}
	return out
}

// Frames lists the main frame, a same-origin frame, a cross-origin
// (out-of-process) frame and a frame nested in it, with their flags; the
// id listed for each is accepted as frame by Eval and Act, and Eval there
// runs in that frame's own page world.
func TestFramesAndEvalInFrames(t *testing.T) {
	e := newEnv(t, browser.Options{})
	other := otherSite(t)
	e.navigate("/eval/frames.html?other=" + url.QueryEscape(other))

	fs := e.frames()
	if len(fs) != 4 {
		t.Fatalf("%d frames, want 4: %+v", len(fs), fs)
	}
	main, same, cross, nested := fs[0], fs[1], fs[2], fs[3]
	if main.Depth != 0 || main.Frame != "" || !strings.HasPrefix(main.URL, e.base+"/eval/frames.html") || main.Origin != e.base {
		t.Errorf("main frame: %+v", main)
	}
	if same.Depth != 1 || same.Parent != "" || same.Name != "same" || same.CrossOrigin || same.OutOfProcess || same.Unreachable ||
		!strings.HasSuffix(same.URL, "/eval/child.html?who=same") || same.Origin != e.base || !browser.IsRef(same.Frame) {
		t.Errorf("same-origin frame: %+v", same)
	}
	if cross.Depth != 1 || cross.Name != "cross" || !cross.CrossOrigin || !cross.OutOfProcess || cross.Origin != other ||
		!strings.HasPrefix(cross.URL, other+"/eval/child.html?who=cross") {
		t.Errorf("cross-origin frame: %+v", cross)
	}
	if nested.Depth != 2 || nested.Parent != cross.Key || !nested.CrossOrigin || !nested.OutOfProcess || nested.Origin != other ||
		!strings.HasPrefix(nested.Frame, cross.Key+"e") || !strings.HasSuffix(nested.URL, "who=nested") {
		t.Errorf("frame nested in the cross-origin one: %+v (cross %+v)", nested, cross)
	}

	// The page's own global of each frame, and the frame named.
	for _, f := range fs {
		who := "main"
		if u, err := url.Parse(f.URL); err == nil && f.Depth > 0 {
			who = u.Query().Get("who")
		}
		res := e.mustRun(browser.EvalOptions{Expression: "window.who", Frame: f.Frame})
		wantFrame := "main frame"
		if f.Depth > 0 {
			wantFrame = "frame " + f.Key
		}
		if res.Value != `"`+who+`"` || res.Frame != wantFrame || res.URL != f.URL {
			t.Errorf("eval in %q (%s): %+v, want who %q", f.Frame, f.URL, res, who)
		}
	}
	// A function with args in the cross-origin frame, and a selector as
	// frame.
	res := e.mustRun(browser.EvalOptions{Function: "async (s) => (await Promise.resolve(location.origin)) + s + who", Args: []any{" "}, Frame: cross.Frame})
	if res.Value != `"`+other+` cross"` {
		t.Errorf("function in the cross-origin frame: %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "who", Frame: "iframe[name=same]"})
	if res.Value != `"same"` || res.Frame != "frame "+same.Key {
		t.Errorf("frame by selector: %+v", res)
	}
	// An exception in a frame, and an action in the listed frame.
	_, err := e.run(browser.EvalOptions{Expression: "nope()", Frame: nested.Frame})
	if be := wantCode(t, err, browser.CodeInvalidArgument); !strings.Contains(be.Message, "nope is not defined") {
		t.Errorf("exception in a frame: %s", be.Message)
	}
	for _, f := range []browser.FrameInfo{same, cross, nested} {
		if _, err := e.act(browser.Action{Kind: "hover", Target: browser.Locator{Selector: "p", Frame: f.Frame}}); err != nil {
			t.Errorf("hover in frame %s: %v", f.Frame, err)
		}
	}
	// Listing again gives the same ids.
	again := e.frames()
	for i := range min(len(again), len(fs)) {
		if again[i].Frame != fs[i].Frame || again[i].Key != fs[i].Key {
			t.Errorf("frame %d listed as %s %s, then %s %s", i, fs[i].Frame, fs[i].Key, again[i].Frame, again[i].Key)
		}
	}
}
