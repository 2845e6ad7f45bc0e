package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// retire asks the server at base to retire, with the token.
func retire(t *testing.T, base, token string) (int, daemon.Retired) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+daemon.RetirePath, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r daemon.Retired
	if res.StatusCode == http.StatusOK {
		_ = json.NewDecoder(res.Body).Decode(&r)
	}
	return res.StatusCode, r
}

// The daemon's retire endpoint: it needs the token, refuses while an MCP
// client is connected, and once accepted ends RunHTTP and turns new
// sessions away. A server that is not Retirable has no such endpoint.
func TestHTTPRetire(t *testing.T) {
	const token = "a-token-of-some-length"
	deps := &tools.Deps{DefaultSession: "default"}
	plain := serveHTTP(t, deps, mcpserver.HTTPOptions{Token: token})
	if code, _ := retire(t, plain.base, token); code != http.StatusNotFound {
		t.Errorf("retire on a server that is not Retirable: %d, want 404", code)
	}
	h := serveHTTP(t, deps, mcpserver.HTTPOptions{Token: token, Retirable: true})
	if code, _ := retire(t, h.base, ""); code != http.StatusUnauthorized {
		t.Errorf("retire without the token: %d, want 401", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := httpClient(t, ctx, h.base, token)
	if err != nil {
		t.Fatal(err)
	}
	// The count may include requests of the client's start whose handlers
	// are still returning.
	if code, r := retire(t, h.base, token); code != http.StatusOK || r.Retiring || r.Sessions < 1 {
		t.Errorf("retire with a client: %d %+v, want refused with its session counted", code, r)
	}
	select {
	case <-h.done:
		t.Fatal("RunHTTP ended with a client connected")
	default:
	}
	_ = cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, r := retire(t, h.base, token)
		if code == http.StatusOK && r.Retiring {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retire after the client left: %d %+v", code, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-h.done:
		h.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("RunHTTP did not end after retiring")
	}
}

// With IdleExit, RunHTTP ends once no client has been connected for that
// long, and not while one is.
func TestHTTPIdleExit(t *testing.T) {
	deps := &tools.Deps{DefaultSession: "default"}
	h := serveHTTP(t, deps, mcpserver.HTTPOptions{IdleExit: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.done:
		t.Fatal("RunHTTP ended with a client connected")
	case <-time.After(time.Second):
	}
	_ = cs.Close()
	select {
	case err := <-h.done:
		h.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("RunHTTP did not end once idle")
	}
}
