package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // image.DecodeConfig of captured JPEGs
	_ "image/png"  // and PNGs
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/outdir"
)

// EmbedLimit is the largest image returned inline (DESIGN.md: 400 KB); a
// larger capture is saved to OutputDir and a downscaled JPEG preview is
// returned instead. Tests may lower it.
var EmbedLimit = 400 * 1024

// DefaultOutputDir is where large artifacts are saved unless
// Options.OutputDir says otherwise.
var DefaultOutputDir = filepath.Join(os.TempDir(), "webpilot-output")

// Screenshot formats.
const (
	FormatJPEG = "jpeg"
	FormatPNG  = "png"
)

// DefaultJPEGQuality is the quality of JPEG captures unless asked otherwise.
const DefaultJPEGQuality = 60

// captureTimeout bounds one Page.captureScreenshot; bringToFrontTimeout
// bounds Page.bringToFront (through the bridge a background tab never
// paints, so the capture would hang without it).
const (
	captureTimeout      = 30 * time.Second
	bringToFrontTimeout = 3 * time.Second
)

// ShotOptions say what to capture.
type ShotOptions struct {
	FullPage bool
	Target   Locator // an element, when Ref or Selector is set
	Format   string  // jpeg (default) or png
	Quality  int     // JPEG quality 1-100; 0 means DefaultJPEGQuality
	// Annotate draws each ref of the tab on its element, in the image
	// only (see annotate.go).
	Annotate bool
}

// Shot is a captured image, ready to embed.
type Shot struct {
	Data     []byte
	MIMEType string
	Width    int // pixels
	Height   int
	Of       string // what was captured: "the viewport", "the full page", "ref e3"
	Ref      string // the element's ref, when it has one
	// Saved is the original, when it was over EmbedLimit and Data is a
	// downscaled preview.
	Saved *SavedImage
	// Annotated says the image was asked with labels: Labels are the refs
	// drawn on Data, in its pixels; Unlabelled counts the refs in the area
	// past maxLabels; Snapshotted says the tab had no refs, so a compact
	// snapshot's walk issued them first; NotAnnotated says why no labels
	// were drawn at all ("" when they were).
	Annotated    bool
	Labels       []ShotLabel
	Unlabelled   int
	Snapshotted  bool
	NotAnnotated string
	// Blanked counts the boxes painted over because they showed a secret
	// (blank.go).
	Blanked int
	// Cut says the area asked for was larger than one capture may be and
	// only its top-left part was captured ("" when all of it was).
	Cut string
}

// One capture is at most maxCaptureSide device pixels on each side and
// maxCapturePixels in all: Chromium allocates the whole bitmap at once, and
// a full-page capture of a page a million pixels tall aborts the browser
// (every session's tabs with it) after running for minutes.
const (
	maxCaptureSide   = 16384
	maxCapturePixels = 16384 * 2560
)

// bound shrinks area (CSS pixels, at dpr device pixels each) to what one
// capture may hold, keeping its top-left corner, and says what was left out
// ("" when nothing was).
func (c *clip) bound(dpr float64) string {
	if dpr <= 0 {
		dpr = 1
	}
	w, h := c.Width*dpr, c.Height*dpr
	maxW := math.Min(w, maxCaptureSide)
	maxH := math.Min(h, maxCaptureSide)
	if maxW*maxH > maxCapturePixels {
		maxH = math.Floor(maxCapturePixels / maxW)
	}
	if maxW >= w && maxH >= h {
		return ""
	}
	c.Width, c.Height = math.Floor(maxW/dpr), math.Floor(maxH/dpr)
	return fmt.Sprintf("the area is %s×%s px, over what one capture may hold (%s px a side, %s px in all); captured its top-left %s×%s px: capture one element (ref) further down, or scroll and capture the viewport",
		commas(int(w/dpr)), commas(int(h/dpr)), commas(maxCaptureSide), commas(maxCapturePixels), commas(int(c.Width)), commas(int(c.Height)))
}

