package browser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// pngOf is a small PNG of one colour, distinct per c.
func pngOf(t testing.TB, c uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 6))
	for i := range img.Pix {
		img.Pix[i] = c
	}
	img.Set(0, 0, color.RGBA{R: c, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// mediaServer serves a gallery page that sets a cookie, and images only to
// requests that carry it (403 otherwise): what a logged-in site does.
func mediaServer(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	imgs := map[string][]byte{"a.png": pngOf(t, 10), "b.png": pngOf(t, 120), "c.png": pngOf(t, 250)}
	mux := http.NewServeMux()
	mux.HandleFunc("/gallery", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, backendtest.GalleryCookie)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Gallery</title><div id="gallery"><img src="/img/a.png" alt="A"><p>between</p>
			<img src="/img/b.png" alt="B"><img srcset="/img/c.png 2x" alt="C"></div>
			<p id="plain">no media here</p><video id="v" poster="/img/a.png"><source src="/media/clip.webm"></video>
			<img id="blobimg" alt="blob"><img id="dataimg" alt="data">
			<script>
			fetch("/img/b.png").then(r => r.blob()).then(b => { document.getElementById("blobimg").src = URL.createObjectURL(b) });
			document.getElementById("dataimg").src = "data:image/png;base64,`+base64PNG(t)+`";
			</script>`)
	})
	backendtest.CookieImages(mux, imgs)
	mux.HandleFunc("/big.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(bigBytes())
	})
	mux.HandleFunc("/media/clip.webm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/webm")
		_, _ = w.Write([]byte("not really a video"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, imgs
}

// bigBytes are 1.5 MB in a pattern (several reads of a stream).
func bigBytes() []byte {
	b := make([]byte, 1_500_000)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func base64PNG(t testing.TB) string { return base64.StdEncoding.EncodeToString(pngOf(t, 77)) }

func (e *env) download(o browser.FetchOptions) (*browser.FetchResult, error) {
	var res *browser.FetchResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Downloads().Fetch(ctx, o)
		return err
	})
	return res, err
}

// browser_download fetches a target's media, or urls, with the page's
// cookies into a fresh folder per call; a 404, a target without media and
// a file over the cap are clear errors.
func TestDownloadMedia(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	base, imgs := mediaServer(t)
	e.base = base
	e.navigate("/gallery")

	res, err := e.download(browser.FetchOptions{Target: sel("#gallery")})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(res.Folder) != out || !strings.HasPrefix(filepath.Base(res.Folder), "download-") {
		t.Errorf("folder %q, want a fresh one in %s", res.Folder, out)
	}
	if len(res.Files) != 3 {
		t.Fatalf("files = %+v", res.Files)
	}
	for i, name := range []string{"a.png", "b.png", "c.png"} {
		f := res.Files[i]
		if f.Failed != "" || f.Index != i+1 || f.Path != filepath.Join(res.Folder, name) || f.MIMEType != "image/png" || f.Kind != "img" || f.Via != "browser" {
			t.Errorf("file %d = %+v", i, f)
			continue
		}
		got, err := os.ReadFile(f.Path)
		if err != nil || !bytes.Equal(got, imgs[name]) || f.Bytes != int64(len(got)) || !bytes.Equal(f.Data, got) {
			t.Errorf("%s: %d bytes saved (%v), want the served image", name, len(got), err)
		}
	}

	// urls (relative to the page), into another folder; a video's source and poster.
	res2, err := e.download(browser.FetchOptions{URLs: []string{"/img/b.png", base + "/img/c.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Folder == res.Folder || len(res2.Files) != 2 || res2.Files[0].URL != base+"/img/b.png" || res2.Files[1].Failed != "" {
		t.Errorf("urls: %+v", res2)
	}
	video, err := e.download(browser.FetchOptions{Target: sel("#v")})
	if err != nil {
		t.Fatal(err)
	}
	if len(video.Files) != 2 || video.Files[0].Kind != "video" || video.Files[0].MIMEType != "video/webm" || video.Files[1].Kind != "poster" {
		t.Errorf("video: %+v", video.Files)
	}
	// blob: URLs go through the page's fetch; data: URLs are read here.
	for _, c := range []struct{ sel, via string }{{"#blobimg", "page"}, {"#dataimg", "data"}} {
		r, err := e.download(browser.FetchOptions{Target: sel(c.sel)})
		if err != nil {
			t.Fatalf("%s: %v", c.sel, err)
		}
		if f := r.Files[0]; f.Via != c.via || f.MIMEType != "image/png" || f.Bytes < 50 {
			t.Errorf("%s: %+v", c.sel, f)
		}
	}
	if r, err := e.download(browser.FetchOptions{Target: sel("#blobimg")}); err == nil {
		if got, _ := os.ReadFile(r.Files[0].Path); !bytes.Equal(got, imgs["b.png"]) {
			t.Errorf("the blob's bytes differ from the image it holds")
		}
	}

	// Files over one read: through the browser, and through the page.
	blob := e.eval(`URL.createObjectURL(new Blob([new Uint8Array(1500000).map((_, i) => i % 251)]))`)
	big, err := e.download(browser.FetchOptions{URLs: []string{base + "/big.bin", blob}})
	if err != nil {
		t.Fatal(err)
	}
	for i, via := range []string{"browser", "page"} {
		f := big.Files[i]
		if got, _ := os.ReadFile(f.Path); f.Via != via || !bytes.Equal(got, bigBytes()) || f.Data != nil {
			t.Errorf("big file %d: %d bytes via %s (%s), want 1,500,000 via %s", i, len(got), f.Via, f.Failed, via)
		}
	}

	_, err = e.download(browser.FetchOptions{URLs: []string{base + "/img/nope.png"}})
	if be := wantCode(t, err, browser.CodeNavigationFailed); !strings.Contains(be.Message, "HTTP 404") {
		t.Errorf("404: %s", be.Message)
	}
	_, err = e.download(browser.FetchOptions{Target: sel("#plain")})
	if be := wantCode(t, err, browser.CodeNotActionable); !strings.Contains(be.Message, "no image, video or audio") {
		t.Errorf("no media: %s", be.Message)
	}
	_, err = e.download(browser.FetchOptions{})
	wantCode(t, err, browser.CodeInvalidArgument)
	// One of two failing is reported in its place.
	mixed, err := e.download(browser.FetchOptions{URLs: []string{base + "/img/a.png", base + "/img/nope.png"}})
	if err != nil || mixed.Files[0].Failed != "" || !strings.Contains(mixed.Files[1].Failed, "HTTP 404") {
		t.Errorf("mixed: %+v %v", mixed, err)
	}

	small := newEnv(t, browser.Options{OutputDir: t.TempDir(), MaxFetchBytes: 40})
	small.base = base
	small.navigate("/gallery")
	_, err = small.download(browser.FetchOptions{URLs: []string{base + "/img/a.png"}})
	if be := wantCode(t, err, browser.CodeLimitExceeded); !strings.Contains(be.Message, "per-file cap") {
		t.Errorf("cap: %s", be.Message)
	}
}

// remoteBackend is the shared browser as if it ran on another machine:
// not Local, and no way to find its download folder.
type remoteBackend struct{ backend.Backend }

func (r remoteBackend) Info() backend.Info {
	info := r.Backend.Info()
	info.Local = false
	return info
}

// A download in a browser on another machine stays there: the action says
// so, and that browser_download with its URL fetches it here.
func TestRemoteDownloadStaysThere(t *testing.T) {
	// A local session first points the browser's downloads at a folder
	// this test removes (on launch, the setting is the browser's).
	here := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	here.navigate("/links")
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.m = browser.NewManager(browser.Options{Backend: remoteBackend{backendtest.Shared(t)}, OutputDir: out,
		ActionTimeout: backendtest.Timeout(5 * time.Second), NavTimeout: backendtest.Timeout(20 * time.Second)})
	e.s = e.m.Session(t.Name())
	t.Cleanup(func() {
		_ = e.s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	})
	e.navigate("/links")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#dl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Downloads) != 1 {
		t.Fatalf("downloads = %+v", res.Downloads)
	}
	d := res.Downloads[0]
	want := fmt.Sprintf(`x.bin (4 bytes) saved on the browser's machine, in its download folder, not here; browser_download {"urls":[%q]} fetches it into the output directory`, e.base+"/download")
	if d.State != "completed" || d.Path != "" || d.String() != want {
		t.Errorf("download = %+v\nsays %q\nwant %q", d, d.String(), want)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the output directory holds %v", entries)
	}
}
