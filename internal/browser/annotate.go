package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"
)

// An annotated screenshot (ShotOptions.Annotate) shows each ref of the tab
// on its element: an outline and a small label with the ref, drawn into the
// captured image in Go. The page is never changed.

// Bounds of an annotated screenshot.
const (
	// maxLabels is how many refs one image labels; the rest are counted.
	maxLabels = 200
	// maxAnnotatePixels is the largest capture labelled (its pixels are
	// held decoded, 4 bytes each).
	maxAnnotatePixels = 25_000_000
	// labelNameMax bounds a ref's name in the list of labels.
	labelNameMax = 40
)

// ShotLabel is a ref drawn on an annotated screenshot, in the image's pixels.
type ShotLabel struct {
	Ref  string
	Role string
	Name string
	// Box is the element's box (clipped to the image), whose edge is
	// outlined; Label is the label's box, drawn over the outline.
	Box   image.Rectangle
	Label image.Rectangle
}

// String is the label as the result lists it: `e12 button "Save"`.
func (l ShotLabel) String() string {
	s := l.Ref
	if l.Role != "" {
		s += " " + l.Role
	}
	if l.Name != "" {
		s += " " + quote(shorten(l.Name, labelNameMax))
	}
	return s
}

// refBox is a ref's element box in page CSS pixels (the main document's
// coordinates).
type refBox struct {
	ref, role, name string
	x, y, w, h      float64
}

// annotation is what an annotated capture draws: the boxes, and the part of
// the page (CSS pixels) the capture shows.
type annotation struct {
	boxes []refBox
	area  clip
	// hide are boxes that show a secret, painted over first (blank.go);
	// blanked is how many the last capture painted.
	hide    []secretBox
	blanked int
}

// measureJS measures elements of a frame by their walker numbers: the
// walker's document token, the frame's scroll and viewport, and each
// element's box in the frame's viewport (visible, at least 1×1, clipped by
// the ancestors that clip their overflow, such as scrolled lists).
const measureJS = `(ids) => { ` + coveredJS + `
  const out = { doc: W.doc, sx: scrollX, sy: scrollY, vw: innerWidth, vh: innerHeight, b: [] };
  for (const id of ids) {
    const el = W.get(id);
    if (!el) continue;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    let x0 = r.left, y0 = r.top, x1 = r.right, y1 = r.bottom;
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement && x1 - x0 >= 1 && y1 - y0 >= 1; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX === "visible" && st.overflowY === "visible") continue;
      const c = a.getBoundingClientRect();
      if (st.overflowX !== "visible") { x0 = Math.max(x0, c.left); x1 = Math.min(x1, c.right); }
      if (st.overflowY !== "visible") { y0 = Math.max(y0, c.top); y1 = Math.min(y1, c.bottom); }
    }
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    if (covered(el, x0, y0, x1, y1)) continue;
    out.b.push([id, x0, y0, x1 - x0, y1 - y0]);
  }
  return out;
}`

// coveredJS says an element in the viewport is hidden behind another (a
// modal, a backdrop) at its centre and four inner points: no label is
// drawn on what a user cannot see or click. Its own label (a styled
// checkbox) does not cover it; what is out of the viewport cannot be
// tested and counts as not covered.
const coveredJS = `const covered = (el, x0, y0, x1, y1) => {
  const root = el.getRootNode();
  const at = root.elementFromPoint ? (x, y) => root.elementFromPoint(x, y) : (x, y) => document.elementFromPoint(x, y);
  let tested = 0;
  for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) {
    const x = x0 + (x1 - x0) * fx, y = y0 + (y1 - y0) * fy;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    tested++;
    const h = at(x, y);
    if (!h || h === el || el.contains(h) || (h.tagName === "LABEL" && (h.contains(el) || h.control === el))) return false;
  }
  return tested > 0;
};`

// measured is what measureJS answers.
type measured struct {
	Doc string       `json:"doc"`
	SX  float64      `json:"sx"`
	SY  float64      `json:"sy"`
	VW  float64      `json:"vw"`
	VH  float64      `json:"vh"`
	B   [][5]float64 `json:"b"`
}