// SavedImage is an image written to the output directory.
type SavedImage struct {
	Path     string
	MIMEType string
	Width    int
	Height   int
	Bytes    int
}

// clip is a region of the document in CSS pixels.
type clip struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Scale  float64 `json:"scale"`
}

// Capture is the held tab's page as a picture or a document: a screenshot
// (browser_screenshot), a cheap glance (the trace's pictures) and a PDF
// (browser_pdf).
type Capture struct{ h *Held }

// Screenshot captures the viewport, the full page or one element of the tab.
func (x Capture) Screenshot(ctx context.Context, o ShotOptions) (*Shot, error) {
	h := x.h
	s, t := h.s, h.t
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	hasTarget := o.Target.Ref != "" || o.Target.Selector != ""
	if o.FullPage && hasTarget {
		return nil, &Error{Code: CodeInvalidArgument, Message: "give full_page or an element (ref or selector), not both",
			Hint: "omit full_page to capture the element, or omit ref and selector to capture the whole page"}
	}
	switch o.Format {
	case "":
		o.Format = FormatJPEG
	case FormatJPEG, FormatPNG:
	default:
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown format %q", o.Format), Hint: "use jpeg (the default) or png"}
	}
	if o.Quality < 0 || o.Quality > 100 {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("quality %d is out of range", o.Quality), Hint: "use 1-100 (JPEG only; default 60)"}
	}
	if o.Quality != 0 && o.Format == FormatPNG {
		return nil, &Error{Code: CodeInvalidArgument, Message: "quality applies to JPEG only", Hint: "omit quality for png, or use format jpeg"}
	}
	if o.Quality == 0 {
		o.Quality = DefaultJPEGQuality
	}

	// Bring the tab to the front first: a background tab may never paint.
	if err := toFront(ctx, t.page); err != nil {
		return nil, err
	}

	shot := &Shot{Of: "the viewport"}
	var area *clip // nil: the viewport as it is
	beyond := false
	switch {
	case hasTarget:
		defer t.releaseObjects(ctx)
		el, err := t.finder().locate(ctx, o.Target)
		if err != nil {
			return nil, err
		}
		shot.Of, shot.Ref = o.Target.Describe(), el.ref
		if el.ref != "" && o.Target.Ref == "" {
			shot.Of += " (" + el.ref + ")"
		}
		var box struct {
			Err        string
			X, Y, W, H float64
		}
		const boxJS = `function(){
  if(!this.isConnected) return {Err:"detached"};
  this.scrollIntoView({block:"center",inline:"center",behavior:"instant"});
  const r=this.getBoundingClientRect();
  return {X:r.left, Y:r.top, W:r.width, H:r.height};
}`
		if err := t.callEl(ctx, el, boxJS, &box); err != nil {
			return nil, backendError("measure "+o.Target.Describe(), err)
		}
		// The box is in its frame's viewport: place it in the page.
		ox, oy, err := t.finder().frameOffset(ctx, el.frame)
		if err != nil {
			return nil, backendError("measure "+o.Target.Describe(), err)
		}
		var scroll [2]float64
		if err := t.evalValue(ctx, "[scrollX, scrollY]", &scroll); err != nil {
			return nil, backendError("measure "+o.Target.Describe(), err)
		}
		box.X += ox + scroll[0]
		box.Y += oy + scroll[1]
		if box.Err == "detached" {
			return nil, &Error{Code: CodeStaleRef, Message: fmt.Sprintf("%s was removed from the page", o.Target.Describe()),
				Hint: "take a new browser_snapshot and use its refs"}
		}
		if box.W < 1 || box.H < 1 {
			return nil, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s has no size (%.0f×%.0f): nothing to capture", o.Target.Describe(), box.W, box.H),
				Hint: "the element is hidden or empty; capture a visible element or the viewport", Diagnosis: map[string]any{"failed_check": "visible"}}
		}
		area, beyond = &clip{X: box.X, Y: box.Y, Width: box.W, Height: box.H, Scale: 1}, true
	case o.FullPage:
		shot.Of = "the full page"
		var m struct {
			CSSContentSize struct {
				Width  float64 `json:"width"`
				Height float64 `json:"height"`
			} `json:"cssContentSize"`
		}
		if err := t.page.Call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
			return nil, backendError("measure the page", err)
		}
		w, h := math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
		if w < 1 || h < 1 {
			return nil, &Error{Code: CodeNotActionable, Message: "the page has no size: nothing to capture", Hint: "navigate to a page first"}
		}
		area, beyond = &clip{Width: w, Height: h, Scale: 1}, true
	}

	if area != nil {
		var dpr float64
		if err := t.evalValue(ctx, "devicePixelRatio", &dpr); err != nil {
			return nil, backendError("measure the page", err)
		}
		shot.Cut = area.bound(dpr)
	}

	var ann *annotation
	if o.Annotate {
		shot.Annotated = true
		boxes, snapped, err := t.view.refBoxes(ctx)
		if err != nil {
			return nil, err
		}
		shot.Snapshotted = snapped
		var vp struct{ X, Y, W, H, D float64 }
		if err := t.evalValue(ctx, `({X:visualViewport.pageLeft,Y:visualViewport.pageTop,W:visualViewport.width,H:visualViewport.height,D:devicePixelRatio})`, &vp); err != nil {
			return nil, backendError("measure the viewport", err)
		}
		a := &annotation{boxes: boxes, area: clip{X: vp.X, Y: vp.Y, Width: vp.W, Height: vp.H, Scale: 1}}
		if area != nil {
			a.area = *area
		}
		if px := a.area.Width * a.area.Height * vp.D * vp.D; px > maxAnnotatePixels {
			shot.NotAnnotated = fmt.Sprintf("the capture is %s pixels, over the %s that are labelled; capture the viewport or an element for labels", commas(int(px)), commas(maxAnnotatePixels))
		} else {
			ann = a
		}
	}
	hide, err := t.view.secretBoxes(ctx)
	if err != nil {
		// Never a capture that might show a secret.
		return nil, backendError("look for secrets the page shows", err)
	}
	if len(hide) > 0 {
		if ann == nil {
			ann = &annotation{}
			if area != nil {
				ann.area = *area
			} else {
				var vp struct{ X, Y, W, H float64 }
				if err := t.evalValue(ctx, `({X:visualViewport.pageLeft,Y:visualViewport.pageTop,W:visualViewport.width,H:visualViewport.height})`, &vp); err != nil {
					return nil, backendError("measure the viewport", err)
				}
				ann.area = clip{X: vp.X, Y: vp.Y, Width: vp.W, Height: vp.H, Scale: 1}
			}
		}
		ann.hide = hide
	}
	shoot := func(format string, quality int, area *clip) ([]byte, error) {
		if ann == nil {
			return t.view.capture(ctx, format, quality, area, beyond)
		}
		data, labels, left, err := t.view.annotated(ctx, format, quality, area, beyond, ann)
		if o.Annotate {
			shot.Labels, shot.Unlabelled = labels, left
		}
		shot.Blanked = ann.blanked
		return data, err
	}

	data, err := shoot(o.Format, o.Quality, area)
	if err != nil {
		return nil, err
	}
	pxW, pxH, err := imageSize(data)
	if err != nil {
		return nil, err
	}
	mime := "image/" + o.Format
	if len(data) <= EmbedLimit {
		shot.Data, shot.MIMEType, shot.Width, shot.Height = data, mime, pxW, pxH
		return shot, nil
	}

	// Too large to embed: save the original, return a downscaled preview.
	path, err := s.pol.saveOutput(s.link.clientID(), "screenshot", o.Format, data)
	if err != nil {
		return nil, err
	}
	shot.Saved = &SavedImage{Path: path, MIMEType: mime, Width: pxW, Height: pxH, Bytes: len(data)}
	if area == nil {
		var vp struct{ X, Y, W, H float64 }
		if err := t.evalValue(ctx, `({X:visualViewport.pageLeft,Y:visualViewport.pageTop,W:visualViewport.width,H:visualViewport.height})`, &vp); err != nil {
			return nil, backendError("measure the viewport", err)
		}
		area = &clip{X: vp.X, Y: vp.Y, Width: vp.W, Height: vp.H, Scale: 1}
	}
	// Scale so the preview's area shrinks in proportion to the bytes over
	// the limit, then keep shrinking (and lowering quality) until it fits.
	scale := firstPreviewScale(len(data))
	quality := min(o.Quality, DefaultJPEGQuality)
	for range 8 {
		c := *area
		c.Scale = scale
		p, err := shoot(FormatJPEG, quality, &c)
		if err != nil {
			return nil, err
		}
		if len(p) <= EmbedLimit {
			pw, ph, err := imageSize(p)
			if err != nil {
				return nil, err
			}
			shot.Data, shot.MIMEType, shot.Width, shot.Height = p, "image/jpeg", pw, ph
			return shot, nil
		}
		scale *= nextPreviewScale(len(p))
		quality = max(20, quality-10)
	}
	return nil, &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("could not make a preview under %d KB; the original is saved at %s", EmbedLimit/1024, path),
		Hint: "capture the viewport or one element instead of the full page"}
}

