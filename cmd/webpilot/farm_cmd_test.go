package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint/farmtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
)

// --endpoint-per-session needs --cdp-endpoint (flag or environment) and the
// endpoint backend; .webpilot.json may not set it. With it the backend is
// a Farm.
func TestEndpointPerSessionConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		file string
		want []string // all in the error; none: accepted
	}{
		{"flag alone", []string{"--endpoint-per-session"}, nil, "", []string{"--endpoint-per-session", "needs --cdp-endpoint"}},
		{"env alone", nil, map[string]string{"WEBPILOT_ENDPOINT_PER_SESSION": "true"}, "", []string{"WEBPILOT_ENDPOINT_PER_SESSION", "needs --cdp-endpoint"}},
		{"launch backend", []string{"--backend=launch", "--cdp-endpoint=ws://farm.example/", "--endpoint-per-session"}, nil, "", []string{"--endpoint-per-session", "endpoint backend", "launch"}},
		{"in the file", []string{"--cdp-endpoint=ws://farm.example/"}, nil, `{"endpoint_per_session": true}`, []string{"endpoint_per_session", "flag or environment"}},
		{"false alone", []string{"--endpoint-per-session=false"}, nil, "", nil},
		{"with an endpoint", []string{"--cdp-endpoint=ws://farm.example/", "--endpoint-per-session"}, nil, "", nil},
		{"env with an endpoint", nil, map[string]string{"WEBPILOT_CDP_ENDPOINT": "http://farm.example:3000", "WEBPILOT_ENDPOINT_PER_SESSION": "1"}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := load(t, c.args, c.env, c.file)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if cfg.EndpointPerSession && cfg.CDPEndpoint != "" {
					be, farm, kind, err := chooseBackend(cfg, discardLogger())
					if err != nil {
						t.Fatal(err)
					}
					if farm != nil {
						defer farm.Close()
					}
					if be != nil || farm == nil || !strings.Contains(kind, "per session") {
						t.Errorf("backend = %T, farm %v (%s), want an endpoint.Farm alone", be, farm != nil, kind)
					}
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	// Through run, it is a usage error (exit status 2).
	var out, errb syncBuffer
	err := run(t.Context(), []string{"mcp", "--endpoint-per-session"}, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, new(syncBuffer)); code != 2 {
		t.Errorf("mcp --endpoint-per-session: exit %d (%v), want 2", code, err)
	}
}

// farmPage serves the page the farm tests visit: its title shows the
// cookie the browser had, and the page sets one naming n; it has a field to
// fill.
func farmPage(t *testing.T) string {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>loading</title><script>document.title = "seen:" + document.cookie; document.cookie = "who=%s; path=/"</script>
<h1>Farm page</h1><label>Note <input id="q" name="q"></label>`, n)
	}))
	t.Cleanup(page.Close)
	return page.URL
}

// `webpilot serve --cdp-endpoint FARM --endpoint-per-session` on the real
// browserless: two MCP clients each get a browser of their own from the
// farm (the cookie one sets is not the other's), /health shows the endpoint
// up, the farm's token is in no result and no log line (stderr, the log
// file, with --debug), and on SIGTERM every farm connection ends, so the
// farm ends every browser.
func TestFarmServe(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 2})
	page := farmPage(t)
	ctx := backendtest.Context(t, 180*time.Second)
	stderr := new(syncBuffer)
	logFile := filepath.Join(t.TempDir(), "webpilot.log")
	cmd := webpilotCmd(t, stderr, "serve", "--listen", "127.0.0.1:0", "--cdp-endpoint", farm.HTTPURL(), "--endpoint-per-session", "--debug", "--log-file", logFile)
	url, exited := startServe(t, cmd, stderr)
	var clients [2]*mcp.ClientSession
	var said strings.Builder
	for i := range clients {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("farm-test-%d", i), Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v", url, err)
		}
		defer cs.Close()
		clients[i] = cs
	}
	visit := func(i int) string {
		return callText(t, ctx, clients[i], "browser_navigate", map[string]any{"url": fmt.Sprintf("%s/?n=%d", page, i)})
	}
	for round := range 2 {
		for i := range clients {
			w := "# seen: — " // a fresh browser
			if round > 0 {
				w = fmt.Sprintf("# seen:who=%d — ", i)
			}
			got := visit(i)
			said.WriteString(got)
			if !strings.Contains(got, w) {
				t.Errorf("round %d, client %d: navigate does not show %s (its own browser's cookie only):\n%s", round, i, w, got)
			}
		}
	}
	if l, err := farm.Pressure(ctx); err != nil || l.Running != 2 {
		t.Errorf("farm load %+v (%v); want 2 of its own", l, err)
	} else if n, err := farm.WaitBrowsers(ctx, 2); err != nil {
		t.Errorf("%d farm browsers; want 2 of its own: %v", n, err)
	}
	said.WriteString(callText(t, ctx, clients[0], "browser_status", nil))
	res, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	err = json.NewDecoder(res.Body).Decode(&h)
	res.Body.Close()
	if err != nil || h["browser"] != "up" || h["backend"] != "endpoint" || h["sessions"] != 2.0 {
		t.Errorf("/health: %v %v", h, err)
	}

	termServe(t, cmd, exited)
	if _, err := farm.WaitLoad(ctx, "nothing running", func(l farmtest.Load) bool { return l.Running == 0 && l.Queued == 0 }); err != nil {
		t.Errorf("after webpilot serve exited: %v", err)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logged), "connected") {
		t.Errorf("the log file has no connect record:\n%s", logged)
	}
	for what, text := range map[string]string{"results": said.String(), "stderr": stderr.String(), "log file": string(logged)} {
		if strings.Contains(text, farm.Token()) {
			t.Errorf("the farm's token shows in the %s", what)
		}
	}
}

// farmClient is an MCP client of a webpilot serve, with the progress
// messages it was sent.
type farmClient struct {
	cs *mcp.ClientSession

	mu       sync.Mutex
	progress []string
}

func connectFarmClient(t *testing.T, ctx context.Context, url, name string) *farmClient {
	t.Helper()
	fc := &farmClient{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			fc.mu.Lock()
			fc.progress = append(fc.progress, r.Params.Message)
			fc.mu.Unlock()
		}}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	fc.cs = cs
	return fc
}

// call runs a tool with a progress token and returns its text and error
// code ("" on success).
func (fc *farmClient) call(t *testing.T, ctx context.Context, tool string, args map[string]any) (string, string) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken(fmt.Sprintf("%s-%d", tool, time.Now().UnixNano()))
	res, err := fc.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := mcpclient.ResultText(res)
	if !res.IsError {
		return text, ""
	}
	code := errorCode(text)
	if code == "" {
		t.Fatalf("%s: an error without a code: %s", tool, text)
	}
	return text, code
}

// A farm of one browser, two clients of one serve: the second client's
// call waits --endpoint-wait with progress notifications and answers
// FARM_FULL with the farm's load; its retries keep the one place in the
// farm's queue; when the first client leaves, its browser goes back to the
// farm within seconds and the waiting client gets it, told it waited. The
// farm restarted mid-session: the next call says the browser was lost and
// works on a new one.
func TestFarmServeFull(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 1})
	page := farmPage(t)
	ctx := backendtest.Context(t, 240*time.Second)
	stderr := new(syncBuffer)
	cmd := webpilotCmd(t, stderr, "serve", "--listen", "127.0.0.1:0", "--cdp-endpoint", farm.URL(), "--endpoint-per-session", "--endpoint-wait", "2s")
	url, exited := startServe(t, cmd, stderr)
	a := connectFarmClient(t, ctx, url, "farm-a")
	b := connectFarmClient(t, ctx, url, "farm-b")
	if _, code := a.call(t, ctx, "browser_navigate", map[string]any{"url": page + "/?n=a"}); code != "" {
		t.Fatalf("a: %s", code)
	}
	var said strings.Builder
	for try := range 2 {
		text, code := b.call(t, ctx, "browser_navigate", map[string]any{"url": page + "/?n=b"})
		said.WriteString(text)
		if code != string(browser.CodeFarmFull) || !strings.Contains(text, "at capacity (1 of 1 browsers running, 1 queued)") || !strings.Contains(text, "waited 2") {
			t.Fatalf("try %d: b got %s:\n%s", try, code, text)
		}
		if l, err := farm.Pressure(ctx); err != nil || l.Queued != 1 {
			t.Errorf("try %d: farm load %+v, %v; want 1 queued (b's one place)", try, l, err)
		}
	}
	b.mu.Lock()
	progress := slices.Clone(b.progress)
	b.mu.Unlock()
	if len(progress) == 0 || !strings.Contains(progress[len(progress)-1], "waiting for a browser from the farm") {
		t.Errorf("b's progress messages: %q", progress)
	}

	// a leaves: its farm browser goes back within the farm grace, and b's
	// queued connection gets it.
	left := time.Now()
	_ = a.cs.Close()
	var text, code string
	for {
		text, code = b.call(t, ctx, "browser_navigate", map[string]any{"url": page + "/?n=b"})
		if code != string(browser.CodeFarmFull) {
			break
		}
	}
	t.Logf("b got a's browser %v after a left", time.Since(left).Round(100*time.Millisecond))
	if code != "" || !strings.Contains(text, "waited") || !strings.Contains(text, "# seen: — ") {
		t.Fatalf("b once a left: %s\n%s", code, text)
	}

	// The farm restarts: b's browser is lost; its next call says so and
	// works on a new browser.
	farm.Restart(syscall.SIGKILL)
	text, code = b.call(t, ctx, "browser_navigate", map[string]any{"url": page + "/?n=b"})
	if code != "" || !strings.Contains(text, browser.LostNote) || !strings.Contains(text, "# seen: — ") {
		t.Errorf("b after the farm restarted: %s\n%s", code, text)
	}
	said.WriteString(text)
	termServe(t, cmd, exited)
	if _, err := farm.WaitLoad(ctx, "nothing running", func(l farmtest.Load) bool { return l.Running == 0 && l.Queued == 0 }); err != nil {
		t.Error(err)
	}
	if strings.Contains(said.String()+stderr.String(), farm.Token()) {
		t.Error("the farm's token shows in a result or on stderr")
	}
}

// The load run: 8 agents on one serve against a farm of 4 browsers, each
// doing navigate + fill + read ten times. Four get browsers at once; the
// others wait (FARM_FULL, retried, on the one queued connection each) until
// an agent is done and leaves, and are told they waited. All finish; no
// farm job or browser is left. It logs throughput and the p95 of a call
// (make bench prints them).
func TestFarmLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	const agents, browsers = 8, 4
	// make bench measures ten rounds; make test checks the same with fewer,
	// which keeps it short on a loaded machine.
	rounds := 4
	if os.Getenv("WEBPILOT_BENCH") == "1" {
		rounds = 10
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: browsers})
	page := farmPage(t)
	ctx := backendtest.Context(t, 600*time.Second)
	stderr := new(syncBuffer)
	cmd := webpilotCmd(t, stderr, "serve", "--listen", "127.0.0.1:0", "--cdp-endpoint", farm.URL(), "--endpoint-per-session", "--endpoint-wait", "5s")
	url, exited := startServe(t, cmd, stderr)

	type outcome struct {
		fullReplies int           // FARM_FULL answers before its browser came
		toldWaited  bool          // its first result said it waited
		firstAfter  time.Duration // from the start to its first page
		calls       []time.Duration
		err         string
	}
	out := make([]outcome, agents)
	var peak sync.Mutex
	maxRunning := 0
	began := time.Now()
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			o := &out[i]
			fc := connectFarmClient(t, ctx, url, fmt.Sprintf("load-%d", i))
			defer fc.cs.Close()
			timed := func(tool string, args map[string]any) (string, string) {
				s := time.Now()
				text, code := fc.call(t, ctx, tool, args)
				if code == "" {
					o.calls = append(o.calls, time.Since(s))
				}
				return text, code
			}
			for round := range rounds {
				text, code := timed("browser_navigate", map[string]any{"url": fmt.Sprintf("%s/?n=%d", page, i), "snapshot": "none"})
				for round == 0 && code == string(browser.CodeFarmFull) && ctx.Err() == nil {
					o.fullReplies++
					text, code = timed("browser_navigate", map[string]any{"url": fmt.Sprintf("%s/?n=%d", page, i), "snapshot": "none"})
				}
				if code != "" {
					o.err = fmt.Sprintf("round %d navigate: %s: %s", round, code, text)
					return
				}
				if round == 0 {
					o.firstAfter = time.Since(began)
					o.toldWaited = strings.Contains(text, "waited")
					if l, err := farm.Pressure(ctx); err == nil {
						peak.Lock()
						maxRunning = max(maxRunning, l.Running)
						peak.Unlock()
					}
				}
				value := fmt.Sprintf("agent %d round %d", i, round)
				if text, code := timed("browser_action", map[string]any{"action": "fill", "selector": "#q", "value": value, "snapshot": "none"}); code != "" {
					o.err = fmt.Sprintf("round %d fill: %s: %s", round, code, text)
					return
				}
				text, code = timed("browser_read", map[string]any{"what": "value", "selector": "#q"})
				if code != "" || !strings.Contains(text, value) {
					o.err = fmt.Sprintf("round %d read: %s: %s", round, code, text)
					return
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	var all []time.Duration
	waited := 0
	for i, o := range out {
		if o.err != "" {
			t.Errorf("agent %d: %s", i, o.err)
		}
		if o.fullReplies > 0 {
			waited++
			if !o.toldWaited {
				t.Errorf("agent %d got FARM_FULL %d times, and its first page did not say it waited", i, o.fullReplies)
			}
		}
		all = append(all, o.calls...)
	}
	if waited < agents-browsers {
		t.Errorf("%d agents waited for a browser, want at least %d (only %d browsers for %d agents)", waited, agents-browsers, browsers, agents)
	}
	if maxRunning > browsers {
		t.Errorf("the farm ran %d browsers, more than its %d", maxRunning, browsers)
	}
	slices.Sort(all)
	if len(all) > 0 {
		p95 := all[(len(all)*95+99)/100-1]
		firsts := make([]string, agents)
		for i, o := range out {
			firsts[i] = fmt.Sprintf("%.1fs", o.firstAfter.Seconds())
		}
		t.Logf("farm load: %d agents on %d browsers, %d rounds of navigate+fill+read each: %d calls in %v = %.1f calls/s; a call: p50 %v, p95 %v, max %v; first page per agent after %s; %d agents waited for a browser",
			agents, browsers, rounds, len(all), took.Round(time.Millisecond), float64(len(all))/took.Seconds(),
			all[len(all)/2].Round(time.Millisecond), p95.Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond), strings.Join(firsts, " "), waited)
	}
	// Every agent left: their browsers go back to the farm, and nothing
	// of theirs stays queued or running.
	if _, err := farm.WaitLoad(ctx, "nothing running or queued", func(l farmtest.Load) bool { return l.Running == 0 && l.Queued == 0 }); err != nil {
		t.Error(err)
	}
	if n, err := farm.WaitBrowsers(ctx, 0); err != nil {
		t.Errorf("%d farm browsers left running: %v", n, err)
	}
	termServe(t, cmd, exited)
}

// The default path: two agents' `webpilot mcp` on one daemon driving a farm
// of one browser. The second waits (FARM_FULL, with the farm's load); when
// the first agent exits, its daemon session ends and its farm browser goes
// back within seconds, and the second agent gets it. Beside it, `webpilot
// call` waits too, and a client with other browser settings is refused
// (NO_BROWSER naming the setting); the second agent keeps its browser. The
// token shows in no result, no stderr, daemon status or the daemon's log.
func TestFarmDaemon(t *testing.T) {
	home := daemonHome(t)
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 1})
	page := farmPage(t)
	ctx := backendtest.Context(t, 240*time.Second)
	args := []string{"--cdp-endpoint", farm.URL(), "--endpoint-per-session", "--endpoint-wait", "2s"}
	errA, errB := new(syncBuffer), new(syncBuffer)
	a := connectProxyArgs(t, ctx, home, errA, nil, args...)
	b := connectProxyArgs(t, ctx, home, errB, nil, args...)
	var said strings.Builder
	text, code := callOutcome(t, ctx, a, "browser_navigate", map[string]any{"url": page + "/?n=a"})
	said.WriteString(text)
	if code != "" {
		t.Fatalf("a: %s: %s", code, text)
	}
	text, code = callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": page + "/?n=b"})
	said.WriteString(text)
	if code != string(browser.CodeFarmFull) || !strings.Contains(text, "1 of 1 browsers running") {
		t.Fatalf("b while a holds the farm's browser: %s: %s", code, text)
	}
	left := time.Now()
	if err := a.Close(); err != nil {
		t.Logf("closing a: %v", err)
	}
	for {
		text, code = callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": page + "/?n=b"})
		said.WriteString(text)
		if code != string(browser.CodeFarmFull) {
			break
		}
	}
	t.Logf("b got the farm's browser %v after a's agent exited", time.Since(left).Round(100*time.Millisecond))
	if code != "" || !strings.Contains(text, "waited") || !strings.Contains(text, "# seen: — ") {
		t.Fatalf("b once a left: %s: %s", code, text)
	}
	// Beside them: `webpilot call` with the same farm flags (and none of
	// the proxies' --isolated, --headless: they choose nothing on a farm)
	// is one more client of the daemon; the farm's one browser is b's, so
	// it waits and says the farm is full.
	callArgs := append(append([]string{"call"}, args...), "browser_navigate", `{"url":"`+page+`/?n=call"}`)
	code2, out, errs := cliAt(t, ctx, home, "", callArgs...)
	said.WriteString(out + errs)
	if code2 != 1 || errorCode(strings.TrimSpace(out)) != string(browser.CodeFarmFull) {
		t.Errorf("webpilot call while b holds the farm's browser: exit %d\nstdout:\n%s\nstderr:\n%s", code2, out, errs)
	}
	// A client with other browser settings (another --endpoint-wait) is
	// told the daemon's differ, never given the other's farm.
	errC := new(syncBuffer)
	c := connectProxyArgs(t, ctx, home, errC, nil, "--cdp-endpoint", farm.URL(), "--endpoint-per-session", "--endpoint-wait", "5s")
	text, code = callOutcome(t, ctx, c, "browser_navigate", map[string]any{"url": page + "/?n=c"})
	said.WriteString(text + errC.String())
	if code != string(browser.CodeNoBrowser) || !strings.Contains(text, "endpoint_wait") {
		t.Errorf("a client with another --endpoint-wait: %s: %s", code, text)
	}
	// b still has its browser and page.
	if text, code := callOutcome(t, ctx, b, "browser_navigate", map[string]any{"url": page + "/?n=b"}); code != "" || !strings.Contains(text, "# seen:who=b") {
		t.Errorf("b after the other clients: %s: %s", code, text)
	}

	_, status, _ := cliAt(t, ctx, home, "", "daemon", "status", "--json")
	if !strings.Contains(status, "127.0.0.1") {
		t.Errorf("daemon status does not show the endpoint:\n%s", status)
	}
	var logs strings.Builder
	_ = filepath.WalkDir(stateDir(home), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			data, _ := os.ReadFile(path)
			logs.Write(data)
		}
		return nil
	})
	if !strings.Contains(logs.String(), "connected") {
		t.Errorf("no daemon log with the farm's connect records under %s", stateDir(home))
	}
	for what, s := range map[string]string{"results": said.String(), "a's stderr": errA.String(), "b's stderr": errB.String(), "daemon status": status, "the daemon's log": logs.String()} {
		if strings.Contains(s, farm.Token()) {
			t.Errorf("the farm's token shows in %s", what)
		}
	}
}

// With a farm browser per session, serve and the daemon give a departed
// client's browser back within seconds, and that of a client that left
// without closing its MCP session after FarmSessionTimeout; other
// backends keep the server's defaults.
func TestFarmHTTPBounds(t *testing.T) {
	farm := &app{farm: endpoint.NewFarm(endpoint.Options{URL: "ws://farm.example/"})}
	got := farm.httpBounds(mcpserver.HTTPOptions{Addr: "x"})
	if got.DepartedGrace != mcpserver.FarmDepartedGrace || got.SessionTimeout != mcpserver.FarmSessionTimeout || got.SessionIdle != mcpserver.FarmSessionTimeout || got.Addr != "x" {
		t.Errorf("farm: %+v", got)
	}
	one := &app{backend: endpoint.New(endpoint.Options{URL: "ws://farm.example/"})}
	if got := one.httpBounds(mcpserver.HTTPOptions{}); got.DepartedGrace != 0 || got.SessionTimeout != 0 || got.SessionIdle != 0 {
		t.Errorf("one endpoint: %+v, want the defaults (zero)", got)
	}
}
