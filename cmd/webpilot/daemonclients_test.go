//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

// connectProxyArgs is connectProxy with the proxy's own arguments (after
// proxyArgs) and environment.
func connectProxyArgs(t *testing.T, ctx context.Context, home string, stderr *syncBuffer, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := proxyCmd(t, home, stderr, env, append(slices.Clone(proxyArgs), args...)...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatalf("connect to webpilot mcp %v (proxy): %v\nstderr:\n%s", args, err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callOutcome calls a tool and returns its text and, for an error, its
// code.
func callOutcome(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (text, code string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text = mcpclient.ResultText(res)
	if !res.IsError {
		return text, ""
	}
	if code = errorCode(text); code == "" {
		t.Fatalf("%s: an error without a code: %s", tool, text)
	}
	return text, code
}

// toolNames lists the tools the client sees.
func toolNames(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// Three stdio clients share one daemon, each with its own settings: A
// unrestricted with the full profile, B limited to one origin, C without
// browser_eval. Each sees its own tool list; B is refused the other origin
// on navigate, on a server redirect and in a popup, A is not; the daemon
// is one process throughout.
func TestDaemonClientsKeepTheirOwnSettings(t *testing.T) {
	home := daemonHome(t)
	ctx := backendtest.Context(t, 240*time.Second)
	far := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<title>Far</title><p>FAR-TEXT</p>"))
	}))
	t.Cleanup(far.Close)
	near := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, far.URL+"/", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Near</title><p>NEAR-TEXT</p><button id="open" onclick="window.open('%s/')">popup</button>`, far.URL)
	}))
	t.Cleanup(near.Close)
	_, nport, _ := net.SplitHostPort(strings.TrimPrefix(near.URL, "http://"))

	errA, errB, errC := new(syncBuffer), new(syncBuffer), new(syncBuffer)
	a := connectProxyArgs(t, ctx, home, errA, nil, "--profile", "full")
	b := connectProxyArgs(t, ctx, home, errB, nil, "--allowed-origins", "127.0.0.1:"+nport)
	c := connectProxyArgs(t, ctx, home, errC, nil, "--caps", "-eval")

	// Each client's own tool list.
	na, nb, nc := toolNames(t, ctx, a), toolNames(t, ctx, b), toolNames(t, ctx, c)
	for _, want := range []string{"browser_network", "browser_eval", "recipe_run", "browser_snapshot"} {
		if !slices.Contains(na, want) {
			t.Errorf("A (--profile full) lacks %s: %v", want, na)
		}
	}
	if slices.Contains(nb, "browser_network") || slices.Contains(nb, "browser_eval") || !slices.Contains(nb, "browser_snapshot") {
		t.Errorf("B (core, origin policy: no eval) sees %v", nb)
	}
	if slices.Contains(nc, "browser_eval") || slices.Contains(nc, "browser_network") || !slices.Contains(nc, "browser_find") {
		t.Errorf("C (--caps -eval) sees %v", nc)
	}
	if len(na) <= len(nc) || len(nc) >= 16 {
		t.Errorf("tool counts: A %d, B %d, C %d", len(na), len(nb), len(nc))
	}
	// A tool outside a client's list is answered with what switches it on
	// for that client, and runs nothing.
	if res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "browser_eval", Arguments: map[string]any{"expression": "1+1"}}); err != nil || !res.IsError || !strings.Contains(mcpclient.ResultText(res), "--caps +eval") {
		t.Errorf("C called browser_eval: %v %+v", err, res)
	}
	if out := callText(t, ctx, a, "browser_eval", map[string]any{"expression": "1+1"}); !strings.Contains(out, "2") {
		t.Errorf("A's eval: %s", out)
	}

	// B's origin policy, on every way a tab loads a document.
	if out, code := callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": far.URL + "/"}); code != "ORIGIN_BLOCKED" || strings.Contains(out, "FAR-TEXT") {
		t.Errorf("B navigated to the far origin: %s %s", code, out)
	}
	if out, code := callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": near.URL + "/redirect"}); code != "ORIGIN_BLOCKED" || strings.Contains(out, "FAR-TEXT") {
		t.Errorf("B followed a redirect to the far origin: %s %s", code, out)
	}
	if out := callText(t, ctx, b, "browser_navigate", map[string]any{"url": near.URL + "/"}); !strings.Contains(out, "NEAR-TEXT") {
		t.Errorf("B's allowed origin: %s", out)
	}
	out, _ := callOutcome(t, ctx, b, "browser_action", map[string]any{"action": "click", "selector": "#open"})
	if strings.Contains(out, "FAR-TEXT") {
		t.Errorf("B's popup showed the far origin: %s", out)
	}
	deadline := time.Now().Add(backendtest.Timeout(time.Second))
	for time.Now().Before(deadline) {
		if tabs := tabURLs(t, ctx, b); strings.Contains(tabs, far.URL) {
			t.Fatalf("B's popup to the far origin joined its tabs:\n%s", tabs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	status := callText(t, ctx, b, "browser_status", map[string]any{"verbose": true})
	if !strings.Contains(status, "127.0.0.1:"+nport) || !strings.Contains(status, "flag (client)") {
		t.Errorf("B's status does not show its own origin list and its source:\n%s", status)
	}

	// A has no such policy: the far origin, by navigate and by redirect.
	if out := callText(t, ctx, a, "browser_navigate", map[string]any{"url": far.URL + "/"}); !strings.Contains(out, "FAR-TEXT") {
		t.Errorf("A navigate far: %s", out)
	}
	if out := callText(t, ctx, a, "browser_navigate", map[string]any{"url": near.URL + "/redirect"}); !strings.Contains(out, "FAR-TEXT") {
		t.Errorf("A redirect far: %s", out)
	}
	if out := callText(t, ctx, a, "browser_status", map[string]any{"verbose": true}); !strings.Contains(out, `"allowed_origins": "[] (default)"`) {
		t.Errorf("A's status does not show its own (empty) origin list:\n%s", out)
	}

	// One daemon served the three: nothing was retired or started twice,
	// and no proxy had to warn about other settings.
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}
	if h, err := daemon.GetHealth(ctx, st); err != nil || h.Sessions != 3 {
		t.Errorf("health: %+v %v, want 3 sessions on one daemon", h, err)
	}
	for name, e := range map[string]*syncBuffer{"A": errA, "B": errB, "C": errC} {
		if strings.Contains(e.String(), "other settings") {
			t.Errorf("proxy %s warned about other settings:\n%s", name, e)
		}
	}
}

// A client that needs another browser than the running daemon's (here
// --headed, or another --browser, beside a headless daemon) never gets the
// daemon's browser: each call but browser_status answers NO_BROWSER naming
// the difference and the way out; browser_status shows the conflict.
func TestDaemonRefusesAnotherBrowser(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)
	a := connectProxyArgs(t, ctx, home, new(syncBuffer), nil)
	if out := callText(t, ctx, a, "browser_navigate", map[string]any{"url": base + "/basic.html"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("A navigate: %s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"--headless=false"}, "headless: false here (--headless), true in the daemon"}, {[]string{"--browser", "/usr/bin/no-such-browser"}, "no-such-browser"}} {
		args := c.args
		stderr := new(syncBuffer)
		b := connectProxyArgs(t, ctx, home, stderr, nil, args...)
		if ir := b.InitializeResult(); ir == nil || !strings.Contains(ir.Instructions, "another browser") {
			t.Errorf("%v: the instructions do not say it at once", args)
		}
		out, code := callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": base + "/basic.html?b=1"})
		if code != "NO_BROWSER" || !strings.Contains(out, "another browser") || !strings.Contains(out, "--standalone") {
			t.Errorf("%v: navigate = %s %s", args, code, out)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%v: the error does not say %s: %s", args, c.want, out)
		}
		if status := callText(t, ctx, b, "browser_status", map[string]any{"verbose": true}); !strings.Contains(status, "conflict") {
			t.Errorf("%v: browser_status does not show the conflict:\n%s", args, status)
		}
		if tabs := tabURLs(t, ctx, a); strings.Contains(tabs, "b=1") {
			t.Errorf("%v: B's navigation reached A's browser:\n%s", args, tabs)
		}
		_ = b.Close()
	}
}

// Through the daemon, a client's sessions are its own: B, told A's session
// name, reaches neither A's page, nor its requests, nor its tabs, and
// cannot close them; B's status does not list A's sessions.
func TestDaemonSessionsArePrivate(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)
	a := connectProxyArgs(t, ctx, home, new(syncBuffer), nil, "--profile", "full")
	b := connectProxyArgs(t, ctx, home, new(syncBuffer), nil, "--profile", "full")
	if out := callText(t, ctx, a, "browser_navigate", map[string]any{"url": base + "/basic.html?owner=A"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("A navigate: %s", out)
	}
	var st struct{ Sessions []string }
	if err := json.Unmarshal([]byte(callText(t, ctx, a, "browser_status", map[string]any{"verbose": true})), &st); err != nil || len(st.Sessions) != 1 {
		t.Fatalf("A's status sessions: %v %v", st.Sessions, err)
	}
	victim := st.Sessions[0]
	if out := callText(t, ctx, b, "browser_status", map[string]any{"verbose": true}); strings.Contains(out, victim) {
		t.Errorf("B's status lists A's session %s:\n%s", victim, out)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", map[string]any{"session": victim}},
		{"browser_network", map[string]any{"session": victim}},
		{"browser_console", map[string]any{"session": victim}},
		{"browser_tabs", map[string]any{"action": "list", "session": victim}},
		{"browser_close", map[string]any{"session": victim}},
	} {
		out, _ := callOutcome(t, ctx, b, c.tool, c.args)
		if strings.Contains(out, "owner=A") || strings.Contains(out, "Basic page") {
			t.Errorf("B's %s in A's session name reached A's tab:\n%s", c.tool, out)
		}
	}
	// webpilot call naming it (issue 47, 7): refused before it reaches
	// anything, and said why.
	code, out, errs := cliAt(t, ctx, home, "", "call", "--isolated", "--headless=true", "--profile", "full", "--session", victim, "browser_snapshot")
	if code == 0 || strings.Contains(out+errs, "owner=A") || !strings.Contains(out+errs, "only their client reaches") {
		t.Errorf("webpilot call --session %s: exit %d\n%s%s", victim, code, out, errs)
	}
	if out := callText(t, ctx, a, "browser_snapshot", nil); !strings.Contains(out, "Basic page") {
		t.Errorf("A's page after B named its session:\n%s", out)
	}
}
