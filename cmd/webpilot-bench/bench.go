package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

// runBench measures webpilot as an MCP client sees it: the binary of
// -webpilot, else one built from ./cmd/webpilot for the run. With -peers, first
// the agent loop side by side with playwright-mcp and chrome-devtools-mcp
// (benchSide); then the cold start
// (server start → first navigate result, against the bare browser launch)
// and the peak PSS of the whole process tree (benchCold); then a `webpilot mcp`
// subprocess is started and timed to its tools/list answer, its first
// navigation (browser launch included), then snapshots of every fixture page
// in each mode (characters, o200k tokens, time) and a click, and finally the
// server's memory. It prints tables; it asserts nothing. At the end of a
// run without an error its rows go to the history file of -history, after
// being compared with the earlier runs there (writeHistory).
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("webpilot-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pages := fs.String("pages", "testdata/pages", "directory of fixture pages")
	runs := fs.Int("runs", 5, "repetitions per measurement (the median is shown)")
	dump := fs.String("dump", "", "directory to write each fixture's snapshot text to (fixture.mode.txt; with -peers also each server's side-by-side snapshot, side.SERVER.page.txt, and its reply to the action after it, side.SERVER.page.ACTION.txt)")
	only := fs.String("only", "", "measure only fixtures whose name contains this")
	cold := fs.Int("cold", 5, "interleaved runs of the cold start and memory section (0 skips it)")
	coldOnly := fs.Bool("cold-only", false, "measure only the cold start and memory section")
	serverArgs := fs.String("server-args", "", "extra arguments (space-separated) for the webpilot mcp servers of the cold section")
	webpilot := fs.String("webpilot", "", "the webpilot binary to measure (default: one built from ./cmd/webpilot with go build for this run)")
	server := fs.String("server", "", "the webpilot binary the cold section measures (default: -webpilot's), to compare builds")
	lazy := fs.Bool("lazy", true, "the cold section also measures webpilot --no-prewarm")
	peers := fs.String("peers", "", "a directory holding node_modules/@playwright/mcp and node_modules/chrome-devtools-mcp, measured in the cold section and side by side in the agent loop (-runs rounds; -only selects its pages)")
	openCLIOnly := fs.Bool("opencli-only", false, "measure only the opencli tools (needs OpenCLI, found as a client finds it)")
	think := fs.Duration("think", 50*time.Millisecond, "in the side-by-side section, the wait between a reply and the next call (an agent reads each reply first; 0: back to back)")
	sideOnly := fs.Bool("side-only", false, "measure only the agent loop side by side with the peers (needs -peers)")
	startOnly := fs.Bool("start-only", false, "measure only process start → tools/list answered (webpilot and, with -peers, the peers; 3×-cold rounds)")
	history := fs.String("history", "bench/history.jsonl", "file the run's rows are appended to (one JSON line a run) after they are compared with the last run of the same machine shape there: rows more than 20 % worse are printed as REGRESSION (\"\" writes and compares nothing)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	rec := histRows{}
	defer func() {
		if err == nil && *history != "" && len(rec) > 0 {
			err = writeHistory(stdout, *history, newHistEntry(*history, *runs, *cold, args, rec))
		}
	}()
	entries, err := os.ReadDir(*pages)
	if err != nil {
		return fmt.Errorf("bench: fixture pages: %w (run from the repository root or pass -pages)", err)
	}
	var fixtures []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".html") {
			fixtures = append(fixtures, e.Name())
		}
	}
	if sub, err := os.ReadDir(filepath.Join(*pages, "snap")); err == nil {
		for _, e := range sub {
			if strings.HasSuffix(e.Name(), ".html") && e.Name() != "frame-child.html" {
				fixtures = append(fixtures, "snap/"+e.Name())
			}
		}
	}
	fixtures = append(fixtures, widgetFixtures...)
	fixtures = slices.DeleteFunc(fixtures, func(f string) bool { return !strings.Contains(f, *only) })
	srv := httptest.NewServer(http.FileServer(http.Dir(*pages)))
	defer srv.Close()
	// A second site for the cross-site frame of snap/frames.html.
	other := httptest.NewUnstartedServer(http.FileServer(http.Dir(*pages)))
	if ln, err := net.Listen("tcp", "localhost:0"); err == nil {
		other.Listener.Close()
		other.Listener = ln
	}
	other.Start()
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	pageURL := func(f string) string {
		if f == "snap/frames.html" {
			return srv.URL + "/" + f + "?xsite=" + otherURL
		}
		return srv.URL + "/" + f
	}
	self := *webpilot
	if self == "" {
		dir, err := os.MkdirTemp("", "webpilot-bench-bin-*")
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer os.RemoveAll(dir)
		if self, err = buildWebpilot(ctx, dir, stderr); err != nil {
			return err
		}
	}
	version, err := webpilotVersion(ctx, self)
	if err != nil {
		return err
	}
	if *openCLIOnly {
		enc, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			return fmt.Errorf("bench: tokenizer: %w", err)
		}
		return benchOpenCLI(ctx, stdout, self, version, *runs, enc)
	}
	if *startOnly {
		var ps []coldServer
		if *peers != "" {
			path, err := launch.Discover("", launch.SystemProbe(os.Getenv))
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			ps = peerServers(*peers, path)
		}
		return benchStart(ctx, stdout, cmp.Or(*server, self), version, ps, 3*max(*cold, 1))
	}
	if *sideOnly && *peers == "" {
		return fmt.Errorf("%w: -side-only needs -peers", errUsage)
	}
	if *peers != "" && !*coldOnly {
		path, err := launch.Discover("", launch.SystemProbe(os.Getenv))
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		bin := cmp.Or(*server, self)
		if err := benchSide(ctx, stdout, bin, version, path, srv.URL, *runs, *think, strings.Fields(*serverArgs), *peers, *only, *dump, rec); err != nil {
			return err
		}
		if *sideOnly {
			return nil
		}
		fmt.Fprintln(stdout)
	}
	if *cold > 0 || *coldOnly {
		path, err := launch.Discover("", launch.SystemProbe(os.Getenv))
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		n := *cold
		if n <= 0 {
			n = *runs
		}
		bin := self
		if *server != "" {
			bin = *server
		}
		if err := benchCold(ctx, stdout, bin, version, path, srv.URL, n, strings.Fields(*serverArgs), *lazy, *peers, rec); err != nil {
			return err
		}
		if *coldOnly {
			return nil
		}
		fmt.Fprintln(stdout)
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return fmt.Errorf("bench: tokenizer: %w", err)
	}

	// 1. Process start → tools/list answered.
	var startMs []float64
	var listTokens int
	for range *runs {
		t0 := time.Now()
		// (the core tools alone: the opencli section says what OpenCLI's
		// tools add when it is installed)
		cs, cmd, err := startServer(ctx, self, version, "--caps=-opencli")
		if err != nil {
			return err
		}
		tl, err := cs.ListTools(ctx, nil)
		if err != nil {
			cs.Close()
			return fmt.Errorf("bench: tools/list: %w", err)
		}
		startMs = append(startMs, ms(time.Since(t0)))
		b, _ := json.Marshal(tl)
		listTokens, _ = enc.Count(string(b))
		cs.Close()
		_ = cmd.Wait()
	}

	// 2. One long-lived server for the browser measurements, with
	// The full profile: browser_network, browser_console and
	// browser_download (outside the core profile) switched on.
	recipeDir, err := os.MkdirTemp("", "webpilot-bench-recipes-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(recipeDir)
	cs, cmd, err := startServer(ctx, self, version, "--profile=full", "--recipes="+recipeDir)
	if err != nil {
		return err
	}
	defer func() { cs.Close(); _ = cmd.Wait() }()
	call := timedCall(ctx, cs)
	_, firstNav, err := call("browser_navigate", map[string]any{"url": srv.URL + "/basic.html", "snapshot": "none"})
	if err != nil {
		return err
	}

	fmt.Fprintf(stdout, "webpilot %s bench — %d runs per cell, medians\n\n", version, *runs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "start → tools/list answered\t%.0f ms\t\n", median(startMs))
	fmt.Fprintf(tw, "tools/list size (o200k tokens)\t%d\t\n", listTokens)
	fmt.Fprintf(tw, "first navigate once initialized (the launch began with the call)\t%.0f ms\t\n", firstNav)
	var rtt []float64
	for range *runs * 3 {
		_, d, err := call("browser_tabs", map[string]any{"action": "list"})
		if err != nil {
			return err
		}
		rtt = append(rtt, d)
	}
	fmt.Fprintf(tw, "MCP round trip (browser_tabs list)\t%.1f ms\t\n", median(rtt))
	warm, err := warmSecondClient(ctx, self, version, srv.URL+"/basic.html", *runs)
	if err != nil {
		return err
	}
	fmt.Fprintf(tw, "a second client's first navigate through the running daemon (start included)\t%.0f ms\t\n", median(warm))
	tw.Flush()
	rec.add("dev: start → tools/list answered", "ms", median(startMs), 0)
	rec.add("dev: tools/list size", "tokens", float64(listTokens), 0)
	rec.add("dev: first navigate once initialized", "ms", firstNav, 0)
	rec.add("dev: MCP round trip (browser_tabs list)", "ms", median(rtt), 0)
	rec.add("dev: a second client's first navigate through the running daemon (start included)", "ms", median(warm), 0)

	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fixture\tmode\tchars\ttokens\t× best peer\trefs\tsnapshot ms\tnavigate ms\t")
	refsRe := regexp.MustCompile(`· (\d+) refs ·`)
	for _, f := range fixtures {
		var navMs []float64
		for range *runs {
			_, d, err := call("browser_navigate", map[string]any{"url": pageURL(f), "snapshot": "none"})
			if err != nil {
				return err
			}
			navMs = append(navMs, d)
		}
		for _, mode := range []string{"compact", "full", "interactive"} {
			var times []float64
			var text string
			for range *runs {
				t, d, err := call("browser_snapshot", map[string]any{"mode": mode, "max_chars": 100_000}) // browser.MaxSnapshotChars: above it a clamp note is added
				if err != nil {
					return err
				}
				times = append(times, d)
				text = t
			}
			tokens, _ := enc.Count(text)
			if *dump != "" {
				name := strings.ReplaceAll(strings.TrimSuffix(f, ".html"), "/", "-") + "." + mode + ".txt"
				if err := os.WriteFile(filepath.Join(*dump, name), []byte(text), 0o644); err != nil {
					return fmt.Errorf("bench: dump: %w", err)
				}
			}
			refs := ""
			if m := refsRe.FindStringSubmatch(text); m != nil {
				refs = m[1]
			}
			ratio := "-"
			if p, ok := peerTokens[f]; ok {
				ratio = fmt.Sprintf("%.2f", float64(tokens)/float64(p.tokens))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%.0f\t%.0f\t\n", f, mode, len([]rune(text)), tokens, ratio, refs, median(times), median(navMs))
			rec.add("dev: snapshot size "+f+" "+mode, "tokens", float64(tokens), 0)
			rec.add("dev: snapshot "+f+" "+mode, "ms", median(times), 0)
		}
		rec.add("dev: navigate "+f, "ms", median(navMs), 0)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\n× best peer: tokens over the smaller snapshot of playwright-mcp (0.0.83; 0.0.86 for the widget pages) and chrome-devtools-mcp 1.11.0")
	fmt.Fprintln(stdout, "on the same fixture, measured on this machine kind (2026-12-02; the widgets/ pages on 2026-12-07 with playwright-mcp 0.0.86):")
	for _, f := range fixtures {
		if p, ok := peerTokens[f]; ok {
			fmt.Fprintf(stdout, "  %-26s %6d tokens (%s), snapshot %d ms (fastest peer)\n", f, p.tokens, p.who, p.ms)
		}
	}

	// 3. Getting 50 items of a list into the agent's context, three ways.
	if err := benchExtract(stdout, enc, call, srv.URL+"/snap/shop300.html", *runs, rec); err != nil {
		return err
	}

	// 4. Actions on a warm page, verification included.
	if _, _, err := call("browser_navigate", map[string]any{"url": srv.URL + "/act/kinds.html", "snapshot": "none"}); err != nil {
		return err
	}
	// The ref of the Save button, for a click by ref.
	snap, _, err := call("browser_snapshot", map[string]any{"mode": "interactive"})
	if err != nil {
		return err
	}
	saveRef := ""
	if m := regexp.MustCompile(`button (e\d+) "Save changes"`).FindStringSubmatch(snap); m != nil {
		saveRef = m[1]
	} else {
		return fmt.Errorf("bench: no Save changes button in the snapshot of act/kinds.html")
	}
	// The page's document request, for browser_network get.
	docs, _, err := call("browser_network", map[string]any{"filter": "kinds.html", "type": "document", "limit": 1})
	if err != nil {
		return err
	}
	docID := ""
	if m := regexp.MustCompile(`(?m)^(n\d+) `).FindStringSubmatch(docs); m != nil {
		docID = m[1]
	} else {
		return fmt.Errorf("bench: the document of act/kinds.html is not in browser_network's list:\n%s", docs)
	}
	actions := []struct {
		name string
		tool string
		args func(i int) map[string]any
	}{
		{"click (ref)", "", func(int) map[string]any {
			return map[string]any{"action": "click", "ref": saveRef, "snapshot": "none"}
		}},
		{"click (selector)", "", func(int) map[string]any {
			return map[string]any{"action": "click", "selector": "#save", "snapshot": "none"}
		}},
		{"click (role+name)", "", func(int) map[string]any {
			return map[string]any{"action": "click", "role": "button", "name": "Save changes", "snapshot": "none"}
		}},
		{"click (text)", "", func(int) map[string]any {
			return map[string]any{"action": "click", "text": "Save changes", "snapshot": "none"}
		}},
		{"fill", "", func(int) map[string]any {
			return map[string]any{"action": "fill", "selector": "#name", "value": "Ada Lovelace", "snapshot": "none"}
		}},
		{"type (5 chars)", "", func(int) map[string]any {
			return map[string]any{"action": "type", "selector": "#focusme", "value": "hello", "snapshot": "none"}
		}},
		{"select", "", func(i int) map[string]any {
			return map[string]any{"action": "select", "selector": "#city", "values": []string{[]string{"Berlin", "Rome"}[i%2]}, "snapshot": "none"}
		}},
		{"check/uncheck", "", func(i int) map[string]any {
			return map[string]any{"action": []string{"check", "uncheck"}[i%2], "selector": "#agree", "snapshot": "none"}
		}},
		{"hover", "", func(int) map[string]any {
			return map[string]any{"action": "hover", "selector": "#menu", "snapshot": "none"}
		}},
		{"press Tab", "", func(int) map[string]any { return map[string]any{"action": "press", "key": "Tab", "snapshot": "none"} }},
		{"click + diff snapshot", "", func(int) map[string]any { return map[string]any{"action": "click", "selector": "#save"} }},
		{"snapshot (compact)", "browser_snapshot", func(int) map[string]any { return map[string]any{"mode": "compact"} }},
		{"network list (50 of the buffer)", "browser_network", func(int) map[string]any { return map[string]any{} }},
		{"network get (the document, body)", "browser_network", func(int) map[string]any { return map[string]any{"action": "get", "id": docID} }},
		{"console (errors)", "browser_console", func(int) map[string]any { return map[string]any{"level": "error"} }},
		{"screenshot (viewport)", "browser_screenshot", func(int) map[string]any { return map[string]any{} }},
		{"screenshot (annotate)", "browser_screenshot", func(int) map[string]any { return map[string]any{"annotate": true} }},
		{"download (a 31-byte URL)", "browser_download", func(int) map[string]any {
			return map[string]any{"urls": []string{srv.URL + "/network/data.json"}}
		}},
		{"flow (fill + click, elements recorded)", "browser_flow", func(int) map[string]any { return benchFlow }},
		{"recipe_run (the same 2 steps, relocated)", "recipe_run", func(int) map[string]any { return map[string]any{"name": "bench-save"} }},
	}
	// The recipe recipe_run runs: the flow above, saved once.
	if _, _, err := call("browser_flow", benchFlow); err != nil {
		return err
	}
	if _, _, err := call("recipe_save", map[string]any{"name": "bench-save", "site": "127.0.0.1", "overwrite": true}); err != nil {
		return err
	}
	// CDP commands per action: the server's count (browser_status) before
	// and after each action; browser_status itself sends none.
	sent := func() (int64, error) {
		text, _, err := call("browser_status", map[string]any{"verbose": true})
		if err != nil {
			return 0, err
		}
		var st struct {
			N int64 `json:"cdp_commands_sent"`
		}
		if err := json.Unmarshal([]byte(text), &st); err != nil {
			return 0, fmt.Errorf("bench: browser_status: %w", err)
		}
		return st.N, nil
	}
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "action (act/kinds.html)\tms\tCDP commands\t")
	refClick := -1.0 // the CDP commands of a click by ref
	for _, a := range actions {
		var times, cmds []float64
		for i := range *runs {
			n0, err := sent()
			if err != nil {
				return err
			}
			_, d, err := call(cmp.Or(a.tool, "browser_action"), a.args(i))
			if err != nil {
				return err
			}
			n1, err := sent()
			if err != nil {
				return err
			}
			times = append(times, d)
			cmds = append(cmds, float64(n1-n0))
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t\n", a.name, median(times), median(cmds))
		rec.add("dev: action "+a.name, "ms", median(times), 0)
		rec.add("dev: CDP commands "+a.name, "commands", median(cmds), 0)
		if a.name == "click (ref)" {
			refClick = median(cmds)
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "CDP commands per click by ref (MCP): %.0f (goal: at most 9)\n", refClick)
	fmt.Fprintln(stdout, "(peers on such pages on this machine kind: 300–1,700 ms per click, 90–600 ms per type call)")

	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "server RSS: %s\n", rss(cmd.Process.Pid))
	if mib := rssMiB(cmd.Process.Pid); mib > 0 {
		rec.add("dev: server RSS", "MiB", mib, 0)
	}
	fmt.Fprintln(stdout)
	return benchOpenCLI(ctx, stdout, self, version, *runs, enc)
}

// benchFlow is the flow the bench runs and saves as a recipe: two steps
// with a target each, on act/kinds.html.
var benchFlow = map[string]any{"steps": []any{
	map[string]any{"do": "action", "action": "fill", "selector": "#name", "value": "Ada Lovelace", "snapshot": "none"},
	map[string]any{"do": "action", "action": "click", "role": "button", "name": "Save changes", "snapshot": "none"},
}}

// startServer runs `webpilot mcp --isolated` (with extra arguments) of the
// binary self and connects to it over stdio, as a client of that version.
func startServer(ctx context.Context, self, version string, extra ...string) (*mcp.ClientSession, *exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, self, append([]string{"mcp", "--standalone", "--isolated", "--headless=true"}, extra...)...)
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "webpilot-bench", Version: version}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: start %s mcp: %w", filepath.Base(self), err)
	}
	return cs, cmd, nil
}