// capture runs Page.captureScreenshot.
func (v *pageView) capture(ctx context.Context, format string, quality int, area *clip, beyond bool) ([]byte, error) {
	t := v.t
	params := map[string]any{"format": format, "fromSurface": true}
	if format == FormatJPEG {
		params["quality"] = quality
	}
	if area != nil {
		params["clip"] = area
	}
	if beyond {
		params["captureBeyondViewport"] = true
	}
	ctx, cancel := context.WithTimeout(ctx, captureTimeout)
	defer cancel()
	var res struct {
		Data string `json:"data"`
	}
	if err := t.page.Call(ctx, "Page.captureScreenshot", params, &res); err != nil {
		return nil, backendError("capture a screenshot", err)
	}
	data, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return nil, fmt.Errorf("capture a screenshot: %w", err)
	}
	return data, nil
}

func imageSize(data []byte) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("decode the screenshot: %w", err)
	}
	return cfg.Width, cfg.Height, nil
}

// saveOutput writes an artifact to the output dir (0700) as a 0600 file
// that webpilot owns there, for owner (Caller.Client): older owned files are removed, oldest first,
// to keep the directory within its budget, and LIMIT_EXCEEDED says when
// even that cannot make room.
func (p *Policy) saveOutput(owner, kind, ext string, data []byte) (string, error) {
	path, err := p.out.Save(owner, kind, ext, data)
	if err != nil {
		return "", p.outputError(err)
	}
	return path, nil
}

