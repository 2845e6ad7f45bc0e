package backendtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// DebugBrowser is a headless Chromium listening on a free loopback port
// (--remote-debugging-port=0), as a browser farm would, for the endpoint
// backend. It is started through the launch backend, which also gives it a
// CDP pipe of its own and its process hygiene: its own process group, a
// parent-death signal, and the whole group killed on Close.
type DebugBrowser struct {
	browser *launch.Backend
	// Port is the browser's debugging port (from DevToolsActivePort).
	Port int
	// WebSocketURL is the browser-level WebSocket, ws://127.0.0.1:Port/devtools/browser/….
	WebSocketURL string
}

// HTTPURL is the browser's HTTP debugging address, http://127.0.0.1:Port.
func (d *DebugBrowser) HTTPURL() string { return fmt.Sprintf("http://127.0.0.1:%d", d.Port) }

// Launch is the launch backend that owns the browser process.
func (d *DebugBrowser) Launch() *launch.Backend { return d.browser }

// Running reports whether the browser process still runs.
func (d *DebugBrowser) Running() bool { return d.browser.Info().Running }

// Close stops the browser and its process group and removes its profile.
func (d *DebugBrowser) Close() error { return d.browser.Close() }

// StartDebugBrowser starts a headless Chromium (WEBPILOT_BROWSER or the
// discovered one) with a temporary profile and --remote-debugging-port=0, and
// reads the port it chose from <profile>/DevToolsActivePort.
func StartDebugBrowser(ctx context.Context) (*DebugBrowser, error) {
	br := launch.New(launch.Options{Headless: true, Isolated: true, Env: os.Getenv,
		ExtraArgs: []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"}})
	if err := br.Start(ctx); err != nil {
		_ = br.Close()
		return nil, err
	}
	file := filepath.Join(br.Info().ProfileDir, "DevToolsActivePort")
	deadline := time.Now().Add(Timeout(15 * time.Second))
	for {
		data, err := os.ReadFile(file)
		if err == nil {
			lines := strings.Fields(string(data))
			if len(lines) >= 2 {
				port, perr := strconv.Atoi(lines[0])
				if perr == nil && port > 0 {
					return &DebugBrowser{browser: br, Port: port,
						WebSocketURL: fmt.Sprintf("ws://127.0.0.1:%d%s", port, lines[1])}, nil
				}
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			_ = br.Close()
			return nil, fmt.Errorf("the browser wrote no DevToolsActivePort (%s): %v", file, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// endpointRig is an endpoint backend connected to a DebugBrowser of its own.
type endpointRig struct {
	*endpoint.Backend
	browser *DebugBrowser
}

// Close closes the endpoint backend, then stops the browser.
func (r *endpointRig) Close() error {
	return errors.Join(r.Backend.Close(), r.browser.Close())
}

var _ backend.Backend = (*endpointRig)(nil)

// startEndpoint starts a DebugBrowser and an endpoint backend connected to
// it through its HTTP address (discovery), for WEBPILOT_TEST_BACKEND=endpoint.
func startEndpoint(ctx context.Context) (*endpointRig, error) {
	br, err := StartDebugBrowser(ctx)
	if err != nil {
		return nil, err
	}
	rig := &endpointRig{Backend: endpoint.New(endpoint.Options{URL: br.HTTPURL()}), browser: br}
	if err := rig.Start(ctx); err != nil {
		_ = rig.Close()
		return nil, err
	}
	return rig, nil
}
