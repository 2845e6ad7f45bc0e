package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// codeRe finds the pairing code pair prints, with the port it may carry.
var codeRe = regexp.MustCompile(`Pairing code: ([A-Z0-9]{4}-[A-Z0-9]{4})(@\d+)?\n`)

// startPair runs `webpilot pair args...` in this process and returns the
// code it prints (the part before any "@port"), the port suffix ("" or
// "@N"), its output so far and the channel of its end.
func startPair(t *testing.T, ctx context.Context, args ...string) (code, suffix string, out *syncWriter, done <-chan error, errb *syncWriter) {
	t.Helper()
	out, errb = &syncWriter{}, &syncWriter{}
	ch := make(chan error, 1)
	go func() { ch <- run(ctx, append([]string{"pair"}, args...), nil, out, errb) }()
	for {
		if m := codeRe.FindStringSubmatch(out.String()); m != nil {
			return m[1], m[2], out, ch, errb
		}
		select {
		case err := <-ch:
			t.Fatalf("pair %v ended early: %v\n%s%s", args, err, out, errb)
		case <-ctx.Done():
			t.Fatalf("pair %v printed no code: %v\n%s%s", args, ctx.Err(), out, errb)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// presentCode pairs over the bridge protocol on port as the extension
// does: the code without its port, in the pair message, after the
// challenge.
func presentCode(t *testing.T, ctx context.Context, port int, code string) {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/bridge", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {extension.Origin}}})
	if err != nil {
		t.Fatalf("dial the bridge port %d: %v", port, err)
	}
	defer c.CloseNow()
	if _, _, err := c.Read(ctx); err != nil { // the challenge
		t.Fatal(err)
	}
	msg, _ := json.Marshal(map[string]any{"type": "pair", "protocol": extension.ProtocolVersion, "code": code, "profile_id": "p", "extension_version": extension.Version})
	if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
		t.Fatal(err)
	}
	if _, data, err := c.Read(ctx); err != nil || !strings.Contains(string(data), `"paired"`) {
		t.Fatalf("pair reply %s, %v", data, err)
	}
}

// `webpilot pair` on a bridge port other than the default prints a code
// that carries the port (CODE@PORT) and says what the user must do: type
// it whole, and give webpilot the same port; the port comes from
// --bridge-port, WEBPILOT_BRIDGE_PORT or .webpilot.json, as for every
// command. The code the extension presents is the part before "@".
func TestPairCodeCarriesTheBridgePort(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, port int) []string
	}{
		{"flag", func(t *testing.T, port int) []string { return []string{"--bridge-port", strconv.Itoa(port)} }},
		{"env", func(t *testing.T, port int) []string {
			t.Setenv("WEBPILOT_BRIDGE_PORT", strconv.Itoa(port))
			return nil
		}},
		{"file", func(t *testing.T, port int) []string {
			if err := os.WriteFile(".webpilot.json", fmt.Appendf(nil, `{"bridge_port": %d}`, port), 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{"flag over env", func(t *testing.T, port int) []string {
			t.Setenv("WEBPILOT_BRIDGE_PORT", "1")
			return []string{"--bridge-port", strconv.Itoa(port)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cliEnv(t)
			port := freePort(t)
			args := tc.setup(t, port)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code, suffix, out, done, errb := startPair(t, ctx, args...)
			if want := "@" + strconv.Itoa(port); suffix != want {
				t.Fatalf("the code's port is %q, want %q:\n%s", suffix, want, out)
			}
			for _, want := range []string{
				fmt.Sprintf("Pairing code: %s@%d\n", code, port),
				fmt.Sprintf("The bridge port is %d, not the default %d: type the code whole, \"@%d\" included", port, bridge.DefaultPort, port),
				fmt.Sprintf("(or type %s and put %d in the popup's \"Advanced: bridge port\")", code, port),
				fmt.Sprintf("dials it from then on; its popup shows \"Port %d\"", port),
				fmt.Sprintf("--bridge-port %d in your MCP client's command (or WEBPILOT_BRIDGE_PORT=%d", port, port),
				"The code is valid for 5m0s",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("pair's output lacks %q:\n%s", want, out)
				}
			}
			presentCode(t, ctx, port, strings.ToLower(code))
			if err := <-done; err != nil {
				t.Fatalf("pair: %v\n%s", err, errb)
			}
			if want := fmt.Sprintf("the next MCP client that starts webpilot with --bridge-port %d (backend auto)", port); !strings.Contains(out.String(), want) {
				t.Errorf("pair's last words lack %q:\n%s", want, out)
			}
			if secret, err := readSecret(); err != nil || len(secret) != 32 {
				t.Errorf("readSecret = %d bytes, %v", len(secret), err)
			}
		})
	}
}

// On the default port the code and the words are as they always were: no
// port in the code, nothing about ports.
func TestPairCodeOnTheDefaultPort(t *testing.T) {
	if got := pairingCode("K7Q4-M2XD", bridge.DefaultPort); got != "K7Q4-M2XD" {
		t.Errorf("pairingCode on the default port = %q", got)
	}
	if got := pairingCode("K7Q4-M2XD", 47318); got != "K7Q4-M2XD@47318" {
		t.Errorf("pairingCode on 47318 = %q", got)
	}
	if got := pairCommand(bridge.DefaultPort); got != "webpilot pair" {
		t.Errorf("pairCommand on the default port = %q", got)
	}
	if got := pairCommand(47318); got != "webpilot pair --bridge-port 47318" {
		t.Errorf("pairCommand on 47318 = %q", got)
	}
	var b bytes.Buffer
	printCode(&b, "K7Q4-M2XD", bridge.DefaultPort)
	out := b.String()
	if !strings.HasPrefix(out, "Pairing code: K7Q4-M2XD\n\nIn Chrome, click the webpilot extension's icon, type this code and press Pair.\n(No extension yet?") {
		t.Errorf("printCode on the default port:\n%s", out)
	}
	if strings.Contains(out, "@") || strings.Contains(out, "port") {
		t.Errorf("printCode on the default port speaks of ports:\n%s", out)
	}
}

// A port that is not one is a usage error, naming where it came from.
func TestPairBadBridgePort(t *testing.T) {
	cliEnv(t)
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--bridge-port", "0"}, "", `--bridge-port: "0" is not a port number`},
		{[]string{"--bridge-port", "70000"}, "", `--bridge-port: "70000" is not a port number`},
		{nil, "http", `WEBPILOT_BRIDGE_PORT: "http" is not a port number`},
	} {
		t.Setenv("WEBPILOT_BRIDGE_PORT", tc.env)
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"pair"}, tc.args...), nil, &out, &errb)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("pair %v (env %q) = %v, want a usage error with %q", tc.args, tc.env, err, tc.want)
		}
		if strings.Contains(out.String(), "Pairing code") {
			t.Errorf("pair %v printed a code:\n%s", tc.args, out.String())
		}
	}
}

