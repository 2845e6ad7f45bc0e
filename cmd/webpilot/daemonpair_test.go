//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

// Pairing while a daemon drives a launched browser: `webpilot pair` pairs
// on the daemon's own bridge listener, so the extension (in a headless
// Chromium, as a user's Chrome) is connected at once and its popup says
// so; a new client's status says bridge and its navigation happens in the
// extension's browser; the client that was there is told on its next call.
func TestPairWhileTheDaemonRuns(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 240*time.Second)
	port := freePort(t)
	// (not isolated: a daemon asked for a browser of its own keeps it)
	flags := []string{"--bridge-port", strconv.Itoa(port), "--isolated=false"}

	before := connectProxyArgs(t, ctx, home, new(syncBuffer), nil, flags...)
	if out := callText(t, ctx, before, "browser_navigate", map[string]any{"url": base + "/basic.html?before=1"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("navigate before pairing: %s", out)
	}
	if status := callText(t, ctx, before, "browser_status", map[string]any{"verbose": true}); !strings.Contains(status, "launch (auto: no extension paired)") {
		t.Fatalf("status before pairing:\n%s", status)
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}

	chrome, done, err := backendtest.ExtensionBrowser(ctx, port)
	if err != nil {
		t.Fatal(err)
	}
	defer done()

	errb := new(syncBuffer)
	cmd := proxyCmd(t, home, errb, nil, "pair")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := new(syncBuffer)
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(out, stdout); close(copied) }()
	// The daemon's bridge port is not the default: the code carries it.
	code, err := backendtest.PairingCode[struct{}](ctx, out, nil)
	if err != nil {
		t.Fatalf("%v%s", err, errb)
	}
	if !strings.HasSuffix(code, "@"+strconv.Itoa(port)) {
		t.Fatalf("the code %q does not carry the daemon's bridge port %d:\n%s", code, port, out)
	}
	if res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "pair", "code": code}); err != nil || !strings.Contains(res, `"ok":true`) {
		t.Fatalf("pairing in the popup: %s %v", res, err)
	}
	<-copied
	if err := cmd.Wait(); err != nil {
		t.Fatalf("webpilot pair: %v\n%s%s", err, out, errb)
	}
	for _, want := range []string{"Paired.", "now drives this Chrome profile", fmt.Sprintf("daemon (pid %d,", st.PID)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("pair's output lacks %q:\n%s", want, out)
		}
	}
	// The popup says connected, right away (the extension reconnects at
	// once on the listener it paired on).
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for {
		res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "status"})
		if err == nil && strings.Contains(res, `"state":"connected"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the popup does not say connected after pairing: %s %v", res, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	after := connectProxyArgs(t, ctx, home, new(syncBuffer), nil, flags...)
	if status := callText(t, ctx, after, "browser_status", map[string]any{"verbose": true}); !strings.Contains(status, "bridge") {
		t.Errorf("a new client's status after pairing:\n%s", status)
	}
	// In the person's own Chrome the client asks before its first use of
	// a site (--approve ask, the default): the person allows it once in
	// the popup.
	nav := make(chan string, 1)
	go func() {
		res, err := after.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": base + "/basic.html?after=1"}})
		if err != nil {
			nav <- err.Error()
			return
		}
		nav <- fmt.Sprint(res.IsError, " ", mcpclient.ResultText(res))
	}()
	var asked struct {
		Asks []struct {
			Ask, Client, Site string
		} `json:"asks"`
	}
	for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "approvals"})
		if err == nil && json.Unmarshal([]byte(res), &asked) == nil && len(asked.Asks) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the person was not asked about the site: %s %v", res, err)
		}
	}
	if q := asked.Asks[0]; q.Client != "proxy-test" || q.Site != "127.0.0.1" {
		t.Errorf("the question: %+v", q)
	}
	if res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "approval.answer", "ask": asked.Asks[0].Ask, "answer": "once"}); err != nil || !strings.Contains(res, `"ok":true`) {
		t.Fatalf("answering in the popup: %s %v", res, err)
	}
	if out := <-nav; !strings.HasPrefix(out, "false ") || !strings.Contains(out, "Basic page") {
		t.Fatalf("navigate after pairing: %s", out)
	}
	tabs, err := chrome.Tabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, tab := range tabs {
		urls = append(urls, tab.URL)
	}
	if !strings.Contains(strings.Join(urls, " "), "after=1") {
		t.Errorf("the new client's navigation is not in the extension's browser: %q", urls)
	}
	if again, err := daemon.ReadState(stateDir(home)); err != nil || again.PID != st.PID {
		t.Errorf("the daemon changed: %+v → %+v (%v)", st, again, err)
	}
	// doctor knows the daemon and the extension connected to it, every
	// time.
	for i := range 3 {
		code, out, errs := cliAt(t, ctx, home, "", append([]string{"doctor"}, flags...)...)
		for _, want := range []string{fmt.Sprintf("✔ daemon: running (pid %d", st.PID), "✔ extension connected to the daemon", "approvals (--approve ask): a client asks you", "✔ ready"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("doctor run %d: exit %d, lacks %q:\n%s%s", i+1, code, want, out, errs)
			}
		}
	}
	// The client that was there is told, and keeps its tab.
	snap := callText(t, ctx, before, "browser_snapshot", nil)
	if !strings.Contains(snap, "was just paired") || !strings.Contains(snap, "Basic page") {
		t.Errorf("the earlier client's next call:\n%s", snap)
	}
}
