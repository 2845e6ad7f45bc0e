package browser_test

import (
	"bytes"
	"context"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// tabGoroutines counts the goroutines labelled with one of the tabs'
// target ids (each tab's loops and their workers), and gives their stacks.
func tabGoroutines(ids map[string]bool) (int, string) {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	label := regexp.MustCompile(`"webpilot\.tab":"([^"]*)"`)
	n := 0
	var stacks []string
	for rec := range strings.SplitSeq(buf.String(), "\n\n") {
		m := label.FindStringSubmatch(rec)
		if m == nil || !ids[m[1]] {
			continue
		}
		count, err := strconv.Atoi(strings.Fields(rec)[0])
		if err != nil {
			continue
		}
		n += count
		stacks = append(stacks, rec)
	}
	return n, strings.Join(stacks, "\n\n")
}

// waitGoroutines waits until want(count) holds for the tabs' goroutines.
func waitGoroutines(t *testing.T, ids map[string]bool, what string, want func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for {
		n, stacks := tabGoroutines(ids)
		if want(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines of the tabs:\n%s", what, n, stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An idle tab has one goroutine (its loop), and every goroutine of a tab
// ends when it closes; the process's goroutine count returns to where it
// was.
func TestTabGoroutines(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/")
	before := runtime.NumGoroutine()
	const n = 4
	ids := map[string]bool{}
	var tabs []*browser.Tab
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		for range n {
			tab, err := h.Tabs().New(ctx)
			if err != nil {
				return err
			}
			if _, err := h.On(tab).Navigate(ctx, e.base+"/signin", 0); err != nil {
				return err
			}
			ids[tab.TargetID()] = true
			tabs = append(tabs, tab)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, ids, "4 idle tabs", func(got int) bool { return got == n })
	err = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		for _, tab := range tabs {
			if err := h.Tabs().Close(ctx, tab.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, ids, "after closing the tabs", func(got int) bool { return got == 0 })
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			var buf bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
			t.Fatalf("%d goroutines after closing the tabs, %d before:\n%s", runtime.NumGoroutine(), before, buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A recording adds no goroutine of its own: the recorded tab's loop takes
// the recorder's events, and the extension's notice (the bridge) is
// waited for by one worker of that loop, labelled with the tab like every
// goroutine a tab starts. Stopping the recording leaves the tab idle.
func TestRecordingGoroutines(t *testing.T) {
	e := newEnv(t, browser.Options{RecordHeadless: true})
	e.navigate("/")
	var id string
	_ = e.do(func(ctx context.Context, h *browser.Held) error { id = h.Tab().TargetID(); return nil })
	ids := map[string]bool{id: true}
	waitGoroutines(t, ids, "an idle tab", func(got int) bool { return got == 1 })
	before := runtime.NumGoroutine()
	e.startRecording(browser.RecordOptions{Name: "goroutines"})
	want := 1
	if backendtest.Kind() == "bridge" {
		want++ // the worker waiting for the notice's Stop
	}
	waitGoroutines(t, ids, "a recorded tab", func(got int) bool { return got == want })
	if backendtest.Kind() == "launch" {
		// (the bridge's notice is the extension's: its connection may
		// add goroutines of the backend's own)
		deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				var buf bytes.Buffer
				_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
				t.Fatalf("%d goroutines while recording, %d before:\n%s", runtime.NumGoroutine(), before, buf.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	e.stopRecording()
	waitGoroutines(t, ids, "after the recording", func(got int) bool { return got == 1 })
}
