package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// One headless Chromium serves every browser test of this package (each test
// opens its own tabs through its own manager and sessions).
func TestMain(m *testing.M) {
	// Every walk that takes over parts of the last one (after an action,
	// the walk taken while the page settled too) is checked against a
	// whole walk of the page.
	os.Setenv("WEBPILOT_WALK_VERIFY", "1")
	code := m.Run()
	backendtest.CloseShared()
	os.Exit(code)
}

// browserClient connects an in-memory go-sdk client to a server whose manager
// drives the package's shared Chromium. The manager's tabs are closed at
// cleanup; the shared browser stays up.
func browserClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connect(t, &tools.Deps{Manager: sharedManager(t)})
}

// sharedManager is a manager on the shared browser whose tabs are closed at
// cleanup (the browser stays up for the other tests).
func sharedManager(t *testing.T) *browser.Manager {
	t.Helper()
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t)})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(10*time.Second))
		defer cancel()
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	return m
}

// idleBackend is a launch backend that starts nothing until a tool needs a
// browser. Should a test call reach the browser by mistake, it launches an
// isolated headless one, never the user's profile.
func idleBackend(t *testing.T) *launch.Backend {
	b := launch.New(launch.Options{Headless: true, Isolated: true, Env: os.Getenv})
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// connect builds the server over deps and connects a client in memory.
func connect(t *testing.T, deps *tools.Deps) *mcp.ClientSession {
	t.Helper()
	return connectVersion(t, deps, "")
}

// connectVersion is connect with the protocol version the client asks for
// ("" for the SDK's latest).
func connectVersion(t *testing.T, deps *tools.Deps, version string) *mcp.ClientSession {
	t.Helper()
	return connectServer(t, mcpserver.Options{Deps: deps}, nil, version)
}

// connectServer builds a server with opts (named webpilot, version test,
// logging to the test unless opts has a logger) and connects a client with
// clientOpts, asking for the protocol version ("" for the SDK's latest), in
// memory; both end at cleanup.
func connectServer(t *testing.T, opts mcpserver.Options, clientOpts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	opts.Name, opts.Version = "webpilot", "test"
	if opts.Logger == nil {
		opts.Logger = testLog(t)
	}
	srv := mcpserver.New(opts)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpserver-test", Version: "0"}, clientOpts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// testLog is a server log that the test prints when it fails, so that an
// INTERNAL result shows its cause.
func testLog(t *testing.T) *slog.Logger {
	var mu sync.Mutex
	var buf bytes.Buffer
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() && buf.Len() > 0 {
			t.Logf("server log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// fixtures serves testdata/pages over HTTP for the test.
func fixtures(t *testing.T) string { return backendtest.ServePages(t) }

// call runs one tool and returns its text, or for an error result its
// structuredContent as JSON (mustFail checks the text of errors); a
// protocol error fails the test.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	if res.IsError && res.StructuredContent != nil {
		return structuredJSON(t, res), true
	}
	return text(res), res.IsError
}

// mustCall runs a tool that must succeed.
func mustCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	out, isErr := call(t, ctx, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: isError:\n%s", tool, args, out)
	}
	return out
}

// text is a result's text (mcpclient.ResultText).
func text(res *mcp.CallToolResult) string { return mcpclient.ResultText(res) }

// structuredJSON is a result's structuredContent as JSON.
func structuredJSON(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("no structuredContent (%v): %s", err, text(res))
	}
	return string(b)
}

// errorBody is DESIGN.md's error result.
type errorBody struct {
	Error struct {
		Code        string   `json:"code"`
		Message     string   `json:"message"`
		Hint        string   `json:"hint"`
		Suggestions []string `json:"suggestions"`
	} `json:"error"`
	Diagnosis map[string]any `json:"diagnosis"`
}

// mustFail runs a tool that must fail with code, and checks the shape of the
// error body: the four fields of "error" present, suggestions an array, a
// message and a hint that are not empty.
func mustFail(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, code string) errorBody {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	text := text(res)
	if !res.IsError {
		t.Fatalf("%s %v: want isError with %s, got success:\n%s", tool, args, code, text)
	}
	out := structuredJSON(t, res)
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%s %v: error result's structuredContent is not a JSON object: %v\n%s", tool, args, err, out)
	}
	for _, k := range []string{"code", "message", "hint", "suggestions"} {
		if _, ok := raw["error"][k]; !ok {
			t.Errorf("%s %v: error body lacks error.%s:\n%s", tool, args, k, out)
		}
	}
	if s := raw["error"]["suggestions"]; len(s) == 0 || s[0] != '[' {
		t.Errorf("%s %v: error.suggestions is %s, want an array", tool, args, s)
	}
	var body errorBody
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, out)
	}
	// The text reads like a result: CODE: message, then the hint.
	msg := body.Error.Message
	if strings.Contains(msg, "\n") {
		msg = strings.Join(strings.Fields(msg), " ")
	}
	if first, _, _ := strings.Cut(text, "\n"); first != body.Error.Code+": "+msg || (body.Error.Hint != "" && !strings.Contains(text, "\nHint: "+body.Error.Hint)) {
		t.Errorf("%s %v: error text does not lead with its code and message and give the hint:\n%s", tool, args, text)
	}
	if body.Error.Code != code {
		t.Errorf("%s %v: code %s, want %s:\n%s", tool, args, body.Error.Code, code, out)
	}
	if body.Error.Message == "" {
		t.Errorf("%s %v: empty message:\n%s", tool, args, out)
	}
	if body.Error.Hint == "" {
		t.Errorf("%s %v: empty hint:\n%s", tool, args, out)
	}
	return body
}

// refOf finds the ref of `role eN "name"` in snapshot text.
func refOf(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(role) + ` (e\d+) "` + regexp.QuoteMeta(name) + `"`)
	m := re.FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snapshot)
	}
	return m[1]
}

func callParams(tool string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: tool, Arguments: args}
}

// textOf is text for a result that may be nil (after a protocol error).
func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return text(res)
}
