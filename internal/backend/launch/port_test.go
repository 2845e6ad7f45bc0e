//go:build unix

package launch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// TestDebuggingPort runs the browser the Windows way: --remote-debugging-port
// and DevToolsActivePort instead of the pipe.
func TestDebuggingPort(t *testing.T) {
	dir := t.TempDir()
	// A stale file from an earlier run must not be trusted.
	if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), []byte("1\n/devtools/browser/stale\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := newBackend(t, launch.Options{UserDataDir: dir, DebuggingPort: true})
	ctx := testCtx(t, 60*time.Second)

	tabs, err := b.Tabs(ctx)
	if err != nil {
		t.Fatalf("Tabs: %v", err)
	}
	if len(tabs) == 0 {
		t.Fatal("a fresh browser has no tab")
	}
	info := b.Info()
	if !info.Running || info.PID <= 0 || !strings.Contains(info.Version, "Chrome/") || info.ProfileDir != dir {
		t.Fatalf("running Info = %+v", info)
	}
	data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil || strings.Contains(string(data), "stale") {
		t.Fatalf("DevToolsActivePort = %q, %v; want the browser's own", data, err)
	}

	tab, err := b.NewTab(ctx, "data:text/html,<title>port</title>")
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	tabs, err = b.Tabs(ctx)
	if err != nil || !hasTab(tabs, tab.ID) {
		t.Fatalf("Tabs after NewTab = %+v, %v", tabs, err)
	}
	sess, err := b.Attach(ctx, tab.ID)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	res, err := cdproto.Call(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1", ReturnByValue: new(true)})
	if err != nil {
		t.Fatalf("Runtime.evaluate: %v", err)
	}
	if res.Result == nil || string(res.Result.Value) != "2" {
		t.Fatalf("1+1 = %+v", res.Result)
	}

	pids := family(info.PID)
	var outside []int
	for _, pid := range marked(info.ProfileDir) {
		if !slices.Contains(pids, pid) {
			outside = append(outside, pid)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, info.PID, append(pids, outside...), info.ProfileDir)
	if b.Info().Running {
		t.Error("Info says running after Close")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("persistent profile gone after Close: %v", err)
	}
}
