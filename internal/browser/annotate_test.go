package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// pngImage decodes a PNG screenshot into RGBA pixels.
func pngImage(t *testing.T, data []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// checkDrawn compares an annotated screenshot with a plain one of the same
// area: every pixel that differs lies in a label's outlined box or its
// label, and every label's own area differs.
func checkDrawn(t *testing.T, what string, plain, annotated []byte, labels []browser.ShotLabel) {
	t.Helper()
	p, a := pngImage(t, plain), pngImage(t, annotated)
	if p.Bounds() != a.Bounds() {
		t.Fatalf("%s: annotated image %v, plain %v", what, a.Bounds(), p.Bounds())
	}
	differs := func(x, y int) bool {
		i := p.PixOffset(x, y)
		return !bytes.Equal(p.Pix[i:i+4], a.Pix[i:i+4])
	}
	in := func(pt image.Point) bool {
		for _, l := range labels {
			if pt.In(l.Box) || pt.In(l.Label) {
				return true
			}
		}
		return false
	}
	stray, changed := 0, 0
	var first []string
	b := p.Bounds()
	// Rows, then runs of 16 pixels, that are equal are skipped whole.
	const run = 16
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i, j := p.PixOffset(b.Min.X, y), p.PixOffset(b.Max.X, y)
		if bytes.Equal(p.Pix[i:j], a.Pix[i:j]) {
			continue
		}
		for x0 := b.Min.X; x0 < b.Max.X; x0 += run {
			x1 := min(x0+run, b.Max.X)
			i, j := p.PixOffset(x0, y), p.PixOffset(x1, y)
			if bytes.Equal(p.Pix[i:j], a.Pix[i:j]) {
				continue
			}
			for x := x0; x < x1; x++ {
				if !differs(x, y) {
					continue
				}
				changed++
				if !in(image.Pt(x, y)) {
					stray++
					if len(first) < 5 {
						first = append(first, fmt.Sprintf("(%d,%d)", x, y))
					}
				}
			}
		}
	}
	if stray > 0 {
		t.Errorf("%s: %d of %d changed pixels lie outside every label and outline, e.g. %s", what, stray, changed, strings.Join(first, " "))
	}
	for _, l := range labels {
		if l.Label.Empty() || !l.Label.In(b) || !l.Box.In(b) {
			t.Errorf("%s: label %s at %v, box %v, not inside the image %v", what, l.Ref, l.Label, l.Box, b)
			continue
		}
		n := 0
		for y := l.Label.Min.Y; y < l.Label.Max.Y; y++ {
			for x := l.Label.Min.X; x < l.Label.Max.X; x++ {
				if differs(x, y) {
					n++
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: label %s at %v changed no pixel", what, l.Ref, l.Label)
		}
	}
}

// labelOf finds the label of the ref whose name is name.
func labelOf(labels []browser.ShotLabel, name string) (browser.ShotLabel, bool) {
	for _, l := range labels {
		if l.Name == name {
			return l, true
		}
	}
	return browser.ShotLabel{}, false
}

// rect is an element's box in CSS pixels of its viewport.
func (e *env) rect(sel string) [4]float64 {
	e.t.Helper()
	var r [4]float64
	for i, k := range []string{"left", "top", "width", "height"} {
		r[i] = e.num(fmt.Sprintf("document.querySelector(%q).getBoundingClientRect().%s", sel, k))
	}
	return r
}

// near says the label's box is the CSS box r (offset by dx, dy) at scale,
// within 2 pixels.
func near(l browser.ShotLabel, r [4]float64, dx, dy, scale float64) bool {
	want := [4]float64{(r[0] + dx) * scale, (r[1] + dy) * scale, (r[0] + dx + r[2]) * scale, (r[1] + dy + r[3]) * scale}
	got := [4]int{l.Box.Min.X, l.Box.Min.Y, l.Box.Max.X, l.Box.Max.Y}
	for i := range want {
		if math.Abs(want[i]-float64(got[i])) > 2 {
			return false
		}
	}
	return true
}

// An annotated screenshot differs from a plain one only where it draws
// labels and outlines, each label visibly; boxes are scaled to the image
// (viewport, element, full page, a device pixel ratio of 2, a preview);
// refs are issued by a snapshot when the tab has none; the page's DOM is
// never changed.
func TestScreenshotAnnotate(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/annotate.html")
	before := e.eval("document.documentElement.outerHTML")

	plain := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG})
	ann := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Annotate: true})
	if !ann.Snapshotted || !ann.Annotated || ann.NotAnnotated != "" {
		t.Errorf("first annotated shot: snapshotted %v, annotated %v, not %q; want refs issued by a snapshot", ann.Snapshotted, ann.Annotated, ann.NotAnnotated)
	}
	checkDrawn(t, "viewport", plain.Data, ann.Data, ann.Labels)
	var names []string
	for _, l := range ann.Labels {
		names = append(names, l.String())
	}
	t.Logf("viewport labels: %s", strings.Join(names, " · "))
	snap := e.snapshot(browser.ModeCompact)
	for _, want := range []struct{ role, name string }{{"link", "Home"}, {"link", "Docs"}, {"textbox", "Email"}, {"textbox", "Name"}, {"checkbox", "Agree"}, {"button", "Save"}, {"button", "Cancel"}, {"button", "First in list"}} {
		ref := refOf(t, snap, want.role, want.name)
		l, ok := labelOf(ann.Labels, want.name)
		if !ok || l.Ref != ref || l.Role != want.role {
			t.Errorf("%s %q (%s): label %+v", want.role, want.name, ref, l)
		}
	}
	// Out of sight: below the viewport, scrolled out of its list.
	for _, name := range []string{"Far below", "Hidden in list"} {
		if l, ok := labelOf(ann.Labels, name); ok {
			t.Errorf("%q is out of sight but labelled %s at %v", name, l.Ref, l.Box)
		}
	}
	// In the iframe: a frame ref, inside the frame's box.
	inside, ok := labelOf(ann.Labels, "Inside")
	dpr := e.num("devicePixelRatio")
	frame := e.rect("iframe")
	if fb := image.Rect(int(frame[0]*dpr), int(frame[1]*dpr), int(math.Ceil((frame[0]+frame[2])*dpr)), int(math.Ceil((frame[1]+frame[3])*dpr))); !ok || !strings.HasPrefix(inside.Ref, "f") || !inside.Box.In(fb) {
		t.Errorf("the iframe's button: label %+v, the frame is at %v", inside, fb)
	}
	save, _ := labelOf(ann.Labels, "Save")
	if r := e.rect("#save"); !near(save, r, 0, 0, dpr) {
		t.Errorf("Save's box %v, its element is at %v × %.1f", save.Box, r, dpr)
	}

	// Now the tab has refs: no snapshot, the same refs; JPEG keeps its
	// format.
	again := e.mustShot(browser.ShotOptions{Annotate: true})
	if again.Snapshotted || len(again.Labels) != len(ann.Labels) {
		t.Errorf("second shot: snapshotted %v, %d labels (first: %d)", again.Snapshotted, len(again.Labels), len(ann.Labels))
	}
	if _, format, err := image.DecodeConfig(bytes.NewReader(again.Data)); err != nil || format != "jpeg" || again.MIMEType != "image/jpeg" {
		t.Errorf("annotated JPEG: %s %v %s", format, err, again.MIMEType)
	}

	// One element: only the refs inside it, boxes from its corner. (The
	// first capture beyond the viewport in a tab takes the page's
	// scrollbar away for good, which widens the form: one is made first.)
	e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Target: browser.Locator{Selector: "#form"}})
	elPlain := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Target: browser.Locator{Selector: "#form"}})
	el := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Target: browser.Locator{Selector: "#form"}, Annotate: true})
	checkDrawn(t, "element", elPlain.Data, el.Data, el.Labels)
	// The form got a ref when it was located: it is labelled too.
	if _, ok := labelOf(el.Labels, "Home"); ok || len(el.Labels) != 6 || el.Labels[5].Role != "form" {
		t.Errorf("element shot labels %v, want the form's five and the form", el.Labels)
	}
	form, save2 := e.rect("#form"), e.rect("#save")
	if l, _ := labelOf(el.Labels, "Save"); !near(l, save2, -form[0], -form[1], dpr) {
		t.Errorf("Save's box in the element shot %v; element at %v, form at %v", l.Box, save2, form)
	}

	// The full page: the button far below too.
	e.eval("(scrollTo(0, 0), 'ok')")
	fullPlain := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, FullPage: true})
	full := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, FullPage: true, Annotate: true})
	checkDrawn(t, "full page", fullPlain.Data, full.Data, full.Labels)
	if far, ok := labelOf(full.Labels, "Far below"); !ok || !near(far, e.rect("#far"), 0, 0, dpr) {
		t.Errorf("full page: Far below labelled %v at %v, element at %v", ok, far.Box, e.rect("#far"))
	}

	// A device pixel ratio of 2 (on the element, a small image): boxes
	// scale with it.
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		return tab.Target().Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 0, "height": 0, "deviceScaleFactor": 2, "mobile": false}, nil)
	})
	if err != nil {
		t.Fatalf("emulate a device pixel ratio of 2: %v", err)
	}
	t.Cleanup(func() {
		_ = e.do(func(ctx context.Context, h *browser.Held) error {
			tab := h.Tab()

			return tab.Target().Call(ctx, "Emulation.clearDeviceMetricsOverride", nil, nil)
		})
	})
	if d := e.num("devicePixelRatio"); d != 2 {
		t.Fatalf("devicePixelRatio %v after the override", d)
	}
	hi := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Target: browser.Locator{Selector: "#form"}, Annotate: true})
	form, save2 = e.rect("#form"), e.rect("#save")
	if l, _ := labelOf(hi.Labels, "Save"); !near(l, save2, -form[0], -form[1], 2) || hi.Width != 2*el.Width {
		t.Errorf("dpr 2: %d px wide (%d at 1), Save's box %v; element at %v, form at %v", hi.Width, el.Width, l.Box, save2, form)
	}

	if after := e.eval("document.documentElement.outerHTML"); after != before {
		t.Errorf("the page's DOM changed:\nbefore %s\nafter  %s", before, after)
	}
}

// Over the embed limit, the preview is labelled at its own scale and the
// saved original is labelled too.
func TestScreenshotAnnotatePreview(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 12 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	e := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	e.navigate("/annotate.html")
	shot := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, FullPage: true, Annotate: true})
	if shot.Saved == nil || shot.MIMEType != "image/jpeg" || len(shot.Labels) == 0 {
		t.Fatalf("want a labelled JPEG preview and a saved original: saved %v, %s, %d labels", shot.Saved, shot.MIMEType, len(shot.Labels))
	}
	scale := float64(shot.Width) / e.num("document.documentElement.scrollWidth")
	if l, _ := labelOf(shot.Labels, "Save"); scale >= 1 || !near(l, e.rect("#save"), e.num("scrollX"), e.num("scrollY"), scale) {
		t.Errorf("preview at scale %.2f: Save's box %v, element at %v", scale, l.Box, e.rect("#save"))
	}
	for _, l := range shot.Labels {
		if !l.Box.In(image.Rect(0, 0, shot.Width, shot.Height)) {
			t.Errorf("label %s box %v outside the %d×%d preview", l.Ref, l.Box, shot.Width, shot.Height)
		}
	}
}
