package browser_test

import (
	"bytes"
	"context"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

func (e *env) shot(o browser.ShotOptions) (*browser.Shot, error) {
	var shot *browser.Shot
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		shot, err = h.Capture().Screenshot(ctx, o)
		return err
	})
	return shot, err
}

func (e *env) mustShot(o browser.ShotOptions) *browser.Shot {
	e.t.Helper()
	shot, err := e.shot(o)
	if err != nil {
		e.t.Fatalf("screenshot %+v: %v", o, err)
	}
	return shot
}

// decode checks that the shot's bytes are an image of its stated format
// and size, and returns that size.
func decode(t *testing.T, data []byte, mime string) (w, h int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot does not decode: %v", err)
	}
	if "image/"+format != mime {
		t.Fatalf("screenshot is %s, labelled %s", format, mime)
	}
	return cfg.Width, cfg.Height
}

func (e *env) num(expr string) float64 {
	e.t.Helper()
	f, err := strconv.ParseFloat(e.eval(expr), 64)
	if err != nil {
		e.t.Fatalf("%s: %v", expr, err)
	}
	return f
}

func TestScreenshotViewport(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	shot := e.mustShot(browser.ShotOptions{})
	w, h := decode(t, shot.Data, shot.MIMEType)
	if shot.MIMEType != "image/jpeg" || shot.Saved != nil {
		t.Fatalf("viewport shot: %s, saved %v; want an embedded JPEG", shot.MIMEType, shot.Saved)
	}
	dpr := e.num("devicePixelRatio")
	vw, vh := e.num("innerWidth")*dpr, e.num("innerHeight")*dpr
	if math.Abs(float64(w)-vw) > 1 || math.Abs(float64(h)-vh) > 1 || w != shot.Width || h != shot.Height {
		t.Fatalf("viewport shot is %d×%d (reported %d×%d), viewport is %.0f×%.0f", w, h, shot.Width, shot.Height, vw, vh)
	}
	if shot.Of != "the viewport" {
		t.Errorf("Of = %q", shot.Of)
	}

	png := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG})
	if pw, ph := decode(t, png.Data, png.MIMEType); png.MIMEType != "image/png" || pw != w || ph != h {
		t.Fatalf("png shot: %s %d×%d, want image/png %d×%d", png.MIMEType, pw, ph, w, h)
	}
}

func TestScreenshotFullPage(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/long.html")
	dpr := e.num("devicePixelRatio")
	vh := e.num("innerHeight") * dpr
	docH := e.num("document.documentElement.scrollHeight") * dpr
	shot := e.mustShot(browser.ShotOptions{FullPage: true})
	w, h := decode(t, shot.Data, shot.MIMEType)
	if shot.Saved != nil {
		// Over the embed limit: the saved original holds the full size.
		w, h = shot.Saved.Width, shot.Saved.Height
	}
	if float64(h) <= vh || math.Abs(float64(h)-docH) > 2 {
		t.Fatalf("full page shot is %d×%d, viewport height %.0f, document height %.0f", w, h, vh, docH)
	}
}

func TestScreenshotElement(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	shot := e.mustShot(browser.ShotOptions{Target: browser.Locator{Selector: "#counter"}})
	w, h := decode(t, shot.Data, shot.MIMEType)
	dpr := e.num("devicePixelRatio")
	bw := e.num("document.getElementById('counter').getBoundingClientRect().width") * dpr
	bh := e.num("document.getElementById('counter').getBoundingClientRect().height") * dpr
	if math.Abs(float64(w)-bw) > 2 || math.Abs(float64(h)-bh) > 2 {
		t.Fatalf("element shot is %d×%d, its box is %.1f×%.1f", w, h, bw, bh)
	}
	// By ref, too.
	ref := refOf(t, e.snapshot(browser.ModeCompact), "button", "Clicked 0 times")
	byRef := e.mustShot(browser.ShotOptions{Target: browser.Locator{Ref: ref}, Format: browser.FormatPNG})
	if rw, rh := decode(t, byRef.Data, byRef.MIMEType); rw != w || rh != h || byRef.Of != "ref "+ref {
		t.Fatalf("by ref: %d×%d of %q, want %d×%d of ref %s", rw, rh, byRef.Of, w, h, ref)
	}

	// Errors.
	_, err := e.shot(browser.ShotOptions{Target: browser.Locator{Selector: "#nope"}})
	wantCode(t, err, browser.CodeTargetNotFound)
	_, err = e.shot(browser.ShotOptions{Target: browser.Locator{Ref: "e999"}})
	wantCode(t, err, browser.CodeTargetNotFound)
	_, err = e.shot(browser.ShotOptions{Target: browser.Locator{Selector: "#counter"}, FullPage: true})
	wantCode(t, err, browser.CodeInvalidArgument)
	_, err = e.shot(browser.ShotOptions{Format: "gif"})
	wantCode(t, err, browser.CodeInvalidArgument)
	e.eval(`(document.body.insertAdjacentHTML("beforeend", '<span id="empty"></span>'), "ok")`)
	_, err = e.shot(browser.ShotOptions{Target: browser.Locator{Selector: "#empty"}})
	wantCode(t, err, browser.CodeNotActionable)
}

