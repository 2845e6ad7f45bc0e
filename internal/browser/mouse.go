package browser

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/input"
)

// browser_mouse is input at a point of the viewport, for agents that see
// the page as an image: CSS pixels from the viewport's top left, the
// coordinates of a viewport screenshot at a device pixel ratio of 1 (and
// of its annotated boxes). It is an action (Act, kind "mouse"): the same
// wait for what it set off, navigation and diff as browser_action.

// MouseKind is the action kind of browser_mouse's input.
const MouseKind = "mouse"

// MouseInput is one mouse gesture at a point.
type MouseInput struct {
	Action string  // MouseActions
	X, Y   float64 // the point, in CSS pixels of the viewport
	// ToX and ToY are where a drag ends.
	ToX, ToY *float64
	Button   string // left (default), middle, right
	// DeltaX and DeltaY are a wheel's scroll, in CSS pixels.
	DeltaX, DeltaY float64
}

// MouseActions are browser_mouse's gestures.
var MouseActions = []string{"move", "click", "dblclick", "down", "up", "drag", "wheel"}

// PointHit is what is at a point: the element a user would act on there
// (or the innermost one), with its ref.
type PointHit struct {
	Ref, Role, Name string
	Frame           bool // the element is an iframe: the input goes to its page
}

// String is the hit as a result says it: `button "Save" (e12)`.
func (p PointHit) String() string {
	s := p.Role
	if p.Name != "" {
		s += " " + quote(shorten(p.Name, 80))
	}
	if p.Ref != "" {
		s += " (" + p.Ref + ")"
	}
	if p.Frame {
		s += ", a frame: the input went to its page"
	}
	return s
}

// check refuses a gesture it cannot send.
func (m *MouseInput) check() error {
	if !slices.Contains(MouseActions, m.Action) {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown mouse action %q", m.Action), Hint: "use one of " + strings.Join(MouseActions, ", ")}
	}
	switch m.Button {
	case "", "left", "middle", "right":
	default:
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown button %q", m.Button), Hint: "use left (the default), middle or right"}
	}
	if (m.ToX == nil) != (m.ToY == nil) || (m.Action == "drag") != (m.ToX != nil) {
		return &Error{Code: CodeInvalidArgument, Message: "a drag takes to_x and to_y (where it ends); other gestures take neither", Hint: `e.g. {"action": "drag", "x": 10, "y": 20, "to_x": 300, "to_y": 20}`}
	}
	if m.Action != "wheel" && (m.DeltaX != 0 || m.DeltaY != 0) {
		return &Error{Code: CodeInvalidArgument, Message: "delta_x and delta_y are for wheel", Hint: `e.g. {"action": "wheel", "x": 200, "y": 300, "delta_y": 400}`}
	}
	if m.Action == "wheel" && m.DeltaX == 0 && m.DeltaY == 0 {
		return &Error{Code: CodeInvalidArgument, Message: "a wheel needs delta_x or delta_y", Hint: "delta_y 400 scrolls down by 400 CSS pixels, -400 up"}
	}
	for _, v := range []float64{m.X, m.Y, m.DeltaX, m.DeltaY} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &Error{Code: CodeInvalidArgument, Message: "coordinates must be numbers", Hint: "CSS pixels from the viewport's top left"}
		}
	}
	return nil
}

// at reads what is at (x, y) of the main frame's viewport; outside it, an
// error that gives the viewport's size.
func (find finder) at(ctx context.Context, x, y float64) (*PointHit, error) {
	t := find.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	var out struct {
		VW, VH float64
		Doc    string
		H      *queryHit
		In     bool
	}
	if _, err := w.eval(ctx, fmt.Sprintf("W.at(%g, %g)", x, y), &out); err != nil {
		return nil, backendError("read what is at the point", err)
	}
	if x < 0 || y < 0 || x >= out.VW || y >= out.VH {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the point %g,%g is outside the viewport (%g×%g CSS pixels)", x, y, out.VW, out.VH),
			Hint: "give x from 0 to the width and y from 0 to the height; scroll (wheel) to bring more of the page in"}
	}
	if out.H == nil {
		return &PointHit{Role: "nothing"}, nil
	}
	f := t.refs.frame(mainID, true, t.page, out.Doc)
	p := &PointHit{Role: out.H.R, Name: out.H.N, Frame: out.In}
	if out.H.ID != 0 {
		p.Ref = t.refs.refFor(f, out.H.ID, out.H.P)
	}
	return p, nil
}

// mouseAction sends m; res.Point says what was at its point (at the end
// of a drag, what it was dropped on).
func (ac actor) mouseAction(ctx context.Context, t *Tab, m *MouseInput, res *ActionResult) error {
	x, y := m.X, m.Y
	if m.Action == "drag" {
		// both ends must be on screen
		if _, err := t.finder().at(ctx, x, y); err != nil {
			return err
		}
		x, y = *m.ToX, *m.ToY
	}
	hit, err := t.finder().at(ctx, x, y)
	if err != nil {
		return err
	}
	res.Point = hit
	if hit.Ref != "" {
		res.Ref = hit.Ref
	}
	button := input.MouseButton(m.Button)
	if button == "" {
		button = input.MouseButtonLeft
	}
	switch m.Action {
	case "move":
		err = t.pointer.mouseMove(ctx, m.X, m.Y)
	case "click":
		err = t.pointer.mouseClick(ctx, m.X, m.Y, button, 1)
	case "dblclick":
		err = t.pointer.mouseClick(ctx, m.X, m.Y, button, 2)
	case "down":
		err = t.pointer.mouseDown(ctx, m.X, m.Y, button)
	case "up":
		err = t.pointer.mouseUp(ctx, m.X, m.Y, button)
	case "drag":
		err = t.pointer.mouseDrag(ctx, m.X, m.Y, func() (float64, float64, error) { return *m.ToX, *m.ToY, nil }, button)
	case "wheel":
		err = t.pointer.mouseWheel(ctx, m.X, m.Y, m.DeltaX, m.DeltaY)
		res.Scrolled = err == nil
	}
	if err != nil {
		return dispatchError("send the mouse "+m.Action, err)
	}
	return nil
}
