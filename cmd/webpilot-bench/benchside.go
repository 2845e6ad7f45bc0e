package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

// sideServer is an MCP server of the side-by-side agent loop: how to start
// it (coldServer's argv and navigate), how to snapshot, and how to act on
// an element by the ref its snapshot (or an earlier reply) gave. act
// returns "" as the tool when the text has no ref for the element, and when
// the server cannot do the kind (chrome-devtools-mcp has no key-by-key
// typing).
type sideServer struct {
	coldServer
	act func(text string, a sideAct) (string, map[string]any)
}

// sideAct is one action of the agent loop: click, fill (one input event),
// type (key by key) or check, on the element of role (a regexp of role
// words) and name, with value for fill and type.
type sideAct struct {
	kind, role, name, value string
}

// sideRef is the first submatch of re in text, "" when none; the last one
// when last is set (a reply's newest lines come last).
func sideRef(re *regexp.Regexp, text string) string {
	if m := re.FindAllStringSubmatch(text, -1); m != nil {
		return m[len(m)-1][1]
	}
	return ""
}

// sideServers are webpilot and the peers found under peers. Their
// snapshots name elements differently: webpilot `button e12 "Save
// changes"`, playwright-mcp `button "Save changes" [ref=e97]` (f6e97 in
// frames), chrome-devtools-mcp `uid=1_23 button "Save changes"`.
func sideServers(self, browser, peers string, extra []string) []sideServer {
	wp := webpilotCold("webpilot", self, extra...)
	wp.snapshot = func() (string, map[string]any) { return "browser_snapshot", map[string]any{} }
	out := []sideServer{{
		coldServer: wp,
		act: func(text string, a sideAct) (string, map[string]any) {
			ref := sideRef(regexp.MustCompile(`(?:`+a.role+`) (f?\d*e\d+) "`+regexp.QuoteMeta(a.name)+`"`), text)
			if ref == "" {
				return "", nil
			}
			args := map[string]any{"action": a.kind, "ref": ref}
			if a.kind == "fill" || a.kind == "type" {
				args["value"] = a.value
			}
			return "browser_action", args
		},
	}}
	for _, p := range peerServers(peers, browser) {
		s := sideServer{coldServer: p}
		switch p.name {
		case "playwright-mcp":
			s.act = func(text string, a sideAct) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(`(?:`+a.role+`) "`+regexp.QuoteMeta(a.name)+`"[^\n]*\[ref=(f?\d*e\d+)\]`), text)
				if ref == "" {
					return "", nil
				}
				switch a.kind {
				case "fill", "type":
					return "browser_type", map[string]any{"element": a.name, "target": ref, "text": a.value, "slowly": a.kind == "type"}
				case "check":
					return "browser_click", map[string]any{"element": a.name, "target": ref}
				}
				return "browser_click", map[string]any{"element": a.name, "target": ref}
			}
		case "chrome-devtools-mcp":
			s.act = func(text string, a sideAct) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(`uid=(\S+) (?:`+a.role+`) "`+regexp.QuoteMeta(a.name)+`"`), text)
				if ref == "" || a.kind == "type" {
					return "", nil
				}
				if a.kind == "fill" {
					return "fill", map[string]any{"uid": ref, "value": a.value}
				}
				return "click", map[string]any{"uid": ref}
			}
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// searchBox is the role of a search field in the three servers' snapshots.
const searchBox = `searchbox|textbox`

