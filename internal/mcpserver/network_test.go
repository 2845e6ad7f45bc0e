package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// connectFull is connect with the full tool profile (browser_network is
// not in the core one).
func connectFull(t *testing.T, deps *tools.Deps) *mcp.ClientSession {
	t.Helper()
	sel, err := tools.Select(tools.ProfileFull, "")
	if err != nil {
		t.Fatal(err)
	}
	return connectServer(t, mcpserver.Options{Deps: deps, Tools: sel}, nil, "")
}

// netServer serves testdata/pages and the API testdata/pages/network/
// calls on load.
func netServer(t *testing.T) string {
	return backendtest.NetworkServer(t, backendtest.PagesDir())
}

// netClient is an MCP client (full profile) on a manager of the shared
// browser with opts, its tabs closed at cleanup.
func netClient(t *testing.T, opts browser.Options) *mcp.ClientSession {
	t.Helper()
	opts.Backend = backendtest.Shared(t)
	m := browser.NewManager(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(10*time.Second))
		defer cancel()
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	return connectFull(t, &tools.Deps{Manager: m})
}

// loadNetworkPage opens network/ and waits until its requests are done.
func loadNetworkPage(t *testing.T, ctx context.Context, cs *mcp.ClientSession, base string) {
	t.Helper()
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/network/", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_wait", map[string]any{"mode": "all",
		"conditions": []any{map[string]any{"title": "Network done"}, map[string]any{"network_idle": true}}})
}