// The real extension, in a headless Chromium that dials the default port
// (a fresh install), pairs with `webpilot pair --bridge-port N` through its
// popup: the code typed whole, "@N" included. The popup says so, the
// extension stores the port with the secret, and its reconnect loop dials
// port N from then on: a webpilot that listens there later with the
// secret gets the extension, and the popup shows port N, connected.
func TestPairOnAnotherPortConnectsTheExtension(t *testing.T) {
	skipShort(t)
	cliEnv(t)
	ctx := backendtest.Context(t, 180*time.Second)
	port := freePort(t)

	chrome, stop, err := backendtest.ExtensionBrowser(ctx, bridge.DefaultPort)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	popup := openPopup(t, ctx, chrome)
	popup.waitFor(t, ctx, `document.getElementById("port").textContent`, `"47218"`)

	code, suffix, out, done, errb := startPair(t, ctx, "--bridge-port", strconv.Itoa(port))
	typed := code + suffix
	if suffix != "@"+strconv.Itoa(port) {
		t.Fatalf("the code %q does not carry the port %d:\n%s", typed, port, out)
	}
	popup.eval(t, ctx, fmt.Sprintf(`(() => { document.getElementById("code").value = %q; document.getElementById("pair").click(); return true; })()`, typed))
	popup.waitFor(t, ctx, `document.getElementById("result").textContent`,
		fmt.Sprintf("%q", fmt.Sprintf("Paired on port %d: the extension dials it from now on.", port)))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("pair: %v\n%s%s", err, out, errb)
		}
	case <-ctx.Done():
		t.Fatalf("pair did not end after the popup paired:\n%s%s", out, errb)
	}
	secret, err := readSecret()
	if err != nil || len(secret) != 32 {
		t.Fatalf("readSecret = %d bytes, %v", len(secret), err)
	}

	// pair's listener is gone: the extension retries, on port N. A
	// webpilot that listens there with the secret gets it.
	srv, err := bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), ExtensionIDs: extension.IDs(), Secret: secret, ServerVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// (its retries back off to the worker's 30 s alarm)
	wait, cancel := context.WithTimeout(ctx, backendtest.Timeout(90*time.Second))
	defer cancel()
	if _, err := srv.Relay(wait, ""); err != nil {
		t.Fatalf("the extension did not connect to port %d after pairing there: %v (refusals %d)", port, err, srv.Refusals())
	}
	if srv.Refusals() != 0 {
		t.Errorf("the extension was refused %d times on port %d", srv.Refusals(), port)
	}
	popup.waitFor(t, ctx, `document.getElementById("state").textContent`, `"Connected"`)
	popup.waitFor(t, ctx, `document.getElementById("port").textContent`, fmt.Sprintf("%q", fmt.Sprintf("%d (not the default %d)", port, bridge.DefaultPort)))
	if res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "status"}); err != nil || !strings.Contains(res, fmt.Sprintf(`"port":%d`, port)) || !strings.Contains(res, `"state":"connected"`) {
		t.Errorf("the worker's status after pairing on port %d: %s %v", port, res, err)
	}
}

// popupPage is the extension's popup opened in a tab of a browser, with a
// debugging session on it.
type popupPage struct {
	s *cdp.Session
}

func openPopup(t *testing.T, ctx context.Context, br *launch.Backend) *popupPage {
	t.Helper()
	bs, err := br.BrowserSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := bs.Call(ctx, "Target.createTarget", map[string]any{"url": extension.Origin + "/popup.html"}, &created); err != nil {
		t.Fatalf("open the extension's popup: %v", err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &att); err != nil {
		t.Fatalf("attach to the extension's popup: %v", err)
	}
	return &popupPage{s: bs.Conn().Session(att.SessionID)}
}

// eval evaluates expr in the popup and returns its value as JSON.
func (p *popupPage) eval(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	v, err := backendtest.EvalIn(ctx, p.s, expr)
	if err != nil {
		t.Fatalf("evaluate %s in the popup: %v", expr, err)
	}
	return v
}

// waitFor waits until expr's value (JSON) is want.
func (p *popupPage) waitFor(t *testing.T, ctx context.Context, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
	var got string
	for time.Now().Before(deadline) {
		if v, err := backendtest.EvalIn(ctx, p.s, expr); err == nil {
			if got = v; got == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("in the popup, %s is %s, want %s", expr, got, want)
}
