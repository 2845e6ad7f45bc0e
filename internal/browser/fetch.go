package browser

import (
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// mediaJS lists the media of an element (browser_download's target).
//
//go:embed media.js
var mediaJS string

// DefaultMaxFetchBytes bounds one file browser_download fetches unless
// Options.MaxFetchBytes says otherwise: a larger one is refused, and the
// result says so.
const DefaultMaxFetchBytes int64 = 50 << 20

// fetchLimit is the bound of one file browser_download fetches in the
// tab.
func (l *downloadList) fetchLimit() int64 {
	if l.maxFetch > 0 {
		return l.maxFetch
	}
	return DefaultMaxFetchBytes
}

// MaxFetchFiles bounds the files one browser_download fetches (urls, or
// the media of a target).
const MaxFetchFiles = 20

// fetchChunk is how much one IO.read (or one page read) carries.
const fetchChunk = 1 << 20

// FetchOptions say what browser_download fetches: URLs, or the media of
// the Target element (images, video and audio sources, posters). Either
// way the requests carry the page's cookies.
type FetchOptions struct {
	URLs   []string
	Target Locator // with URLs, only Frame counts: the frame whose cookies and origin the requests take
}

// FetchResult is what browser_download got.
type FetchResult struct {
	Of     string // the target as named ("" for urls)
	Ref    string // the target's ref, when it has one
	Folder string // the call's folder in the output directory ("" when nothing was saved)
	Files  []FetchedFile
	// More is how many media the target holds past MaxFetchFiles.
	More bool
}

// FetchedFile is one file browser_download fetched, or could not.
type FetchedFile struct {
	Index    int    // 1-based, in the order of the urls or of the media in the page
	URL      string // as fetched (absolute)
	Kind     string // media: img, video, audio, poster or background; "" for urls
	Path     string
	Bytes    int64
	MIMEType string
	// Via says how it was fetched: "browser" (the browser's network stack,
	// Network.loadNetworkResource), "page" (the page's fetch) or "data".
	Via string
	// Failed is why it was not saved ("" when it was); Code is its error
	// code.
	Failed string
	Code   Code
	// Data is the file's content when it is an image (for image blocks).
	Data []byte
}

func (o FetchOptions) validate() error {
	hasTarget := !o.Target.Empty() || o.Target.Within != ""
	switch {
	case len(o.URLs) == 0 && !hasTarget:
		return &Error{Code: CodeInvalidArgument, Message: "give urls, or a target whose media to download (ref, selector, text or role)",
			Hint: `e.g. {"urls":["https://…/report.pdf"]} or {"selector":"img.hero"}; a container target downloads the images, video and audio in it`}
	case len(o.URLs) > 0 && hasTarget:
		return &Error{Code: CodeInvalidArgument, Message: "give urls or a target, not both",
			Hint: "urls fetches those addresses; a target fetches the media of that element"}
	case len(o.URLs) > MaxFetchFiles:
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%d urls: at most %d per call", len(o.URLs), MaxFetchFiles),
			Hint: "split them over several calls"}
	}
	for i, u := range o.URLs {
		if strings.TrimSpace(u) == "" {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("urls[%d] is empty", i), Hint: "give absolute http(s) URLs (or ones relative to the page)"}
		}
	}
	if hasTarget {
		tg := o.Target
		if tg.Empty() { // within alone names the element
			tg = Locator{Selector: tg.Within, Frame: tg.Frame}
			if IsRef(o.Target.Within) {
				tg = Locator{Ref: o.Target.Within}
			}
		}
		return tg.validate()
	}
	return nil
}

// Fetch fetches urls, or the media of a target, with the page's cookies
// (through the browser's own network stack, so without CORS; the page's
// fetch when that is refused, and for blob: URLs), into a fresh folder of the
// output directory (browser_download). A file that fails is reported in its
// place; when every file fails, the first failure is the error.
func (d Downloads) Fetch(ctx context.Context, o FetchOptions) (*FetchResult, error) {
	s, t := d.h.s, d.h.t
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Target.Empty() && o.Target.Within != "" {
		if IsRef(o.Target.Within) {
			o.Target = Locator{Ref: o.Target.Within}
		} else {
			o.Target = Locator{Selector: o.Target.Within, Frame: o.Target.Frame}
		}
	}
	return untilAnswered(ctx, t, func(ctx context.Context) (*FetchResult, error) {
		defer t.releaseObjects(ctx)
		return reader{s}.download(ctx, t, o)
	})
}