// warmSecondClient measures the user's usual case: a daemon that one
// client (webpilot mcp, the default path) already started with its browser,
// and another client starting: from its process start to the result of its
// first browser_navigate, runs times. The daemon is a private one (its own
// XDG directories), stopped at the end. The clients give version as theirs.
func warmSecondClient(ctx context.Context, self, version, url string, runs int) ([]float64, error) {
	dir, err := os.MkdirTemp("", "webpilot-bench-daemon-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := os.Environ()
	for _, k := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		d := filepath.Join(dir, strings.ToLower(strings.TrimPrefix(k, "XDG_")))
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		env = append(env, k+"="+d)
	}
	defer func() {
		stop := exec.Command(self, "daemon", "stop")
		stop.Env = env
		_ = stop.Run()
	}()
	client := func(session string) (*mcp.ClientSession, *exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, self, "mcp", "--headless=true", "--session", session)
		cmd.Env, cmd.Stderr = env, os.Stderr
		c := mcp.NewClient(&mcp.Implementation{Name: "webpilot-bench", Version: version}, nil)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("bench: start webpilot mcp through the daemon: %w", err)
		}
		return cs, cmd, nil
	}
	navigate := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": url, "snapshot": "none"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("%s", mcpclient.ResultText(res))
		}
		if err != nil {
			return fmt.Errorf("bench: navigate through the daemon: %w", err)
		}
		return nil
	}
	first, firstCmd, err := client("bench-first")
	if err != nil {
		return nil, err
	}
	defer func() { first.Close(); _ = firstCmd.Wait() }()
	if err := navigate(first); err != nil {
		return nil, err
	}
	var out []float64
	for i := range runs {
		t0 := time.Now()
		cs, cmd, err := client(fmt.Sprintf("bench-second-%d", i))
		if err != nil {
			return nil, err
		}
		err = navigate(cs)
		d := ms(time.Since(t0))
		cs.Close()
		_ = cmd.Wait()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// timedCall is a caller of cs's tools that returns the result's text and
// the call's time in ms; an error result is an error (with its text).
func timedCall(ctx context.Context, cs *mcp.ClientSession) func(tool string, args map[string]any) (string, float64, error) {
	return func(tool string, args map[string]any) (string, float64, error) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		d := ms(time.Since(t0))
		if err != nil {
			return "", d, fmt.Errorf("bench: %s: %w", tool, err)
		}
		text := mcpclient.ResultText(res)
		if res.IsError {
			return text, d, fmt.Errorf("bench: %s %v: %s", tool, args, text)
		}
		return text, d, nil
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// rss reads a process's resident memory on Linux.
func rss(pid int) string {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/status", pid)); err != nil {
		return "unknown on this OS"
	}
	if mib := rssMiB(pid); mib > 0 {
		return fmt.Sprintf("%.1f MiB", mib)
	}
	return "unknown"
}

// rssMiB is a process's resident memory in MiB on Linux, 0 when unknown.
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.Atoi(f[1])
				return float64(kb) / 1024
			}
		}
	}
	return 0
}

