package browser_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// TestLatencyTable prints, for the backend under test, the latency of one
// CDP round trip and of the main operations on the fixtures. It measures and
// asserts nothing about time; `make bench` runs it on every backend with
// WEBPILOT_BENCH=1.
func TestLatencyTable(t *testing.T) {
	if os.Getenv("WEBPILOT_BENCH") == "" {
		t.Skip("a measurement, not a test: make bench runs it (WEBPILOT_BENCH=1)")
	}
	const runs = 7
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	measure := func(fn func(ctx context.Context, h *browser.Held) error) (ms float64, cmds int64) {
		var ds []float64
		var ns []int64
		for range runs {
			start, n0 := time.Now(), cdp.CommandsSent()
			if err := e.do(fn); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, float64(time.Since(start).Microseconds())/1000)
			ns = append(ns, cdp.CommandsSent()-n0)
		}
		slices.Sort(ds)
		slices.Sort(ns)
		return ds[len(ds)/2], ns[len(ns)/2]
	}
	rows := latencyRows(e)
	fmt.Printf("\nbackend %s — median of %d runs\n", backendtest.Kind(), runs)
	for i, r := range rows {
		if i == 3 {
			// click needs basic.html loaded
			e.navigate("/basic.html")
		}
		ms, n := measure(r.fn)
		fmt.Printf("  %-38s %8.1f ms %4d CDP commands\n", r.name, ms, n)
	}
}

// latencyRow is one operation of the latency tables.
type latencyRow struct {
	name string
	fn   func(ctx context.Context, h *browser.Held) error
}

// latencyRows are the operations the latency tables time, on e's fixtures;
// the fourth (click) needs basic.html loaded.
func latencyRows(e *env) []latencyRow {
	return []latencyRow{
		{"CDP round trip (Runtime.evaluate 1)", func(ctx context.Context, h *browser.Held) error {
			tab := h.Tab()

			return tab.Target().Call(ctx, "Runtime.evaluate", map[string]any{"expression": "1"}, nil)
		}},
		{"navigate basic.html", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, e.base+"/basic.html", 0)
			return err
		}},
		{"snapshot basic.html", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Snapshot(ctx, browser.SnapshotOptions{})
			return err
		}},
		{"click #counter", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Act(ctx, browser.Action{Kind: "click", Target: browser.Locator{Selector: "#counter"}})
			return err
		}},
		{"navigate long.html", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, e.base+"/long.html", 0)
			return err
		}},
		{"snapshot long.html (full)", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull})
			return err
		}},
		{"navigate form.html", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, e.base+"/form.html", 0)
			return err
		}},
		{"fill #name", func(ctx context.Context, h *browser.Held) error {

			_, err := h.Act(ctx, browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#name"}, Value: "Ada Lovelace"})
			return err
		}},
	}
}
