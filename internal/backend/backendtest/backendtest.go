// Package backendtest holds what tests need from backends: the contract
// suite every backend.Backend must pass ([Run]), the real backend selected
// for browser tests ([Shared], [New]) and test timing ([Timeout]).
//
// Browser tests run on the backend named by WEBPILOT_TEST_BACKEND (default
// launch). A browser that cannot be found fails the test; only under
// `go test -short` is it skipped.
package backendtest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// Scale multiplies test timeouts (WEBPILOT_TEST_TIMEOUT_SCALE, default 1).
func Scale() float64 {
	if f, err := strconv.ParseFloat(os.Getenv("WEBPILOT_TEST_TIMEOUT_SCALE"), 64); err == nil && f > 0 {
		return f
	}
	return 1
}

// Timeout scales d by Scale.
func Timeout(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Scale())
}

// Context returns a context bounded by the scaled d, cancelled at cleanup.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout(d))
	t.Cleanup(cancel)
	return ctx
}

// WaitTab polls b.Tabs until the tab id is listed (listed true) or is not
// (listed false), for up to the scaled d or until ctx ends; the error then
// says what never happened and shows the last listing.
func WaitTab(ctx context.Context, b backend.Backend, id string, listed bool, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout(d))
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var tabs []backend.TabInfo
	var err error
	for {
		tabs, err = b.Tabs(ctx)
		if err == nil && hasTab(tabs, id) == listed {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			want := "listed"
			if !listed {
				want = "gone"
			}
			return fmt.Errorf("tab %s never %s: last Tabs = %+v, %v", id, want, tabs, err)
		}
	}
}

// Kind is the backend browser tests run on.
func Kind() string {
	if k := os.Getenv("WEBPILOT_TEST_BACKEND"); k != "" {
		return k
	}
	return "launch"
}

// New starts a fresh real backend of Kind for one test and closes it at
// cleanup.
func New(t testing.TB) backend.Backend {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	b, err := open()
	if err != nil {
		t.Fatalf("browser test on backend %s: %v", Kind(), err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// open starts a real backend of Kind.
func open() (backend.Backend, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout(90*time.Second))
	defer cancel()
	switch Kind() {
	case "launch":
		lb := launch.New(launch.Options{Headless: true, Isolated: true, Env: os.Getenv})
		if err := lb.Start(ctx); err != nil {
			return nil, fmt.Errorf("no browser (install Chromium or set WEBPILOT_BROWSER): %w", err)
		}
		return lb, nil
	case "bridge":
		rig, err := startBridge(ctx)
		if err != nil {
			return nil, fmt.Errorf("bridge with the extension in headless Chromium: %w", err)
		}
		return rig, nil
	case "endpoint":
		rig, err := startEndpoint(ctx)
		if err != nil {
			return nil, fmt.Errorf("endpoint backend on a headless Chromium with --remote-debugging-port: %w", err)
		}
		return rig, nil
	}
	return nil, errUnknownKind
}

var shared struct {
	once sync.Once
	b    backend.Backend
	err  error
}

// Shared returns one real backend for the whole test binary, started on
// first use. Tests that share it open their own tabs (one agent session per
// test). Call CloseShared from TestMain after m.Run.
func Shared(t testing.TB) backend.Backend {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	shared.once.Do(func() {
		shared.b, shared.err = open()
	})
	if shared.err != nil {
		t.Fatalf("browser test on backend %s: %v", Kind(), shared.err)
	}
	return shared.b
}

// CloseShared closes the shared backend, if one was started.
func CloseShared() {
	if shared.b != nil {
		_ = shared.b.Close()
	}
}

type kindError string

func (e kindError) Error() string { return string(e) }

const errUnknownKind = kindError("unknown WEBPILOT_TEST_BACKEND (want launch, bridge or endpoint)")
