package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sideServer is an MCP server of the side-by-side agent loop: how to start
// it (coldServer's argv and navigate), how to snapshot, and how to click a
// button, and fill or type (key by key) into the "Search products" box by
// the ref its snapshot gave. click and typ return "" as the tool when the
// snapshot has no ref, typ also when the server cannot type key by key.
type sideServer struct {
	coldServer
	click func(snap, name string) (string, map[string]any)
	typ   func(snap, text string, keys bool) (string, map[string]any)
}

// sideRef is the first submatch of re in snap, "" when none.
func sideRef(re *regexp.Regexp, snap string) string {
	if m := re.FindStringSubmatch(snap); m != nil {
		return m[1]
	}
	return ""
}

// sideServers are webpilot and the peers found under peers. Their
// snapshots name elements differently: webpilot `button e12 "Save
// changes"`, playwright-mcp `button "Save changes" [ref=e97]` (f6e97 in
// frames), chrome-devtools-mcp `uid=1_23 button "Save changes"`.
func sideServers(self, browser, peers string, extra []string) []sideServer {
	search := `(?:searchbox|textbox)`
	wp := webpilotCold("webpilot", self, extra...)
	wp.snapshot = func() (string, map[string]any) { return "browser_snapshot", map[string]any{} }
	out := []sideServer{{
		coldServer: wp,
		click: func(snap, name string) (string, map[string]any) {
			ref := sideRef(regexp.MustCompile(`button (f?\d*e\d+) "`+regexp.QuoteMeta(name)+`"`), snap)
			if ref == "" {
				return "", nil
			}
			return "browser_action", map[string]any{"action": "click", "ref": ref}
		},
		typ: func(snap, text string, keys bool) (string, map[string]any) {
			ref := sideRef(regexp.MustCompile(search+` (f?\d*e\d+) "Search products"`), snap)
			if ref == "" {
				return "", nil
			}
			action := "fill"
			if keys {
				action = "type"
			}
			return "browser_action", map[string]any{"action": action, "ref": ref, "value": text}
		},
	}}
	for _, p := range peerServers(peers, browser) {
		s := sideServer{coldServer: p}
		switch p.name {
		case "playwright-mcp":
			s.click = func(snap, name string) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(`button "`+regexp.QuoteMeta(name)+`"[^\n]*\[ref=(f?\d*e\d+)\]`), snap)
				if ref == "" {
					return "", nil
				}
				return "browser_click", map[string]any{"element": name, "target": ref}
			}
			s.typ = func(snap, text string, keys bool) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(search+` "Search products"[^\n]*\[ref=(f?\d*e\d+)\]`), snap)
				if ref == "" {
					return "", nil
				}
				return "browser_type", map[string]any{"element": "Search products", "target": ref, "text": text, "slowly": keys}
			}
		case "chrome-devtools-mcp":
			s.click = func(snap, name string) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(`uid=(\S+) button "`+regexp.QuoteMeta(name)+`"`), snap)
				if ref == "" {
					return "", nil
				}
				return "click", map[string]any{"uid": ref}
			}
			s.typ = func(snap, text string, keys bool) (string, map[string]any) {
				ref := sideRef(regexp.MustCompile(`uid=(\S+) `+search+` "Search products"`), snap)
				if ref == "" || keys {
					return "", nil
				}
				return "fill", map[string]any{"uid": ref, "value": text}
			}
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// sidePages are the pages of the side-by-side section and what is done
// after the snapshot of each: "" nothing, "click" the "Save changes"
// button, "fill" the search box with "camera" (one input event; webpilot
// returns the diff, the peers nothing), "fill (no diff)" the same with
// webpilot's diff off, "type" "camera" into it key by key.
var sidePages = []struct{ page, then string }{
	{"basic.html", ""},
	{"form.html", ""},
	{"snap/clickables.html", ""},
	{"long.html", ""},
	{"snap/article.html", ""},
	{"snap/heavy.html", ""},
	{"act/kinds.html", "click"},
	{"snap/shop300.html", "fill"},
	{"snap/shop300.html", "fill (no diff)"},
	{"snap/shop300.html", "type"},
}

