package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

// treeMarker is set in the environment of a server the cold bench starts;
// every process it starts inherits it, the crashpad handlers too, which
// Chromium reparents to init: they are found by it.
const treeMarker = "WEBPILOT_BENCH_TREE"

// coldServer describes an MCP server for the cold bench: how to start it and
// how to ask it to navigate and snapshot.
type coldServer struct {
	name     string
	argv     []string
	navigate func(url string) (string, map[string]any)
	snapshot func() (string, map[string]any)
}

// webpilotCold is webpilot mcp with extra arguments.
func webpilotCold(name, self string, extra ...string) coldServer {
	return coldServer{
		name: name,
		argv: append([]string{self, "mcp", "--standalone", "--isolated", "--headless=true"}, extra...),
		navigate: func(url string) (string, map[string]any) {
			return "browser_navigate", map[string]any{"url": url, "snapshot": "none"}
		},
		snapshot: func() (string, map[string]any) {
			return "browser_snapshot", map[string]any{"mode": "compact", "max_chars": 100_000}
		},
	}
}

// peerServers are the peers installed under dir/node_modules (npm i
// @playwright/mcp@0.0.86 chrome-devtools-mcp@1.11.0; 0.0.83 works the same), on the same browser.
func peerServers(dir, browser string) []coldServer {
	var out []coldServer
	// As root, Chromium needs --no-sandbox (webpilot adds it itself).
	root := os.Geteuid() == 0
	pw := filepath.Join(dir, "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(pw); err == nil {
		// Its console logs and snapshots go to --output-dir, else the
		// working directory (the repository).
		argv := []string{"node", pw, "--headless", "--isolated", "--executable-path", browser,
			"--output-dir", filepath.Join(os.TempDir(), "webpilot-bench-playwright-mcp")}
		if root {
			argv = append(argv, "--no-sandbox")
		}
		out = append(out, coldServer{
			name: "playwright-mcp",
			argv: argv,
			navigate: func(url string) (string, map[string]any) {
				return "browser_navigate", map[string]any{"url": url}
			},
			snapshot: func() (string, map[string]any) { return "browser_snapshot", map[string]any{} },
		})
	}
	cd := filepath.Join(dir, "node_modules", "chrome-devtools-mcp", "build", "src", "bin", "chrome-devtools-mcp.js")
	if _, err := os.Stat(cd); err == nil {
		argv := []string{"node", cd, "--headless", "--isolated", "--executablePath", browser, "--no-page-id-routing"}
		if root {
			argv = append(argv, "--chromeArg=--no-sandbox")
		}
		out = append(out, coldServer{
			name: "chrome-devtools-mcp",
			argv: argv,
			navigate: func(url string) (string, map[string]any) {
				return "navigate_page", map[string]any{"type": "url", "url": url}
			},
			snapshot: func() (string, map[string]any) { return "take_snapshot", map[string]any{} },
		})
	}
	return out
}

// coldResult is one cold run: server start to the first navigation's
// result, and the peak PSS of the server's whole process tree over the run.
type coldResult struct {
	firstNav time.Duration
	peakPSS  int64 // bytes; 0 when unknown
	peakUSS  int64 // bytes of pages private to one process (no share of libraries)
	procs    int   // processes in the tree at the peak
	kinds    map[string]int64
}

// runCold starts srv, navigates to first, then navigates to and snapshots
// each of pages, sampling the process tree's PSS every 50 ms throughout.
// Its MCP client gives version as its own.
func runCold(ctx context.Context, srv coldServer, version, first string, pages []string) (coldResult, error) {
	var res coldResult
	mark := make([]byte, 8)
	_, _ = rand.Read(mark)
	marker := treeMarker + "=" + hex.EncodeToString(mark)
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, srv.argv[0], srv.argv[1:]...)
	// The peers' usage statistics stay off (no network from a benchmark).
	cmd.Env = append(os.Environ(), marker, "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "webpilot-bench", Version: version}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return res, fmt.Errorf("bench: start %s: %w (stderr: %s)", srv.name, err, stderr.String())
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			p, u, n, k := treePSS(cmd.Process.Pid, marker)
			if p > res.peakPSS {
				res.peakPSS, res.procs, res.kinds = p, n, k
			}
			res.peakUSS = max(res.peakUSS, u)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	call := func(tool string, args map[string]any) error {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return fmt.Errorf("bench: %s %s: %w", srv.name, tool, err)
		}
		if r.IsError {
			return fmt.Errorf("bench: %s %s: %s", srv.name, tool, mcpclient.ResultText(r))
		}
		return nil
	}
	err = call(srv.navigate(first))
	res.firstNav = time.Since(t0)
	for _, p := range pages {
		if err != nil {
			break
		}
		if err = call(srv.navigate(p)); err == nil {
			err = call(srv.snapshot())
		}
	}
	close(stop)
	wg.Wait()
	_ = cs.Close()
	_ = cmd.Wait()
	return res, err
}

