package browser_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// TestLatencyBridgeBesideLaunch prints the operations of TestLatencyTable
// on a launched Chromium and through the bridge (the extension in another
// headless Chromium) side by side, with the bridge's time over launch's.
// Each run of an operation goes to both backends one after the other, the
// order swapped every run, so both see the same load of the machine. It
// measures and asserts nothing about time; `make bench` runs it with
// WEBPILOT_BENCH=1.
func TestLatencyBridgeBesideLaunch(t *testing.T) {
	if os.Getenv("WEBPILOT_BENCH") == "" {
		t.Skip("a measurement, not a test: make bench runs it (WEBPILOT_BENCH=1)")
	}
	const runs = 15
	kinds := []string{"launch", "bridge"}
	envs := make([]*env, len(kinds))
	for i, k := range kinds {
		t.Setenv("WEBPILOT_TEST_BACKEND", k) // backendtest.New opens this kind
		envs[i] = newEnvOn(t, backendtest.New(t), k)
	}
	for _, e := range envs {
		e.navigate("/basic.html")
	}
	type sample struct {
		ms   []float64
		cmds []int64
	}
	fmt.Printf("\nbridge beside launch — median of %d runs, alternating (ms; CDP commands per call, launch/bridge where they differ)\n", runs)
	fmt.Printf("  %-38s %10s %10s %5s %14s\n", "", "launch", "bridge", "cmds", "bridge/launch")
	var sums [2]float64
	for i := range latencyRows(envs[0]) {
		if i == 3 {
			for _, e := range envs {
				e.navigate("/basic.html") // click needs basic.html loaded
			}
		}
		var got [2]sample
		for run := range runs {
			for j := range envs {
				k := (j + run) % len(envs)
				e := envs[k]
				fn := latencyRows(e)[i].fn
				start, n0 := time.Now(), cdp.CommandsSent()
				if err := e.do(fn); err != nil {
					t.Fatalf("%s on %s: %v", latencyRows(e)[i].name, kinds[k], err)
				}
				got[k].ms = append(got[k].ms, float64(time.Since(start).Microseconds())/1000)
				got[k].cmds = append(got[k].cmds, cdp.CommandsSent()-n0)
			}
		}
		med := [2]float64{latencyMedian(got[0].ms), latencyMedian(got[1].ms)}
		var cmds [2]int64
		for k := range got {
			slices.Sort(got[k].cmds)
			cmds[k] = got[k].cmds[runs/2]
		}
		n := fmt.Sprint(cmds[1])
		if cmds[0] != cmds[1] {
			n = fmt.Sprintf("%d/%d", cmds[0], cmds[1]) // launch/bridge
		}
		sums[0] += med[0]
		sums[1] += med[1]
		fmt.Printf("  %-38s %7.1f ms %7.1f ms %5s %13.2f×\n", latencyRows(envs[0])[i].name, med[0], med[1], n, med[1]/med[0])
	}
	fmt.Printf("  %-38s %7.1f ms %7.1f ms %5s %13.2f×\n", "all rows", sums[0], sums[1], "", sums[1]/sums[0])
}

// newEnvOn is newEnv on a backend of the test's own instead of the shared
// one; name tells the session apart.
func newEnvOn(t *testing.T, b backend.Backend, name string) *env {
	t.Helper()
	m := browser.NewManager(browser.Options{Backend: b, ActionTimeout: backendtest.Timeout(5 * time.Second), NavTimeout: backendtest.Timeout(20 * time.Second)})
	e := &env{t: t, ctx: backendtest.Context(t, 120*time.Second), m: m, s: m.Session(t.Name() + "-" + name), base: fixtures(t)}
	t.Cleanup(func() {
		_ = e.s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	})
	return e
}

// latencyMedian is the middle of ds (sorted in place).
func latencyMedian(ds []float64) float64 {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
