package mcpserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// withHeader adds a header to every request.
type withHeader struct{ name, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// The browser profile is a client's setting: the sessions a client's calls
// make get the profile its Webpilot-Browser-Profile header names, or the
// server's default without one; a header that names no profile is refused.
func TestHTTPBrowserProfileHeader(t *testing.T) {
	m := browser.NewManager(browser.Options{Backend: backendtest.NewFake(), BrowserProfile: "server-default"})
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{})
	ctx := backendtest.Context(t, 30*time.Second)
	for _, profile := range []string{"Edge Work", ""} {
		tr := &mcp.StreamableClientTransport{Endpoint: h.base + "/mcp"}
		if profile != "" {
			tr.HTTPClient = &http.Client{Transport: withHeader{mcpserver.BrowserProfileHeader, profile}}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "profile-test", Version: "0"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		res, err := cs.CallTool(ctx, callParams("browser_tabs", map[string]any{"action": "list"}))
		if err != nil || res.IsError {
			t.Fatalf("browser_tabs list with profile %q: %v %s", profile, err, textOf(res))
		}
	}
	var got []string
	for _, name := range m.SessionNames() {
		s, _ := m.Lookup(name)
		got = append(got, s.BrowserProfile())
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"Edge Work", "server-default"}) {
		t.Errorf("sessions' browser profiles = %q, want the header's and the server's default", got)
	}
	if code := post(t, h.base, map[string]string{mcpserver.BrowserProfileHeader: "a/b"}, strings.NewReader(initBody)); code != http.StatusBadRequest {
		t.Errorf("a header that names no profile: status %d, want 400", code)
	}
}
