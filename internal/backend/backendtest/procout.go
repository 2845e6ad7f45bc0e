package backendtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"regexp"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is a bytes.Buffer safe for a writer goroutine (a process's
// output, a command run in the test) and a reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// FreePort is a loopback port nothing listens on (a bridge port for a
// test's own webpilot pair or daemon).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// pairingCode is the line `webpilot pair` prints: the code, and the port
// when it is not the default.
var pairingCode = regexp.MustCompile(`Pairing code: ([A-Z0-9]{4}-[A-Z0-9]{4}(?:@\d+)?)\n`)

// PairingCode waits until out (webpilot pair's output) shows the pairing
// code, and returns it as the user types it (with its @port, if any).
// ended, when not nil, is closed or sent on when the command ends first.
func PairingCode[T any](ctx context.Context, out fmt.Stringer, ended <-chan T) (string, error) {
	for {
		if m := pairingCode.FindStringSubmatch(out.String()); m != nil {
			return m[1], nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("webpilot pair printed no code: %w\n%s", ctx.Err(), out)
		case v := <-ended:
			return "", fmt.Errorf("webpilot pair ended before it printed a code (%v):\n%s", v, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