// mediaList is what media.js answers.
type mediaList struct {
	Tag   string `json:"tag"`
	Media []struct {
		URL  string `json:"url"`
		Kind string `json:"kind"`
	} `json:"media"`
}

func (rd reader) download(ctx context.Context, t *Tab, o FetchOptions) (*FetchResult, error) {
	s := rd.s
	res := &FetchResult{}
	var w frameWorld
	if len(o.URLs) > 0 {
		fw, _, err := t.finder().targetWorld(ctx, o.Target.Frame)
		if err != nil {
			return nil, err
		}
		w = fw
		var abs []string
		resolve := "((us) => us.map((u) => { try { return new URL(u, document.baseURI).href } catch { return '' } }))(" + mustJSON(o.URLs) + ")"
		if _, err := w.eval(ctx, resolve, &abs); err != nil || len(abs) != len(o.URLs) {
			abs = o.URLs
		}
		for i, u := range abs {
			if u == "" {
				u = o.URLs[i]
			}
			res.Files = append(res.Files, FetchedFile{Index: i + 1, URL: u})
		}
	} else {
		el, err := t.finder().locate(ctx, o.Target)
		if err != nil {
			return nil, err
		}
		res.Of, res.Ref, w = o.Target.Describe(), el.ref, el.world
		if el.ref != "" && o.Target.Ref == "" {
			res.Of += " (" + el.ref + ")"
		}
		var ml mediaList
		if err := t.callEl(ctx, el, "function(max){ return ("+mediaJS+").call(this, max) }", &ml, MaxFetchFiles+1); err != nil {
			if isNodeGone(err) {
				return nil, &Error{Code: CodeTargetNotFound, Message: res.Of + " left the page", Hint: "take a new browser_snapshot and use its refs", Err: err}
			}
			return nil, backendError("list the media of "+res.Of, err)
		}
		if len(ml.Media) == 0 {
			return nil, &Error{Code: CodeNotActionable, Message: fmt.Sprintf("%s (a <%s>) has no image, video or audio to download", res.Of, ml.Tag),
				Hint:      "target an <img>, <video> or <audio>, or an element that contains them; for a link's file, pass its href in urls",
				Diagnosis: map[string]any{"failed_check": "media"}}
		}
		if len(ml.Media) > MaxFetchFiles {
			ml.Media, res.More = ml.Media[:MaxFetchFiles], true
		}
		for i, m := range ml.Media {
			res.Files = append(res.Files, FetchedFile{Index: i + 1, URL: m.URL, Kind: m.Kind})
		}
	}
	saved := 0
	for i := range res.Files {
		f := &res.Files[i]
		if err := ctx.Err(); err != nil {
			f.Failed, f.Code = "not fetched: the call ran out of time", CodeTimeout
			continue
		}
		data, mimeType, via, err := t.downloads.fetch(ctx, w, f.URL)
		f.Via = via
		if err == nil {
			if res.Folder == "" {
				res.Folder, err = s.pol.newOutputFolder(s.link.clientID(), "download")
			}
			if err == nil {
				f.Path, f.Bytes, err = s.pol.putOutputFile(res.Folder, fetchName(f.URL, mimeType, f.Index), outputFile{data: data})
			}
		}
		if err != nil {
			we, ok := AsError(err)
			if !ok {
				we = &Error{Code: CodeInternal, Message: err.Error()}
				if errors.Is(err, context.DeadlineExceeded) {
					we.Code = CodeTimeout
				}
			}
			f.Failed, f.Code = we.Message, we.Code
			continue
		}
		saved++
		f.MIMEType = mimeType
		if strings.HasPrefix(mimeType, "image/") {
			f.Data = data
		}
	}
	if saved == 0 {
		return nil, fetchFailure(res)
	}
	return res, nil
}

