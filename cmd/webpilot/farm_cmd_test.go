package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint/farmtest"
)

// --endpoint-per-session needs --cdp-endpoint (flag or environment) and the
// endpoint backend; .webpilot.json may not set it. With it the backend is
// a Farm.
func TestEndpointPerSessionConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		file string
		want []string // all in the error; none: accepted
	}{
		{"flag alone", []string{"--endpoint-per-session"}, nil, "", []string{"--endpoint-per-session", "needs --cdp-endpoint"}},
		{"env alone", nil, map[string]string{"WEBPILOT_ENDPOINT_PER_SESSION": "true"}, "", []string{"WEBPILOT_ENDPOINT_PER_SESSION", "needs --cdp-endpoint"}},
		{"launch backend", []string{"--backend=launch", "--cdp-endpoint=ws://farm.example/", "--endpoint-per-session"}, nil, "", []string{"--endpoint-per-session", "endpoint backend", "launch"}},
		{"in the file", []string{"--cdp-endpoint=ws://farm.example/"}, nil, `{"endpoint_per_session": true}`, []string{"endpoint_per_session", "flag or environment"}},
		{"false alone", []string{"--endpoint-per-session=false"}, nil, "", nil},
		{"with an endpoint", []string{"--cdp-endpoint=ws://farm.example/", "--endpoint-per-session"}, nil, "", nil},
		{"env with an endpoint", nil, map[string]string{"WEBPILOT_CDP_ENDPOINT": "http://farm.example:3000", "WEBPILOT_ENDPOINT_PER_SESSION": "1"}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := load(t, c.args, c.env, c.file)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if cfg.EndpointPerSession && cfg.CDPEndpoint != "" {
					be, kind, err := chooseBackend(cfg, discardLogger())
					if err != nil {
						t.Fatal(err)
					}
					defer be.Close()
					if _, ok := be.(*endpoint.Farm); !ok || !strings.Contains(kind, "per session") {
						t.Errorf("backend = %T (%s), want an endpoint.Farm", be, kind)
					}
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	// Through run, it is a usage error (exit status 2).
	var out, errb syncBuffer
	err := run(t.Context(), []string{"mcp", "--endpoint-per-session"}, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, new(syncBuffer)); code != 2 {
		t.Errorf("mcp --endpoint-per-session: exit %d (%v), want 2", code, err)
	}
}

// `webpilot serve --cdp-endpoint FARM --endpoint-per-session`: two MCP
// clients each get a browser of their own from the farm (the cookie one
// sets is not the other's), /health shows the endpoint up, and on SIGTERM
// every farm connection ends, so the farm kills every browser.
func TestFarmServe(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.Start()
	t.Cleanup(farm.Close)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>loading</title><script>document.title = "seen:" + document.cookie; document.cookie = "who=%s; path=/"</script>`, n)
	}))
	t.Cleanup(page.Close)
	ctx := backendtest.Context(t, 180*time.Second)
	stderr := new(syncBuffer)
	cmd := webpilotCmd(t, stderr, "serve", "--listen", "127.0.0.1:0", "--cdp-endpoint", farm.URL(), "--endpoint-per-session")
	url, exited := startServe(t, cmd, stderr)
	var clients [2]*mcp.ClientSession
	for i := range clients {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("farm-test-%d", i), Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v", url, err)
		}
		defer cs.Close()
		clients[i] = cs
	}
	visit := func(i int) string {
		return callText(t, ctx, clients[i], "browser_navigate", map[string]any{"url": fmt.Sprintf("%s/?n=%d", page.URL, i)})
	}
	for round := range 2 {
		for i := range clients {
			w := "# seen: — " // a fresh browser
			if round > 0 {
				w = fmt.Sprintf("# seen:who=%d — ", i)
			}
			if got := visit(i); !strings.Contains(got, w) {
				t.Errorf("round %d, client %d: navigate does not show %s (its own browser's cookie only):\n%s", round, i, w, got)
			}
		}
	}
	if c := farm.Conns(); len(c) != 2 || c[0].PID == c[1].PID {
		t.Errorf("farm connections = %+v, want 2 with browsers of their own", c)
	}
	res, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	err = json.NewDecoder(res.Body).Decode(&h)
	res.Body.Close()
	if err != nil || h["browser"] != "up" || h["backend"] != "endpoint" || h["sessions"] != 2.0 {
		t.Errorf("/health: %v %v", h, err)
	}

	termServe(t, cmd, exited)
	if err := farm.WaitLive(ctx, 0); err != nil {
		t.Errorf("after webpilot serve exited: %v", err)
	}
}
