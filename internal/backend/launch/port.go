package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

const (
	// activePortFile is where a browser started with --remote-debugging-port
	// writes the port it listens on and its browser target's path.
	activePortFile = "DevToolsActivePort"
	// activePortPoll is how often dialPort looks for activePortFile.
	activePortPoll = 50 * time.Millisecond
)

// parseActivePort parses a DevToolsActivePort file: the port on the first
// line, the browser's WebSocket path (/devtools/browser/<id>) on the second.
func parseActivePort(data []byte) (port int, path string, err error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) < 2 {
		return 0, "", errors.New("want two lines, a port and a path")
	}
	port, err = strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port <= 0 || port > 65535 {
		return 0, "", fmt.Errorf("bad port %q", lines[0])
	}
	path = strings.TrimSpace(lines[1])
	if !strings.HasPrefix(path, "/devtools/browser/") || len(path) == len("/devtools/browser/") {
		return 0, "", fmt.Errorf("bad path %q", lines[1])
	}
	return port, path, nil
}

// readActivePort reads and parses dir's DevToolsActivePort file.
func readActivePort(dir string) (port int, path string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, activePortFile))
	if err != nil {
		return 0, "", err
	}
	port, path, err = parseActivePort(data)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", filepath.Join(dir, activePortFile), err)
	}
	return port, path, nil
}

// dialPort waits until the browser, started with --remote-debugging-port=0,
// has written its DevToolsActivePort file (until ctx ends or the browser
// exits), connects to the WebSocket it names and sets in.conn. On an error
// in.conn stays nil.
func (in *instance) dialPort(ctx context.Context) error {
	tick := time.NewTicker(activePortPoll)
	defer tick.Stop()
	for {
		port, path, err := readActivePort(in.profile)
		if err == nil {
			url := "ws://127.0.0.1:" + strconv.Itoa(port) + path
			t, err := cdp.DialWebSocket(ctx, url, nil)
			if err != nil {
				return err
			}
			in.conn = cdp.NewConn(t, &cdp.Options{Logger: in.log, CloseErr: in.closeReason})
			return nil
		}
		// A file not there yet, or half written: look again.
		select {
		case <-tick.C:
		case <-in.exited:
			return fmt.Errorf("waiting for %s: %w", activePortFile, cdp.ErrClosed)
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", activePortFile, ctx.Err())
		}
	}
}