// fetchFailure is the error of a call that saved nothing: the failure
// itself for one file, else one line per file under the first one's code.
func fetchFailure(res *FetchResult) *Error {
	first := res.Files[0]
	hint := "check the address (browser_read what=attribute gives a link's href or an image's src); a page that needs a login must be logged in in this tab first"
	switch first.Code {
	case CodeLimitExceeded:
		hint = "the file is too large to download through the browser; fetch a smaller rendition"
	case CodeOriginBlocked:
		hint = "the origin policy (--allowed-origins / --blocked-origins) refuses that address"
	}
	if len(res.Files) == 1 {
		return &Error{Code: first.Code, Message: first.Failed, Hint: hint}
	}
	lines := make([]string, 0, len(res.Files))
	for _, f := range res.Files {
		lines = append(lines, fmt.Sprintf("%d. %s", f.Index, f.Failed))
	}
	return &Error{Code: first.Code, Message: fmt.Sprintf("none of the %d files could be downloaded:\n%s", len(res.Files), strings.Join(lines, "\n")), Hint: hint}
}

// fetch gets one URL's bytes and MIME type with the page's cookies: a
// data: URL in Go, http(s) through the browser's network stack for frame
// w, blob: URLs (and http(s) when the browser refuses that) through the
// page's fetch.
func (l *downloadList) fetch(ctx context.Context, w frameWorld, raw string) (data []byte, mimeType, via string, err error) {
	u, perr := url.Parse(raw)
	if perr != nil || u.Scheme == "" {
		return nil, "", "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is not a URL", quote(Echo(raw)))}
	}
	if origin := l.t.link.origin; origin != nil {
		if e := origin(u); e != nil {
			return nil, "", "", &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("%s: %s", Echo(raw), e.Message)}
		}
	}
	switch strings.ToLower(u.Scheme) {
	case "data":
		data, mimeType, err = decodeDataURL(raw)
		if err != nil {
			return nil, "", "data", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: %v", Echo(raw), err)}
		}
		if int64(len(data)) > l.fetchLimit() {
			return nil, "", "data", l.tooBig(raw, int64(len(data)))
		}
		return data, mimeType, "data", nil
	case "http", "https":
		data, mimeType, err = l.fetchByBrowser(ctx, w, raw)
		if !errors.Is(err, errNoNetworkLoad) {
			return data, mimeType, "browser", err
		}
		l.t.log.Debug("download: the browser's network load is refused; fetching in the page", "err", err)
		fallthrough
	case "blob":
		data, mimeType, err = l.fetchInPage(ctx, w, raw)
		return data, mimeType, "page", err
	}
	return nil, "", "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: only http, https, data and blob URLs can be downloaded", Echo(raw))}
}

// errNoNetworkLoad marks a browser that refused Network.loadNetworkResource.
var errNoNetworkLoad = errors.New("Network.loadNetworkResource refused")

func (l *downloadList) tooBig(raw string, n int64) *Error {
	size := "more than " + byteSize(l.fetchLimit())
	if n > 0 {
		size = byteSize(n)
	}
	return &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("%s is %s, over the %s per-file cap: refused", Echo(raw), size, byteSize(l.fetchLimit()))}
}

