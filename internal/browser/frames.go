package browser

import "context"

// FrameInfo is one frame of a tab, as browser_frames lists it.
type FrameInfo struct {
	// Frame is what the frame argument of other tools takes to name this
	// frame: the ref of its iframe element ("e4", or "f1e2" inside frame
	// f1); "" for the main frame.
	Frame string
	// Key is the frame's key, which the refs of its elements start with
	// ("f1"); "" for the main frame.
	Key string
	// Parent is the key of the frame the iframe element is in ("" for the
	// main frame, and for the main frame itself).
	Parent string
	Depth  int // 0 for the main frame, 1 for its iframes, …
	URL    string
	Origin string
	Name   string // the iframe element's name attribute
	// CrossOrigin: the frame's origin is not the main frame's.
	CrossOrigin bool
	// OutOfProcess: the frame runs in another process than the tab's
	// page (another site), with its own CDP session.
	OutOfProcess bool
	// Hidden: the iframe element is not rendered (display: none, …).
	Hidden bool
	// Unreachable: the frame's document could not be read (not loaded
	// yet, or going away); URL and Origin are then empty.
	Unreachable bool
}

// maxFrames bounds how many frames Frames lists.
const maxFrames = 100

// frameListJS answers, in a frame's walker world, the frame's document
// token, URL and origin and its iframe elements (open shadow roots
// included): their walker numbers, fingerprints, names and whether they
// are rendered.
const frameListJS = `({doc: W.doc, url: location.href, origin: location.origin, frames: (() => {
  const out = [];
  const visit = (root) => { for (const el of root.querySelectorAll("*")) {
    if (el.tagName === "IFRAME" || el.tagName === "FRAME") out.push(Object.assign(W.hit(el), {name: el.getAttribute("name") || "",
      shown: el.checkVisibility ? el.checkVisibility({visibilityProperty: true}) : el.getClientRects().length > 0}));
    if (el.shadowRoot) visit(el.shadowRoot);
  } };
  visit(document);
  return out.slice(0, 100);
})()})`

// frameList is frameListJS's answer.
type frameList struct {
	Doc    string `json:"doc"`
	URL    string `json:"url"`
	Origin string `json:"origin"`
	Frames []struct {
		queryHit
		Name  string `json:"name"`
		Shown bool   `json:"shown"`
	} `json:"frames"`
}

// Frames lists the tab's frames, the main frame first and each frame's
// iframes after it (depth first, as deep as snapshots inline frames, at
// most maxFrames). Each frame is named the way the frame argument takes it
// (the ref of its iframe element, which it gets now if it had none). Call
// within Do.
func (h *Held) Frames(ctx context.Context) ([]FrameInfo, error) {
	t := h.t
	return untilAnswered(ctx, t, func(ctx context.Context) ([]FrameInfo, error) {
		defer t.releaseObjects(ctx)
		mainID, err := t.page.mainFrameID(ctx)
		if err != nil {
			return nil, backendError("read the page", err)
		}
		mw := frameWorld{sess: t.page, frameID: mainID}
		var top frameList
		if _, err := mw.eval(ctx, frameListJS, &top); err != nil {
			return nil, backendError("read the page", err)
		}
		mf := t.refs.frame(mainID, true, t.page, top.Doc)
		out := []FrameInfo{{URL: top.URL, Origin: top.Origin}}
		var visit func(w frameWorld, f *frameRefs, l frameList, depth int)
		visit = func(w frameWorld, f *frameRefs, l frameList, depth int) {
			for _, h := range l.Frames {
				if len(out) >= maxFrames || ctx.Err() != nil {
					return
				}
				fi := FrameInfo{Frame: t.refs.refFor(f, h.ID, h.P), Parent: f.key, Depth: depth, Name: h.Name, Hidden: !h.Shown, Unreachable: true}
				out = append(out, fi)
				at := len(out) - 1
				cw, err := t.finder().frameOf(ctx, w, h.ID)
				if err != nil || cw.frameID == "" {
					continue
				}
				var cl frameList
				if _, err := cw.eval(ctx, frameListJS, &cl); err != nil {
					t.log.Debug("list a frame's frames", "frame", cw.frameID, "err", err)
					continue
				}
				cf := t.refs.frame(cw.frameID, false, cw.sess, cl.Doc)
				if cf.parent == nil {
					cf.parent, cf.owner = f, h.ID
				}
				out[at].Key, out[at].URL, out[at].Origin, out[at].Unreachable = cf.key, cl.URL, cl.Origin, false
				out[at].CrossOrigin = cl.Origin != top.Origin || cl.Origin == "null"
				out[at].OutOfProcess = cw.sess != t.page
				if depth < maxFrameDepth {
					visit(cw, cf, cl, depth+1)
				}
			}
		}
		visit(mw, mf, top, 1)
		return out, nil
	})
}
