package launch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// openPage opens a tab of b at url and returns what Page.navigate said
// (its errorText) and, when it loaded, the page's title.
func openPage(t *testing.T, b *launch.Backend, url string) (errText, title string) {
	t.Helper()
	ctx := testCtx(t, 60*time.Second)
	tab, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := b.Attach(ctx, tab.ID)
	if err != nil {
		t.Fatal(err)
	}
	load, cancel := sess.Subscribe("Page.loadEventFired")
	defer cancel()
	if err := sess.Call(ctx, "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := sess.Call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		t.Fatal(err)
	}
	if nav.ErrorText != "" {
		return nav.ErrorText, ""
	}
	select {
	case <-load:
	case <-ctx.Done():
		t.Fatalf("%s did not load", url)
	}
	return "", evalString(t, ctx, sess, "document.title")
}

func evalString(t *testing.T, ctx context.Context, sess cdp.Caller, expr string) string {
	t.Helper()
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		t.Fatal(err)
	}
	return r.Result.Value
}

// A launched browser with --proxy-server sends its requests through the
// proxy: a page of a host that does not exist comes from the proxy, which
// saw the request.
func TestProxyServer(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>via the proxy</title>")
	}))
	defer proxy.Close()
	b := newBackend(t, launch.Options{Isolated: true, ProxyServer: proxy.URL, ProxyBypass: "<-loopback>"})
	errText, title := openPage(t, b, "http://shop.invalid/cart")
	if errText != "" || title != "via the proxy" {
		t.Fatalf("through the proxy: error %q, title %q", errText, title)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(seen, "\n"), "GET http://shop.invalid/cart") {
		t.Errorf("the proxy saw %q", seen)
	}
}

// A server with its own certificate loads only with IgnoreHTTPSErrors.
func TestIgnoreHTTPSErrors(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>self-signed</title>")
	}))
	defer srv.Close()
	strict := newBackend(t, launch.Options{Isolated: true})
	if errText, _ := openPage(t, strict, srv.URL+"/"); !strings.Contains(errText, "CERT") {
		t.Errorf("without ignore-https-errors: %q, want a certificate error", errText)
	}
	lax := newBackend(t, launch.Options{Isolated: true, IgnoreHTTPSErrors: true})
	if errText, title := openPage(t, lax, srv.URL+"/"); errText != "" || title != "self-signed" {
		t.Errorf("with ignore-https-errors: error %q, title %q", errText, title)
	}
}
