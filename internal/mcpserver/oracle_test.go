package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// No matcher is an oracle on a declared secret (issue 47, 2): with the
// secret typed into a password field that the page also echoes as text
// in two halves,
// every matcher an agent can aim at the page — collect's exclude on the
// field's value, wait text and regex, a text target, an action's expect,
// find — answers the same for the secret's true first characters as for
// wrong ones, so the secret cannot be read back one character at a time.
// The masked form itself still matches: the agent may wait for
// <secret:TOKEN>.
func TestNoOracleOnSecrets(t *testing.T) {
	t.Parallel()
	const token = "Zq7Wx9Pk3Lm5Rt8Yv2Nb"
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Sign in</title><label>Password <input id="pw" type="password"></label>
<p>Strength of <span id="echo"></span> | <span id="echo2"></span></p><button id="go">Go</button>
<script>document.getElementById("pw").addEventListener("input", e => {
  document.getElementById("echo").textContent = e.target.value.slice(0, 10);
  document.getElementById("echo2").textContent = e.target.value.slice(10);
});</script>`)
	}))
	t.Cleanup(page.Close)
	cs := secretClient(t, browser.Options{}, loadSecrets(t, "WEBPILOT_SECRET_TOKEN="+token), "-eval")
	ctx := backendtest.Context(t, 120*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page.URL + "/", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "TOKEN", "snapshot": "none"})

	right, wrong := token[:3], "Xy9"
	probes := []struct {
		name string
		tool string
		args func(guess string) map[string]any
		// leaks says the answer shows a match
		leaks func(out string, isErr bool) bool
	}{
		{"collect exclude on the value", "browser_collect", func(g string) map[string]any {
			return map[string]any{"selector": "#pw", "fields": []any{map[string]any{"name": "v", "property": "value"}}, "exclude": map[string]any{"v": "^" + g}}
		}, func(out string, _ bool) bool { return strings.Contains(out, "excluded") }},
		{"collect exclude on the echo", "browser_collect", func(g string) map[string]any {
			return map[string]any{"selector": "#echo", "exclude": map[string]any{"text": "(?i)" + g}}
		}, func(out string, _ bool) bool { return strings.Contains(out, "excluded") }},
		{"wait for a regex", "browser_wait", func(g string) map[string]any {
			return map[string]any{"conditions": []any{map[string]any{"text": "/^" + g + "/"}}, "timeout_ms": 300}
		}, func(_ string, isErr bool) bool { return !isErr }},
		{"wait for text", "browser_wait", func(g string) map[string]any {
			return map[string]any{"conditions": []any{map[string]any{"text": "of " + g}}, "timeout_ms": 300}
		}, func(_ string, isErr bool) bool { return !isErr }},
		{"wait for text attached", "browser_wait", func(g string) map[string]any {
			return map[string]any{"conditions": []any{map[string]any{"text": g, "state": "attached"}}, "timeout_ms": 300}
		}, func(_ string, isErr bool) bool { return !isErr }},
		{"a text target", "browser_action", func(g string) map[string]any {
			return map[string]any{"action": "hover", "text": g, "timeout_ms": 300, "snapshot": "none"}
		}, func(_ string, isErr bool) bool { return !isErr }},
		{"a regex target", "browser_action", func(g string) map[string]any {
			return map[string]any{"action": "hover", "text": "/" + g + "/i", "timeout_ms": 300, "snapshot": "none"}
		}, func(_ string, isErr bool) bool { return !isErr }},
		{"an expect", "browser_action", func(g string) map[string]any {
			return map[string]any{"action": "hover", "selector": "#go", "expect": map[string]any{"text": "/Strength of " + g + "/"}, "timeout_ms": 500, "snapshot": "none"}
		}, func(out string, _ bool) bool { return strings.Contains(out, "verified") }},
		{"find", "browser_find", func(g string) map[string]any {
			return map[string]any{"text": "/" + g + "/"}
		}, func(out string, _ bool) bool { return !strings.Contains(out, "# 0 match") }},
	}
	for _, p := range probes {
		outR, errR := call(t, ctx, cs, p.tool, p.args(right))
		outW, errW := call(t, ctx, cs, p.tool, p.args(wrong))
		if p.leaks(outR, errR) || p.leaks(outW, errW) {
			t.Errorf("%s: the secret's first characters match:\nright guess: %s\nwrong guess: %s", p.name, outR, outW)
		}
		if strings.Contains(outR, token[:6]) {
			t.Errorf("%s: the result holds the secret:\n%s", p.name, outR)
		}
	}
	// The masked form is what the page shows to every matcher.
	mustCall(t, ctx, cs, "browser_wait", map[string]any{"conditions": []any{map[string]any{"text": "Strength of <secret:TOKEN> | <secret:TOKEN>"}}, "timeout_ms": 5000})
	// and what the snapshot shows (the halves masked as the secret).
	if snap := mustCall(t, ctx, cs, "browser_snapshot", nil); !strings.Contains(snap, "Strength of <secret:TOKEN> | <secret:TOKEN>") || strings.Contains(snap, token[:7]) || strings.Contains(snap, token[10:17]) {
		t.Errorf("the snapshot of a secret shown in halves:\n%s", snap)
	}
	if out := mustCall(t, ctx, cs, "browser_collect", map[string]any{"selector": "#echo", "exclude": map[string]any{"text": "secret:TOKEN"}}); !strings.Contains(out, "excluded") {
		t.Errorf("collect's exclude does not see the masked value:\n%s", out)
	}
}

// No file webpilot writes holds a declared secret (issue 47, 3): a page
// that shows the typed secret split across two spans, as generated content
// and in a same-origin frame is not printed to a PDF; a screencast is not
// recorded while secrets are declared; a state file written in plain keeps
// the cookie and local storage item that hold it masked, and says so.
func TestNoSecretInFiles(t *testing.T) {
	t.Parallel()
	const token = "Zq7Wx9Pk3Lm5Rt8Yv2Nb"
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/frame":
			fmt.Fprint(w, `<p id="f"></p>`)
		case "/pseudo":
			fmt.Fprint(w, `<style>#p::after { content: attr(data-v) }</style><input id="pw" type="password"><span id="p"></span>
<script>document.getElementById("pw").addEventListener("input", e => document.getElementById("p").dataset.v = e.target.value.slice(4, 14));</script>`)
		case "/frames":
			fmt.Fprint(w, `<input id="pw" type="password"><iframe src="/frame"></iframe>
<script>document.getElementById("pw").addEventListener("input", e => { document.querySelector("iframe").contentDocument.getElementById("f").textContent = e.target.value.slice(6); });</script>`)
		default:
			fmt.Fprint(w, `<title>Split</title><input id="pw" type="password"><p><span id="a"></span> | <span id="b"></span></p>
<script>document.getElementById("pw").addEventListener("input", e => {
  const v = e.target.value;
  document.getElementById("a").textContent = v.slice(0, 10);
  document.getElementById("b").textContent = v.slice(10);
  localStorage.setItem("remember", v);
  document.cookie = "tok=" + v + "; path=/";
});</script>`)
		}
	}))
	t.Cleanup(page.Close)
	out := t.TempDir()
	cs := secretClient(t, browser.Options{OutputDir: out}, loadSecrets(t, "WEBPILOT_SECRET_TOKEN="+token))
	ctx := backendtest.Context(t, 120*time.Second)
	for _, path := range []string{"/", "/pseudo", "/frames"} {
		mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page.URL + path, "snapshot": "none"})
		mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "TOKEN", "snapshot": "none"})
		body := mustFail(t, ctx, cs, "browser_pdf", nil, "INVALID_ARGUMENT")
		if !strings.Contains(body.Error.Message, "declared secret") {
			t.Errorf("%s: browser_pdf refused with %q", path, body.Error.Message)
		}
	}
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page.URL + "/", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "TOKEN", "snapshot": "none"})
	if body := mustFail(t, ctx, cs, "browser_screencast", map[string]any{"action": "start"}, "INVALID_ARGUMENT"); !strings.Contains(body.Error.Hint, "browser_screenshot") {
		t.Errorf("browser_screencast start: %+v", body)
	}
	saved := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "state_save", "force": true})
	if !strings.Contains(saved, "saved masked") || !strings.Contains(saved, "cookie tok") || !strings.Contains(saved, "local storage remember") {
		t.Errorf("state_save does not say what it masked:\n%s", saved)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(out, "*.json"))
	files = append(files, more...)
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"remember"`) {
			continue
		}
		found = true
		if strings.Contains(string(b), token[:7]) || !strings.Contains(string(b), `\u003csecret:TOKEN\u003e`) {
			t.Errorf("the state file %s holds the secret or no mask:\n%s", f, b)
		}
	}
	if !found {
		t.Errorf("no state file among %v", files)
	}
	// Loaded back, the masked values are skipped, not set as they read.
	i := strings.Index(saved, "Saved to ")
	path := strings.TrimSpace(strings.SplitN(saved[i+len("Saved to "):], "\n", 2)[0])
	if out := mustCall(t, ctx, cs, "browser_storage", map[string]any{"action": "state_load", "file": path, "force": true}); !strings.Contains(out, "cookie tok") || !strings.Contains(out, "saved masked") {
		t.Errorf("state_load of a file with masked values:\n%s", out)
	}
}