// fetchByBrowser loads raw through the browser's network stack for frame
// w (Network.loadNetworkResource: the frame's cookies, no CORS) and reads
// the stream it opens.
func (l *downloadList) fetchByBrowser(ctx context.Context, w frameWorld, raw string) ([]byte, string, error) {
	var res struct {
		Resource struct {
			Success        bool              `json:"success"`
			NetErrorName   string            `json:"netErrorName"`
			HTTPStatusCode int               `json:"httpStatusCode"`
			Stream         string            `json:"stream"`
			Headers        map[string]string `json:"headers"`
		} `json:"resource"`
	}
	err := w.sess.Call(ctx, "Network.loadNetworkResource", map[string]any{"frameId": w.frameID, "url": raw,
		"options": map[string]any{"disableCache": false, "includeCredentials": true}}, &res)
	if err != nil {
		switch cdp.Classify(err) {
		case cdp.FaultOther, cdp.FaultUnsupported, cdp.FaultInvalid:
			// Refused (an older browser, a backend that filters it): the
			// page's fetch can still try.
			return nil, "", fmt.Errorf("%w: %v", errNoNetworkLoad, err)
		}
		return nil, "", backendError("download "+Echo(raw), err)
	}
	r := res.Resource
	if r.Stream != "" {
		defer l.closeStream(ctx, w, r.Stream)
	}
	header := func(name string) string {
		for k, v := range r.Headers {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		return ""
	}
	if r.HTTPStatusCode >= 400 || !r.Success {
		msg := fmt.Sprintf("GET %s failed: %s", Echo(raw), r.NetErrorName)
		if r.HTTPStatusCode >= 400 {
			msg = fmt.Sprintf("GET %s answered HTTP %d %s", Echo(raw), r.HTTPStatusCode, http.StatusText(r.HTTPStatusCode))
		}
		return nil, "", &Error{Code: CodeNavigationFailed, Message: msg}
	}
	if n, err := strconv.ParseInt(header("Content-Length"), 10, 64); err == nil && n > l.fetchLimit() {
		return nil, "", l.tooBig(raw, n)
	}
	var data []byte
	for {
		var chunk struct {
			Base64 bool   `json:"base64Encoded"`
			Data   string `json:"data"`
			EOF    bool   `json:"eof"`
		}
		if err := w.sess.Call(ctx, "IO.read", map[string]any{"handle": r.Stream, "size": fetchChunk}, &chunk); err != nil {
			return nil, "", backendError("download "+Echo(raw), err)
		}
		if chunk.Base64 {
			b, err := base64.StdEncoding.DecodeString(chunk.Data)
			if err != nil {
				return nil, "", fmt.Errorf("download %s: %w", Echo(raw), err)
			}
			data = append(data, b...)
		} else {
			data = append(data, chunk.Data...)
		}
		if int64(len(data)) > l.fetchLimit() {
			return nil, "", l.tooBig(raw, 0)
		}
		if chunk.EOF {
			break
		}
	}
	return data, contentType(header("Content-Type"), data), nil
}

// closeStream closes an IO stream, even when the call's context has ended.
func (l *downloadList) closeStream(ctx context.Context, w frameWorld, handle string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = w.sess.Call(ctx, "IO.close", map[string]any{"handle": handle}, nil)
}

// fetchJS fetches a URL in the page (with its cookies) and keeps the bytes
// under a key in the walker's world; fetchChunkJS reads them as base64.
const (
	fetchJS = `(async (url, max, key) => {
  const kept = (globalThis.__webpilotFetched ??= new Map());
  let r;
  try { r = await fetch(url, { credentials: "include" }); } catch (e) { return { error: String((e && e.message) || e) }; }
  const out = { status: r.status, statusText: r.statusText, type: r.headers.get("content-type") || "" };
  if (!r.ok) return out;
  if (+r.headers.get("content-length") > max) { r.body && r.body.cancel(); return { ...out, tooBig: +r.headers.get("content-length") }; }
  const parts = []; let n = 0;
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > max) { reader.cancel(); return { ...out, tooBig: -1 }; }
    parts.push(value);
  }
  const all = new Uint8Array(n); let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  kept.set(key, all);
  return { ...out, size: n };
})`
	fetchChunkJS = `((key, off, n, last) => {
  const kept = globalThis.__webpilotFetched, all = kept && kept.get(key);
  if (!all) return null;
  const b = all.subarray(off, off + n); let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
  if (last) kept.delete(key);
  return btoa(s);
})`
)

// fetchInPage fetches raw with the page's own fetch (credentials included;
// subject to CORS) in the walker's world of frame w, and reads the bytes in
// base64 chunks.
func (l *downloadList) fetchInPage(ctx context.Context, w frameWorld, raw string) ([]byte, string, error) {
	key := fmt.Sprintf("f%d", time.Now().UnixNano())
	var ans struct {
		Error      string `json:"error"`
		Status     int    `json:"status"`
		StatusText string `json:"statusText"`
		Type       string `json:"type"`
		TooBig     int64  `json:"tooBig"`
		Size       int64  `json:"size"`
	}
	call := fetchJS + "(" + mustJSON(raw) + ", " + strconv.FormatInt(l.fetchLimit(), 10) + ", " + mustJSON(key) + ")"
	if _, err := w.eval(ctx, call, &ans); err != nil {
		return nil, "", backendError("download "+Echo(raw), err)
	}
	switch {
	case ans.Error != "":
		return nil, "", &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("GET %s failed in the page: %s (the page's fetch is bound by CORS)", Echo(raw), ans.Error)}
	case ans.Status >= 400 || ans.Status == 0:
		return nil, "", &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("GET %s answered HTTP %d %s", Echo(raw), ans.Status, http.StatusText(ans.Status))}
	case ans.TooBig != 0:
		return nil, "", l.tooBig(raw, max(ans.TooBig, 0))
	}
	data := make([]byte, 0, ans.Size)
	for off := int64(0); off < ans.Size || off == 0; off += fetchChunk {
		last := off+fetchChunk >= ans.Size
		var b64 *string
		call := fetchChunkJS + "(" + mustJSON(key) + ", " + strconv.FormatInt(off, 10) + ", " + strconv.Itoa(fetchChunk) + ", " + strconv.FormatBool(last) + ")"
		if _, err := w.eval(ctx, call, &b64); err != nil {
			return nil, "", backendError("download "+Echo(raw), err)
		}
		if b64 == nil {
			return nil, "", fmt.Errorf("download %s: the page lost the fetched bytes", Echo(raw))
		}
		b, err := base64.StdEncoding.DecodeString(*b64)
		if err != nil {
			return nil, "", fmt.Errorf("download %s: %w", Echo(raw), err)
		}
		data = append(data, b...)
		if last {
			break
		}
	}
	return data, contentType(ans.Type, data), nil
}

