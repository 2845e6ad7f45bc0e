package tools

import (
	"context"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// MouseIn is browser_mouse's input.
type MouseIn struct {
	Action   string   `json:"action" jsonschema:"the gesture; down and up hold and release a button across calls" enum:"move,click,dblclick,down,up,drag,wheel"`
	X        float64  `json:"x" jsonschema:"CSS pixels from the viewport's left"`
	Y        float64  `json:"y" jsonschema:"CSS pixels from the viewport's top"`
	ToX      *float64 `json:"to_x,omitempty" jsonschema:"drag: where it ends"`
	ToY      *float64 `json:"to_y,omitempty" jsonschema:"drag: where it ends"`
	Button   string   `json:"button,omitempty" default:"\"left\"" enum:"left,middle,right"`
	DeltaX   float64  `json:"delta_x,omitempty" jsonschema:"wheel: CSS pixels to scroll right"`
	DeltaY   float64  `json:"delta_y,omitempty" jsonschema:"wheel: CSS pixels to scroll down"`
	Snapshot string   `json:"snapshot,omitempty" enum:"diff,compact,none"`
	Session  string   `json:"session,omitempty"`
	Tab      string   `json:"tab,omitempty"`
}

var mouseTool = Def(Tool{
	Name:        "browser_mouse",
	Description: "Mouse input at a point of the viewport (CSS pixels, as on a screenshot), for when refs cannot reach it; says what was there, returns a diff.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupMouse,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in MouseIn) (*Result, error) {
	a := browser.Action{Kind: browser.MouseKind, SnapshotNext: inlineMode(in.Snapshot) != "none",
		Mouse: &browser.MouseInput{Action: in.Action, X: in.X, Y: in.Y, ToX: in.ToX, ToY: in.ToY, Button: in.Button, DeltaX: in.DeltaX, DeltaY: in.DeltaY}}
	res, err := h.Act(ctx, a)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("%g,%g", in.X, in.Y)
	on := "on"
	if in.ToX != nil && in.ToY != nil {
		where += fmt.Sprintf(" to %g,%g", *in.ToX, *in.ToY)
		on = "onto"
	}
	text := &resultText{}
	text.printf("mouse %s at %s %s %s: %s", in.Action, where, on, res.Point, res.Outcome)
	actionNotes(text, res)
	return &Result{Text: text.String(), Notes: text.notes, Dialog: res.Dialog, Snapshot: inlineMode(in.Snapshot)}, nil
})