// outputError says what went wrong with the output directory and where: a
// full budget or a full disk is LIMIT_EXCEEDED; a directory that cannot be
// written (read-only, not a directory, no permission) is INTERNAL with the
// path and the reason, since only the user can fix it.
func (p *Policy) outputError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	var full *outdir.FullError
	if errors.As(err, &full) {
		return &Error{Code: CodeLimitExceeded, Message: full.Error(),
			Hint: "raise --output-max-mb, wait for the downloads under way to finish, or capture less (the viewport, or one element)", Err: err}
	}
	dir := p.out.Path()
	e := &Error{Code: CodeInternal, Message: fmt.Sprintf("webpilot could not write to its output directory %s: %v", dir, err), Err: err,
		Hint: "point --output-dir (WEBPILOT_OUTPUT_DIR) at a directory webpilot can write, or fix that one; browser_status shows which is used"}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		e.Code = CodeLimitExceeded
		e.Hint = "the disk holding " + dir + " is full: free space there, or point --output-dir at another disk"
	case errors.Is(err, syscall.EROFS):
		e.Hint = dir + " is on a read-only file system: point --output-dir (WEBPILOT_OUTPUT_DIR) at a writable directory"
	case errors.Is(err, syscall.ENOTDIR):
		e.Hint = "a file stands where the output directory (or one of its parents) should be: remove it, or point --output-dir elsewhere"
	case errors.Is(err, fs.ErrPermission):
		e.Hint = "webpilot has no permission to write " + dir + ": fix its permissions, or point --output-dir at a directory of your own"
	}
	return e
}