// measureFrame measures the elements of frame f that have refs.
func (v *pageView) measureFrame(ctx context.Context, f *frameRefs) (*measured, error) {
	ids := make([]string, 0, len(f.byWid))
	for wid := range f.byWid {
		ids = append(ids, strconv.Itoa(wid))
	}
	var m measured
	w := frameWorld{sess: f.sess, frameID: f.frameID}
	if _, err := w.eval(ctx, "("+measureJS+")(["+strings.Join(ids, ",")+"])", &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// refBoxes measures the elements of the tab's refs (those of the documents
// the frames show now), in page CSS pixels. When the main document has none
// yet, a walk like a compact snapshot's issues them first (snapped), without
// moving the diff baseline or the snapshot kept for offset pages.
func (v *pageView) refBoxes(ctx context.Context) (boxes []refBox, snapped bool, err error) {
	t := v.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, false, backendError("read the page", err)
	}
	main := t.refs.frames[mainID]
	var mm *measured
	if main != nil && len(main.byWid) > 0 {
		if mm, err = v.measureFrame(ctx, main); err != nil {
			return nil, false, backendError("measure the refs", err)
		}
	}
	if mm == nil || mm.Doc != main.doc {
		if _, err := v.collect(ctx, Locator{}, true); err != nil {
			return nil, false, err
		}
		snapped = true
		if main = t.refs.frames[mainID]; main == nil {
			return nil, true, nil
		}
		if mm, err = v.measureFrame(ctx, main); err != nil {
			return nil, true, backendError("measure the refs", err)
		}
	}
	frames := []*frameRefs{main}
	for _, f := range t.refs.frames {
		if f != main && len(f.byWid) > 0 && f.sess != nil {
			frames = append(frames, f)
		}
	}
	slices.SortFunc(frames[1:], func(a, b *frameRefs) int { return frameOrder(a.key) - frameOrder(b.key) })
	for _, f := range frames {
		m, ox, oy := mm, 0.0, 0.0
		if f != main {
			// A frame gone or on another document is left out: its refs
			// are stale.
			if m, err = v.measureFrame(ctx, f); err != nil || m.Doc != f.doc {
				continue
			}
			if ox, oy, err = t.finder().frameOffset(ctx, f); err != nil {
				continue
			}
		}
		if m.Doc != f.doc {
			continue
		}
		for _, b := range m.B {
			e := f.byWid[int(b[0])]
			if e == nil {
				continue
			}
			x, y, w, h := b[1], b[2], b[3], b[4]
			if f != main { // clipped to the frame's viewport
				x0, y0 := math.Max(x, 0), math.Max(y, 0)
				x1, y1 := math.Min(x+w, m.VW), math.Min(y+h, m.VH)
				if x1-x0 < 1 || y1-y0 < 1 {
					continue
				}
				x, y, w, h = x0, y0, x1-x0, y1-y0
			}
			boxes = append(boxes, refBox{ref: e.ref, role: e.role(), name: e.name(), x: x + ox + mm.SX, y: y + oy + mm.SY, w: w, h: h})
		}
	}
	slices.SortStableFunc(boxes, func(a, b refBox) int { return refOrder(a.ref) - refOrder(b.ref) })
	return boxes, snapped, nil
}

// frameOrder sorts frame keys ("f2") by number.
func frameOrder(key string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(key, "f"))
	return n
}

// refOrder sorts refs: the main frame's by number, then each frame's.
func refOrder(ref string) int {
	key, n, _ := parseRef(ref)
	return frameOrder(key)<<20 + n
}

// annotated captures area (nil: the viewport, whose place in the page is
// a.area) as PNG, draws a's labels on it and encodes it in format. It
// returns the labels drawn and how many refs in the area were left out.
func (v *pageView) annotated(ctx context.Context, format string, quality int, area *clip, beyond bool, a *annotation) ([]byte, []ShotLabel, int, error) {
	data, err := v.capture(ctx, FormatPNG, 0, area, beyond)
	if err != nil {
		return nil, nil, 0, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("decode the screenshot: %w", err)
	}
	dst, ok := img.(draw.Image)
	if !ok {
		rgba := image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
		dst = rgba
	}
	a.blanked = blankBoxes(dst, a.hide, a.area)
	b := dst.Bounds()
	sx, sy := float64(b.Dx())/a.area.Width, float64(b.Dy())/a.area.Height
	var rects []labelRect
	left := 0
	for _, r := range a.boxes {
		x0, y0 := (r.x-a.area.X)*sx, (r.y-a.area.Y)*sy
		box := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x0+r.w*sx)), int(math.Ceil(y0+r.h*sy))).Add(b.Min).Intersect(b)
		if box.Dx() < 1 || box.Dy() < 1 {
			continue
		}
		if len(rects) == maxLabels {
			left++
			continue
		}
		rects = append(rects, labelRect{ShotLabel: ShotLabel{Ref: r.ref, Role: r.role, Name: r.name}, box: box})
	}
	labels := drawLabels(dst, rects, sx)
	var out bytes.Buffer
	switch format {
	case FormatPNG:
		err = png.Encode(&out, dst)
	default:
		err = jpeg.Encode(&out, dst, &jpeg.Options{Quality: quality})
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("encode the screenshot: %w", err)
	}
	return out.Bytes(), labels, left, nil
}

