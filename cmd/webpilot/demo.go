package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

//go:embed demo.html
var demoPage []byte

// runDemo serves a demo page on loopback and drives it through webpilot's own
// MCP server, printing every call and its result: navigate, snapshot, fill,
// click, snapshot again. It proves on a fresh machine that everything works.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("demo", args, stderr)
	if err != nil {
		return err
	}
	if cfg.Sources["isolated"] == "default" {
		cfg.Isolated = true // the demo never touches the persistent profile
	}
	if cfg.Sources["backend"] == "default" {
		cfg.Backend = "launch" // nor the user's Chrome, unless asked to
	}
	a, err := newApp(cfg, stderr)
	if err != nil {
		return err
	}
	defer a.close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: listen: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(demoPage)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	pageURL := "http://" + ln.Addr().String() + "/"

	cs, err := connectInMemory(ctx, a)
	if err != nil {
		return err
	}
	defer cs.Close()

	fmt.Fprintf(stdout, "webpilot %s demo — serving %s\n\n", version, pageURL)
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: tools/list: %w", err)
	}
	names := make([]string, 0, len(tl.Tools))
	for _, t := range tl.Tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(stdout, "▶ tools/list → %d tools: %s\n\n", len(names), strings.Join(names, ", "))

	step := func(tool string, args map[string]any) (string, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", fmt.Errorf("demo: %s: %w", tool, err)
		}
		text := mcpclient.ResultText(res)
		fmt.Fprintf(stdout, "▶ %s %s  (%d ms)\n%s\n\n", tool, compactJSON(args), time.Since(start).Milliseconds(), indent(text))
		if res.IsError {
			return text, fmt.Errorf("demo: %s failed: %s", tool, text)
		}
		return text, nil
	}

	snap, err := step("browser_navigate", map[string]any{"url": pageURL})
	if err != nil {
		return err
	}
	nameRef := findRef(snap, "textbox", "Your name")
	buttonRef := findRef(snap, "button", "Say hello")
	if nameRef == "" || buttonRef == "" {
		return fmt.Errorf("demo: the snapshot lacks the form's refs:\n%s", snap)
	}
	if _, err := step("browser_action", map[string]any{"action": "fill", "ref": nameRef, "value": "Ada Lovelace", "snapshot": "none"}); err != nil {
		return err
	}
	out, err := step("browser_action", map[string]any{"action": "click", "ref": buttonRef})
	if err != nil {
		return err
	}
	if !strings.Contains(out, "Hello, Ada Lovelace!") {
		return fmt.Errorf("demo: the click did not show the greeting:\n%s", out)
	}
	if _, err := step("browser_snapshot", map[string]any{"mode": "interactive"}); err != nil {
		return err
	}
	if _, err := step("browser_close", map[string]any{}); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "✔ demo finished: webpilot navigated, read the page, filled a field and clicked a button in a real browser.")
	return nil
}

// connectInMemory connects a go-sdk client to the app's server in-process.
func connectInMemory(ctx context.Context, a *app) (*mcp.ClientSession, error) {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := a.server.MCP().Connect(ctx, st, nil); err != nil {
		return nil, fmt.Errorf("connect server: %w", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "webpilot-demo", Version: version}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("connect client: %w", err)
	}
	return cs, nil
}

// findRef finds the ref of `role eN "name"` in snapshot text.
func findRef(snapshot, role, name string) string {
	re := regexp.MustCompile(regexp.QuoteMeta(role) + ` (f?\d*e\d+) "` + regexp.QuoteMeta(name) + `"`)
	if m := re.FindStringSubmatch(snapshot); m != nil {
		return m[1]
	}
	return ""
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func compactJSON(m map[string]any) string {
	var parts []string
	for _, k := range keysSorted(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}
