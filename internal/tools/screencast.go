package tools

import (
	"context"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// ScreencastIn is browser_screencast's input.
type ScreencastIn struct {
	Action  string `json:"action" jsonschema:"start recording the tab, or stop and save the GIF" enum:"start,stop"`
	FPS     int    `json:"fps,omitempty" jsonschema:"frames a second at most" default:"5" minimum:"1" maximum:"10"`
	MaxS    int    `json:"max_s,omitempty" jsonschema:"stops on its own after" default:"30" minimum:"1" maximum:"120"`
	Session string `json:"session,omitempty"`
	Tab     string `json:"tab,omitempty"`
}

var screencastTool = Def(Tool{
	Name:        "browser_screencast",
	Description: "Record the tab while you act (start), then save it as an animated GIF in the output directory (stop).",
	Annotations: Annotations{Destructive: ptr(false)},
	Group:       GroupScreencast,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in ScreencastIn) (*Result, error) {
	if in.Action == "start" {
		if err := h.Screencaster().Start(ctx, in.FPS, in.MaxS); err != nil {
			return nil, err
		}
		fps, maxS := in.FPS, in.MaxS
		if fps == 0 {
			fps = browser.DefaultCastFPS
		}
		if maxS == 0 {
			maxS = browser.DefaultCastSecs
		}
		return &Result{Text: fmt.Sprintf("Recording tab %s: at most %d frames a second, for at most %d s; browser_screencast stop saves the GIF.", h.Tab().ID, fps, maxS)}, nil
	}
	if in.FPS != 0 || in.MaxS != 0 {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "fps and max_s are for start", Hint: `stop takes no more: {"action": "stop"}`}
	}
	c, err := h.Screencaster().Stop(ctx)
	if err != nil {
		return nil, err
	}
	text := &resultText{}
	text.printf("Screencast of tab %s: %d frames (%d painted) over %.1f s, %d×%d GIF, %s\nSaved to %s", h.Tab().ID, c.Frames, c.Painted, c.Duration.Seconds(), c.Width, c.Height, kb(c.Bytes), c.Path)
	if c.Ended != "" {
		text.note("Note: the recording had stopped on its own: %s.", c.Ended)
	}
	return &Result{Text: text.String(), Notes: text.notes}, nil
})
