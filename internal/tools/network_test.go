package tools

import (
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A request's word in browser_network's list: the response's status when
// there was one, however its body ended (issue 28, 6: a script answered 404
// was listed as canceled).
func TestNetStatus(t *testing.T) {
	for _, c := range []struct {
		r    browser.NetRequest
		want string
	}{
		{browser.NetRequest{Status: 404, Canceled: true, Failed: "net::ERR_ABORTED"}, "404"},
		{browser.NetRequest{Status: 404, Failed: "net::ERR_FAILED"}, "404"},
		{browser.NetRequest{Status: 200, Failed: "net::ERR_CONTENT_LENGTH_MISMATCH"}, "200 failed(net::ERR_CONTENT_LENGTH_MISMATCH)"},
		{browser.NetRequest{Canceled: true, Failed: "net::ERR_ABORTED"}, "canceled"},
		{browser.NetRequest{Failed: "net::ERR_CONNECTION_REFUSED"}, "failed(net::ERR_CONNECTION_REFUSED)"},
		{browser.NetRequest{Status: 403, Blocked: "csp", Failed: "net::ERR_BLOCKED_BY_CLIENT"}, "blocked(csp)"},
		{browser.NetRequest{Status: 302, Redirect: "n4"}, "302→n4"},
		{browser.NetRequest{Status: 200}, "200"},
		{browser.NetRequest{Pending: true}, "pending"},
	} {
		if got := netStatus(c.r); got != c.want {
			t.Errorf("netStatus(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}