// launchFloor times the bare browser: spawn it with webpilot's flags and a
// fresh profile on --remote-debugging-pipe, send Browser.getVersion and wait
// for the reply. It kills the browser and removes the profile after.
func launchFloor(ctx context.Context, path string, headless bool) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "webpilot-floor-")
	if err != nil {
		return 0, fmt.Errorf("bench: floor profile: %w", err)
	}
	defer os.RemoveAll(dir)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("bench: floor pipe: %w", err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("bench: floor pipe: %w", err)
	}
	defer cmdW.Close()
	defer resR.Close()
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, path, launch.Args(launch.Options{Headless: headless}, dir)...)
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	cmd.SysProcAttr = benchProcAttr()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("bench: floor start: %w", err)
	}
	_ = cmdR.Close()
	_ = resW.Close()
	defer func() {
		benchKillGroup(cmd.Process.Pid)
		_ = cmd.Wait()
	}()
	if _, err := cmdW.Write([]byte(`{"id":1,"method":"Browser.getVersion"}` + "\x00")); err != nil {
		return 0, fmt.Errorf("bench: floor write: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		r := bufio.NewReader(resR)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				done <- fmt.Errorf("bench: floor read: %w", err)
				return
			}
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal(bytes.TrimSuffix(msg, []byte{0}), &m) == nil && m.ID == 1 {
				done <- nil
				return
			}
		}
	}()
	select {
	case err := <-done:
		return time.Since(t0), err
	case <-time.After(60 * time.Second):
		return 0, errors.New("bench: floor: no reply to Browser.getVersion in 60 s")
	}
}

// treePSS sums the proportional set size of root, its descendants, and
// every process carrying marker in its environment (helpers reparented to
// init). It returns the bytes, the number of processes and the kB per kind
// of process (procKind; "#kind" is how many); 0 where /proc is missing.
func treePSS(root int, marker string) (pss, uss int64, procs int, kinds map[string]int64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, 0, nil
	}
	parent := map[int]int{}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[pid] = pp
		pids = append(pids, pid)
	}
	in := func(pid int) bool {
		for p, n := pid, 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				return true
			}
		}
		if parent[pid] != 1 {
			return false
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		return err == nil && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+marker+"\x00"))
	}
	kinds = map[string]int64{}
	for _, pid := range pids {
		if !in(pid) {
			continue
		}
		if kb, ukb := memKB(pid); kb > 0 {
			pss += kb << 10
			uss += ukb << 10
			procs++
			k := procKind(pid)
			kinds[k] += kb
			kinds["#"+k]++
		}
	}
	return pss, uss, procs, kinds
}

// procKind names a process of the tree for the breakdown: a Chromium
// process by its --type (and utility sub-type), anything else by its name.
// Chromium rewrites its children's command lines into one string, so the
// words are split on spaces as well as NULs.
func procKind(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "?"
	}
	args := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	if len(args) == 0 {
		return "?"
	}
	kind, sub := "", ""
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, "--type="); ok {
			kind = v
		}
		if v, ok := strings.CutPrefix(a, "--utility-sub-type="); ok {
			sub = v[strings.LastIndexByte(v, '.')+1:]
		}
	}
	name := filepath.Base(args[0])
	switch {
	case kind == "" && (name == "chromium" || name == "chrome" || name == "headless_shell"):
		return "browser"
	case kind == "":
		return name
	case sub != "":
		return kind + ":" + sub
	}
	return kind
}

// breakdown renders kinds (kB; "#kind" counts the processes) largest
// first in MiB: "3 renderer 120, browser 80, …".
func breakdown(kinds map[string]int64) string {
	type kv struct {
		k string
		v int64
	}
	var l []kv
	for k, v := range kinds {
		if !strings.HasPrefix(k, "#") {
			l = append(l, kv{k, v})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	var parts []string
	for _, e := range l {
		if n := kinds["#"+e.k]; n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s %d", n, e.k, e.v>>10))
		} else {
			parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v>>10))
		}
	}
	return strings.Join(parts, ", ")
}

// memKB reads a process's Pss and its private pages (Private_Clean +
// Private_Dirty: USS) from /proc/<pid>/smaps_rollup, in kB. PSS splits each
// shared page among every process mapping it, other browsers on the machine
// included, so a busy machine lowers it; USS does not move with them.
func memKB(pid int) (pss, uss int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Pss:":
			pss = kb
		case "Private_Clean:", "Private_Dirty:":
			uss += kb
		}
	}
	return pss, uss
}

