package endpoint

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// HTTP answers are told apart by status; the endpoint's credentials never
// show in the detail, not even cut in part by the length bound.
func TestStatusError(t *testing.T) {
	const token = "sekret-token-0123456789"
	b := New(Options{URL: "ws://127.0.0.1:1/?token=" + token, Header: http.Header{"X-Api-Key": {"hdr-secret-987"}}})
	defer b.Close()
	long := strings.Repeat("x", 190) + " token=" + token + " key=hdr-secret-987 " + strings.Repeat("é", 50)
	for _, c := range []struct {
		code int
		body string
		want backend.EndpointReason
	}{
		{401, "Bad or missing authentication. " + token, backend.EndpointAuth},
		{403, long, backend.EndpointAuth},
		{429, "Too many requests", backend.FarmFull},
		{503, "no healthy upstream", backend.EndpointFailed}, // no /pressure says full: not a farm at capacity
		{404, "Not Found", backend.EndpointFailed},
		{302, long, backend.EndpointFailed},
	} {
		err := b.statusError("handshake", c.code, fmt.Sprintf("%d %s", c.code, http.StatusText(c.code)), []byte(c.body))
		ee, ok := err.(*backend.EndpointError)
		if !ok || ee.Reason != c.want || ee.Status != c.code {
			t.Errorf("%d: %+v, want %s", c.code, err, c.want)
			continue
		}
		for _, secret := range []string{token, token[:8], "hdr-secret"} {
			if strings.Contains(ee.Detail, secret) {
				t.Errorf("%d: detail %q shows %q", c.code, ee.Detail, secret)
			}
		}
	}
}

// Failures with no HTTP answer: refused, no such host, timed out, other.
func TestClassify(t *testing.T) {
	b := New(Options{URL: "ws://127.0.0.1:1/?token=abcdefgh"})
	defer b.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		err  error
		want backend.EndpointReason
	}{
		{"refused", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, backend.EndpointRefused},
		{"no such host", &net.DNSError{Err: "no such host", Name: "farm.invalid", IsNotFound: true}, backend.EndpointRefused},
		{"deadline", fmt.Errorf("discovery: %w", context.DeadlineExceeded), backend.EndpointTimeout},
		{"other", fmt.Errorf("cdp: dial ws://127.0.0.1:1/?token=abcdefgh: bad handshake"), backend.EndpointFailed},
	} {
		ee, ok := b.classify(ctx, "connect", c.err).(*backend.EndpointError)
		if !ok || ee.Reason != c.want || ee.Phase != "connect" {
			t.Errorf("%s: %+v, want %s", c.name, ee, c.want)
		}
		if ok && strings.Contains(ee.Detail, "abcdefgh") {
			t.Errorf("%s: detail %q shows the token", c.name, ee.Detail)
		}
	}
}
