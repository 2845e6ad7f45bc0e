package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// By default (prewarm) the browser starts once the client has initialized;
// with --no-prewarm nothing starts a browser until a tool needs one.
func TestPrewarm(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	for _, prewarm := range []bool{false, true} {
		ctx := backendtest.Context(t, 60*time.Second)
		args := append([]string{}, mcpArgs...)
		if !prewarm {
			args = append(args, "--no-prewarm")
		}
		cmd := webpilotCmd(t, new(syncBuffer), args...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "prewarm-test", Version: "0"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		running := func() bool {
			var st struct {
				Backend struct {
					Running bool `json:"running"`
				} `json:"backend"`
			}
			if err := json.Unmarshal([]byte(callText(t, ctx, cs, "browser_status", map[string]any{"verbose": true})), &st); err != nil {
				t.Fatalf("browser_status: %v", err)
			}
			return st.Backend.Running
		}
		deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
		got := running()
		for prewarm && !got && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			got = running()
		}
		if !prewarm {
			time.Sleep(500 * time.Millisecond)
			got = running()
		}
		if got != prewarm {
			t.Errorf("prewarm=%v: browser running = %v", prewarm, got)
		}
		_ = cs.Close()
	}
}
