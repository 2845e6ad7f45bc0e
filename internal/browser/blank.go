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
// carries secrets (Caller.Mask), the boxes of the main document's fields whose
// value holds one, and of its text that shows one, are measured before the
// capture and painted over in the image. The values are read in webpilot's
// own isolated world and tested in Go by the call's masker: no secret is
// sent to the page. Frames' documents are not searched.

// secretBox is a box to blank, in page CSS pixels; dots says it is a
// password field's, which the page draws as dots.
type secretBox struct {
	x, y, w, h float64
	dots       bool
}

// Bounds of the search for shown secrets: text nodes and characters read.
const (
	maxSecretNodes = 20000
	maxSecretChars = 4 << 20
)

// shownValuesJS lists the values the main document shows — form fields'
// (input, textarea, select, contenteditable) and text nodes', through open
// shadow roots — with their boxes in page CSS pixels; visible ones only.
const shownValuesJS = `(() => {
  const out = [], sx = scrollX, sy = scrollY;
  let nodes = 0, chars = 0;
  const box = (r) => ({X: r.left + sx, Y: r.top + sy, W: r.width, H: r.height});
  const add = (v, r, dots) => {
    if (!v || r.width < 1 || r.height < 1 || nodes >= ` + "MAXN" + ` || chars + v.length > ` + "MAXC" + `) return;
    nodes++; chars += v.length; out.push({V: v, D: !!dots, ...box(r)});
  };
  const visit = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.currentNode; n; n = w.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const p = n.parentElement;
        if (!p || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(p.tagName) || n.data.trim().length < 3) continue;
        const r = document.createRange(); r.selectNodeContents(n);
        add(n.data, r.getBoundingClientRect());
        continue;
      }
      if (n.shadowRoot) visit(n.shadowRoot);
      const tag = n.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA") add(n.value, n.getBoundingClientRect(), n.type === "password");
      else if (tag === "SELECT") add(Array.from(n.selectedOptions, (o) => o.text).join(" "), n.getBoundingClientRect());
      else if (n.isContentEditable && !(n.parentElement && n.parentElement.isContentEditable)) add(n.innerText, n.getBoundingClientRect());
    }
  };
  visit(document.documentElement);
  return out;
})()`

// secretBoxes measures the boxes that show a secret the call's masker
// knows (none without one).
func (t *Tab) secretBoxes(ctx context.Context) ([]secretBox, error) {
	mask := t.mask()
	if mask == nil {
		return nil, nil
	}
	mainID, err := t.mainFrameID(ctx)
	if err != nil {
		return nil, err
	}
	var shown []struct {
		V          string
		D          bool
		X, Y, W, H float64
	}
	js := strings.NewReplacer("MAXN", strconv.Itoa(maxSecretNodes), "MAXC", strconv.Itoa(maxSecretChars)).Replace(shownValuesJS)
	if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, js, &shown); err != nil {
		return nil, err
	}
	var boxes []secretBox
	for _, s := range shown {
		if mask(s.V) != s.V {
			boxes = append(boxes, secretBox{x: s.X, y: s.Y, w: s.W, h: s.H, dots: s.D})
		}
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
