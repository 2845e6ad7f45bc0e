package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Load, bounded and on loopback: 8 HTTP clients × 50 tool calls each on a
// fixture page, in parallel. Every call succeeds, each client stays in its
// own browser session, and once the clients have closed their tabs and
// gone, the server's goroutines are back near where they started. The
// throughput and latencies are printed (go test -v), not asserted.
func TestHTTPLoad(t *testing.T) {
	const clients, calls = 8, 50
	base := fixtures(t)
	ctx := backendtest.Context(t, 5*time.Minute)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{})
	runtime.GC()
	g0 := runtime.NumGoroutine()
	tabs0 := countTabs(t, ctx, m)
	rss0 := rssKiB()

	steps := []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", map[string]any{"mode": "compact"}},
		{"browser_action", map[string]any{"action": "click", "selector": "#save", "snapshot": "none"}},
		{"browser_find", map[string]any{"text": "Save"}},
		{"browser_read", map[string]any{"what": "title"}},
		{"browser_action", map[string]any{"action": "fill", "selector": "#name", "value": "Ada", "snapshot": "diff"}},
	}
	var mu sync.Mutex
	var lat []time.Duration
	var fails []string
	var wg sync.WaitGroup
	t0 := time.Now()
	for c := range clients {
		wg.Go(func() {
			cs, err := httpClient(t, ctx, h.base, "")
			if err != nil {
				mu.Lock()
				fails = append(fails, fmt.Sprintf("client %d: %v", c, err))
				mu.Unlock()
				return
			}
			defer cs.Close()
			call := func(tool string, args map[string]any) {
				s := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				d := time.Since(s)
				mu.Lock()
				defer mu.Unlock()
				lat = append(lat, d)
				if err != nil || res.IsError {
					fails = append(fails, fmt.Sprintf("client %d %s: %v %s", c, tool, err, textOf(res)))
				}
			}
			call("browser_navigate", map[string]any{"url": base + "/act/kinds.html", "snapshot": "none"})
			for i := range calls - 2 {
				s := steps[i%len(steps)]
				call(s.tool, s.args)
			}
			call("browser_close", nil)
		})
	}
	wg.Wait()
	wall := time.Since(t0)
	if len(fails) > 0 {
		t.Fatalf("%d of %d calls failed, e.g. %s", len(fails), clients*calls, fails[0])
	}
	if len(lat) != clients*calls {
		t.Fatalf("%d calls made, want %d", len(lat), clients*calls)
	}
	slices.Sort(lat)
	t.Logf("%d clients × %d calls: %.0f calls/s, p50 %v, p95 %v, max %v (wall %v)", clients, calls,
		float64(len(lat))/wall.Seconds(), lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*95/100].Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), wall.Round(time.Millisecond))

	// The clients are gone: their MCP sessions end, and the goroutines
	// they held with them (a bound, not an exact count: the HTTP client's
	// idle connections and the browser's watchers take a moment).
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	var g1 int
	for {
		runtime.GC()
		g1 = runtime.NumGoroutine()
		if g1 <= g0+20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("goroutines: %d before, %d after", g0, g1)
	if g1 > g0+20 {
		t.Errorf("goroutines did not come back near their baseline: %d before, %d after", g0, g1)
	}
	if n := h.srv.Sessions(); n != 0 {
		t.Errorf("%d MCP sessions still open after every client closed", n)
	}
	tabs1 := countTabs(t, ctx, m)
	runtime.GC()
	t.Logf("open tabs: %d before, %d after; process RSS: %d KiB before, %d KiB after (a -race build when run by make test)", tabs0, tabs1, rss0, rssKiB())
	if tabs1 > tabs0 {
		t.Errorf("tabs left open: %d before, %d after", tabs0, tabs1)
	}
}

// countTabs counts the browser's page tabs.
func countTabs(t *testing.T, ctx context.Context, m *browser.Manager) int {
	t.Helper()
	tabs, err := m.Backend().Tabs(ctx)
	if err != nil {
		t.Fatalf("list tabs: %v", err)
	}
	return len(tabs)
}

// rssKiB is this process's resident set (Linux; 0 elsewhere).
func rssKiB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
