package browser

import (
	"image"
	"image/color"
	"image/draw"
	"slices"
	"testing"
)

// Every glyph is 5×7, and every character of a ref has one.
func TestGlyphs(t *testing.T) {
	for c, g := range glyphs {
		for i, row := range g {
			if len(row) != glyphW {
				t.Errorf("glyph %q row %d is %q", c, i, row)
			}
		}
	}
	for _, c := range "ef0123456789" {
		if _, ok := glyphs[c]; !ok {
			t.Errorf("no glyph for %q", c)
		}
	}
	if w := textWidth("f12e3"); w != 5*6-1 {
		t.Errorf("textWidth(f12e3) = %d", w)
	}
}

// Labels are drawn where they are said to be and nowhere else: outlines on
// the boxes' inner edges, labels above a box when there is room, else
// inside, else below, never over another label when a place is free.
func TestDrawLabels(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
		boxes []image.Rectangle
		want  []image.Point // where each label's top-left corner goes
	}{
		// Room above: the label sits on the box's top edge, outside.
		{"above", 1, []image.Rectangle{image.Rect(20, 40, 120, 70)}, []image.Point{{20, 22}}},
		// No room above: inside the top-left corner.
		{"inside", 1, []image.Rectangle{image.Rect(10, 5, 120, 40)}, []image.Point{{10, 5}}},
		// Two boxes at the same corner: the second goes below its box.
		{"below", 1, []image.Rectangle{image.Rect(10, 5, 120, 40), image.Rect(10, 5, 100, 30)}, []image.Point{{10, 5}, {10, 30}}},
		// Near the right edge: moved left to stay whole.
		{"edge", 1, []image.Rectangle{image.Rect(190, 40, 200, 60)}, []image.Point{{200 - (textWidth("e1")+2)*2, 22}}},
		// At scale 2 (a device pixel ratio of 2): glyph pixels of 4.
		{"scale 2", 2, []image.Rectangle{image.Rect(20, 60, 120, 90)}, []image.Point{{20, 60 - 9*4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := image.NewRGBA(image.Rect(0, 0, 200, 120))
			draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
			var rs []labelRect
			for i, b := range tc.boxes {
				rs = append(rs, labelRect{ShotLabel: ShotLabel{Ref: "e" + string(rune('1'+i))}, box: b})
			}
			got := drawLabels(img, rs, tc.scale)
			if len(got) != len(tc.boxes) {
				t.Fatalf("%d labels for %d boxes", len(got), len(tc.boxes))
			}
			for i, l := range got {
				if l.Label.Min != tc.want[i] || l.Box != tc.boxes[i] {
					t.Errorf("label %d at %v (box %v), want at %v", i, l.Label, l.Box, tc.want[i])
				}
				for _, o := range got[:i] {
					if o.Label.Overlaps(l.Label) {
						t.Errorf("labels %v and %v overlap", o.Label, l.Label)
					}
				}
				// Filled, with text in it.
				var inks []color.RGBA
				for y := l.Label.Min.Y; y < l.Label.Max.Y; y++ {
					for x := l.Label.Min.X; x < l.Label.Max.X; x++ {
						if c := img.RGBAAt(x, y); !slices.Contains(inks, c) {
							inks = append(inks, c)
						}
					}
				}
				if !slices.Contains(inks, labelFill) || !slices.Contains(inks, labelText) || len(inks) != 2 {
					t.Errorf("label %d holds colours %v, want the fill and the text", i, inks)
				}
			}
			for y := range 120 {
				for x := range 200 {
					if img.RGBAAt(x, y) == (color.RGBA{255, 255, 255, 255}) {
						continue
					}
					p := image.Pt(x, y)
					if !slices.ContainsFunc(got, func(l ShotLabel) bool { return p.In(l.Label) || p.In(l.Box) }) {
						t.Fatalf("pixel %v drawn outside every label and box", p)
					}
					// Inside a box, only its edge is drawn (and labels, and
					// other boxes' edges).
					for _, l := range got {
						inner := l.Box.Inset(max(1, int(tc.scale)))
						if p.In(inner) && !slices.ContainsFunc(got, func(o ShotLabel) bool { return p.In(o.Label) || o.Box != l.Box && p.In(o.Box) }) {
							t.Fatalf("pixel %v inside box %v drawn", p, l.Box)
						}
					}
				}
			}
		})
	}
}

// Refs sort by frame, then number.
func TestRefOrder(t *testing.T) {
	refs := []string{"f2e1", "e10", "f1e3", "e2", "e1"}
	slices.SortFunc(refs, func(a, b string) int { return refOrder(a) - refOrder(b) })
	if want := []string{"e1", "e2", "e10", "f1e3", "f2e1"}; !slices.Equal(refs, want) {
		t.Errorf("sorted %v, want %v", refs, want)
	}
}
