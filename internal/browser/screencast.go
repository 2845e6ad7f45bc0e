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
)

// browser_screencast records a tab as an animated GIF: Page.startScreencast
// sends a JPEG each time the page paints (acknowledged one by one, which
// paces the browser); a goroutine keeps at most fps of them a second (a
// sooner one replaces the last kept), up to max_s seconds, and the stop encodes them in Go (image/gif, the web-safe
// palette) into the output directory. One recording per tab.

// Screencast bounds.
const (
	DefaultCastFPS  = 5
	MaxCastFPS      = 10
	DefaultCastSecs = 30
	MaxCastSecs     = 120
	castMaxSide     = 800     // frames are at most this wide or tall
	castMaxBytes    = 8 << 20 // the GIF's size at most
)

// castFrame is one JPEG frame and when it was painted.
type castFrame struct {
	jpeg []byte
	at   time.Time
}

// screencast is a tab's recording under way: its goroutine owns frames
// until done is closed.
type screencast struct {
	fps     int
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex // guards frames, painted and ended
	frames  []castFrame
	painted int    // frames the browser sent
	ended   string // why the recording stopped on its own ("": it runs)
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

// StartScreencast starts recording the tab, for at most maxS seconds, at
// most fps frames a second (0: the defaults).
func (h *Held) StartScreencast(ctx context.Context, fps, maxS int) error {
	t := h.t
	if fps == 0 {
		fps = DefaultCastFPS
	}
	if maxS == 0 {
		maxS = DefaultCastSecs
	}
	if fps < 1 || fps > MaxCastFPS || maxS < 1 || maxS > MaxCastSecs {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("fps %d, max_s %d: out of range", fps, maxS), Hint: fmt.Sprintf("fps 1 to %d (default %d), max_s 1 to %d (default %d)", MaxCastFPS, DefaultCastFPS, MaxCastSecs, DefaultCastSecs)}
	}
	if t.cast != nil {
		return &Error{Code: CodeInvalidArgument, Message: "this tab is being recorded already", Hint: `stop it first: {"action": "stop"}`}
	}
	if t.mask() != nil {
		// Frames come while no call holds the tab, so what each shows
		// cannot be measured and painted as a screenshot's is.
		return &Error{Code: CodeInvalidArgument, Message: "a screencast is not recorded while secrets are declared: its frames could show a declared secret, and they cannot be painted over as a screenshot is",
			Hint: "take screenshots with browser_screenshot (declared secrets are painted over), or record from a webpilot started without --secrets / WEBPILOT_SECRET_*"}
	}
	// (a tab in the background does not paint)
	bctx, cancel := context.WithTimeout(ctx, bringToFrontTimeout)
	err := t.page.Call(bctx, "Page.bringToFront", nil, nil)
	cancel()
	if err != nil && ctx.Err() != nil {
		return backendError("bring the tab to the front", ctx.Err())
	}
	events, unsubscribe := t.page.Subscribe("Page.screencastFrame")
	params := map[string]any{"format": "jpeg", "quality": 70, "maxWidth": castMaxSide, "maxHeight": castMaxSide, "everyNthFrame": 1}
	if err := t.page.Call(ctx, "Page.startScreencast", params, nil); err != nil {
		unsubscribe()
		return backendError("start the screencast", err)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(maxS)*time.Second)
	c := &screencast{fps: fps, started: time.Now(), cancel: cancel, done: make(chan struct{})}
	t.cast = c
	go c.run(rctx, t, events, unsubscribe, fps*maxS)
	return nil
}

// run keeps frames until ctx ends (the stop, or max_s) or limit frames
// were kept; it acknowledges each so that the browser sends the next.
func (c *screencast) run(ctx context.Context, t *Tab, events <-chan jsonv2.Value, unsubscribe func(), limit int) {
	defer close(c.done)
	defer unsubscribe()
	gap := time.Second / time.Duration(c.fps)
	var last time.Time
	stop := func(why string) {
		c.mu.Lock()
		if c.ended == "" {
			c.ended = why
		}
		c.mu.Unlock()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
		_ = t.page.Call(sctx, "Page.stopScreencast", nil, nil)
		cancel()
	}
	for {
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				stop("it reached max_s")
			}
			return
		case raw, ok := <-events:
			if !ok {
				stop("the tab closed")
				return
			}
			var f struct {
				Data      string `json:"data"`
				SessionID int64  `json:"sessionId"`
			}
			if jsonv2.Unmarshal(raw, &f) != nil {
				continue
			}
			actx, cancel := context.WithTimeout(ctx, handleTimeout)
			_ = t.page.Call(actx, "Page.screencastFrameAck", map[string]any{"sessionId": f.SessionID}, nil)
			cancel()
			b, err := base64.StdEncoding.DecodeString(f.Data)
			if err != nil {
				continue
			}
			// A paint sooner than 1/fps after the last frame kept takes
			// that frame's place: the recording keeps the page's latest
			// look, never more than fps frames a second.
			now := time.Now()
			c.mu.Lock()
			c.painted++
			if !last.IsZero() && now.Sub(last) < gap {
				c.frames[len(c.frames)-1].jpeg = b
				c.mu.Unlock()
				continue
			}
			last = now
			c.frames = append(c.frames, castFrame{jpeg: b, at: now})
			full := len(c.frames) >= limit
			c.mu.Unlock()
			if full {
				stop("it reached max_s")
				return
			}
		}
	}
}

// StopScreencast ends the tab's recording and saves it as a GIF.
func (h *Held) StopScreencast(ctx context.Context) (*Screencast, error) {
	t := h.t
	c := t.cast
	if c == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "this tab is not being recorded", Hint: `start a recording first: {"action": "start"}`}
	}
	t.cast = nil
	c.mu.Lock()
	running := c.ended == ""
	c.mu.Unlock()
	if running {
		if err := t.page.Call(ctx, "Page.stopScreencast", nil, nil); err != nil && ctx.Err() != nil {
			c.cancel()
			<-c.done
			return nil, backendError("stop the screencast", err)
		}
	}
	c.cancel()
	<-c.done
	out := &Screencast{Painted: c.painted, Duration: time.Since(c.started), Ended: c.ended}
	if len(c.frames) == 0 {
		return nil, &Error{Code: CodeNotActionable, Message: "the recording holds no frame: the page did not paint while it ran",
			Hint: "a background tab does not paint: record the tab in front, and act on the page while it records"}
	}
	data, w, hgt, n, err := encodeCast(c.frames, time.Now())
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "encode the screencast: " + err.Error(), Err: err}
	}
	out.Width, out.Height, out.Frames, out.Bytes = w, hgt, n, len(data)
	path, err := h.s.pol.saveOutput(h.s.link.clientID(), "screencast", "gif", data)
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
