package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Health is what GET /health answers.
type Health struct {
	Version  string `json:"version"`
	Backend  string `json:"backend"`
	Browser  string `json:"browser"`
	Sessions int    `json:"sessions"`
	UptimeS  int64  `json:"uptime_s"`
	// Retiring is true once the daemon is exiting (idle, or asked to
	// retire): it takes no new MCP session.
	Retiring bool `json:"retiring,omitempty"`
}

// RetirePath is the daemon's endpoint that asks it to exit as soon as it
// has no MCP clients (a newer binary, or one with other settings, wants to
// take over): POST, with the token. It answers Retired.
const RetirePath = "/daemon/retire"

// Retired is the answer of RetirePath.
type Retired struct {
	// Retiring is true when the daemon had no client and now exits; it
	// refuses new MCP sessions from then on (503).
	Retiring bool `json:"retiring"`
	// Sessions counts the MCP sessions that keep it from retiring.
	Sessions int `json:"sessions"`
}

var client = &http.Client{Timeout: 5 * time.Second}

// GetHealth asks the daemon of st for its health.
func GetHealth(ctx context.Context, st State) (Health, error) {
	var h Health
	err := do(ctx, st, http.MethodGet, "/health", &h)
	return h, err
}

// Retire asks the daemon of st to exit once it has no MCP clients; see
// Retired.
func Retire(ctx context.Context, st State) (Retired, error) {
	var r Retired
	err := do(ctx, st, http.MethodPost, RetirePath, &r)
	return r, err
}

func do(ctx context.Context, st State, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+st.Addr+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+st.Token)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("reach the daemon at %s: %w", st.Addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("read the daemon's answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the daemon at %s answered %s %s with %s: %.200s", st.Addr, method, path, resp.Status, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("the daemon's answer to %s %s: %w", method, path, err)
	}
	return nil
}
