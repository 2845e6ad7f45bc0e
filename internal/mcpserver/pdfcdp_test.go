package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/gif"
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
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// browser_pdf and browser_cdp through the server (full profile): the PDF's
// reply names the file, its size and pages; raw CDP answers with the
// method's result, and refuses what it may not send with the allow-list.
func TestPDFAndCDPTools(t *testing.T) {
	out := t.TempDir()
	cs := netClient(t, browser.Options{OutputDir: out})
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/pdf/three.html", "snapshot": "none"})
	reply := mustCall(t, ctx, cs, "browser_pdf", map[string]any{"paper": "a4", "landscape": true})
	m := regexp.MustCompile(`(?s)^PDF of "Three pages" \(http://\S+/pdf/three\.html\): 3 pages, \d+ KB, a4 landscape\nSaved to (\S+\.pdf)$`).FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("browser_pdf reply:\n%s", reply)
	}
	if b, err := os.ReadFile(m[1]); err != nil || !strings.HasPrefix(string(b), "%PDF-") || !strings.HasPrefix(m[1], out) {
		t.Errorf("the saved PDF %s: %v", m[1], err)
	}
	reply = mustCall(t, ctx, cs, "browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "document.title", "returnByValue": true}})
	if !strings.HasPrefix(reply, "Runtime.evaluate on "+base+"/pdf/three.html\n") || !strings.Contains(reply, `"value":"Three pages"`) {
		t.Errorf("browser_cdp reply:\n%s", reply)
	}
	body := mustFail(t, ctx, cs, "browser_cdp", map[string]any{"method": "Target.createTarget", "params": map[string]any{"url": "about:blank"}}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "never sent") {
		t.Errorf("Target.createTarget: %+v", body.Error)
	}
	body = mustFail(t, ctx, cs, "browser_pdf", map[string]any{"paper": "napkin"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "napkin") {
		t.Errorf("paper napkin: %+v", body.Error)
	}
	// A result longer than the inline limit is cut, and saved whole.
	reply = mustCall(t, ctx, cs, "browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "'x'.repeat(50000)", "returnByValue": true}})
	saved := regexp.MustCompile(`the whole is saved to (\S+\.json)`).FindStringSubmatch(reply)
	if saved == nil || len(reply) > browser.MaxCDPChars+500 {
		t.Fatalf("a 50,000-character result: %d chars, %.300s", len(reply), reply)
	}
	if b, err := os.ReadFile(saved[1]); err != nil || !strings.Contains(string(b), strings.Repeat("x", 50000)) {
		t.Errorf("the saved result %s: %v", saved[1], err)
	}
}

// browser_mouse through the server: the reply says what was at the point,
// and the diff shows what the click changed.
func TestMouseTool(t *testing.T) {
	cs := netClient(t, browser.Options{})
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/mouse/pad.html"})
	reply := mustCall(t, ctx, cs, "browser_mouse", map[string]any{"action": "click", "x": 100, "y": 60})
	if !regexp.MustCompile(`^mouse click at 100,60 on button "Save" \(e\d+\): dispatched\n`).MatchString(reply) || !strings.Contains(reply, "saved 1") {
		t.Errorf("browser_mouse click reply:\n%s", reply)
	}
	reply = mustCall(t, ctx, cs, "browser_mouse", map[string]any{"action": "drag", "x": 50, "y": 370, "to_x": 240, "to_y": 370, "snapshot": "none"})
	if !strings.HasPrefix(reply, "mouse drag at 50,370 to 240,370 onto ") || strings.Contains(reply, "\n#") {
		t.Errorf("browser_mouse drag reply:\n%s", reply)
	}
	body := mustFail(t, ctx, cs, "browser_mouse", map[string]any{"action": "click", "x": 99999, "y": 1}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "outside the viewport") {
		t.Errorf("a point outside: %+v", body.Error)
	}
}

// browser_emulate through the server: the reply lists what is in force,
// browser_status shows it, and clear ends it.
func TestEmulateTool(t *testing.T) {
	cs := netClient(t, browser.Options{})
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/emulate/probe.html", "snapshot": "none"})
	reply := mustCall(t, ctx, cs, "browser_emulate", map[string]any{"device": "Pixel 7", "color_scheme": "dark", "timezone": "Europe/Berlin"})
	for _, want := range []string{"Emulating, on every tab of the session: device Pixel 7 · viewport 412×915 @2.625x mobile (touch)", "timezone Europe/Berlin", "color scheme dark", "browser_navigate loads it again"} {
		if !strings.Contains(reply, want) {
			t.Errorf("browser_emulate reply lacks %q:\n%s", want, reply)
		}
	}
	if st := mustCall(t, ctx, cs, "browser_status", nil); !strings.Contains(st, "Emulating: device Pixel 7") {
		t.Errorf("browser_status does not show the emulation:\n%s", st)
	}
	if v := mustCall(t, ctx, cs, "browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "innerWidth + ' ' + Intl.DateTimeFormat().resolvedOptions().timeZone", "returnByValue": true}}); !strings.Contains(v, `"412 Europe/Berlin"`) {
		t.Errorf("the page sees: %s", v)
	}
	if reply := mustCall(t, ctx, cs, "browser_emulate", map[string]any{"clear": true}); !strings.HasPrefix(reply, "Emulating nothing") {
		t.Errorf("clear: %s", reply)
	}
	if st := mustCall(t, ctx, cs, "browser_status", nil); strings.Contains(st, "Emulating") {
		t.Errorf("browser_status after clear:\n%s", st)
	}
	body := mustFail(t, ctx, cs, "browser_emulate", map[string]any{"device": "Nokia 3310"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Hint, "iPhone 15") {
		t.Errorf("unknown device: %+v", body.Error)
	}
}

// browser_screencast through the server: start says what it records, stop
// names a GIF that decodes; a stop with nothing recorded is refused.
func TestScreencastTool(t *testing.T) {
	out := t.TempDir()
	cs := netClient(t, browser.Options{OutputDir: out})
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/cast/paint.html", "snapshot": "none"})
	if reply := mustCall(t, ctx, cs, "browser_screencast", map[string]any{"action": "start", "fps": 2}); !strings.HasPrefix(reply, "Recording tab t1: at most 2 frames a second, for at most 30 s") {
		t.Errorf("start: %s", reply)
	}
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#next", "snapshot": "none"})
	reply := mustCall(t, ctx, cs, "browser_screencast", map[string]any{"action": "stop"})
	m := regexp.MustCompile(`^Screencast of tab t1: (\d+) frames \(\d+ painted\) over [\d.]+ s, \d+×\d+ GIF, .+\nSaved to (\S+\.gif)$`).FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("stop: %s", reply)
	}
	f, err := os.Open(m[2])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if g, err := gif.DecodeAll(f); err != nil || fmt.Sprint(len(g.Image)) != m[1] {
		t.Errorf("the GIF %s: %v", m[2], err)
	}
	body := mustFail(t, ctx, cs, "browser_screencast", map[string]any{"action": "stop"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "not being recorded") {
		t.Errorf("a stop with nothing recorded: %+v", body.Error)
	}
}

// browser_storage through the server: a cookie set and listed (its value
// redacted), a local storage item read back, a state saved sealed with a
// declared secret and loaded again after clear.
func TestStorageTool(t *testing.T) {
	out := t.TempDir()
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_STATE_KEY=a long enough state key"})
	if err != nil {
		t.Fatal(err)
	}
	cs := secretClient(t, browser.Options{OutputDir: out}, sec)
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	force := os.Getenv("WEBPILOT_TEST_BACKEND") == "bridge"
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/storage/app.html", "snapshot": "none"})
	t.Cleanup(func() {
		mustCall(t, context.Background(), cs, "browser_navigate", map[string]any{"url": base + "/storage/app.html", "snapshot": "none"})
		call(t, context.Background(), cs, "browser_storage", map[string]any{"action": "clear", "force": force})
	})
	mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "cookies", "op": "set", "name": "sid", "value": "abc123"})
	mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "local", "op": "set", "name": "theme", "value": "dark"})
	if list := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "cookies"}); !strings.Contains(list, "\n- sid = <redacted, 6 chars> · 127.0.0.1/ · session") || strings.Contains(list, "abc123") {
		t.Errorf("cookies list:\n%s", list)
	}
	if got := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "local", "op": "get", "name": "theme"}); !strings.Contains(got, `- theme = "dark"`) {
		t.Errorf("local get:\n%s", got)
	}
	saved := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "state_save", "secret": "STATE_KEY", "force": force})
	m2 := regexp.MustCompile(`sealed with the secret "STATE_KEY"\)\.\nSaved to (\S+\.json)$`).FindStringSubmatch(saved)
	if m2 == nil {
		t.Fatalf("state_save:\n%s", saved)
	}
	mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "clear", "force": force})
	body := mustFail(t, ctx, cs, "browser_storage", map[string]any{"action": "state_load", "file": m2[1], "force": force}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Hint, `"secret": "STATE_KEY"`) {
		t.Errorf("a sealed state without its secret: %+v", body.Error)
	}
	loaded := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "state_load", "file": m2[1], "secret": "STATE_KEY", "force": force})
	if !strings.HasPrefix(loaded, `Loaded the storage state (sealed with the secret "STATE_KEY"): `) {
		t.Errorf("state_load:\n%s", loaded)
	}
	if snap := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/storage/app.html"}); !strings.Contains(snap, "Signed in as ada") || !strings.Contains(snap, "Theme: dark") {
		t.Errorf("after state_load the app says:\n%s", snap)
	}
}