// widgetFixtures are the fixture pages on the React component libraries'
// own code that the bench measures besides the top-level and snap/ pages.
var widgetFixtures = []string{"widgets/mui6/grid.html", "widgets/antd5/select.html"}

// peerTokens are the peers' snapshot sizes on our fixtures (o200k tokens of
// the whole snapshot result, the smaller of the two peers) and the faster
// peer's median snapshot time, measured with their MCP servers over stdio
// on headless Chromium 156.
var peerTokens = map[string]struct {
	tokens int
	who    string
	ms     int
}{
	"basic.html":           {199, "chrome-devtools-mcp", 6},
	"form.html":            {231, "chrome-devtools-mcp", 12},
	"long.html":            {9224, "chrome-devtools-mcp", 76},
	"snap/article.html":    {11355, "chrome-devtools-mcp", 107},
	"snap/form-all.html":   {1174, "playwright-mcp", 29},
	"snap/table.html":      {35044, "chrome-devtools-mcp", 542},
	"snap/heavy.html":      {30584, "chrome-devtools-mcp", 388},
	"snap/clickables.html": {758, "chrome-devtools-mcp", 15},
	"snap/frames.html":     {401, "playwright-mcp", 25},
	// Measured on 2026-12-07 with playwright-mcp 0.0.86 and
	// chrome-devtools-mcp 1.11.0 by the side-by-side section (-peers
	// -runs 3 -side-only -only widgets).
	"widgets/mui6/grid.html":    {1218, "chrome-devtools-mcp", 38},
	"widgets/antd5/select.html": {288, "chrome-devtools-mcp", 41},
}
