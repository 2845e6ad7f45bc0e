package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// stdioServer is a server over an idle backend with one extra tool, name,
// served by h; the tool skips the browser entirely.
func stdioServer(t *testing.T, opts mcpserver.Options, name string, h mcp.ToolHandler) *mcpserver.Server {
	t.Helper()
	opts.Name, opts.Version = "webpilot", "test"
	opts.Deps = &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: idleBackend(t)})}
	srv := mcpserver.New(opts)
	srv.MCP().AddTool(&mcp.Tool{Name: name, InputSchema: &jsonschema.Schema{Type: "object"}}, h)
	return srv
}

// startStdio runs RunStdio over a pipe for stdin and out for stdout, and
// completes the handshake: calls go in only after the answer to initialize,
// since the SDK refuses a call that it handles before initialize ("invalid
// during session initialization"). Write the calls to the pipe, then close
// it; the channel yields RunStdio's result.
func startStdio(t *testing.T, srv *mcpserver.Server, out *outBuffer) (*io.PipeWriter, <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(context.Background(), pr, out) }()
	writeLines(t, pw, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if !out.waitFor(`"id":"init"`, 30*time.Second) {
		t.Fatalf("no answer to initialize; stdout:\n%s", out)
	}
	writeLines(t, pw, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	return pw, done
}

// writeLines writes each line, newline-terminated, to w.
func writeLines(t *testing.T, w io.Writer, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(w, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
}

// outBuffer is stdout for RunStdio.
type outBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *outBuffer) Close() error { return nil }

func (o *outBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor reports whether the output comes to contain s within d.
func (o *outBuffer) waitFor(s string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(o.String(), s) {
			return true
		}
	}
	return false
}

// TestStdioEOFMatchesEscapedIDs: the EOF on stdin waits for the answers to
// the calls read, matching ids as the SDK echoes them: "\u0061b" comes back
// as "ab", 7e0 and 8.0 as 7 and 8. Were an id not matched, the EOF would wait
// out the whole grace (the call ceiling + 5 s = 20 s here).
func TestStdioEOFMatchesEscapedIDs(t *testing.T) {
	const grace = 20 * time.Second
	srv := stdioServer(t, mcpserver.Options{CallCeiling: grace - 5*time.Second}, "quick",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"quick","arguments":{}}}`
	}
	out := new(outBuffer)
	in, done := startStdio(t, srv, out)
	writeLines(t, in, call(`"\u0061b"`), call(`7e0`), call(`8.0`))
	start := time.Now()
	_ = in.Close() // EOF, with the calls read but perhaps not answered yet
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
		t.Logf("RunStdio returned %v after stdin closed", time.Since(start).Round(time.Millisecond))
	case <-time.After(grace):
		t.Fatalf("RunStdio waited out the EOF grace: an answered call's id was not matched; stdout:\n%s", out)
	}
	answered := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err == nil && m.Result != nil {
			answered[string(m.ID)] = true
		}
	}
	for _, id := range []string{`"ab"`, `7`, `8`} {
		if !answered[id] {
			t.Errorf("no result with id %s; stdout:\n%s", id, out)
		}
	}
}

// logSignal is a slog handler that closes seen when a record with the message
// arrives.
type logSignal struct {
	msg  string
	seen chan struct{}
	once *sync.Once
}

func (l logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (l logSignal) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.msg {
		l.once.Do(func() { close(l.seen) })
	}
	return nil
}
func (l logSignal) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logSignal) WithGroup(string) slog.Handler      { return l }

// TestStdioEOFGraceFollowsCeiling: with a call that never answers (its tool
// ignores its context), the EOF waits the configured call ceiling plus 5 s,
// not the default ceiling's 95 s.
func TestStdioEOFGraceFollowsCeiling(t *testing.T) {
	const ceiling = 100 * time.Millisecond
	gaveUp := logSignal{msg: "stdin closed with calls still running", seen: make(chan struct{}), once: new(sync.Once)}
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	srv := stdioServer(t, mcpserver.Options{CallCeiling: ceiling, Logger: slog.New(gaveUp)}, "stuck",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
		})
	out := new(outBuffer)
	in, done := startStdio(t, srv, out)
	writeLines(t, in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`)
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatalf("the stuck tool never ran; stdout:\n%s", out)
	}
	start := time.Now()
	_ = in.Close()
	// Generous, yet well below the 95 s of the default ceiling.
	const limit = 60 * time.Second
	select {
	case <-gaveUp.seen:
		t.Logf("the EOF stopped waiting %v after stdin closed (ceiling %v)", time.Since(start).Round(time.Millisecond), ceiling)
	case <-time.After(limit):
		t.Fatalf("the EOF still waited for the stuck call after %v, with a call ceiling of %v", limit, ceiling)
	}
	free()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
	case <-time.After(limit):
		t.Fatal("RunStdio did not return once the call ended")
	}
}
