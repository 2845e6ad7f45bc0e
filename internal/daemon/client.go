package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	return doWith(ctx, client, st, method, path, out)
}

// doWith sends a request to the daemon of st with c and decodes its JSON
// answer into out; an answer other than 200 is a *StatusError.
func doWith(ctx context.Context, c *http.Client, st State, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+st.Addr+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+st.Token)
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("reach the daemon at %s: %w", st.Addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("read the daemon's answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		b := bytes.TrimSpace(body)
		if len(b) > 200 {
			b = b[:200]
		}
		return &StatusError{Addr: st.Addr, Method: method, Path: path, Code: resp.StatusCode, Status: resp.Status, Body: string(b)}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("the daemon's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// StatusPath is the daemon's endpoint that describes it (GET, with the
// token): Status.
const StatusPath = "/daemon/status"

// StopPath is the daemon's endpoint that stops it now, clients or not
// (POST, with the token): the calls running get the shutdown grace, then
// are answered OUTCOME_UNKNOWN; the browser closes and the state file
// goes. It answers Stopping.
const StopPath = "/daemon/stop"

// Stopping is the answer of StopPath.
type Stopping struct {
	Stopping bool `json:"stopping"`
	// Clients counts the MCP clients that were connected.
	Clients int `json:"clients"`
}

// Status is what StatusPath answers.
type Status struct {
	PID     int       `json:"pid"`
	Version string    `json:"version"`
	Started time.Time `json:"started"`
	Addr    string    `json:"addr"`
	// Backend is the backend chosen and why ("launch (auto: no extension
	// paired)"); Browser is "up" or "down", BrowserVersion what it says.
	Backend        string `json:"backend"`
	Browser        string `json:"browser"`
	BrowserVersion string `json:"browser_version,omitempty"`
	// Extension lists the Chrome profiles whose extension is connected to
	// the daemon's bridge listener (on BridgePort), when it has one.
	Extension  []string `json:"extension,omitempty"`
	BridgePort int      `json:"bridge_port,omitempty"`
	// Approvals are the person's remembered answers in the connected
	// browsers ("example.com allowed for Claude Code"), when a browser
	// keeps them (the extension).
	Approvals []string `json:"approvals,omitempty"`
	// Settings are the daemon's own (browser) settings, "value (source)";
	// each client brings its own others.
	Settings map[string]string `json:"settings"`
	Clients  []Client          `json:"clients"`
	// Sessions are the browser sessions that exist.
	Sessions []string `json:"sessions"`
	// IdleExit is how long the daemon lives without clients ("" never);
	// IdleSince, when set, is since when it has had none.
	IdleExit  string     `json:"idle_exit,omitempty"`
	IdleSince *time.Time `json:"idle_since,omitempty"`
	Log       string     `json:"log,omitempty"`
}

// Client is one MCP client of the daemon.
type Client struct {
	// ID names its MCP session (its default browser session's name).
	ID string `json:"id"`
	// Name and Version are the client's, from its initialize.
	Name    string    `json:"name"`
	Version string    `json:"version,omitempty"`
	Since   time.Time `json:"since"`
	Last    time.Time `json:"last"`
	Calls   int       `json:"calls"`
	// Sessions are the browser sessions it uses.
	Sessions []string `json:"sessions"`
}

// GetStatus asks the daemon of st to describe itself.
func GetStatus(ctx context.Context, st State) (Status, error) {
	var s Status
	err := do(ctx, st, http.MethodGet, StatusPath, &s)
	return s, err
}

// Stop asks the daemon of st to stop now.
func Stop(ctx context.Context, st State) (Stopping, error) {
	var s Stopping
	err := do(ctx, st, http.MethodPost, StopPath, &s)
	return s, err
}

// EndPath is the daemon's endpoint that ends one MCP client or browser
// session by name (POST, with the token, ?name=NAME): a client (its id, as
// Status lists it) has its MCP session closed and its browser sessions
// removed at once; a browser session no connected client uses is removed
// (its tabs closed; a farm's browser goes back to the farm). It answers
// Ended, or 404 when nothing has the name, 409 when a client still uses
// the session.
const EndPath = "/daemon/end"

// Ended is the answer of EndPath.
type Ended struct {
	// Client is the id of the client ended, "" when a session was.
	Client string `json:"client,omitempty"`
	// ClientName is that client's name, from its initialize.
	ClientName string `json:"client_name,omitempty"`
	// Sessions are the browser sessions removed.
	Sessions []string `json:"sessions"`
}

// End asks the daemon of st to end the client or browser session name.
func End(ctx context.Context, st State, name string) (Ended, error) {
	var e Ended
	// Ending a client cuts its calls and closes its browser sessions:
	// seconds, not the 5 s of a status.
	err := doWith(ctx, endClient, st, http.MethodPost, EndPath+"?name="+url.QueryEscape(name), &e)
	var se *StatusError
	switch {
	case errors.As(err, &se) && se.Code == http.StatusNotFound && se.Body == "404 page not found":
		return e, fmt.Errorf("the running daemon (pid %d, version %s) cannot end clients or sessions: it is older than this webpilot; `webpilot daemon restart` starts this one", st.PID, st.Version)
	case errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusConflict || se.Code == http.StatusBadRequest):
		return e, errors.New(se.Body) // the daemon's own words
	}
	return e, err
}

// endClient waits for a daemon ending a client: its calls cut, its browser
// sessions closed.
var endClient = &http.Client{Timeout: 2 * time.Minute}

// StatusError is a daemon's answer other than 200 OK.
type StatusError struct {
	Addr, Method, Path string
	Code               int
	Status             string
	Body               string // trimmed, at most 200 bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("the daemon at %s answered %s %s with %s: %s", e.Addr, e.Method, e.Path, e.Status, e.Body)
}

// PairPath is the daemon's endpoint that pairs the extension on its own
// bridge listener (POST, with the token, a JSON body {code, ttl_s}): it
// answers Paired once the extension presented the code, or an error when
// the code expired.
const PairPath = "/daemon/pair"

// Paired is the answer of PairPath.
type Paired struct {
	Paired     bool   `json:"paired"`
	SecretFile string `json:"secret_file"`
	BridgePort int    `json:"bridge_port"`
	PID        int    `json:"pid"`
	// Backend is the daemon's backend now, Switched whether the pairing
	// changed it (backend auto: the user's Chrome for new sessions).
	Backend  string `json:"backend"`
	Switched bool   `json:"switched"`
	// Message says what the daemon does with the pairing.
	Message string `json:"message"`
}

// PairLine is one line of the daemon's answer to pair: Armed first, then
// Paired or Error.
type PairLine struct {
	Armed  bool    `json:"armed,omitempty"`
	Paired *Paired `json:"paired,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// Pair asks the daemon of st to pair with code, waiting up to ttl; armed
// is called once the daemon's bridge listener takes the code (show the
// code then, not before).
func Pair(ctx context.Context, st State, code string, ttl time.Duration, armed func()) (Paired, error) {
	var p Paired
	body, _ := json.Marshal(map[string]any{"code": code, "ttl_s": int(ttl / time.Second)})
	ctx, cancel := context.WithTimeout(ctx, ttl+10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+st.Addr+PairPath, bytes.NewReader(body))
	if err != nil {
		return p, err
	}
	req.Header.Set("Authorization", "Bearer "+st.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return p, fmt.Errorf("reach the daemon at %s: %w", st.Addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return p, fmt.Errorf("%s", bytes.TrimSpace(b))
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, 64<<10))
	for {
		var line PairLine
		if err := dec.Decode(&line); err != nil {
			return p, fmt.Errorf("the daemon's answer to pair: %w", err)
		}
		switch {
		case line.Armed:
			if armed != nil {
				armed()
			}
		case line.Error != "":
			return p, errors.New(line.Error)
		case line.Paired != nil:
			return *line.Paired, nil
		default:
			return p, errors.New("the daemon's answer to pair: an empty line")
		}
	}
}
