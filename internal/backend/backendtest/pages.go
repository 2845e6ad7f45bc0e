package backendtest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// NetworkAPI adds to mux the API that testdata/pages/network/index.html
// calls on load: /api/items (JSON, sets the cookie sid), /api/echo (echoes
// the method and body), /api/missing (404), /api/big (BigBody),
// /api/pixel.png (PixelPNG) and /api/hop (a redirect to /api/items).
func NetworkAPI(mux *http.ServeMux) {
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "cookie-SECRET-789", Path: "/", HttpOnly: true})
		fmt.Fprint(w, `{"items": [1, 2, 3]}`)
	})
	mux.HandleFunc("/api/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method": %q, "got": %s}`, r.Method, body)
	})
	mux.HandleFunc("/api/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error": "not here"}`)
	})
	mux.HandleFunc("/api/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, BigBody())
	})
	mux.HandleFunc("/api/pixel.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(PixelPNG())
	})
	mux.HandleFunc("/api/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/items?from=hop", http.StatusFound)
	})
}

// BigBody is what /api/big answers: 25,000 characters of numbered lines.
func BigBody() string {
	var b strings.Builder
	for i := 0; b.Len() < 25_000; i++ {
		fmt.Fprintf(&b, "line %05d %s\n", i, strings.Repeat("x", 38))
	}
	return b.String()[:25_000]
}

// PixelPNG is /api/pixel.png: one red pixel.
func PixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// GalleryCookie is the cookie (session=s3cret) a gallery page sets and
// CookieImages asks for.
var GalleryCookie = &http.Cookie{Name: "session", Value: "s3cret", Path: "/"}

// CookieImages adds /img/<name> to mux for each of imgs, served as PNG only
// to a request that carries GalleryCookie (403 otherwise), never cached:
// what a logged-in site does.
func CookieImages(mux *http.ServeMux, imgs map[string][]byte) {
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		data, ok := imgs[path.Base(r.URL.Path)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if c, err := r.Cookie(GalleryCookie.Name); err != nil || c.Value != GalleryCookie.Value {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(data)
	})
}

// NetworkServer serves the fixture pages in dir and NetworkAPI over HTTP
// for the test's life, and returns its URL.
func NetworkServer(t testing.TB, dir string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	NetworkAPI(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// PagesDir is the absolute path of the repository's testdata/pages, the
// fixture pages browser tests load; absolute, so a test may change its
// working directory after.
func PagesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "pages")
}

// Pages is a handler serving testdata/pages (PagesDir).
func Pages() http.Handler { return http.FileServer(http.Dir(PagesDir())) }

// ServePages serves testdata/pages over HTTP until the test ends and
// returns the server's base URL.
func ServePages(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(Pages())
	t.Cleanup(srv.Close)
	return srv.URL
}
