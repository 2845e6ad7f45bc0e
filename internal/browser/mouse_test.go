package browser_test

import (
	"context"
	"image"
	"strconv"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Mouse input at viewport points (browser_mouse): a click hits the element
// under the point, where the annotated screenshot draws its box; presses,
// moves, releases, double and right clicks reach the page with the
// buttons held; a drag moves a slider's knob; a wheel scrolls; a point
// outside the viewport is refused with its size.
func TestMouseAtPoints(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/mouse/pad.html")
	mouse := func(m browser.MouseInput) (*browser.ActionResult, error) {
		return e.act(browser.Action{Kind: browser.MouseKind, Mouse: &m})
	}
	must := func(m browser.MouseInput) *browser.ActionResult {
		t.Helper()
		res, err := mouse(m)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		return res
	}
	// The annotated screenshot's box of the Save button holds the point
	// the click goes to, and the click lands on it.
	var shot *browser.Shot
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		var err error
		shot, err = h.Capture().Screenshot(ctx, browser.ShotOptions{Annotate: true, Format: browser.FormatPNG})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var box image.Rectangle
	saveRef := ""
	for _, l := range shot.Labels {
		if l.Role == "button" && l.Name == "Save" {
			box, saveRef = l.Box, l.Ref
		}
	}
	if saveRef == "" {
		t.Fatalf("no label for the Save button: %v", shot.Labels)
	}
	vw, err := strconv.ParseFloat(e.eval(`String(innerWidth)`), 64)
	if err != nil {
		t.Fatal(err)
	}
	dpr := float64(shot.Width) / vw
	cx, cy := float64(box.Min.X+box.Max.X)/2/dpr, float64(box.Min.Y+box.Max.Y)/2/dpr
	res := must(browser.MouseInput{Action: "click", X: cx, Y: cy})
	if res.Point == nil || res.Point.Role != "button" || res.Point.Name != "Save" || res.Point.Ref != saveRef {
		t.Errorf("click at %g,%g (the center of %s's box %v): point %+v, want button \"Save\" %s", cx, cy, saveRef, box, res.Point, saveRef)
	}
	if got := e.eval(`document.getElementById("out").textContent`); got != "saved 1" {
		t.Errorf("after the click the page says %q", got)
	}

	// Press, move with the button held, release; a double and a right
	// click.
	must(browser.MouseInput{Action: "down", X: 60, Y: 140})
	must(browser.MouseInput{Action: "move", X: 200, Y: 150})
	res = must(browser.MouseInput{Action: "up", X: 210, Y: 160})
	if res.Point.Role != "application" || res.Point.Name != "Drawing pad" {
		t.Errorf("up on the pad: point %+v", res.Point)
	}
	must(browser.MouseInput{Action: "dblclick", X: 100, Y: 200})
	must(browser.MouseInput{Action: "click", X: 120, Y: 210, Button: "right"})
	log := e.eval(`__log.filter((l) => !l.startsWith("mousemove") || l.includes(" b1")).join("; ")`)
	for _, want := range []string{"mousedown 60,140 b1 k0", "mousemove 200,150 b1", "mouseup 210,160 b0 k0", "dblclick 100,200", "contextmenu 120,210 b2", "mousedown 120,210 b2 k2"} {
		if !strings.Contains(log, want) {
			t.Errorf("the pad's log lacks %q:\n%s", want, log)
		}
	}

	// A drag moves the slider's knob by what the pointer moved.
	to := 40.0 + 10 + 190
	res = must(browser.MouseInput{Action: "drag", X: 50, Y: 370, ToX: &to, ToY: new(float64(370))})
	if got := e.eval(`document.getElementById("knob").style.left`); got != "190px" {
		t.Errorf("after a drag of 190 px the knob is at %q", got)
	}
	if res.Point.Role == "" || res.Point.Ref == "" {
		t.Errorf("drag onto: %+v, want the track with a ref", res.Point)
	}

	// A wheel scrolls the page.
	res = must(browser.MouseInput{Action: "wheel", X: 300, Y: 500, DeltaY: 600})
	if !res.Scrolled {
		t.Error("a wheel: not reported as scrolled")
	}
	e.waitEval(`String(scrollY >= 600)`, "true")

	for _, c := range []struct {
		m    browser.MouseInput
		want string
	}{
		{browser.MouseInput{Action: "click", X: 5000, Y: 10}, "outside the viewport"},
		{browser.MouseInput{Action: "click", X: -1, Y: 10}, "outside the viewport"},
		{browser.MouseInput{Action: "tap", X: 1, Y: 1}, "unknown mouse action"},
		{browser.MouseInput{Action: "drag", X: 1, Y: 1}, "to_x and to_y"},
		{browser.MouseInput{Action: "click", X: 1, Y: 1, Button: "fourth"}, "unknown button"},
		{browser.MouseInput{Action: "wheel", X: 1, Y: 1}, "delta"},
		{browser.MouseInput{Action: "click", X: 1, Y: 1, DeltaY: 3}, "for wheel"},
	} {
		_, err := mouse(c.m)
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.m, be.Message, c.want)
		}
	}
}