// sideSession is one running server of the side-by-side section.
type sideSession struct {
	srv sideServer
	cs  *mcp.ClientSession
	cmd *exec.Cmd
	ctx context.Context
}

// call runs a tool with a 2-minute limit and returns the client-side time
// (the MCP round trip included) and the result's text.
func (s *sideSession) call(tool string, args map[string]any) (float64, string, error) {
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
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
// operation and webpilot's time over the faster peer's. Pages whose name
// does not contain only are left out.
func benchSide(ctx context.Context, stdout io.Writer, self, browserPath, baseURL string, runs int, extra []string, peers, only string) error {
	servers := sideServers(self, browserPath, peers, extra)
	if len(servers) < 2 {
		return fmt.Errorf("bench: side: no peer under %s (node_modules/@playwright/mcp, node_modules/chrome-devtools-mcp)", peers)
	}
	var sessions []*sideSession
	defer func() {
		for _, s := range sessions {
			_ = s.cs.Close()
			_ = s.cmd.Wait()
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
				d, snap, err := s.call(s.srv.snapshot())
				if err != nil {
					return err
				}
				put("snapshot "+p.page, i, d)
				var tool string
				var args map[string]any
				switch p.then {
				case "click":
					tool, args = s.srv.click(snap, "Save changes")
				case "fill", "fill (no diff)", "type":
					tool, args = s.srv.typ(snap, "camera", p.then == "type")
					if p.then == "fill (no diff)" && tool == "browser_action" {
						args["snapshot"] = "none"
					}
					if tool == "" && p.then == "type" && strings.Contains(snap, "Search products") {
						continue // the server has no key-by-key typing
					}
				default:
					continue
				}
				if tool == "" {
					return fmt.Errorf("bench: side: %s: no ref for the %s on %s in its snapshot: %s", s.srv.name, p.then, p.page, trimTo(snap, 500))
				}
				d, _, err = s.call(tool, args)
				if err != nil {
					return err
				}
				op := `click "Save changes" ` + p.page
				if p.then != "click" {
					verb, rest, _ := strings.Cut(p.then, " ")
					op = strings.Join(strings.Fields(verb+` "camera" `+rest+" "+p.page), " ")
				}
				put(op, i, d)
			}
		}
	}
	fmt.Fprintf(stdout, "agent loop side by side — %d interleaved rounds, median client-side ms per call (MCP round trip included)\n\n", runs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "operation\t"
	for _, s := range sessions {
		head += s.srv.name + "\t"
	}
	fmt.Fprintln(tw, head+"× faster peer\t")
	for _, op := range ops {
		line := op + "\t"
		best := 0.0
		for i := range sessions {
			if len(times[op][i]) == 0 {
				line += "-\t"
				continue
			}
			m := median(times[op][i])
			line += fmt.Sprintf("%.0f ms\t", m)
			if i > 0 && (best == 0 || m < best) {
				best = m
			}
		}
		ratio := "-"
		if best > 0 {
			ratio = fmt.Sprintf("%.2f", median(times[op][0])/best)
		}
		fmt.Fprintln(tw, line+ratio+"\t")
	}
	tw.Flush()
	fmt.Fprintln(stdout, "(× faster peer: webpilot's median over the faster peer's, below 1 is faster; each server runs one")
	fmt.Fprintln(stdout, " browser for the whole section; the snapshot is its own call after the navigate; fill sets the")
	fmt.Fprintln(stdout, " text with one input event, type sends it key by key: playwright-mcp's browser_type with slowly,")
	fmt.Fprintln(stdout, " chrome-devtools-mcp has no key-by-key typing)")
	return nil
}