// A login answered with --http-auth shows nowhere: not in the page's
// results, not in the network log even unredacted (the Basic header is
// masked as the secret).
func TestHTTPAuthNeverShown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ada" || p != "pw-Zq7Wx9Pk" {
			w.Header().Set("WWW-Authenticate", `Basic realm="intranet"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "<title>Intranet</title><h1>Welcome</h1>")
	}))
	t.Cleanup(srv.Close)
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_INTRA=ada:pw-Zq7Wx9Pk"})
	if err != nil {
		t.Fatal(err)
	}
	sec.MaskAlso("INTRA", "pw-Zq7Wx9Pk")
	origin, _ := browser.NormalizeOrigin(srv.URL)
	cs := secretClient(t, browser.Options{NoRedact: true,
		HTTPAuth: []browser.HTTPAuth{{Origin: origin, Secret: "INTRA", User: "ada", Password: "pw-Zq7Wx9Pk"}}}, sec)
	ctx := backendtest.Context(t, 60*time.Second)
	var outs []string
	outs = append(outs, mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"}))
	if !strings.Contains(outs[0], "Welcome") {
		t.Fatalf("navigate:\n%s", outs[0])
	}
	list := mustCall(t, ctx, cs, "browser_network", map[string]any{"filter": srv.URL})
	outs = append(outs, list)
	for _, id := range regexp.MustCompile(`(?m)^(n\d+) `).FindAllStringSubmatch(list, -1) {
		outs = append(outs, mustCall(t, ctx, cs, "browser_network", map[string]any{"action": "get", "id": id[1]}))
	}
	basic := base64.StdEncoding.EncodeToString([]byte("ada:pw-Zq7Wx9Pk"))
	for _, out := range outs {
		if strings.Contains(out, "Zq7Wx9Pk") || strings.Contains(out, basic) {
			t.Errorf("a result shows the login:\n%s", out)
		}
	}
}

// browser_route through the server: add says the route, the page gets
// the mocked answer, list counts its hits, remove all ends it.
func TestRouteTool(t *testing.T) {
	cs := netClient(t, browser.Options{})
	ctx := backendtest.Context(t, 60*time.Second)
	base := netServer(t)
	reply := mustCall(t, ctx, cs, "browser_route", map[string]any{"action": "add", "pattern": "*/api/items*", "fulfill": map[string]any{"status": 200, "body": `{"items": ["mocked"]}`, "headers": map[string]any{"Content-Type": "application/json"}}})
	if !strings.HasPrefix(reply, `Route r1 "*/api/items*" → fulfil 200 · 0 hit(s).`) {
		t.Errorf("add: %s", reply)
	}
	loadNetworkPage(t, ctx, cs, base)
	got := mustCall(t, ctx, cs, "browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "fetch('/api/items?page=9').then(r => r.text())", "awaitPromise": true, "returnByValue": true}})
	if !strings.Contains(got, `mocked`) {
		t.Errorf("the page's fetch got: %s", got)
	}
	if list := mustCall(t, ctx, cs, "browser_route", map[string]any{"action": "list"}); !regexp.MustCompile(`- r1 "\*/api/items\*" → fulfil 200 · [1-9]\d* hit\(s\)`).MatchString(list) {
		t.Errorf("list: %s", list)
	}
	mustFail(t, ctx, cs, "browser_route", map[string]any{"action": "remove"}, "INVALID_ARGUMENT")
	if reply := mustCall(t, ctx, cs, "browser_route", map[string]any{"action": "remove", "id": "all"}); reply != "Removed 1 route(s); 0 left." {
		t.Errorf("remove all: %s", reply)
	}
}

// browser_tabs' context argument is the contexts group's: the core
// profile neither shows nor takes it; the full profile opens a tab in a
// named context and lists it.
func TestTabsContextArgument(t *testing.T) {
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t)})
	t.Cleanup(func() {
		for _, name := range m.SessionNames() {
			_ = m.Session(name).Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	ctx := backendtest.Context(t, 60*time.Second)
	hasContext := func(cs *mcp.ClientSession) bool {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range list.Tools {
			if tl.Name == "browser_tabs" {
				b, _ := json.Marshal(tl.InputSchema)
				return strings.Contains(string(b), `"context"`)
			}
		}
		t.Fatal("no browser_tabs")
		return false
	}
	core := connect(t, &tools.Deps{Manager: m})
	if hasContext(core) {
		t.Error("the core profile's browser_tabs shows context")
	}
	body := mustFail(t, ctx, core, "browser_tabs", map[string]any{"action": "new", "context": "alice"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, `argument "context" of browser_tabs is off`) || !strings.Contains(body.Error.Hint, "--caps +contexts") {
		t.Errorf("context in the core profile: %+v", body.Error)
	}
	full := connectFull(t, &tools.Deps{Manager: m})
	if !hasContext(full) {
		t.Error("the full profile's browser_tabs lacks context")
	}
	out, isErr := call(t, ctx, full, "browser_tabs", map[string]any{"action": "new", "context": "alice", "session": "ctx-test"})
	if os.Getenv("WEBPILOT_TEST_BACKEND") == "bridge" {
		if !isErr || !strings.Contains(out, "cannot open browser contexts") {
			t.Errorf("a context through the extension: %s", out)
		}
		return
	}
	if isErr || !strings.HasPrefix(out, `Opened tab t1 in context "alice" (now current).`) {
		t.Fatalf("new in a context: %s", out)
	}
	if list := mustCall(t, ctx, full, "browser_tabs", map[string]any{"session": "ctx-test"}); !strings.Contains(list, "(context alice)") {
		t.Errorf("list: %s", list)
	}
}

// secretClient is netClient with the declared secrets sec (the full
// profile with caps, when given).
func secretClient(t *testing.T, opts browser.Options, sec *secrets.Set, caps ...string) *mcp.ClientSession {
	t.Helper()
	opts.Backend = backendtest.Shared(t)
	m := browser.NewManager(opts)
	t.Cleanup(func() {
		for _, name := range m.SessionNames() {
			_ = m.Session(name).Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	sel, _ := tools.Select(tools.ProfileFull, strings.Join(caps, ","))
	return connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m, Secrets: sec, TraceMask: sec.Mask}}, nil, "")
}