// Painting covers what the first painting missed (issue 47, 5): a secret
// split over two spans, shown in a same-origin frame, as generated
// content, and a canvas while the page holds one; and one-time-code boxes
// that each show a digit of a typed code show its mask in the snapshot.
func TestSecretsPaintedEverywhere(t *testing.T) {
	t.Parallel()
	const token, otp = "Zq7Wx9Pk3Lm5Rt8Yv2Nb", "482913"
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/frame":
			fmt.Fprint(w, `<body style="margin:0"><p id="f" style="margin:0;font:20px monospace"></p>`)
		case "/otp":
			fmt.Fprint(w, `<title>Code</title><label>Code <input id="c0" autocomplete="one-time-code"></label>
<input id="c1" maxlength="1"><input id="c2" maxlength="1"><input id="c3" maxlength="1"><input id="c4" maxlength="1"><input id="c5" maxlength="1">
<script>document.getElementById("c0").addEventListener("input", e => {
  const v = e.target.value; if (v.length < 2) return;
  for (let i = 0; i < 6; i++) document.getElementById("c" + i).value = v[i] || "";
});</script>`)
		default:
			fmt.Fprint(w, `<title>Paint</title><style>p, span, canvas { font: 20px monospace } #g::after { content: attr(data-v) }</style>
<input id="pw" type="password"><p id="split"><span id="a"></span><span id="b"></span></p><p id="g" data-v=""></p>
<iframe src="/frame" style="border:0;width:400px;height:40px"></iframe><canvas id="cv" width="300" height="40"></canvas>
<script>document.getElementById("pw").addEventListener("input", e => {
  const v = e.target.value;
  document.getElementById("a").textContent = v.slice(0, 10);
  document.getElementById("b").textContent = v.slice(10);
  document.getElementById("g").dataset.v = v.slice(3, 13);
  document.querySelector("iframe").contentDocument.getElementById("f").textContent = "key " + v.slice(5);
  const c = document.getElementById("cv").getContext("2d"); c.font = "20px monospace"; c.fillText(v, 2, 25);
});</script>`)
		}
	}))
	t.Cleanup(page.Close)
	cs := secretClient(t, browser.Options{}, loadSecrets(t, "WEBPILOT_SECRET_TOKEN="+token, "WEBPILOT_SECRET_OTP="+otp))
	ctx := backendtest.Context(t, 120*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page.URL + "/", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#pw", "secret": "TOKEN", "snapshot": "none"})
	// The centre of each box that shows the secret, in image pixels.
	boxes := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `(() => {
  const c = (r, dx, dy) => [Math.round((r.left + dx + r.width / 2) * devicePixelRatio), Math.round((r.top + dy + r.height / 2) * devicePixelRatio)];
  const f = document.querySelector("iframe"), fr = f.getBoundingClientRect(), inner = f.contentDocument.getElementById("f").getBoundingClientRect();
  return JSON.stringify({split: c(document.getElementById("split").getBoundingClientRect(), 0, 0), gen: c(document.getElementById("g").getBoundingClientRect(), 0, 0),
    frame: c(inner, fr.left, fr.top), canvas: c(document.getElementById("cv").getBoundingClientRect(), 0, 0)});
})()`})
	var at map[string][2]int
	raw := boxes[strings.LastIndex(boxes, "\n")+1:]
	if err := json.Unmarshal([]byte(strings.Trim(raw, `"`)), &at); err != nil {
		if s, uerr := strconv.Unquote(raw); uerr == nil {
			err = json.Unmarshal([]byte(s), &at)
		}
		if err != nil || len(at) != 4 {
			t.Fatalf("the boxes: %v in %q", err, boxes)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{"format": "png"}})
	if err != nil || res.IsError || len(images(res)) != 1 {
		t.Fatalf("screenshot: %v %s", err, text(res))
	}
	img, err := png.Decode(bytes.NewReader(images(res)[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range at {
		if r, g, b, _ := img.At(p[0], p[1]).RGBA(); r>>8 != 0x80 || g>>8 != 0x80 || b>>8 != 0x80 {
			t.Errorf("the %s box's centre (%d,%d) is %d,%d,%d, not painted over", name, p[0], p[1], r>>8, g>>8, b>>8)
		}
	}
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page.URL + "/otp", "snapshot": "none"})
	// (the first box keeps one digit: the fill fails its check, and says
	// so without the digit)
	body := mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#c0", "secret": "OTP", "snapshot": "none"}, "NOT_ACTIONABLE")
	if b, _ := json.Marshal(body); strings.Contains(string(b), `"actual":`) || strings.Contains(string(b), `\"4\"`) {
		t.Errorf("the fill's error shows a digit of the code: %s", b)
	}
	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "full"})
	if strings.Count(snap, "<secret:OTP>") < 6 {
		t.Errorf("the code boxes:\n%s", snap)
	}
	for _, d := range otp {
		if strings.Contains(snap, `= "`+string(d)+`"`) {
			t.Errorf("a box shows the digit %c:\n%s", d, snap)
		}
	}
}

// loadSecrets declares the secrets of environ (WEBPILOT_SECRET_NAME=value).
func loadSecrets(t *testing.T, environ ...string) *secrets.Set {
	t.Helper()
	sec, err := secrets.Load("", environ)
	if err != nil {
		t.Fatal(err)
	}
	return sec
}