// labelRect is a ref to draw and its element's box in the image.
type labelRect struct {
	ShotLabel
	box image.Rectangle
}

// Label colours: a magenta few pages use, with white text.
var (
	labelFill = color.RGBA{R: 0xd4, G: 0x0b, B: 0x7a, A: 0xff}
	labelText = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
)

// drawLabels outlines each box and draws its ref in a filled label, at
// scale image pixels per CSS pixel: above the box's top-left corner when
// there is room, else inside it, else below it — the first place that does
// not cover a label already drawn. Outlines are drawn first, so that labels
// stay whole.
func drawLabels(img draw.Image, rs []labelRect, scale float64) []ShotLabel {
	b := img.Bounds()
	k := max(1, int(math.Round(2*scale))) // glyph pixel size: 10×14 CSS px at any scale
	line := max(1, int(math.Round(scale)))
	for _, r := range rs {
		outline(img, r.box, line)
	}
	out := make([]ShotLabel, 0, len(rs))
	var placed []image.Rectangle
	for _, r := range rs {
		w, h := textWidth(r.Ref)*k+2*k, glyphH*k+2*k
		spot := func(x, y int) image.Rectangle {
			x = max(b.Min.X, min(x, b.Max.X-w))
			y = max(b.Min.Y, min(y, b.Max.Y-h))
			return image.Rect(x, y, x+w, y+h).Intersect(b)
		}
		tries := []image.Rectangle{spot(r.box.Min.X, r.box.Min.Y-h), spot(r.box.Min.X, r.box.Min.Y), spot(r.box.Min.X, r.box.Max.Y)}
		if r.box.Min.Y-h < b.Min.Y {
			tries = tries[1:] // no room above
		}
		at := tries[0]
		for _, c := range tries {
			if !slices.ContainsFunc(placed, c.Overlaps) {
				at = c
				break
			}
		}
		placed = append(placed, at)
		draw.Draw(img, at, image.NewUniform(labelFill), image.Point{}, draw.Src)
		drawText(img, at.Min.X+k, at.Min.Y+k, r.Ref, k, at)
		l := r.ShotLabel
		l.Box, l.Label = r.box, at
		out = append(out, l)
	}
	return out
}

// outline draws the inner edge of r, n pixels thick.
func outline(img draw.Image, r image.Rectangle, n int) {
	n = min(n, r.Dx()/2+1, r.Dy()/2+1)
	fill := image.NewUniform(labelFill)
	for _, e := range []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+n), image.Rect(r.Min.X, r.Max.Y-n, r.Max.X, r.Max.Y),
		image.Rect(r.Min.X, r.Min.Y, r.Min.X+n, r.Max.Y), image.Rect(r.Max.X-n, r.Min.Y, r.Max.X, r.Max.Y),
	} {
		draw.Draw(img, e.Intersect(r), fill, image.Point{}, draw.Src)
	}
}

// The label font: 5×7 glyphs of the characters refs are made of (e, f and
// the digits), one string of five pixels ('#' set) per row.
const (
	glyphW = 5
	glyphH = 7
)

var glyphs = map[rune][glyphH]string{
	'0': {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	'1': {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'2': {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	'3': {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
	'4': {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	'5': {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	'6': {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	'7': {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	'8': {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	'9': {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
	'e': {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."},
	'f': {"..##.", ".#...", ".#...", "####.", ".#...", ".#...", ".#..."},
}

// textWidth is the width of s in glyph pixels (one pixel between glyphs).
func textWidth(s string) int {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return n*(glyphW+1) - 1
}

// drawText draws s with its top-left corner at (x, y), each glyph pixel
// k×k image pixels, within clip.
func drawText(img draw.Image, x, y int, s string, k int, clip image.Rectangle) {
	ink := image.NewUniform(labelText)
	for i, c := range []rune(s) {
		g, ok := glyphs[c]
		if !ok {
			continue
		}
		gx := x + i*(glyphW+1)*k
		for row := range glyphH {
			for col := range glyphW {
				if g[row][col] == '#' {
					px := image.Rect(gx+col*k, y+row*k, gx+(col+1)*k, y+(row+1)*k).Intersect(clip)
					draw.Draw(img, px, ink, image.Point{}, draw.Src)
				}
			}
		}
	}
}
