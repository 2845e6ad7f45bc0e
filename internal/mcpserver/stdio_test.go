package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
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
type outBuffer struct{ backendtest.SyncBuffer }

func (o *outBuffer) Close() error { return nil }

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

// stdoutLines parses every line of out as JSON, failing the test on a line
// that is not: stdout carries protocol only.
func stdoutLines(t *testing.T, out string) []map[string]json.RawMessage {
	t.Helper()
	var msgs []map[string]json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			var batch []map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &batch) == nil {
				msgs = append(msgs, batch...)
				continue
			}
			t.Errorf("stdout carries a line that is no JSON-RPC message: %.200q", sc.Text())
			continue
		}
		msgs = append(msgs, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading stdout: %v", err)
	}
	return msgs
}

// rpcError is the error member of a JSON-RPC answer.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// TestStdioBadLines: each line the go-sdk cannot take (not JSON, JSON that
// is no JSON-RPC 2.0 message, a batch the session cannot take, a huge line)
// is answered with a JSON-RPC error, with the request's id when it has one
// and null otherwise, and the session goes on: the tools/list sent after it
// is answered. Before, the first such line ended the process.
func TestStdioBadLines(t *testing.T) {
	srv := stdioServer(t, mcpserver.Options{}, "quick",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	out := new(outBuffer)
	in, done := startStdio(t, srv, out)
	ended := make(chan struct{}) // closed when RunStdio returns; runErr is its result
	var runErr error
	go func() { runErr = <-done; close(ended) }()
	garbage := strings.Repeat("garbage ", 5<<20/8) // 5 MB
	for i, c := range []struct {
		name, line string
		code       int    // 0: no error answer expected
		id         string // the answer's id as JSON
	}{
		{"not JSON", `{not json`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"empty object", `{}`, -32600, "null"},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, "1"},
		{"no version, string id", `{"id":"x","method":"ping"}`, -32600, `"x"`},
		{"null", `null`, -32600, "null"},
		{"number", `5`, -32600, "null"},
		{"string", `"ping"`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"numeric method", `{"jsonrpc":"2.0","id":2,"method":5}`, -32600, "2"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":3,"method":"ping"}{"jsonrpc":"2.0","id":4,"method":"ping"}`, -32700, "null"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":3,"method":"ping"} x`, -32700, "null"},
		{"batch on protocol 2025-06-18", `[{"jsonrpc":"2.0","id":"b","method":"ping"}]`, -32600, "null"},
		{"batch of a number", `[1]`, -32600, "null"},
		{"nested 1001 deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), -32600, "null"},
		{"5 MB of garbage", garbage, -32700, "null"},
		{"a line over the limit", `"` + strings.Repeat("x", mcpserver.MaxLineBytes) + `"`, -32600, "null"},
		{"blank line", `   `, 0, ""},
		{"ping with trailing blanks", "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"} \t\r", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(stdoutLines(t, out.String()))
			after := fmt.Sprintf("after-%d", i)
			// A pipe write blocks until the server reads it, which it never
			// does once its session has ended.
			wrote := make(chan error, 1)
			go func() {
				_, err := io.WriteString(in, c.line+"\n"+`{"jsonrpc":"2.0","id":"`+after+`","method":"tools/list"}`+"\n")
				wrote <- err
			}()
			select {
			case err := <-wrote:
				if err != nil {
					t.Fatal(err)
				}
			case <-ended:
				t.Fatalf("the session ended on the line (RunStdio: %v); stdout:\n%.3000s", runErr, out)
			}
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), `"id":"`+after+`"`); time.Sleep(5 * time.Millisecond) {
				select {
				case <-ended:
					t.Fatalf("the session ended on the line (RunStdio: %v); stdout:\n%.3000s", runErr, out)
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("no answer to the tools/list after the line; stdout:\n%.3000s", out)
				}
			}
			var answered bool
			var errs []map[string]json.RawMessage
			for _, m := range stdoutLines(t, out.String())[before:] {
				switch {
				case string(m["id"]) == `"`+after+`"`:
					answered = m["result"] != nil && strings.Contains(string(m["result"]), `"quick"`)
				case m["error"] != nil:
					errs = append(errs, m)
				}
			}
			if !answered {
				t.Errorf("tools/list after the line was not answered with the tools; stdout:\n%.3000s", out)
			}
			if c.code == 0 {
				if len(errs) > 0 {
					t.Errorf("want no error answer, got %d: %s", len(errs), errs[0]["error"])
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error answer, got %d; stdout:\n%.3000s", len(errs), out)
			}
			var e rpcError
			if err := json.Unmarshal(errs[0]["error"], &e); err != nil {
				t.Fatal(err)
			}
			if e.Code != c.code || e.Message == "" || string(errs[0]["id"]) != c.id || string(errs[0]["jsonrpc"]) != `"2.0"` {
				t.Errorf("answer id %s error %+v, want id %s code %d", errs[0]["id"], e, c.id, c.code)
			}
		})
	}
	if !out.waitFor(`"id":"p","result"`, time.Second) {
		t.Errorf("the ping with trailing blanks was not answered")
	}
	_ = in.Close()
	select {
	case <-ended:
		if runErr != nil {
			t.Errorf("RunStdio: %v", runErr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunStdio did not return after stdin closed")
	}
}

// TestStdioBatches: on a protocol with batches (2025-03-26) a batch is
// served and answered as an array; a batch reusing an id is refused with an
// error, and the session goes on.
func TestStdioBatches(t *testing.T) {
	srv := stdioServer(t, mcpserver.Options{}, "quick",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	out := new(outBuffer)
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(context.Background(), pr, out) }()
	writeLines(t, pw, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if !out.waitFor(`"id":"init"`, 30*time.Second) {
		t.Fatalf("no answer to initialize; stdout:\n%s", out)
	}
	writeLines(t, pw, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"quick","arguments":{}}}]`,
		`[{"jsonrpc":"2.0","id":"c","method":"ping"},{"jsonrpc":"2.0","id":"c","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	// Calls run concurrently: the batch with a tool call may be answered
	// after the ping that followed it.
	if !out.waitFor(`"id":"last"`, 30*time.Second) || !out.waitFor(`"id":"b"`, 30*time.Second) {
		t.Fatalf("no answer to the last ping or the batch; stdout:\n%s", out)
	}
	if !strings.Contains(out.String(), `[{"jsonrpc":"2.0","id":"a","result":{}}`) || !strings.Contains(out.String(), `"id":"b","result":{"content":[{"type":"text","text":"done"}]}`) {
		t.Errorf("the batch was not answered as an array; stdout:\n%s", out)
	}
	var refused int
	for _, m := range stdoutLines(t, out.String()) {
		if m["error"] != nil {
			refused++
			if string(m["id"]) != "null" || !strings.Contains(string(m["error"]), "-32600") {
				t.Errorf("refusal of the batch with a repeated id: %s %s", m["id"], m["error"])
			}
		}
	}
	if refused != 1 {
		t.Errorf("want one refusal, got %d; stdout:\n%s", refused, out)
	}
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Errorf("RunStdio: %v", err)
	}
}

// TestStdioShutdown: when RunStdio's context ends, a call that ignores its
// context still gets an answer (OUTCOME_UNKNOWN, after the shutdown grace),
// a call sent during the shutdown is refused at once, and RunStdio returns
// nil.
func TestStdioShutdown(t *testing.T) {
	const grace = 300 * time.Millisecond
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := stdioServer(t, mcpserver.Options{ShutdownGrace: grace}, "stuck",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-release // ignores ctx
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil
		})
	out := new(outBuffer)
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pw.Close() })
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(ctx, pr, out) }()
	writeLines(t, pw, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if !out.waitFor(`"id":"init"`, 30*time.Second) {
		t.Fatalf("no answer to initialize; stdout:\n%s", out)
	}
	writeLines(t, pw, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`)
	<-started
	stopped := time.Now()
	stop()
	time.Sleep(grace / 3)
	writeLines(t, pw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_status","arguments":{"verbose":true}}}`)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunStdio: %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("RunStdio did not return after its context ended; stdout:\n%s", out)
	}
	if d := time.Since(stopped); d < grace {
		t.Errorf("RunStdio returned %v after the stop, before the grace of %v", d, grace)
	}
	answers := map[string]string{}
	for _, m := range stdoutLines(t, out.String()) {
		answers[string(m["id"])] = string(m["result"])
	}
	if !strings.Contains(answers["1"], `"code":"OUTCOME_UNKNOWN"`) || !strings.Contains(answers["1"], `"isError":true`) {
		t.Errorf("the running call: want OUTCOME_UNKNOWN, got %s", answers["1"])
	}
	if !strings.Contains(answers["2"], `shutting down`) || !strings.Contains(answers["2"], `"isError":true`) {
		t.Errorf("the call sent during the shutdown: want a refusal, got %s", answers["2"])
	}
}

// TestStdioOversizeLineKeepsID: a line over MaxLineBytes is answered with
// the request's id when its top level has a method and an id, wherever the
// id is on the line (even after the huge params); a notification over the
// limit (a method, no id) is not answered, as JSON-RPC wants; a line whose id
// cannot be told is answered with id null. Each time the session goes on.
// Before, every such line was answered with id null.
func TestStdioOversizeLineKeepsID(t *testing.T) {
	srv := stdioServer(t, mcpserver.Options{}, "quick",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	out := new(outBuffer)
	in, done := startStdio(t, srv, out)
	huge := strings.Repeat("x", mcpserver.MaxLineBytes)
	for i, c := range []struct {
		name, line string
		answer     bool   // an error answer is expected
		id         string // its id as JSON
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"quick","arguments":{"v":"` + huge + `"}}}`, true, "7"},
		{"string id with an escape", `{"jsonrpc":"2.0","id":"r\u002d1","method":"tools/call","params":{"name":"quick","arguments":{"v":"` + huge + `"}}}`, true, `"r-1"`},
		{"id after the params", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"quick","arguments":{"v":"` + huge + `","id":3}},"id":8}`, true, "8"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"v":"` + huge + `"}}`, false, ""},
		{"notification with an id in its params", `{"jsonrpc":"2.0","method":"notifications/message","params":{"id":4,"v":"` + huge + `"}}`, false, ""},
		{"unclosed object", `{"jsonrpc":"2.0","method":"notifications/message","params":{"v":"` + huge + `"}`, true, "null"},
		{"response (no method)", `{"jsonrpc":"2.0","id":9,"result":{"v":"` + huge + `"}}`, true, "null"},
		{"not an object", `"` + huge + `"`, true, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"v":"` + huge + `"}}`, true, "null"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(stdoutLines(t, out.String()))
			after := fmt.Sprintf("after-oversize-%d", i)
			writeLines(t, in, c.line, `{"jsonrpc":"2.0","id":"`+after+`","method":"ping"}`)
			if !out.waitFor(`"id":"`+after+`"`, 30*time.Second) {
				t.Fatalf("no answer to the ping after the line; stdout:\n%.3000s", out)
			}
			var errs []map[string]json.RawMessage
			for _, m := range stdoutLines(t, out.String())[before:] {
				if m["error"] != nil {
					errs = append(errs, m)
				}
			}
			if !c.answer {
				if len(errs) > 0 {
					t.Errorf("a notification was answered: %s %s", errs[0]["id"], errs[0]["error"])
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error answer, got %d; stdout:\n%.3000s", len(errs), out)
			}
			var e rpcError
			if err := json.Unmarshal(errs[0]["error"], &e); err != nil {
				t.Fatal(err)
			}
			if e.Code != -32600 || !strings.Contains(e.Message, "limited to") || string(errs[0]["id"]) != c.id {
				t.Errorf("answer id %s error %+v, want id %s code -32600", errs[0]["id"], e, c.id)
			}
		})
	}
	_ = in.Close()
	if err := <-done; err != nil {
		t.Errorf("RunStdio: %v", err)
	}
}

