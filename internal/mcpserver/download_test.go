package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// galleryServer serves a page that sets a cookie and three images that
// only a request carrying it gets (403 otherwise).
func galleryServer(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	imgs := map[string][]byte{}
	for i, name := range []string{"a.png", "b.png", "c.png"} {
		img := image.NewGray(image.Rect(0, 0, 10+i, 7))
		for j := range img.Pix {
			img.Pix[j] = uint8(60 * (i + 1))
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		imgs[name] = b.Bytes()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/gallery", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, backendtest.GalleryCookie)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Gallery</title><main id="gallery"><img src="/img/a.png" alt="A"> <img src="/img/b.png" alt="B"> <img src="/img/c.png" alt="C"></main><p id="plain">words</p>`)
	})
	backendtest.CookieImages(mux, imgs)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, imgs
}

// downloadClient is a client of a server with the downloads group on, on
// the shared browser, saving into out.
func downloadClient(t *testing.T, out string) *mcp.ClientSession {
	t.Helper()
	sel, err := tools.Select("core", "+downloads")
	if err != nil {
		t.Fatal(err)
	}
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t), OutputDir: out})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(10*time.Second))
		defer cancel()
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	return connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m}}, nil, "")
}

// images are a result's image blocks.
func images(res *mcp.CallToolResult) []*mcp.ImageContent {
	var out []*mcp.ImageContent
	for _, c := range res.Content {
		if im, ok := c.(*mcp.ImageContent); ok {
			out = append(out, im)
		}
	}
	return out
}

// browser_download of a gallery's three cookie-guarded images: one image
// block (the first) by default, the others as skipped indexes; indexes
// picks others; urls fetches given addresses; a 404 and a target without
// media are errors.
func TestDownloadImages(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	base, imgs := galleryServer(t)
	cs := downloadClient(t, out)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/gallery", "snapshot": "none"})

	dl := func(args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, callParams("browser_download", args))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%v: isError: %s", args, text(res))
		}
		return res, text(res)
	}
	res, txt := dl(map[string]any{"selector": "#gallery"})
	t.Logf("%s", txt)
	if !strings.Contains(txt, "Image blocks: indexes [1] · skipped_indexes [2, 3] · available_indexes [1, 2, 3]") {
		t.Errorf("indexes not reported:\n%s", txt)
	}
	if ims := images(res); len(ims) != 1 || ims[0].MIMEType != "image/png" || !bytes.Equal(ims[0].Data, imgs["a.png"]) {
		t.Errorf("got %d image blocks, want the first image alone", len(ims))
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok {
		t.Errorf("the first block is %T, want the text", res.Content[0])
	}
	paths := regexp.MustCompile(`(?m)^(\d)\. (\S+) \(([^,]+), image/png, img\) ← `).FindAllStringSubmatch(txt, -1)
	if len(paths) != 3 {
		t.Fatalf("want three listed files with index, path, size and MIME:\n%s", txt)
	}
	for i, p := range paths {
		name := []string{"a.png", "b.png", "c.png"}[i]
		if got, err := os.ReadFile(p[2]); err != nil || !bytes.Equal(got, imgs[name]) || !strings.HasPrefix(p[2], out+"/download-") || !strings.HasSuffix(p[2], "/"+name) {
			t.Errorf("index %s: %s holds %d bytes (%v), want %s", p[1], p[2], len(got), err, name)
		}
	}

	res, txt = dl(map[string]any{"selector": "#gallery", "indexes": []any{2, 3}})
	if ims := images(res); len(ims) != 2 || !bytes.Equal(ims[0].Data, imgs["b.png"]) || !bytes.Equal(ims[1].Data, imgs["c.png"]) {
		t.Errorf("indexes [2,3]: %d image blocks", len(ims))
	}
	if !strings.Contains(txt, "indexes [2, 3] · skipped_indexes [1] ·") {
		t.Errorf("indexes [2,3]:\n%s", txt)
	}
	res, txt = dl(map[string]any{"selector": "#gallery", "indexes": "[0]"})
	if len(images(res)) != 0 || !strings.Contains(txt, "indexes [] · skipped_indexes [1, 2, 3]") {
		t.Errorf("indexes [0]: %d image blocks:\n%s", len(images(res)), txt)
	}

	res, txt = dl(map[string]any{"urls": []any{base + "/img/c.png"}})
	if ims := images(res); len(ims) != 1 || !bytes.Equal(ims[0].Data, imgs["c.png"]) || !strings.HasPrefix(txt, "Downloaded 1 of 1 file into "+out+"/download-") {
		t.Errorf("urls:\n%s", txt)
	}

	e := mustFail(t, ctx, cs, "browser_download", map[string]any{"urls": []any{base + "/img/missing.png"}}, "NAVIGATION_FAILED")
	if !strings.Contains(e.Error.Message, "HTTP 404") {
		t.Errorf("404: %s", e.Error.Message)
	}
	mustFail(t, ctx, cs, "browser_download", map[string]any{"selector": "#plain"}, "NOT_ACTIONABLE")
	mustFail(t, ctx, cs, "browser_download", map[string]any{"selector": "#gallery", "urls": []any{base + "/img/a.png"}}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_download", map[string]any{"selector": "#gallery", "indexes": []any{21}}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_download", map[string]any{}, "INVALID_ARGUMENT")
}
