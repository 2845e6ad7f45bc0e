package browser

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"
)

// A screenshot never shows a declared secret (--secrets): when the call
// carries secrets (Caller.Mask), the boxes of the fields whose value holds
// one, of the text that shows one or a part of one (Caller.Fragment), of
// short elements whose text split over several nodes shows one, and of
// generated content (::before, ::after) that does — in the main document,
// its open shadow roots and its same-origin frames — are measured before
// the capture and painted over in the image, with every canvas while any
// of them shows one. The values are read in webpilot's own isolated world
// and tested in Go: no secret is sent to the page. Cross-origin frames'
// documents are not searched.

// secretBox is a box to blank, in page CSS pixels; dots says it is a
// password field's, which the page draws as dots.
type secretBox struct {
	x, y, w, h float64
	dots       bool
	canvas     bool // a canvas, painted while a secret shows elsewhere
}

// Bounds of the search for shown secrets: text nodes and characters read.
const (
	maxSecretNodes = 20000
	maxSecretChars = 4 << 20
)

// shownValuesJS lists the values the main document shows — form fields'
// (input, textarea, select, contenteditable), text nodes', the text of
// short elements whose text is split over several nodes (a secret copied
// into spans), generated content (::before, ::after) and canvases (K),
// through open shadow roots and same-origin frames — with their boxes in
// page CSS pixels; visible ones only.
const shownValuesJS = `(() => {
  const out = [];
  let nodes = 0, chars = 0;
  const add = (v, r, off, dots, kind) => {
    if ((!v && kind !== "K") || r.width < 1 || r.height < 1 || nodes >= MAXN || chars + v.length > MAXC) return;
    nodes++; chars += v.length;
    out.push({V: v, D: !!dots, K: kind || "", X: r.left + off.x, Y: r.top + off.y, W: r.width, H: r.height});
  };
  const visit = (doc, root, off) => {
    const w = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.currentNode; n; n = w.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const p = n.parentElement;
        if (!p || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(p.tagName) || n.data.trim().length < 3) continue;
        const r = doc.createRange(); r.selectNodeContents(n);
        add(n.data, r.getBoundingClientRect(), off);
        continue;
      }
      if (n.nodeType !== Node.ELEMENT_NODE) continue;
      if (n.shadowRoot) visit(doc, n.shadowRoot, off);
      const tag = n.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA") add(n.value, n.getBoundingClientRect(), off, n.type === "password");
      else if (tag === "SELECT") add(Array.from(n.selectedOptions, (o) => o.text).join(" "), n.getBoundingClientRect(), off);
      else if (n.isContentEditable && !(n.parentElement && n.parentElement.isContentEditable)) add(n.innerText, n.getBoundingClientRect(), off);
      else if (tag === "CANVAS") add("", n.getBoundingClientRect(), off, false, "K");
      else if (tag === "IFRAME" || tag === "FRAME") {
        let d = null;
        try { d = n.contentDocument; } catch (e) {}
        if (d && d.documentElement) {
          const r = n.getBoundingClientRect();
          visit(d, d.documentElement, {x: off.x + r.left + n.clientLeft, y: off.y + r.top + n.clientTop});
        }
        continue;
      }
      const t = n.textContent;
      if (t && t.length <= 300 && n.childNodes.length > 1 && !/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HTML|BODY|HEAD)$/.test(tag)) {
        let texts = 0;
        for (const c of n.childNodes) if (c.nodeType === Node.TEXT_NODE ? c.data.trim() : c.textContent.trim()) texts++;
        if (texts > 1) add(t, n.getBoundingClientRect(), off, false, "S");
      }
      const st = doc.defaultView.getComputedStyle(n, "::before"), sa = doc.defaultView.getComputedStyle(n, "::after");
      const gen = [st.content, sa.content].filter((c) => c && c !== "none" && c !== "normal").join(" ");
      if (gen) add(gen, n.getBoundingClientRect(), off, false, "G");
    }
  };
  visit(document, document.documentElement, {x: scrollX, y: scrollY});
  return out;
})()`

// secretBoxes measures the boxes that show a secret the call's masker
// knows (none without one): a value or text that holds one or a part of
// one (Caller.Fragment), split text, generated content; and, while any
// box shows one (a password field too), every canvas, where a page may
// draw what it holds without it being found.
func (v *pageView) secretBoxes(ctx context.Context) ([]secretBox, error) {
	t := v.t
	mask := t.mask()
	if mask == nil {
		return nil, nil
	}
	frag := func(string) string { return "" }
	if f := t.link.caller.Fragment; f != nil {
		frag = f
	}
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, err
	}
	var shown []struct {
		V          string
		D          bool
		K          string
		X, Y, W, H float64
	}
	js := strings.NewReplacer("MAXN", strconv.Itoa(maxSecretNodes), "MAXC", strconv.Itoa(maxSecretChars)).Replace(shownValuesJS)
	if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, js, &shown); err != nil {
		return nil, err
	}
	var boxes, canvases []secretBox
	for _, s := range shown {
		switch {
		case s.K == "K":
			canvases = append(canvases, secretBox{x: s.X, y: s.Y, w: s.W, h: s.H, canvas: true})
		case mask(s.V) != s.V || frag(s.V) != "":
			boxes = append(boxes, secretBox{x: s.X, y: s.Y, w: s.W, h: s.H, dots: s.D})
		}
	}
	if len(boxes) > 0 {
		boxes = append(boxes, canvases...)
	}
	return boxes, nil
}

// secretFill is what a blanked box shows: a flat grey.
var secretFill = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}

// blankBoxes paints the boxes (page CSS pixels) over in img, which shows
// area at its size.
func blankBoxes(img draw.Image, boxes []secretBox, area clip) int {
	b := img.Bounds()
	sx, sy := float64(b.Dx())/area.Width, float64(b.Dy())/area.Height
	n := 0
	for _, s := range boxes {
		x0, y0 := (s.x-area.X)*sx, (s.y-area.Y)*sy
		r := image.Rect(int(math.Floor(x0))-1, int(math.Floor(y0))-1, int(math.Ceil(x0+s.w*sx))+1, int(math.Ceil(y0+s.h*sy))+1).Add(b.Min).Intersect(b)
		if r.Empty() {
			continue
		}
		draw.Draw(img, r, image.NewUniform(secretFill), image.Point{}, draw.Src)
		n++
	}
	return n
}
