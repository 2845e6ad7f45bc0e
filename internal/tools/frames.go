package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// FramesIn is browser_frames's input.
type FramesIn struct {
	Session string `json:"session,omitempty"`
	Tab     string `json:"tab,omitempty"`
}

var framesTool = Def(Tool{
	Name:        "browser_frames",
	Description: "List the tab's iframes: URL, origin, and the id for frame.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupCore,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, _ FramesIn) (*Result, error) {
	fs, err := h.Frames(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Text: renderFrames(fs)}, nil
})

// renderFrames is browser_frames's text: a header, then one frame a line,
// the main frame first and nested frames indented under their parent.
func renderFrames(fs []browser.FrameInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d frame(s); pass a line's first word as frame (none for main); fN is the frame's key, as in its refs fNe1:\n", len(fs))
	for _, f := range fs {
		b.WriteString(strings.Repeat(" ", f.Depth))
		b.WriteString(frameLine(f))
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// frameLine describes one frame: its frame argument and key, parent, URL,
// origin and flags, name.
func frameLine(f browser.FrameInfo) string {
	if f.Depth == 0 {
		return "main " + f.URL + " (origin " + f.Origin + ")"
	}
	in := f.Parent
	if in == "" {
		in = "main"
	}
	s := f.Frame
	if f.Key != "" {
		s += " " + f.Key
	}
	s += " in " + in
	if f.Unreachable {
		s += " (not loaded)"
	} else {
		s += " " + f.URL + " (origin " + f.Origin
		if f.CrossOrigin {
			s += ", cross-origin"
		}
		if f.OutOfProcess {
			s += ", out of process"
		}
		s += ")"
	}
	if f.Hidden {
		s += " [hidden]"
	}
	if f.Name != "" {
		s += " name=" + strconv.Quote(browser.Echo(f.Name))
	}
	return s
}