// contentType is a response's MIME type without parameters, else sniffed.
func contentType(header string, data []byte) string {
	if mt, _, err := mime.ParseMediaType(header); err == nil && mt != "" {
		return mt
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	return mt
}

// decodeDataURL reads a data: URL.
func decodeDataURL(raw string) ([]byte, string, error) {
	meta, body, ok := strings.Cut(raw[len("data:"):], ",")
	if !ok {
		return nil, "", errors.New("a data: URL needs a comma before its data")
	}
	b64 := strings.HasSuffix(strings.ToLower(meta), ";base64")
	if b64 {
		meta = meta[:len(meta)-len(";base64")]
	}
	mt, _, err := mime.ParseMediaType(meta)
	if meta == "" || err != nil {
		mt = "text/plain"
	}
	if b64 {
		body, _ = url.PathUnescape(body)
		data, err := base64.StdEncoding.DecodeString(strings.TrimRight(strings.Join(strings.Fields(body), ""), "="))
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(strings.Join(strings.Fields(body), ""), "="))
		}
		if err != nil {
			return nil, "", fmt.Errorf("bad base64: %w", err)
		}
		return data, mt, nil
	}
	s, err := url.PathUnescape(body)
	if err != nil {
		return nil, "", err
	}
	return []byte(s), mt, nil
}

// commonExt is the file extension of common MIME types (mime's table gives
// several, in no fixed order).
var commonExt = map[string]string{
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
	"image/avif": ".avif", "image/x-icon": ".ico", "image/vnd.microsoft.icon": ".ico", "image/bmp": ".bmp",
	"video/mp4": ".mp4", "video/webm": ".webm", "video/ogg": ".ogv", "audio/mpeg": ".mp3", "audio/ogg": ".ogg",
	"audio/wav": ".wav", "audio/webm": ".weba", "application/pdf": ".pdf", "application/json": ".json",
	"text/html": ".html", "text/plain": ".txt", "text/csv": ".csv", "application/zip": ".zip",
}

// fetchName is the file name for a fetched URL: its last path segment,
// given the extension of its type when it has none.
func fetchName(raw, mimeType string, index int) string {
	name := ""
	if u, err := url.Parse(raw); err == nil && u.Scheme != "data" {
		p := u.Path
		if u.Scheme == "blob" {
			p = ""
		}
		if base := path.Base(p); base != "/" && base != "." {
			name = base
		}
	}
	if name == "" {
		name = fmt.Sprintf("download-%d", index)
	}
	if path.Ext(name) == "" {
		ext := commonExt[mimeType]
		if ext == "" {
			if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
				ext = exts[0]
			}
		}
		name += ext
	}
	return safeName(name)
}