// newOutputFolder makes a fresh folder (0700) of webpilot's own in the
// output dir for one call's files, <out>/<kind>-<stamp>-<n>, and returns its
// path. With saveOutput and putOutputFile it is the only writer of the
// output dir.
func (p *Policy) newOutputFolder(owner, kind string) (string, error) {
	path, err := p.out.NewFolder(owner, kind)
	if err != nil {
		return "", p.outputError(err)
	}
	return path, nil
}

// outputFile is what putOutputFile writes: bytes, a copy of a file, or a
// file of webpilot's own moved into place (one of the three).
type outputFile struct {
	data []byte
	// copyOf is a file to copy; it is never moved or changed (it may be
	// the user's own download).
	copyOf string
	// moveFrom is a file in downloadStaging to move into the folder.
	moveFrom string
}

// putOutputFile writes a file named name (made safe; " (2)" added when
// taken) into folder, made by newOutputFolder, as 0600, and returns its path
// and size. It refuses with LIMIT_EXCEEDED when even removing the oldest
// finished files webpilot wrote cannot keep the output dir within its
// budget (a file to move is deleted then).
func (p *Policy) putOutputFile(folder, name string, f outputFile) (string, int64, error) {
	var size int64
	switch {
	case f.moveFrom != "":
		fi, err := os.Stat(f.moveFrom)
		if err != nil {
			return "", 0, fmt.Errorf("find the downloaded file: %w", err)
		}
		size = fi.Size()
	case f.copyOf != "":
		fi, err := os.Stat(f.copyOf)
		if err != nil {
			return "", 0, fmt.Errorf("read the downloaded file: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return "", 0, fmt.Errorf("read the downloaded file: %s is not a regular file", f.copyOf)
		}
		size = fi.Size()
	default:
		size = int64(len(f.data))
	}
	// Room is made first (the oldest finished files webpilot wrote go),
	// and the folder stays until the file is in.
	done, err := p.out.Reserve(folder, size)
	if err != nil {
		if f.moveFrom != "" {
			_ = os.Remove(f.moveFrom)
		}
		return "", size, p.outputError(err)
	}
	defer done()
	base := safeName(name)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for i := 1; i < 1000; i++ {
		cand := base
		if i > 1 {
			cand = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		path := filepath.Join(folder, cand)
		if f.moveFrom != "" {
			if _, err := os.Lstat(path); err == nil {
				continue
			}
			if err := os.Rename(f.moveFrom, path); err != nil {
				// Never left in the staging folder, outside every budget.
				_ = os.Remove(f.moveFrom)
				return "", size, p.outputError(fmt.Errorf("move the downloaded file into place: %w", err))
			}
			_ = os.Chmod(path, 0o600)
			return path, size, nil
		}
		out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", size, p.outputError(fmt.Errorf("save %s: %w", cand, err))
		}
		n, err := writeOutput(out, f, size)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return "", size, p.outputError(fmt.Errorf("save %s: %w", cand, err))
		}
		return path, n, nil
	}
	if f.moveFrom != "" {
		_ = os.Remove(f.moveFrom)
	}
	return "", size, fmt.Errorf("save %s: too many files of that name in %s", base, folder)
}

// writeOutput writes f's bytes, or the file it copies (at most size bytes:
// a file still growing is not followed past what was checked), to out.
func writeOutput(out *os.File, f outputFile, size int64) (int64, error) {
	if f.copyOf == "" {
		n, err := out.Write(f.data)
		return int64(n), err
	}
	in, err := os.Open(f.copyOf)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	return io.Copy(out, io.LimitReader(in, size))
}

// downloadStaging is where a browser on this machine writes downloads
// while they run, each named by its id; putOutputFile moves a finished one
// into its call's folder.
func (p *Policy) downloadStaging() string {
	return filepath.Join(p.opts.OutputDir, ".incoming")
}
