package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

func TestCDPEndpointConfig(t *testing.T) {
	c, err := load(t, []string{"--cdp-endpoint", "wss://farm.example/chrome?token=s3cret", "--cdp-header", "Authorization: Bearer x", "--cdp-header", "X-Team: a,b"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.CDPHeaders) != 2 || c.CDPHeaders[1] != "X-Team: a,b" || c.Sources["cdp_header"] != "flag" {
		t.Errorf("headers = %q (%s)", c.CDPHeaders, c.Sources["cdp_header"])
	}
	if v := c.View()["cdp_endpoint"].(string); strings.Contains(v, "s3cret") {
		t.Errorf("status shows the token: %s", v)
	}
	if c, err := load(t, nil, map[string]string{"WEBPILOT_CDP_HEADER": "A: 1\nB: 2"}, ""); err != nil || len(c.CDPHeaders) != 2 {
		t.Errorf("headers from env = %q, %v", c.CDPHeaders, err)
	}
	for _, bad := range [][]string{{"--cdp-endpoint", "ftp://x"}, {"--cdp-header", "no colon"}} {
		if _, err := load(t, bad, nil, ""); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := load(t, nil, nil, `{"cdp_endpoint": "ws://evil.example/"}`); err == nil || !strings.Contains(err.Error(), "flag or environment") {
		t.Errorf("endpoint from .webpilot.json: %v", err)
	}
	if _, _, _, err := chooseBackend(&Config{Backend: "endpoint"}, discardLogger()); err == nil {
		t.Error("--backend endpoint without --cdp-endpoint was accepted")
	}
}

// `webpilot mcp --cdp-endpoint http://…` drives a browser it did not start,
// and leaves it running.
func TestMCPOnCDPEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	ctx := backendtest.Context(t, 90*time.Second)
	remote, err := backendtest.StartDebugBrowser(ctx)
	if err != nil {
		t.Fatalf("start a browser with a debugging port: %v", err)
	}
	defer remote.Close()
	base := fixtures(t)
	cmd := webpilotCmd(t, new(syncBuffer), "mcp", "--standalone", "--cdp-endpoint", remote.HTTPURL())
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "endpoint-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	if !strings.Contains(nav, "# Basic page — ") {
		t.Errorf("navigate:\n%s", nav)
	}
	var st struct {
		Backend struct {
			Kind    string `json:"kind"`
			Running bool   `json:"running"`
		} `json:"backend"`
	}
	if err := json.Unmarshal([]byte(callText(t, ctx, cs, "browser_status", map[string]any{"verbose": true})), &st); err != nil || st.Backend.Kind != "endpoint" || !st.Backend.Running {
		t.Errorf("status = %+v, %v", st, err)
	}
	cs.Close()
	_ = cmd.Wait()
	if !remote.Running() {
		t.Error("webpilot closed the remote browser on exit")
	}
}