// netIDOf finds the id of the list line matching re (after the id).
func netIDOf(t *testing.T, list, re string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(n\d+) ` + re).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("no request line matching %q in:\n%s", re, list)
	}
	return m[1]
}

// browser_network through MCP: the list, filters, a request in full with
// its body inline, paged and saved, redaction, clear, and the errors.
func TestNetworkTool(t *testing.T) {
	t.Parallel()
	base := netServer(t)
	out := t.TempDir()
	cs := netClient(t, browser.Options{OutputDir: out})
	ctx := backendtest.Context(t, 90*time.Second)

	if got := mustCall(t, ctx, cs, "browser_network", map[string]any{"session": "unused"}); !strings.Contains(got, `session "unused" has not been used`) {
		t.Errorf("list of a session never used:\n%s", got)
	}
	loadNetworkPage(t, ctx, cs, base)
	list := mustCall(t, ctx, cs, "browser_network", map[string]any{})
	if !regexp.MustCompile(`^\d+ requests in tab t1, oldest first`).MatchString(list) {
		t.Errorf("list header:\n%s", list)
	}
	doc := netIDOf(t, list, `GET 200 document `+regexp.QuoteMeta(base)+`/network/ \d+ ms`)
	items := netIDOf(t, list, `GET 200 fetch `+regexp.QuoteMeta(base+"/api/items?token=<redacted>&page=2")+` `)
	echo := netIDOf(t, list, `POST 200 xhr \S+/api/echo `)
	netIDOf(t, list, `GET 404 fetch \S+/api/missing `)
	netIDOf(t, list, `GET 200 image \S+/api/pixel.png `)
	big := netIDOf(t, list, `GET 200 fetch \S+/api/big \d+ ms 24\.4 KB$`)
	if strings.Contains(list, "SECRET") {
		t.Errorf("the list shows a credential:\n%s", list)
	}
	if !strings.HasPrefix(strings.SplitN(list, "\n", 3)[1], doc+" ") {
		t.Errorf("the document is not the first line:\n%s", list)
	}

	// Filters.
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"type": "xhr"}, []string{echo}},
		{map[string]any{"status": "4xx"}, []string{"/api/missing"}},
		{map[string]any{"method": "POST"}, []string{echo}},
		{map[string]any{"filter": "/items|big/"}, []string{items, big}},
		{map[string]any{"limit": 1}, []string{"Newest 1 of "}},
	} {
		got := mustCall(t, ctx, cs, "browser_network", c.args)
		lines := strings.Split(got, "\n")
		if len(lines) != len(c.want)+1 && c.args["limit"] == nil {
			t.Errorf("%v: %d lines, want %d:\n%s", c.args, len(lines)-1, len(c.want), got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: no %q in:\n%s", c.args, w, got)
			}
		}
	}

	// One request in full: headers redacted, body inline.
	got := mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": items})
	for _, w := range []string{items + " GET " + base + "/api/items?token=<redacted>&page=2", "fetch · tab t1", "initiator script " + base + "/network/:19",
		"Response: 200 OK · application/json", "Authorization: Bearer <redacted>", "sid=<redacted>; Path=/; HttpOnly", "Response body (application/json, 20 chars):\n{\"items\": [1, 2, 3]}"} {
		if !strings.Contains(got, w) {
			t.Errorf("get %s: no %q in:\n%s", items, w, got)
		}
	}
	if strings.Contains(got, "SECRET") {
		t.Errorf("get shows a credential:\n%s", got)
	}
	got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": echo})
	if !strings.Contains(got, "Request body (20 chars):\n{\"name\":\"Ada\",\"n\":1}") || !strings.Contains(got, `{"method": "POST", "got": {"name":"Ada","n":1}}`) {
		t.Errorf("get %s:\n%s", echo, got)
	}

	// A large body: the first 10,000 chars, the way on, and the whole
	// saved.
	got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": big})
	if !strings.Contains(got, "Response body (text/plain, 25,000 chars):\nline 00000 ") || !strings.Contains(got, "… chars 0–10,000 of 25,000; offset=10000 continues, or save: true") {
		t.Errorf("get %s:\n%.2000s", big, got[max(0, len(got)-600):])
	}
	got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": big, "offset": 20000})
	if !strings.HasSuffix(got, "… chars 20,000–25,000 of 25,000") || !strings.Contains(got, backendtest.BigBody()[20000:20100]) {
		t.Errorf("get %s offset 20000:\n%s", big, got[max(0, len(got)-300):])
	}
	got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": big, "save": true})
	m := regexp.MustCompile(`saved to (\S+\.txt)$`).FindStringSubmatch(got)
	if m == nil || !strings.HasPrefix(m[1], out) {
		t.Fatalf("get %s save: no path in %s:\n%s", big, out, got)
	}
	if b, err := os.ReadFile(m[1]); err != nil || string(b) != backendtest.BigBody() {
		t.Errorf("saved body: %d bytes, %v; want the body", len(b), err)
	}
	pixel := netIDOf(t, list, `GET 200 image `)
	if got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": pixel}); !strings.Contains(got, fmt.Sprintf("Response body: binary (image/png, %d B), not shown; save: true", len(backendtest.PixelPNG()))) {
		t.Errorf("get %s:\n%s", pixel, got)
	}

	// Errors.
	body := mustFail(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": "n999"}, "INVALID_ARGUMENT")
	if len(body.Error.Suggestions) == 0 || !strings.HasPrefix(body.Error.Suggestions[0], "n") {
		t.Errorf("unknown id: suggestions %v", body.Error.Suggestions)
	}
	mustFail(t, ctx, cs, "browser_network", map[string]any{"filter": "/(/"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"type": "ajax"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"status": "oops"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"action": "get"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"id": items}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"action": "clear", "type": "xhr"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_network", map[string]any{"tab": "t7"}, "TAB_NOT_FOUND")

	// clear.
	if got = mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "clear"}); !regexp.MustCompile(`^Cleared the network buffer of session "default" \(\d+ requests\)\.$`).MatchString(got) {
		t.Errorf("clear: %s", got)
	}
	if got = mustCall(t, ctx, cs, "browser_network", map[string]any{}); !strings.HasPrefix(got, `No requests recorded in session "default"`) {
		t.Errorf("list after clear: %s", got)
	}
	mustFail(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": items}, "INVALID_ARGUMENT")
}

// With redaction off (--no-redact) credentials are shown as they are.
func TestNetworkToolNoRedact(t *testing.T) {
	t.Parallel()
	base := netServer(t)
	cs := netClient(t, browser.Options{NoRedact: true})
	ctx := backendtest.Context(t, 60*time.Second)
	loadNetworkPage(t, ctx, cs, base)
	list := mustCall(t, ctx, cs, "browser_network", map[string]any{"filter": "items"})
	items := netIDOf(t, list, `GET 200 fetch `+regexp.QuoteMeta(base+"/api/items?token=tok-SECRET-123&page=2")+` `)
	got := mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": items})
	for _, w := range []string{"Authorization: Bearer bearer-SECRET-456", "Set-Cookie: sid=cookie-SECRET-789; Path=/; HttpOnly"} {
		if !strings.Contains(got, w) {
			t.Errorf("get %s: no %q in:\n%s", items, w, got)
		}
	}
	if strings.Contains(got, "<redacted>") {
		t.Errorf("get %s redacts with NoRedact:\n%s", items, got)
	}
}

// A script the server answers 404 is listed with its status, not as
// canceled (issue 28, 6).
func TestNetworkScript404(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := netClient(t, browser.Options{})
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/network/script404.html", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_wait", map[string]any{"conditions": []any{map[string]any{"network_idle": true}}})
	list := mustCall(t, ctx, cs, "browser_network", map[string]any{})
	netIDOf(t, list, `GET 404 script \S+/network/missing-script\.js `)
	if strings.Contains(list, "canceled") {
		t.Errorf("a request is listed as canceled:\n%s", list)
	}
}

// export writes the requests a list with the same filters shows as a HAR
// 1.2 file: it parses, holds them with their headers, and the credentials
// are redacted as in the list (shown with --no-redact).
func TestNetworkExportHAR(t *testing.T) {
	t.Parallel()
	for _, noRedact := range []bool{false, true} {
		base := netServer(t)
		cs := netClient(t, browser.Options{NoRedact: noRedact, OutputDir: t.TempDir()})
		ctx := backendtest.Context(t, 60*time.Second)
		loadNetworkPage(t, ctx, cs, base)
		list := mustCall(t, ctx, cs, "browser_network", map[string]any{"filter": "/api/"})
		want := len(regexp.MustCompile(`(?m)^n\d+ `).FindAllString(list, -1))
		reply := mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "export", "filter": "/api/"})
		m := regexp.MustCompile(`^Exported (\d+) requests of session "[^"]+" as HAR 1\.2 \(.+\), .+\nSaved to (\S+\.har)$`).FindStringSubmatch(reply)
		if m == nil || m[1] != fmt.Sprint(want) || want == 0 {
			t.Fatalf("export (%d listed):\n%s", want, reply)
		}
		b, err := os.ReadFile(m[2])
		if err != nil {
			t.Fatal(err)
		}
		var har struct {
			Log struct {
				Version string `json:"version"`
				Entries []struct {
					Request struct {
						Method  string `json:"method"`
						URL     string `json:"url"`
						Headers []struct{ Name, Value string }
					} `json:"request"`
					Response struct {
						Status int `json:"status"`
					} `json:"response"`
				} `json:"entries"`
			} `json:"log"`
		}
		if err := json.Unmarshal(b, &har); err != nil || har.Log.Version != "1.2" || len(har.Log.Entries) != want {
			t.Fatalf("the HAR (%v): version %q, %d entries, want %d", err, har.Log.Version, len(har.Log.Entries), want)
		}
		secret := strings.Contains(string(b), "bearer-SECRET-456") || strings.Contains(string(b), "tok-SECRET-123")
		if secret != noRedact || strings.Contains(string(b), "<redacted>") == noRedact {
			t.Errorf("no-redact %v: credentials shown %v in the HAR:\n%.2000s", noRedact, secret, b)
		}
	}
}