// sidePages are the pages of the side-by-side section and what is done
// after the snapshot of each (then: a sideAct; "" kind for nothing).
// op names the row; noDiff turns webpilot's diff off for it.
var sidePages = []struct {
	page   string
	then   sideAct
	op     string
	noDiff bool
}{
	{page: "basic.html"},
	{page: "form.html"},
	{page: "snap/clickables.html"},
	{page: "long.html"},
	{page: "snap/article.html"},
	{page: "snap/heavy.html"},
	{page: "act/kinds.html", then: sideAct{kind: "click", role: "button", name: "Save changes"}, op: `click "Save changes"`},
	{page: "snap/shop300.html", then: sideAct{kind: "fill", role: searchBox, name: "Search products", value: "camera"}, op: `fill "camera"`},
	{page: "snap/shop300.html", then: sideAct{kind: "fill", role: searchBox, name: "Search products", value: "camera"}, op: `fill "camera" (no diff)`, noDiff: true},
	{page: "snap/shop300.html", then: sideAct{kind: "type", role: searchBox, name: "Search products", value: "camera"}, op: `type "camera"`},
	{page: "bench/login.html", then: sideAct{kind: "fill", role: "textbox", name: "Username", value: "ada"}, op: `fill "ada"`},
	{page: "bench/table-filter.html", then: sideAct{kind: "fill", role: searchBox, name: "Filter rows", value: "kettle"}, op: `fill "kettle"`},
	{page: "bench/table-filter.html", then: sideAct{kind: "click", role: "button", name: "Price"}, op: `click "Price" (sorts)`},
	{page: "bench/store.html", then: sideAct{kind: "fill", role: searchBox, name: "Search products", value: "camera"}, op: `fill "camera"`},
	{page: "bench/store.html", then: sideAct{kind: "click", role: "button", name: "Add to cart"}, op: `click "Add to cart"`},
	{page: "widgets/mui6/grid.html"},
	{page: "widgets/antd5/select.html"},
}

// sideSession is one running server of the side-by-side section; closed
// is set once it has been stopped.
type sideSession struct {
	srv    sideServer
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	ctx    context.Context
	closed bool
}

// call runs a tool with a 2-minute limit and returns the client-side time
// (the MCP round trip included) and the result's text.
func (s *sideSession) call(tool string, args map[string]any) (float64, string, error) {
	return s.callWithin(2*time.Minute, tool, args)
}

// close stops the server (stdin closed, then SIGTERM and SIGKILL if it
// does not end) once.
func (s *sideSession) close() {
	if !s.closed {
		s.closed = true
		_ = s.cs.Close()
		_ = s.cmd.Wait()
	}
}

// callWithin is call with limit instead of 2 minutes; a call that passes
// it ends with an error then.
func (s *sideSession) callWithin(limit time.Duration, tool string, args map[string]any) (float64, string, error) {
	ctx, cancel := context.WithTimeout(s.ctx, limit)
	defer cancel()
	t0 := time.Now()
	r, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	d := ms(time.Since(t0))
	if err != nil {
		return 0, "", fmt.Errorf("bench: side: %s %s: %w", s.srv.name, tool, err)
	}
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		return 0, "", fmt.Errorf("bench: side: %s %s: %s", s.srv.name, tool, trimTo(text, 300))
	}
	return d, text, nil
}