// An oversized capture returns a preview under the limit and saves the
// original, at its full size.
func TestScreenshotOversized(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 30 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.navigate("/long.html")
	for _, format := range []string{browser.FormatJPEG, browser.FormatPNG} {
		shot := e.mustShot(browser.ShotOptions{FullPage: true, Format: format})
		if shot.Saved == nil {
			t.Fatalf("%s: a %d-byte capture over a %d-byte limit was not saved", format, len(shot.Data), browser.EmbedLimit)
		}
		if len(shot.Data) > browser.EmbedLimit {
			t.Fatalf("%s: preview is %d bytes, over the limit %d", format, len(shot.Data), browser.EmbedLimit)
		}
		pw, ph := decode(t, shot.Data, shot.MIMEType)
		if shot.MIMEType != "image/jpeg" || pw != shot.Width || ph != shot.Height {
			t.Fatalf("%s: preview %s %d×%d, reported %d×%d", format, shot.MIMEType, pw, ph, shot.Width, shot.Height)
		}
		sv := shot.Saved
		if !strings.HasPrefix(sv.Path, out+string(os.PathSeparator)) {
			t.Errorf("%s: saved to %s, not in the output dir %s", format, sv.Path, out)
		}
		if !strings.HasSuffix(sv.Path, "."+format) || !strings.Contains(sv.Path, "screenshot-") {
			t.Errorf("saved path %s", sv.Path)
		}
		data, err := os.ReadFile(sv.Path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(sv.Path) })
		fi, _ := os.Stat(sv.Path)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("saved file mode %v, want 0600", fi.Mode().Perm())
		}
		ow, oh := decode(t, data, sv.MIMEType)
		if len(data) != sv.Bytes || ow != sv.Width || oh != sv.Height || sv.MIMEType != "image/"+format {
			t.Fatalf("saved original: %d bytes %d×%d, reported %+v", len(data), ow, oh, sv)
		}
		if len(data) <= browser.EmbedLimit || ow <= pw || oh <= ph {
			t.Fatalf("original %d bytes %d×%d, preview %d×%d: want the original larger", len(data), ow, oh, pw, ph)
		}
		dpr := e.num("devicePixelRatio")
		if docH := e.num("document.documentElement.scrollHeight") * dpr; math.Abs(float64(oh)-docH) > 2 {
			t.Fatalf("original height %d, document %.0f", oh, docH)
		}
		// The preview keeps the aspect ratio.
		if r0, r1 := float64(ow)/float64(oh), float64(pw)/float64(ph); math.Abs(r0-r1)/r0 > 0.05 {
			t.Errorf("aspect ratio %.3f → %.3f", r0, r1)
		}
	}
}

// The output dir is the configured one, and its size cap holds: a save that
// would pass it is LIMIT_EXCEEDED, and nothing is written.
func TestOutputDirCap(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 30 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out, OutputMaxBytes: 10 * 1024})
	e.navigate("/long.html")
	_, err := e.shot(browser.ShotOptions{FullPage: true, Format: browser.FormatPNG})
	be := wantCode(t, err, browser.CodeLimitExceeded)
	if !strings.Contains(be.Message, out) {
		t.Errorf("message does not name the dir: %s", be.Message)
	}
	if entries, _ := os.ReadDir(out); len(ownFiles(entries)) != 0 {
		t.Errorf("files written past the cap: %q", ownFiles(entries))
	}
}

