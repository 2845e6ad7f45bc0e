package browser_test

import (
	"context"
	"image/gif"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A screencast records what the tab paints while the agent acts, and its
// stop saves an animated GIF that decodes to the frames it reports.
func TestScreencast(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.navigate("/cast/paint.html")
	frames := func() (int, time.Time) {
		var n int
		var last time.Time
		_ = e.do(func(ctx context.Context, h *browser.Held) error { n, last = browser.CastFrames(h.Tab()); return nil })
		return n, last
	}
	const fps = 10
	if err := e.do(func(ctx context.Context, h *browser.Held) error { return h.Screencaster().Start(ctx, fps, 20) }); err != nil {
		t.Fatal(err)
	}
	err := e.do(func(ctx context.Context, h *browser.Held) error { return h.Screencaster().Start(ctx, 0, 0) })
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "already") {
		t.Errorf("a second start: %v", be)
	}
	// Each click repaints the box. A paint sooner than 1/fps after the
	// last frame kept replaces it, so each click waits until that much
	// has passed, then for the frame of its paint.
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for n, last := frames(); n == 0; n, last = frames() { // the first paint
		_ = last
		if time.Now().After(deadline) {
			t.Fatal("the recording kept no first frame")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := 0; i < 3; i++ {
		before, last := frames()
		for time.Since(last) <= time.Second/fps {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := e.act(browser.Action{Kind: "click", Target: sel("#next")}); err != nil {
			t.Fatal(err)
		}
		for n, _ := frames(); n <= before; n, _ = frames() {
			if time.Now().After(deadline) {
				t.Fatalf("click %d: no new frame kept (%d)", i+1, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var cast *browser.Screencast
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		var err error
		cast, err = h.Screencaster().Stop(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if cast.Frames < 4 || filepath.Dir(cast.Path) != out || cast.Ended != "" {
		t.Errorf("screencast = %+v, want at least 4 frames in %s", cast, out)
	}
	f, err := os.Open(cast.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != cast.Frames || g.Config.Width != cast.Width || g.Config.Height != cast.Height {
		t.Errorf("the GIF holds %d frames of %d×%d; reported %d of %d×%d", len(g.Image), g.Config.Width, g.Config.Height, cast.Frames, cast.Width, cast.Height)
	}
	// Stopped: a second stop has nothing to stop; bad bounds are refused.
	err = e.do(func(ctx context.Context, h *browser.Held) error { _, err := h.Screencaster().Stop(ctx); return err })
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "not being recorded") {
		t.Errorf("a second stop: %v", be)
	}
	err = e.do(func(ctx context.Context, h *browser.Held) error { return h.Screencaster().Start(ctx, 50, 0) })
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "out of range") {
		t.Errorf("fps 50: %v", be)
	}
}
