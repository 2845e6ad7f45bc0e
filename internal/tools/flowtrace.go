package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// flowTrace is the HTML trace of one browser_flow call with trace: true:
// each step, with the page after it, in a file of the output directory.
type flowTrace struct {
	file *trace.File
	err  error // the first write that failed
}

// newFlowTrace opens a flow's trace file in a fresh trace folder of the
// output directory.
func newFlowTrace(h *Held) (*flowTrace, error) {
	f, err := newTraceFile(h, "-flow")
	if err != nil {
		return nil, err
	}
	return &flowTrace{file: f}, nil
}

// newTraceFile opens a trace file named for the session and suffix in a
// fresh trace folder of the output directory.
func newTraceFile(h *Held, suffix string) (*trace.File, error) {
	if h.env.Manager == nil {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "no output directory to write a trace to", Hint: "omit trace"}
	}
	pol := h.env.Manager.DefaultPolicy()
	if h.Held != nil {
		pol = h.Session().Policy() // the output directory of the client that made the session
	}
	folder, reserve, err := pol.TraceFolder(h.env.Client)
	if err != nil {
		return nil, err
	}
	return trace.NewFile(folder, h.SessionName()+suffix, time.Now(), trace.Options{Mask: h.env.TraceMask, Reserve: reserve}), nil
}

// step records one step of the flow: its tool, arguments, outcome, and the
// page after it (a screenshot after the steps that change it). Called
// within the flow's hold.
func (ft *flowTrace) step(ctx context.Context, h *Held, tool string, args map[string]any, start time.Time, res *Result, err error) {
	s := trace.Step{Time: start, Ms: time.Since(start).Milliseconds(), Tool: tool, Target: trace.Target(tool, args), OK: err == nil}
	if b, jerr := json.Marshal(args); jerr == nil {
		s.Args = string(b)
	}
	if err != nil {
		if be, ok := browser.AsError(err); ok {
			s.Code, s.Error = string(be.Code), be.Message
		} else {
			s.Code, s.Error = string(browser.CodeInternal), err.Error()
		}
	} else if res != nil {
		s.Result = res.Text
	}
	if h.Held != nil && h.Tab() != nil {
		width := 0
		if trace.Shoots(tool) {
			width = trace.ShotWidth
		}
		g, _ := h.Capture().Glance(context.WithoutCancel(ctx), width, trace.ShotQuality)
		s.URL, s.Title, s.Image = g.URL, g.Title, g.JPEG
	}
	if werr := ft.file.Add(s); werr != nil && ft.err == nil {
		ft.err = werr
	}
}

// note adds the trace file's path to a flow's result text (nil: text as
// it is).
func (ft *flowTrace) note(text string) string {
	if ft == nil {
		return text
	}
	if ft.err != nil {
		return text + "\nTrace: not written: " + ft.err.Error()
	}
	return text + "\nTrace: " + ft.file.Path()
}

// told adds the trace file's path to a failed flow's error, in its
// diagnosis (nil: the error as it is).
func (ft *flowTrace) told(e *browser.Error) *browser.Error {
	if ft == nil || e == nil {
		return e
	}
	if e.Diagnosis == nil {
		e.Diagnosis = map[string]any{}
	}
	if ft.err != nil {
		e.Diagnosis["trace"] = "not written: " + ft.err.Error()
	} else {
		e.Diagnosis["trace"] = ft.file.Path()
	}
	return e
}
