package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// secretValue has the characters every encoding changes.
const secretValue = `pa55!&"<>word`

// secretForms are the ways the value could leak into a result.
func secretForms() []string {
	js, _ := json.Marshal(secretValue)
	twice, _ := json.Marshal(string(js))
	return []string{secretValue, string(twice[1 : len(twice)-1]), `pa55!&\\\"<>word`, url.QueryEscape(secretValue), url.PathEscape(secretValue), string(js[1 : len(js)-1]),
		strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(js[1 : len(js)-1])),
		html.EscapeString(secretValue), "pa55!&amp;&quot;&lt;&gt;word", "pa55!%26%22%3C%3Eword"}
}

// loginServer is a login page whose form posts the password (urlencoded)
// and whose "API" button sends it as JSON; the server keeps what arrived.
func loginServer(t *testing.T) (string, func() []string) {
	var mu sync.Mutex
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, string(body))
			mu.Unlock()
			v, _ := url.ParseQuery(string(body))
			// The page shows the password back, as careless sites do.
			fmt.Fprintf(w, `<title>Welcome</title><h1>Welcome</h1><p id="echo" title="%s">You typed %s</p>`, html.EscapeString(v.Get("pw")), html.EscapeString(v.Get("pw")))
			return
		}
		fmt.Fprint(w, `<title>Sign in</title><form method="post" action="/login"><label>User <input name="user" value="ada"></label>
			<label>Password <input id="pw" name="pw" type="password"></label><button id="go">Sign in</button></form>
			<button id="api" onclick="fetch('/api', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({pw: document.getElementById('pw').value})})">API</button>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok": true, "echo": %s}`, body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A secret typed by name reaches the page and the server, but no tool
// result shows it in any encoding: the action's read-back, a snapshot, a
// read of the value, an eval, the network bodies of the form post and of a
// JSON request, a failed flow step's page capture, the log. A secret
// limited to another origin is refused; an unknown name lists the known
// names, never a value.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	base, received := loginServer(t)
	file := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(file, []byte("# test secrets\nPW="+secretValue+"\nBANK@https://bank.example="+secretValue+"-bank\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sec, err := secrets.Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(sec.Handler(slog.NewTextHandler(lockedWriter{&logMu, &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t), Logger: logger})
	sel, _ := tools.Select(tools.ProfileFull, "")
	traceDir := t.TempDir()
	rec := trace.New(trace.Options{Dir: traceDir, Mask: sec.Mask})
	cs := connectServer(t, mcpserver.Options{Tools: sel, Logger: logger, Deps: &tools.Deps{Manager: m, Secrets: sec, Logger: logger, Trace: rec, TraceMask: sec.Mask}}, nil, "")
	ctx := backendtest.Context(t, 90*time.Second)
	t.Cleanup(func() {
		// The tabs only: the backend is shared with the other tests.
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})

	var results []string
	keep := func(out string) string {
		results = append(results, out)
		return out
	}
	do := func(tool string, args map[string]any) string { return keep(mustCall(t, ctx, cs, tool, args)) }
	fail := func(tool string, args map[string]any, code string) errorBody {
		out, isErr := call(t, ctx, cs, tool, args)
		keep(out)
		if !isErr || !strings.Contains(out, `"code":"`+code+`"`) {
			t.Errorf("%s %v: %s, want %s", tool, args, out, code)
		}
		var b errorBody
		_ = json.Unmarshal([]byte(out), &b)
		return b
	}

	do("browser_navigate", map[string]any{"url": base + "/login", "snapshot": "none"})
	// Refused before anything is typed.
	e := fail("browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "NOPE"}, "INVALID_ARGUMENT")
	if strings.Join(e.Error.Suggestions, ",") != "BANK,PW" {
		t.Errorf("unknown secret: suggestions %q, want the names BANK, PW", e.Error.Suggestions)
	}
	fail("browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "BANK"}, "ORIGIN_BLOCKED")
	fail("browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "PW", "value": "x"}, "INVALID_ARGUMENT")
	if v := do("browser_eval", map[string]any{"expression": "document.getElementById('pw').value.length"}); !strings.Contains(v, "0") {
		t.Errorf("a refused secret typed something: %s", v)
	}

	out := do("browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "PW"})
	if !strings.Contains(out, "<secret:PW>") {
		t.Errorf("the fill's read-back does not name the secret: %s", out)
	}
	// A password field prints as dots: the page prints.
	if out := do("browser_pdf", nil); !strings.Contains(out, "PDF of \"Sign in\"") {
		t.Errorf("browser_pdf with the secret in a password field: %s", out)
	}
	do("browser_snapshot", map[string]any{"mode": "full"})
	do("browser_read", map[string]any{"what": "value", "selector": "#pw"})
	for _, expr := range []string{"document.getElementById('pw').value", "encodeURIComponent(document.getElementById('pw').value)",
		"JSON.stringify({pw: document.getElementById('pw').value})", "(() => { const d = document.createElement('div'); d.title = document.getElementById('pw').value; d.textContent = d.title; return d.outerHTML })()"} {
		if v := do("browser_eval", map[string]any{"expression": expr}); !strings.Contains(v, "<secret:PW>") {
			t.Errorf("eval %s: %s", expr, v)
		}
	}
	do("browser_action", map[string]any{"action": "click", "selector": "#api"})
	do("browser_action", map[string]any{"action": "click", "selector": "#go"})
	do("browser_read", map[string]any{"what": "html"})
	list := do("browser_network", map[string]any{"filter": "/login", "method": "POST"})
	for _, l := range strings.Split(list, "\n") {
		if id, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(id, "n") {
			do("browser_network", map[string]any{"action": "get", "id": id})
		}
	}
	api := do("browser_network", map[string]any{"filter": "/api"})
	for _, l := range strings.Split(api, "\n") {
		if id, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(id, "n") {
			do("browser_network", map[string]any{"action": "get", "id": id})
		}
	}
	// A failed step: its page capture holds the page that shows the value.
	fail("browser_flow", map[string]any{"steps": []any{
		map[string]any{"do": "read", "selector": "#echo"},
		map[string]any{"do": "action", "action": "click", "selector": "#missing", "timeout_ms": 8000},
	}}, "TARGET_NOT_FOUND")

	// It reached the server, as typed.
	var form, jsonBody bool
	for _, b := range received() {
		v, _ := url.ParseQuery(b)
		form = form || v.Get("pw") == secretValue
		var j struct{ PW string }
		jsonBody = jsonBody || json.Unmarshal([]byte(b), &j) == nil && j.PW == secretValue
	}
	if !form || !jsonBody {
		t.Errorf("the server did not get the password as typed (form %v, json %v): %q", form, jsonBody, received())
	}
	// No result, nor the log, nor the session's trace holds it in any form.
	logMu.Lock()
	logText := logBuf.String()
	logMu.Unlock()
	traces, _ := filepath.Glob(filepath.Join(traceDir, "*.html"))
	if len(traces) != 1 {
		t.Fatalf("trace files %q, want the session's one", traces)
	}
	traceHTML, err := os.ReadFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(traceHTML), "&lt;secret:PW&gt;") {
		t.Errorf("the trace does not show the masked secret")
	}
	masked := 0
	for i, r := range append(results, logText, string(traceHTML)) {
		for _, f := range secretForms() {
			if strings.Contains(r, f) {
				t.Errorf("result %d holds the secret as %q:\n%s", i, f, r)
			}
		}
		masked += strings.Count(r, "<secret:PW>")
	}
	if masked < 8 {
		t.Errorf("the secret was masked %d times in the results; the test reads it more often than that, so a read went unseen", masked)
	}
}

// A recipe parameter given as {"secret": "NAME"} is typed as that secret
// (masked in the run's output and trace), and refused where it would not
// be typed (in a URL).
func TestSecretRecipeParam(t *testing.T) {
	t.Parallel()
	base, received := loginServer(t)
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_PW=" + secretValue})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := recipeClient(t, tools.Deps{Secrets: sec})
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "recipe_save", map[string]any{"name": "login", "site": "127.0.0.1",
		"params": map[string]any{"pw": map[string]any{"value": "placeholder-pw"}, "who": map[string]any{"value": "ada"}},
		"steps": []any{
			map[string]any{"do": "navigate", "url": base + "/login?u=ada", "snapshot": "none"},
			map[string]any{"do": "action", "action": "fill", "selector": "#pw", "value": "placeholder-pw", "snapshot": "none"},
			map[string]any{"do": "read", "what": "value", "selector": "#pw", "save_as": "typed"},
			map[string]any{"do": "action", "action": "click", "selector": "#go", "snapshot": "none"},
		}, "output": []any{"typed"}})
	out := mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "login", "params": map[string]any{"pw": map[string]any{"secret": "PW"}}})
	if !strings.Contains(out, "typed: <secret:PW>") {
		t.Errorf("the run's output:\n%s", out)
	}
	for _, f := range secretForms() {
		if strings.Contains(out, f) {
			t.Errorf("the run shows the secret as %q:\n%s", f, out)
		}
	}
	got := false
	for _, b := range received() {
		v, _ := url.ParseQuery(b)
		got = got || v.Get("pw") == secretValue
	}
	if !got {
		t.Errorf("the secret did not reach the server: %q", received())
	}
	mustFail(t, ctx, cs, "recipe_run", map[string]any{"name": "login", "params": map[string]any{"pw": "x-plain", "who": map[string]any{"secret": "PW"}}}, "INVALID_ARGUMENT")
}

// A secret is masked before any line is cut, in every case it may be
// shown: a page that copies it into a long line (the compact snapshot and
// the diff cut such lines), shows it upper-cased (text-transform), or holds
// it in a field an agent searches with a pattern. No result, nor the trace,
// holds any part of it; a find cannot probe it.
func TestSecretsNeverPartlyShown(t *testing.T) {
	t.Parallel()
	const token = "Zq7Wx9Pk3Lm5Rt8Yv2Nb"
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Copy</title><label>Token <input id="tok" type="text"></label>
<pre id="copy"></pre><p id="loud" style="text-transform: uppercase"></p>
<script>document.getElementById("tok").addEventListener("input", e => {
  document.getElementById("copy").textContent = "x".repeat(38) + e.target.value + "y".repeat(40);
  document.getElementById("loud").textContent = "your token: " + e.target.value;
});</script>`)
	}))
	t.Cleanup(page.Close)
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_TOKEN=" + token})
	if err != nil {
		t.Fatal(err)
	}
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t)})
	sel, _ := tools.Select(tools.ProfileFull, "")
	traceDir := t.TempDir()
	rec := trace.New(trace.Options{Dir: traceDir, Mask: sec.Mask})
	cs := connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m, Secrets: sec, Trace: rec, TraceMask: sec.Mask}}, nil, "")
	ctx := backendtest.Context(t, 90*time.Second)
	t.Cleanup(func() {
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	var outs []string
	do := func(tool string, args map[string]any) string {
		out, _ := call(t, ctx, cs, tool, args)
		outs = append(outs, out)
		return out
	}
	do("browser_navigate", map[string]any{"url": page.URL + "/"})
	diff := do("browser_action", map[string]any{"action": "fill", "selector": "#tok", "secret": "TOKEN"})
	if !strings.Contains(diff, "<secret:TOKEN>") {
		t.Errorf("the diff does not show the masked copy:\n%s", diff)
	}
	do("browser_snapshot", nil)
	do("browser_snapshot", map[string]any{"mode": "full"})
	do("browser_read", map[string]any{"what": "text", "max_chars": 60})
	do("browser_read", map[string]any{"what": "text", "max_chars": 60, "offset": 45})
	do("browser_wait", map[string]any{"conditions": []any{map[string]any{"text": "never shown"}}, "timeout_ms": 300})
	for _, p := range []string{"/^Zq7/", "/Zq7W/i", "/ZQ7W/"} {
		if out := do("browser_find", map[string]any{"text": p}); !strings.Contains(out, "# 0 match") {
			t.Errorf("find %s probes the secret:\n%s", p, out)
		}
	}
	// A screenshot paints the field, and the text that copies it, over.
	box := do("browser_eval", map[string]any{"expression": `(() => { const r = document.getElementById("tok").getBoundingClientRect(); return [r.left, r.top, r.width, r.height, devicePixelRatio].join(",") })()`})
	var bx, by, bw, bh, dpr float64
	if _, err := fmt.Sscanf(strings.Trim(box[strings.LastIndex(box, "\n")+1:], `"`), "%g,%g,%g,%g,%g", &bx, &by, &bw, &bh, &dpr); err != nil {
		t.Fatalf("the field's box: %v in %q", err, box)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{"format": "png"}})
	if err != nil || res.IsError || len(images(res)) != 1 {
		t.Fatalf("screenshot: %v %s", err, text(res))
	}
	outs = append(outs, text(res))
	if !strings.Contains(text(res), "declared secret are painted grey") {
		t.Errorf("the screenshot does not say what it painted over:\n%s", text(res))
	}
	img, err := png.Decode(bytes.NewReader(images(res)[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	for y := int((by + 2) * dpr); y < int((by+bh-2)*dpr); y++ {
		for x := int((bx + 2) * dpr); x < int((bx+bw-2)*dpr); x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 != 0x80 || g>>8 != 0x80 || b>>8 != 0x80 {
				t.Fatalf("pixel %d,%d of the field holding the secret is %d,%d,%d, not blanked", x, y, r>>8, g>>8, b>>8)
			}
		}
	}
	// A PDF cannot be painted over: it is refused while the page shows
	// the secret. Raw CDP's results are masked like every result.
	if out := do("browser_pdf", nil); !strings.Contains(out, "INVALID_ARGUMENT") || !strings.Contains(out, "declared secret") {
		t.Errorf("browser_pdf of a page showing a secret:\n%s", out)
	}
	if out := do("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": `document.getElementById("tok").value`, "returnByValue": true}}); !strings.Contains(out, "<secret:TOKEN>") {
		t.Errorf("browser_cdp reading the field:\n%s", out)
	}
	// Any 6 characters of the secret, in either case, anywhere.
	var parts []string
	for i := 0; i+6 <= len(token); i += 3 {
		parts = append(parts, token[i:i+6], strings.ToUpper(token[i:i+6]), strings.ToLower(token[i:i+6]))
	}
	files, _ := filepath.Glob(filepath.Join(traceDir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		outs = append(outs, string(b))
	}
	for _, out := range outs {
		for _, p := range parts {
			if strings.Contains(out, p) {
				t.Errorf("a result holds %q of the secret:\n%.600s", p, out)
				break
			}
		}
	}
}

// A recipe stores no password (issue 28, 5): saving a flow that filled a
// password field with a written value is refused with how to declare it;
// named as a parameter it keeps no default; filled from a declared secret
// it is saved as the secret's name, and runs with it.
func TestRecipeKeepsNoPassword(t *testing.T) {
	t.Parallel()
	base, received := loginServer(t)
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_PW=" + secretValue})
	if err != nil {
		t.Fatal(err)
	}
	cs, store := recipeClient(t, tools.Deps{Secrets: sec})
	ctx := backendtest.Context(t, 60*time.Second)
	flow := func(fill map[string]any) {
		t.Helper()
		mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{
			map[string]any{"do": "navigate", "url": base + "/login", "snapshot": "none"},
			fill,
			map[string]any{"do": "action", "action": "click", "selector": "#go", "snapshot": "none"},
		}})
	}
	grepStore := func(what string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(store.UserDir, "*"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), what) {
				t.Errorf("%s holds %q:\n%s", f, what, b)
			}
		}
	}
	// Written in the step: refused.
	flow(map[string]any{"do": "action", "action": "fill", "selector": "#pw", "value": "hunter2-plain", "snapshot": "none"})
	body := mustFail(t, ctx, cs, "recipe_save", map[string]any{"name": "login-plain"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "password field") || !strings.Contains(body.Error.Hint, `{"secret": "NAME"}`) {
		t.Errorf("refusal: %+v", body.Error)
	}
	// Named as a parameter: saved without the value, asked for at each run.
	out := mustCall(t, ctx, cs, "recipe_save", map[string]any{"name": "login-param", "params": map[string]any{"password": map[string]any{"value": "hunter2-plain"}}})
	if strings.Contains(out, "hunter2-plain") {
		t.Errorf("recipe_save shows the password:\n%s", out)
	}
	if list := mustCall(t, ctx, cs, "recipe_list", map[string]any{}); strings.Contains(list, "hunter2-plain") {
		t.Errorf("recipe_list shows the password:\n%s", list)
	}
	mustFail(t, ctx, cs, "recipe_run", map[string]any{"name": "login-param"}, "INVALID_ARGUMENT")
	// From a declared secret: saved as its name, and it runs.
	flow(map[string]any{"do": "action", "action": "fill", "selector": "#pw", "secret": "PW", "snapshot": "none"})
	mustCall(t, ctx, cs, "recipe_save", map[string]any{"name": "login-secret"})
	mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "login-secret"})
	grepStore("hunter2-plain")
	grepStore(secretValue)
	n := 0
	for _, b := range received() {
		if v, _ := url.ParseQuery(b); v.Get("pw") == secretValue {
			n++
		}
	}
	if n < 2 {
		t.Errorf("the secret reached the server %d times, want the flow's and the run's", n)
	}
}
