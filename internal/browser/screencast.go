package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// browser_screencast records a tab as an animated GIF: Page.startScreencast
// sends a JPEG each time the page paints (acknowledged one by one, which
// paces the browser); the tab's loop keeps at most fps of them a second (a
// sooner one replaces the last kept), up to max_s seconds, and the stop
// encodes them in Go (image/gif, the web-safe palette) into the output
// directory. One recording per tab.

// Screencast bounds.
const (
	DefaultCastFPS  = 5
	MaxCastFPS      = 10
	DefaultCastSecs = 30
	MaxCastSecs     = 120
	castMaxSide     = 800     // frames are at most this wide or tall
	castMaxBytes    = 8 << 20 // the GIF's size at most
)

// evScreencastFrame is the event the screencast follows.
const evScreencastFrame = "Page.screencastFrame"

// castFrame is one JPEG frame and when it was painted.
type castFrame struct {
	jpeg []byte
	at   time.Time
}

// caster is a tab's screencast feature: the recording under way, whose
// frames the tab's loop keeps.
type caster struct {
	mu  sync.Mutex
	cur *screencast // nil when none
}

func (c *caster) events() []string { return []string{evScreencastFrame} }

func (c *caster) apply(g *loop, ev cdp.Event) {
	if sc := c.running(); sc != nil {
		sc.frame(g, ev.Params)
	}
}

// loopEnded ends the recording of a tab that closed.
func (c *caster) loopEnded(*loop) {
	if sc := c.running(); sc != nil {
		sc.mu.Lock()
		if sc.ended == "" {
			sc.ended = "the tab closed"
		}
		sc.mu.Unlock()
	}
}

// running is the recording under way, or nil.
func (c *caster) running() *screencast {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// swap makes sc the recording under way and returns the one before.
func (c *caster) swap(sc *screencast) *screencast {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur
	c.cur = sc
	return old
}

// screencast is a tab's recording under way.
type screencast struct {
	fps     int
	limit   int // frames kept at most
	started time.Time
	timer   *time.Timer // ends it at max_s
	mu      sync.Mutex  // guards what follows
	frames  []castFrame
	last    time.Time // when the last frame was kept
	painted int       // frames the browser sent
	ended   string    // why the recording stopped on its own ("": it runs)
	taken   bool      // the stop call took the frames
}

// frame keeps a frame the browser sent (on the loop) and acknowledges it
// (a worker) so that the browser sends the next.
func (c *screencast) frame(g *loop, raw jsonv2.Value) {
	var f struct {
		Data      string `json:"data"`
		SessionID int64  `json:"sessionId"`
	}
	if jsonv2.Unmarshal(raw, &f) != nil {
		return
	}
	c.mu.Lock()
	over := c.ended != "" || c.taken
	c.mu.Unlock()
	if over {
		return
	}
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		_ = g.Call(ctx, "Page.screencastFrameAck", map[string]any{"sessionId": f.SessionID}, nil)
	})
	b, err := base64.StdEncoding.DecodeString(f.Data)
	if err != nil {
		return
	}
	// A paint sooner than 1/fps after the last frame kept takes that
	// frame's place: the recording keeps the page's latest look, never
	// more than fps frames a second.
	now := time.Now()
	gap := time.Second / time.Duration(c.fps)
	c.mu.Lock()
	c.painted++
	if !c.last.IsZero() && now.Sub(c.last) < gap {
		c.frames[len(c.frames)-1].jpeg = b
		c.mu.Unlock()
		return
	}
	c.last = now
	c.frames = append(c.frames, castFrame{jpeg: b, at: now})
	full := len(c.frames) >= c.limit
	c.mu.Unlock()
	if full {
		c.stopOnOwn(g, "it reached max_s")
	}
}

// stopOnOwn stops the recording before the stop call, saying why.
func (c *screencast) stopOnOwn(g *loop, why string) {
	c.mu.Lock()
	first := c.ended == "" && !c.taken
	if first {
		c.ended = why
	}
	c.mu.Unlock()
	if !first {
		return
	}
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		_ = g.Call(ctx, "Page.stopScreencast", nil, nil)
	})
}

// Screencast is a finished recording.
type Screencast struct {
	Path     string
	Bytes    int
	Frames   int // in the GIF
	Painted  int // frames the browser sent
	Duration time.Duration
	Width    int
	Height   int
	Ended    string // why it stopped before the stop call, if it did
}

// Screencaster records the held tab as an animated GIF
// (browser_screencast).
type Screencaster struct{ h *Held }

