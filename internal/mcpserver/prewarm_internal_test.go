package mcpserver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The browser's early start (OnInitialized) waits for the client's
// tools/list to be answered, then runs once; a client that calls a tool
// without listing them starts it at that call.
func TestPrewarmAfterToolsList(t *testing.T) {
	old := prewarmWait
	prewarmWait = time.Hour // only the requests start it
	t.Cleanup(func() { prewarmWait = old })
	for _, first := range []string{"tools/list", "tools/call"} {
		t.Run(first, func(t *testing.T) {
			var runs atomic.Int32
			started := make(chan struct{}, 2)
			srv := New(Options{OnInitialized: func() { runs.Add(1); started <- struct{}{} }})
			st, ct := mcp.NewInMemoryTransports()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ss, err := srv.MCP().Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "prewarm-test", Version: "0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cs.Close(); _ = ss.Wait() }()
			if n := runs.Load(); n != 0 {
				t.Fatalf("OnInitialized ran %d times before the client's tools/list", n)
			}
			for range 2 {
				if first == "tools/list" {
					_, err = cs.ListTools(ctx, nil)
				} else {
					_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_frames", Arguments: map[string]any{"session": ""}})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatalf("OnInitialized did not run after %s", first)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if n := runs.Load(); n != 1 {
				t.Errorf("OnInitialized ran %d times, want once", n)
			}
		})
	}
}
