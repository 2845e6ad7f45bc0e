package browser

import (
	"context"
	"time"
)

// Glance is what a session trace keeps of a tab after a call: its page's
// URL and title, and a small JPEG of its viewport when one was asked for.
type Glance struct {
	URL, Title string
	JPEG       []byte
}

// glanceTimeout bounds a whole Glance: a trace never holds a call up long.
const glanceTimeout = 5 * time.Second

// Glance reads the tab's URL and title and, when width > 0, captures its
// viewport scaled to width CSS pixels as a JPEG of quality (cheap: the
// browser scales). Under an open dialog only the URL is read. Best effort:
// what could be read is returned with the first error.
func (x Capture) Glance(ctx context.Context, width, quality int) (Glance, error) {
	h := x.h
	t := h.t
	ctx, cancel := context.WithTimeout(ctx, glanceTimeout)
	defer cancel()
	var g Glance
	if t.dialogs.err() != nil {
		u, err := t.URL(ctx)
		g.URL = u
		return g, err
	}
	var vp struct {
		Href, Title string
		X, Y, W, H  float64
	}
	if err := t.evalValue(ctx, `({Href:location.href,Title:document.title,X:visualViewport.pageLeft,Y:visualViewport.pageTop,W:visualViewport.width,H:visualViewport.height})`, &vp); err != nil {
		u, _ := t.URL(ctx)
		g.URL = u
		return g, backendError("read the page", err)
	}
	g.URL, g.Title = vp.Href, vp.Title
	if width <= 0 || vp.W < 1 || vp.H < 1 {
		return g, nil
	}
	bctx, bcancel := context.WithTimeout(ctx, bringToFrontTimeout)
	_ = t.page.Call(bctx, "Page.bringToFront", nil, nil)
	bcancel()
	scale := min(1, float64(width)/vp.W)
	data, err := t.view.capture(ctx, FormatJPEG, quality, &clip{X: vp.X, Y: vp.Y, Width: vp.W, Height: vp.H, Scale: scale}, false)
	if err != nil {
		return g, err
	}
	g.JPEG = data
	return g, nil
}

// OutputDir is the output directory's path.
func (m *Manager) OutputDir() string { return m.policy.out.Path() }

// TraceFolder makes a fresh folder of webpilot's own in the output
// directory for trace files, and returns its path and the function that
// makes room for n more bytes in it before a file there grows (the
// directory's budget; done records the folder's size).
func (m *Manager) TraceFolder() (string, func(n int64) (done func(), err error), error) {
	return m.policy.TraceFolder("")
}

// TraceFolder is Manager.TraceFolder in the policy's output directory, for
// owner (a Caller.Client; "" for any).
func (p *Policy) TraceFolder(owner string) (string, func(n int64) (done func(), err error), error) {
	return p.OutputFolder(owner, "trace")
}

// OutputFolder makes a fresh folder of webpilot's own, named after kind,
// in the policy's output directory, and returns its path and the function
// that makes room for n more bytes in it (the directory's budget: older
// finished files are removed, and LIMIT_EXCEEDED when that is not enough;
// done records the folder's size). While a reservation is held the folder
// counts at its size on disk. The folder is owner's (a Caller.Client; ""
// for any client).
func (p *Policy) OutputFolder(owner, kind string) (string, func(n int64) (done func(), err error), error) {
	folder, err := p.newOutputFolder(owner, kind)
	if err != nil {
		return "", nil, p.outputError(err)
	}
	return folder, func(n int64) (func(), error) {
		done, err := p.out.Reserve(folder, n)
		if err != nil {
			return nil, p.outputError(err)
		}
		return done, nil
	}, nil
}