// ownFiles are the names of entries that are not the output dir's own
// bookkeeping (its manifest and locks).
func ownFiles(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".webpilot-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Past the output dir's budget, the oldest screenshot webpilot saved is
// removed to make room for the new one; a file it did not write stays.
func TestOutputDirEviction(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 30 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	// The size of one saved capture, with room to spare.
	e := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	e.navigate("/long.html")
	one := e.mustShot(browser.ShotOptions{FullPage: true, Format: browser.FormatPNG})
	if one.Saved == nil {
		t.Fatal("a full-page PNG over the embed limit was not saved")
	}
	out := t.TempDir()
	foreign := filepath.Join(out, "user-notes.txt")
	if err := os.WriteFile(foreign, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	e = newEnv(t, browser.Options{OutputDir: out, OutputMaxBytes: int64(one.Saved.Bytes) * 5 / 2})
	e.navigate("/long.html")
	var paths []string
	for range 3 {
		paths = append(paths, e.mustShot(browser.ShotOptions{FullPage: true, Format: browser.FormatPNG}).Saved.Path)
	}
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i == 0) {
			t.Errorf("capture %d: removed %v, want %v", i+1, gone, i == 0)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a file webpilot did not write was removed: %v", err)
	}
}

// An output directory that cannot be written says what and where: a file
// standing where the directory should be gives the path and the reason, not
// "internal error, details in its log".
func TestOutputDirUnwritable(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 30 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	notDir := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(notDir, []byte("a file, not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, browser.Options{OutputDir: notDir})
	e.navigate("/long.html")
	_, err := e.shot(browser.ShotOptions{FullPage: true})
	be, ok := browser.AsError(err)
	if !ok {
		t.Fatalf("a capture into an unwritable output dir: %v, want a browser error", err)
	}
	if be.Code != browser.CodeInternal || !strings.Contains(be.Message, notDir) || !strings.Contains(be.Message, "not a directory") ||
		strings.Contains(be.Message, "details in its log") || !strings.Contains(be.Hint, "--output-dir") {
		t.Fatalf("error %s: %q (hint %q): want the path, the reason and the way out", be.Code, be.Message, be.Hint)
	}
}

// A full-page capture of a page over a million pixels tall is bounded to
// what one capture may hold, and says so; one that times out leaves the tab
// (and the browser, which such a capture used to abort) usable at once.
func TestScreenshotHugePage(t *testing.T) {
	e := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	e.navigate("/basic.html")
	const grow = `(()=>{const st=document.createElement('style');st.textContent='div.h{height:400px;background:linear-gradient(45deg,red,blue,green);border-radius:30px}';document.head.append(st);for(let i=0;i<3000;i++){const d=document.createElement('div');d.className='h';d.textContent='block '+i;document.body.append(d)};return document.documentElement.scrollHeight})()`
	if h := e.num(grow); h < 1_000_000 {
		t.Fatalf("the page is %.0f px tall, want over a million", h)
	}
	dpr := e.num("devicePixelRatio")
	shot := e.mustShot(browser.ShotOptions{FullPage: true})
	if !strings.Contains(shot.Cut, "1,2") || !strings.Contains(shot.Cut, "captured its top-left") {
		t.Fatalf("cut note %q: want the page's height and what was captured", shot.Cut)
	}
	h := shot.Height
	if shot.Saved != nil {
		h = shot.Saved.Height
	}
	if float64(h) > 16384*dpr+1 || h < 1000 {
		t.Fatalf("captured %d px tall at dpr %.1f: want the bounded top of the page", h, dpr)
	}

	// A capture cut short by its caller's deadline.
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = h.On(tab).Capture().Screenshot(short, browser.ShotOptions{FullPage: true, Format: browser.FormatPNG})
		return err
	})
	if be, ok := browser.AsError(err); err != nil && (!ok || be.Code != browser.CodeTimeout) {
		t.Fatalf("a capture past its deadline: %v, want TIMEOUT (or done)", err)
	}
	if _, err := e.shot(browser.ShotOptions{}); err != nil {
		t.Fatalf("a viewport capture after it: %v", err)
	}
	if snap := e.snapshot(""); !strings.Contains(snap, "block 2999") {
		t.Fatalf("snapshot after it lacks the page's last block:\n%.300s", snap)
	}
	e.navigate("/basic.html")
	if got := e.eval("document.title"); got == "" {
		t.Fatalf("the tab answers no more")
	}
}