// benchCold measures cold start and memory, interleaving runs: the launch
// floor, webpilot (prewarm, the default), webpilot --no-prewarm, and each
// peer found under peers. It prints medians and the ratios, then what a
// second client's first navigate through the running daemon costs (the
// user's usual case: the daemon and its browser are up), and puts the rows
// into rec. self is the webpilot binary measured; version is what the
// bench's clients call themselves.
func benchCold(ctx context.Context, stdout io.Writer, self, version, browserPath, baseURL string, runs int, extra []string, lazy bool, peers string, rec histRows) error {
	first := baseURL + "/basic.html"
	var pages []string
	for _, f := range []string{"form.html", "long.html", "snap/article.html", "snap/table.html", "snap/heavy.html", "snap/clickables.html"} {
		pages = append(pages, baseURL+"/"+f)
	}
	servers := []coldServer{webpilotCold("webpilot", self, extra...)}
	if lazy {
		servers = append(servers, webpilotCold("webpilot --no-prewarm", self, append([]string{"--no-prewarm"}, extra...)...))
	}
	ours := len(servers)
	if peers != "" {
		servers = append(servers, peerServers(peers, browserPath)...)
	}
	if err := benchStart(ctx, stdout, self, version, servers[ours:], 3*runs); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	var floor []float64
	navs := make([][]float64, len(servers))
	psss := make([][]float64, len(servers))
	usss := make([][]float64, len(servers))
	procs := make([]int, len(servers))
	kinds := make([]map[string]int64, len(servers))
	for range runs {
		d, err := launchFloor(ctx, browserPath, true)
		if err != nil {
			return err
		}
		floor = append(floor, ms(d))
		for i, s := range servers {
			r, err := runCold(ctx, s, version, first, pages)
			if err != nil {
				return err
			}
			navs[i] = append(navs[i], ms(r.firstNav))
			psss[i] = append(psss[i], float64(r.peakPSS)/(1<<20))
			usss[i] = append(usss[i], float64(r.peakUSS)/(1<<20))
			procs[i], kinds[i] = r.procs, r.kinds
		}
	}
	fmt.Fprintf(stdout, "cold start and memory — %d interleaved runs, medians (other load on this machine adds noise)\n\n", runs)
	fmt.Fprintf(stdout, "floor: bare Chromium launch → first CDP reply (Browser.getVersion, our flags, pipe): %.0f ms\n\n", median(floor))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tstart → first navigate result\t× floor\tpeak PSS of tree (MiB)\tpeak USS (MiB)\tprocesses\t")
	for i, s := range servers {
		fmt.Fprintf(tw, "%s\t%.0f ms\t%.2f\t%.0f\t%.0f\t%d\t\n", s.name, median(navs[i]), median(navs[i])/median(floor), median(psss[i]), median(usss[i]), procs[i])
	}
	tw.Flush()
	// The user's usual case, after the cold runs: webpilot mcp through
	// the daemon another client started (its browser is up).
	warm, err := warmSecondClient(ctx, self, version, first, runs)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "at the peak of the last run (MiB):")
	for i, s := range servers {
		fmt.Fprintf(stdout, "  %s: %s\n", s.name, breakdown(kinds[i]))
	}
	rec.add("cold: floor (bare Chromium launch → first CDP reply)", "ms", median(floor), 0)
	for i := 1; i < ours; i++ {
		rec.add("cold: "+servers[i].name+" start → first navigate result", "ms", median(navs[i]), 0)
		rec.add("cold: "+servers[i].name+" peak PSS", "MiB", median(psss[i]), 0)
	}
	best, bestPSS, bestUSS := 0.0, 0.0, 0.0
	if len(servers) > ours {
		for i := ours; i < len(servers); i++ {
			if n := median(navs[i]); best == 0 || n < best {
				best = n
			}
			if p := median(psss[i]); bestPSS == 0 || p < bestPSS {
				bestPSS = p
			}
			if u := median(usss[i]); bestUSS == 0 || u < bestUSS {
				bestUSS = u
			}
		}
		fmt.Fprintf(stdout, "webpilot / best peer: first navigate %.2f× (faster peer), peak PSS %.2f×, peak USS %.2f× (smaller peer)\n",
			median(navs[0])/best, median(psss[0])/bestPSS, median(usss[0])/bestUSS)
	}
	// Without peers the ratios are 0: none.
	ratio := func(v, peer float64) float64 {
		if peer == 0 {
			return 0
		}
		return v / peer
	}
	line := fmt.Sprintf("a second client's first navigate through the running daemon (start included): %.0f ms, %.2f× floor", median(warm), median(warm)/median(floor))
	if best > 0 {
		line += fmt.Sprintf(", %.2f× the faster peer's start → first navigate (a peer starts anew for each client)", median(warm)/best)
	}
	fmt.Fprintln(stdout, line)
	rec.add("cold: webpilot start → first navigate result", "ms", median(navs[0]), ratio(median(navs[0]), best))
	rec.add("cold: webpilot peak PSS", "MiB", median(psss[0]), ratio(median(psss[0]), bestPSS))
	rec.add("cold: webpilot peak USS", "MiB", median(usss[0]), ratio(median(usss[0]), bestUSS))
	rec.add("cold: a second client's first navigate through the running daemon (start included)", "ms", median(warm), ratio(median(warm), best))
	fmt.Fprintln(stdout, "(peak PSS: webpilot, the browser and every helper, sampled every 50 ms over the first navigate and")
	fmt.Fprintln(stdout, " navigate + compact snapshot of form, long, article, table, heavy and clickables; PSS shares library")
	fmt.Fprintln(stdout, " pages with every other Chromium running on the machine, so compare interleaved runs only; USS does not;")
	fmt.Fprintf(stdout, " the second client: webpilot mcp through the daemon that another client started, %d runs after the cold runs)\n", runs)
	return nil
}
