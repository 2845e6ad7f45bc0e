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
)

// TestRecordLatency prints what recording the user costs (make bench): the
// start (the recorder put into the tab), the delay from a click's release
// to its step being in, and the stop (the pages flushed, the recorder
// taken out); medians of 7.
func TestRecordLatency(t *testing.T) {
	if os.Getenv("WEBPILOT_BENCH") == "" {
		t.Skip("a measurement, not a test: make bench runs it (WEBPILOT_BENCH=1)")
	}
	const runs = 7
	e := newEnv(t, browser.Options{RecordHeadless: true})
	e.navigate("/basic.html")
	u, err := backendtest.NewUser(e.ctx, e.m.Backend(), e.base+"/basic.html")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	steps := func() int {
		n := 0
		_ = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
			if st := h.Recorder().Status(); st != nil {
				n = st.Steps
			}
			return nil
		})
		return n
	}
	var starts, clicks, stops []float64
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for range runs {
		t0 := time.Now()
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Recorder().Start(ctx, browser.RecordOptions{Name: "bench"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		starts = append(starts, ms(time.Since(t0)))
		before := steps()
		if err := u.Click(e.ctx, "#counter", 1); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		for steps() == before {
			if time.Since(t1) > backendtest.Timeout(10*time.Second) {
				t.Fatal("the click was never recorded")
			}
		}
		clicks = append(clicks, ms(time.Since(t1)))
		t2 := time.Now()
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Recorder().Stop(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		stops = append(stops, ms(time.Since(t2)))
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	fmt.Printf("\nrecording the user, backend %s — median of %d runs\n", backendtest.Kind(), runs)
	fmt.Printf("  %-38s %8.1f ms\n", "recipe_record start (recorder in)", med(starts))
	fmt.Printf("  %-38s %8.1f ms\n", "a click's step in, after its release returned", med(clicks))
	fmt.Printf("  %-38s %8.1f ms\n", "recipe_record stop (flush, recorder out)", med(stops))
}