// overBestPeer is webpilot's value (vals[0]) over the smallest of the
// peers' (the rest; 0 is no sample), as "0.54", or "-" without either.
func overBestPeer(vals []float64) string {
	r := bestPeerRatio(vals)
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

// bestPeerRatio is webpilot's value (vals[0]) over the smallest of the
// peers' (the rest; 0 is no sample), 0 without either.
func bestPeerRatio(vals []float64) float64 {
	best := 0.0
	for _, v := range vals[1:] {
		if v > 0 && (best == 0 || v < best) {
			best = v
		}
	}
	if best == 0 || vals[0] == 0 {
		return 0
	}
	return vals[0] / best
}

// sideDumpName is the file -dump writes a server's snapshot of page to
// (side.SERVER.PAGE.txt), or with op its reply to that action
// (side.SERVER.PAGE.OP.txt, op's words joined by "-").
func sideDumpName(server, page, op string) string {
	name := "side." + server + "." + strings.ReplaceAll(strings.TrimSuffix(page, ".html"), "/", "-")
	if op != "" {
		name += "." + strings.Join(strings.FieldsFunc(op, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), "-")
	}
	return name + ".txt"
}

func trimTo(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// benchSide is the agent loop side by side: webpilot and the peers under
// peers, each started once, on the same fixture pages in interleaved rounds
// (each page on each server in turn): navigate, snapshot, then on
// act/kinds.html click "Save changes" and on snap/shop300.html type
// "camera" by the snapshot's ref. It prints the median client-side ms per
// operation and webpilot's time over the faster peer's, then the o200k
// tokens of each server's snapshot result per page and webpilot's over the
// best peer's. Pages whose name does not contain only are left out. self
// is the webpilot binary measured; version is what the bench's clients
// call themselves. With dump set, each server's last snapshot of each page
// is written there (side.SERVER.PAGE.txt). Then the first look at a big
// page (benchBig). Every row goes into rec (webpilot's value and its ratio
// to the best peer). Before each call but a navigate the loop waits think,
// as an agent reads each reply before its next call.
func benchSide(ctx context.Context, stdout io.Writer, self, version, browserPath, baseURL string, runs int, think time.Duration, extra []string, peers, only, dump string, rec histRows) error {
	servers := sideServers(self, browserPath, peers, extra)
	if len(servers) < 2 {
		return fmt.Errorf("bench: side: no peer under %s (node_modules/@playwright/mcp, node_modules/chrome-devtools-mcp)", peers)
	}
	var sessions []*sideSession
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	for _, srv := range servers {
		cmd := exec.CommandContext(ctx, srv.argv[0], srv.argv[1:]...)
		cmd.Env = append(os.Environ(), "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		c := mcp.NewClient(&mcp.Implementation{Name: "webpilot-bench", Version: version}, nil)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return fmt.Errorf("bench: side: start %s: %w (stderr: %s)", srv.name, err, trimTo(stderr.String(), 500))
		}
		sessions = append(sessions, &sideSession{srv: srv, cs: cs, cmd: cmd, ctx: ctx})
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return fmt.Errorf("bench: tokenizer: %w", err)
	}
	// snapTokens[page][server] are the snapshot results' tokens;
	// snapPages keeps the order.
	var snapPages []string
	snapTokens := map[string][][]float64{}
	// times[operation][server] are the samples; ops keeps the order.
	var ops []string
	times := map[string][][]float64{}
	put := func(op string, i int, d float64) {
		if times[op] == nil {
			ops = append(ops, op)
			times[op] = make([][]float64, len(sessions))
		}
		times[op][i] = append(times[op][i], d)
	}
	for range runs {
		for _, p := range sidePages {
			if !strings.Contains(p.page, only) {
				continue
			}
			for i, s := range sessions {
				if _, _, err := s.call(s.srv.navigate(baseURL + "/" + p.page)); err != nil {
					return err
				}
				time.Sleep(think)
				d, snap, err := s.call(s.srv.snapshot())
				if err != nil {
					return err
				}
				put("snapshot "+p.page, i, d)
				if snapTokens[p.page] == nil {
					snapPages = append(snapPages, p.page)
					snapTokens[p.page] = make([][]float64, len(sessions))
				}
				n, _ := enc.Count(snap)
				snapTokens[p.page][i] = append(snapTokens[p.page][i], float64(n))
				if dump != "" {
					if err := os.WriteFile(filepath.Join(dump, sideDumpName(s.srv.name, p.page, "")), []byte(snap), 0o644); err != nil {
						return fmt.Errorf("bench: side: dump: %w", err)
					}
				}
				if p.then.kind == "" {
					continue
				}
				tool, args := s.srv.act(snap, p.then)
				if tool == "" && p.then.kind == "type" && i > 0 {
					continue // the server has no key-by-key typing
				}
				if tool == "" {
					return fmt.Errorf("bench: side: %s: no ref for %s %q on %s in its snapshot: %s", s.srv.name, p.then.role, p.then.name, p.page, trimTo(snap, 500))
				}
				if p.noDiff && tool == "browser_action" {
					args["snapshot"] = "none"
				}
				time.Sleep(think)
				d, reply, err := s.call(tool, args)
				if err != nil {
					return err
				}
				if dump != "" {
					if err := os.WriteFile(filepath.Join(dump, sideDumpName(s.srv.name, p.page, p.op)), []byte(reply), 0o644); err != nil {
						return fmt.Errorf("bench: side: dump: %w", err)
					}
				}
				op := p.op + " " + p.page
				put(op, i, d)
			}
		}
	}
	fmt.Fprintf(stdout, "agent loop side by side — %d interleaved rounds, median client-side ms per call (MCP round trip included; %v between a reply and the next call)\n\n", runs, think)
	printMedians(stdout, "operation", "× faster peer", "%.0f ms", sessions, ops, times)
	recordMedians(rec, "side: ", "ms", ops, times)
	fmt.Fprintln(stdout, "(× faster peer: webpilot's median over the faster peer's, below 1 is faster; each server runs one")
	fmt.Fprintln(stdout, " browser for the whole section; the snapshot is its own call after the navigate; fill sets the")
	fmt.Fprintln(stdout, " text with one input event, type sends it key by key: playwright-mcp's browser_type with slowly,")
	fmt.Fprintln(stdout, " chrome-devtools-mcp has no key-by-key typing)")
	fmt.Fprintln(stdout)
	printSnapTokens(stdout, sessions, snapPages, snapTokens)
	recordMedians(rec, "side snapshot size: ", "tokens", snapPages, snapTokens)
	fmt.Fprintln(stdout)
	// What each server's tools cost in every request of the agent.
	line := "tools/list, o200k tokens (tools):"
	var listTokens []float64
	for _, s := range sessions {
		tl, err := s.cs.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("bench: side: %s tools/list: %w", s.srv.name, err)
		}
		b, _ := json.Marshal(tl.Tools)
		n, _ := enc.Count(string(b))
		listTokens = append(listTokens, float64(n))
		line += fmt.Sprintf(" %s %d (%d),", s.srv.name, n, len(tl.Tools))
	}
	fmt.Fprintf(stdout, "%s webpilot / best peer %s×\n\n", strings.TrimSuffix(line, ","), overBestPeer(listTokens))
	rec.add("side: tools/list size", "tokens", listTokens[0], bestPeerRatio(listTokens))
	tokens, calls, err := taskTokens(sessions, baseURL, enc)
	if err != nil {
		return err
	}
	printTaskTokens(stdout, sessions, tokens, calls)
	for ti, task := range sideTasks {
		vals := make([]float64, len(sessions))
		for i := range sessions {
			vals[i] = float64(tokens[ti][i])
		}
		rec.add("side task tokens: "+task.page, "tokens", vals[0], bestPeerRatio(vals))
	}
	big, err := benchBig(stdout, sessions, baseURL, runs, only)
	if err != nil {
		return err
	}
	for _, r := range big {
		unit := "ms"
		if strings.HasPrefix(r.name, "snapshot size") {
			unit = "chars"
		}
		if c := r.cells[0]; len(c.vals) > 0 {
			meds := []float64{median(c.vals)}
			for _, c := range r.cells[1:] {
				meds = append(meds, median(c.vals)) // 0 without samples
			}
			rec.add("big: "+r.name, unit, meds[0], bestPeerRatio(meds))
		}
	}
	return nil
}

// recordMedians puts into rec, for each of rows, webpilot's median of
// vals[row] (the first server's) and its ratio to the best peer's median,
// as prefix+row in unit.
func recordMedians(rec histRows, prefix, unit string, rows []string, vals map[string][][]float64) {
	for _, row := range rows {
		meds := make([]float64, len(vals[row]))
		for i, v := range vals[row] {
			meds[i] = median(v)
		}
		if len(meds) > 0 && meds[0] > 0 {
			rec.add(prefix+row, unit, meds[0], bestPeerRatio(meds))
		}
	}
}

// printSnapTokens prints the snapshot size side by side: per page, the
// median o200k tokens of each server's snapshot result (the whole text of
// browser_snapshot / browser_snapshot / take_snapshot, as the agent gets it)
// and webpilot's over the smallest peer's.
func printSnapTokens(w io.Writer, sessions []*sideSession, pages []string, tokens map[string][][]float64) {
	fmt.Fprintln(w, "snapshot size side by side — o200k tokens of each server's snapshot result, median of the rounds")
	fmt.Fprintln(w)
	printMedians(w, "page", "× best peer", "%.0f", sessions, pages, tokens)
}

// printMedians prints a side-by-side table: a row per key of rows, each
// server's median of its values (as format), and webpilot's over the best
// peer's; a server without values shows "-".
func printMedians(w io.Writer, first, last, format string, sessions []*sideSession, rows []string, vals map[string][][]float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, sideHead(first, last, sessions))
	for _, row := range rows {
		line := row + "\t"
		meds := make([]float64, len(sessions))
		for i := range sessions {
			if len(vals[row][i]) == 0 {
				line += "-\t"
				continue
			}
			meds[i] = median(vals[row][i])
			line += fmt.Sprintf(format+"\t", meds[i])
		}
		fmt.Fprintln(tw, line+overBestPeer(meds)+"\t")
	}
	tw.Flush()
}

// sideHead is a side-by-side table's header row: first, each server's
// name, then last, as tab-separated cells.
func sideHead(first, last string, sessions []*sideSession) string {
	head := first + "\t"
	for _, s := range sessions {
		head += s.srv.name + "\t"
	}
	return head + last + "\t"
}