// TestStdioCancelledCallIsNotAnswered: after notifications/cancelled names
// a running call, its answer is never written (MCP: the receiver should not
// answer a cancelled request), though the tool returns one; a ping sent
// after the cancel is answered, and a call with another id that ran beside
// it still is. Before, the cancelled call's result reached stdout.
func TestStdioCancelledCallIsNotAnswered(t *testing.T) {
	started, release := make(chan string, 2), make(chan struct{})
	srv := stdioServer(t, mcpserver.Options{}, "block",
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			started <- args.Name
			select {
			case <-ctx.Done(): // a result all the same
			case <-release:
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ended " + args.Name}}}, nil
		})
	out := new(outBuffer)
	in, done := startStdio(t, srv, out)
	call := func(id, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"block","arguments":{"name":"` + name + `"}}}`
	}
	writeLines(t, in, call(`5`, "cancelled"), call(`"s"`, "kept"))
	for range 2 {
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatalf("the calls did not start; stdout:\n%s", out)
		}
	}
	writeLines(t, in,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`,
		`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if !out.waitFor(`"id":"after"`, 30*time.Second) {
		t.Fatalf("the ping after the cancel was not answered; stdout:\n%s", out)
	}
	// The EOF waits until both calls have been answered (or, the cancelled
	// one, dropped), so stdout is complete once RunStdio returns.
	close(release)
	_ = in.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("RunStdio did not return after stdin closed; stdout:\n%s", out)
	}
	ids := map[string]string{}
	for _, m := range stdoutLines(t, out.String()) {
		ids[string(m["id"])] = string(m["result"]) + string(m["error"])
	}
	if got, ok := ids["5"]; ok {
		t.Errorf("the cancelled call was answered: %s", got)
	}
	if _, ok := ids[`"after"`]; !ok {
		t.Errorf("no answer to the ping")
	}
	if got := ids[`"s"`]; !strings.Contains(got, "ended kept") {
		t.Errorf("the other call's answer: %q, want its result", got)
	}
}