// Start starts recording the tab, for at most maxS seconds, at most fps
// frames a second (0: the defaults).
func (sc Screencaster) Start(ctx context.Context, fps, maxS int) error {
	t := sc.h.t
	if fps == 0 {
		fps = DefaultCastFPS
	}
	if maxS == 0 {
		maxS = DefaultCastSecs
	}
	if fps < 1 || fps > MaxCastFPS || maxS < 1 || maxS > MaxCastSecs {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("fps %d, max_s %d: out of range", fps, maxS), Hint: fmt.Sprintf("fps 1 to %d (default %d), max_s 1 to %d (default %d)", MaxCastFPS, DefaultCastFPS, MaxCastSecs, DefaultCastSecs)}
	}
	if t.cast.running() != nil {
		return &Error{Code: CodeInvalidArgument, Message: "this tab is being recorded already", Hint: `stop it first: {"action": "stop"}`}
	}
	if t.mask() != nil {
		// Frames come while no call holds the tab, so what each shows
		// cannot be measured and painted as a screenshot's is.
		return &Error{Code: CodeInvalidArgument, Message: "a screencast is not recorded while secrets are declared: its frames could show a declared secret, and they cannot be painted over as a screenshot is",
			Hint: "take screenshots with browser_screenshot (declared secrets are painted over), or record from a webpilot started without --secrets / WEBPILOT_SECRET_*"}
	}
	// (a tab in the background does not paint)
	if err := toFront(ctx, t.page); err != nil {
		return err
	}
	// (the loop keeps frames from now on)
	c := &screencast{fps: fps, limit: fps * maxS, started: time.Now()}
	t.cast.swap(c)
	params := map[string]any{"format": "jpeg", "quality": 70, "maxWidth": castMaxSide, "maxHeight": castMaxSide, "everyNthFrame": 1}
	if err := t.page.Call(ctx, "Page.startScreencast", params, nil); err != nil {
		t.cast.swap(nil)
		return backendError("start the screencast", err)
	}
	g := t.page
	c.mu.Lock()
	c.timer = time.AfterFunc(time.Duration(maxS)*time.Second, func() { c.stopOnOwn(g, "it reached max_s") })
	c.mu.Unlock()
	return nil
}

// Stop ends the tab's recording and saves it as a GIF.
func (sc Screencaster) Stop(ctx context.Context) (*Screencast, error) {
	t := sc.h.t
	c := t.cast.swap(nil)
	if c == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "this tab is not being recorded", Hint: `start a recording first: {"action": "start"}`}
	}
	c.mu.Lock()
	running := c.ended == ""
	c.taken = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	if running {
		if err := t.page.Call(ctx, "Page.stopScreencast", nil, nil); err != nil && ctx.Err() != nil {
			return nil, backendError("stop the screencast", err)
		}
	}
	c.mu.Lock()
	frames := c.frames
	out := &Screencast{Painted: c.painted, Duration: time.Since(c.started), Ended: c.ended}
	c.mu.Unlock()
	if len(frames) == 0 {
		return nil, &Error{Code: CodeNotActionable, Message: "the recording holds no frame: the page did not paint while it ran",
			Hint: "a background tab does not paint: record the tab in front, and act on the page while it records"}
	}
	data, w, hgt, n, err := encodeCast(frames, time.Now())
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "encode the screencast: " + err.Error(), Err: err}
	}
	out.Width, out.Height, out.Frames, out.Bytes = w, hgt, n, len(data)
	path, err := sc.h.s.pol.saveOutput(sc.h.s.link.clientID(), "screencast", "gif", data)
	if err != nil {
		return nil, err
	}
	out.Path = path
	return out, nil
}

// encodeCast makes an animated GIF of frames, each shown until the next
// (the last until end); frames that would take it past castMaxBytes are
// left out (n says how many went in).
func encodeCast(frames []castFrame, end time.Time) (data []byte, w, h, n int, err error) {
	anim := &gif.GIF{}
	var size int
	for i, f := range frames {
		img, err := jpeg.Decode(bytes.NewReader(f.jpeg))
		if err != nil {
			continue
		}
		b := img.Bounds()
		if w == 0 {
			w, h = b.Dx(), b.Dy()
		}
		p := image.NewPaletted(image.Rect(0, 0, w, h), palette.WebSafe)
		draw.FloydSteinberg.Draw(p, p.Bounds(), img, b.Min)
		next := end
		if i+1 < len(frames) {
			next = frames[i+1].at
		}
		delay := max(int(next.Sub(f.at)/(10*time.Millisecond)), 2)
		size += w * h / 2 // a rough bound of one LZW-coded frame
		if size > castMaxBytes && len(anim.Image) > 0 {
			break
		}
		anim.Image = append(anim.Image, p)
		anim.Delay = append(anim.Delay, delay)
	}
	if len(anim.Image) == 0 {
		return nil, 0, 0, 0, fmt.Errorf("no frame decodes")
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, 0, 0, 0, err
	}
	return buf.Bytes(), w, h, len(anim.Image), nil
}
