package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Bounds of the HTTP transport (webpilot serve).
const (
	// SessionTimeout closes an MCP session over HTTP that has had no
	// request for this long: a client that went away without saying so
	// (or a page that only opened sessions) does not hold memory for
	// ever. Its client initializes again.
	SessionTimeout = 30 * time.Minute
	// MaxBodyBytes bounds one HTTP request body (the go-sdk's default):
	// a larger one is answered 413 without being read whole.
	MaxBodyBytes = 4 << 20
	// MaxSessions bounds the MCP sessions open at once over HTTP; an
	// initialize beyond it is answered 503 until one closes or expires.
	MaxSessions = 256
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// BodyReadTimeout bounds reading a request's body. It is set per
	// request, not as http.Server.ReadTimeout, whose deadline would also
	// end the long-lived event streams of Streamable HTTP.
	BodyReadTimeout = 30 * time.Second
	// IdleTimeout closes a keep-alive connection without a request.
	IdleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 64 << 10
	// BareSessionTimeout closes an MCP session over HTTP that sent nothing
	// but initialize for this long, so that bare initializes cannot hold
	// every session slot (MaxSessions) for SessionTimeout.
	BareSessionTimeout = 60 * time.Second
	// DepartedGrace is how long the default browser session of an MCP
	// client over HTTP outlives the client's MCP session (closed by the
	// client or expired after SessionTimeout): then its tabs are closed
	// and it is removed, unless a client with that session came back.
	DepartedGrace = 60 * time.Second
	// FarmDepartedGrace is DepartedGrace when each browser session has a
	// farm browser of its own (--endpoint-per-session): the browser a
	// client leaves goes back to the farm within seconds, for an agent
	// waiting in the farm's queue.
	FarmDepartedGrace = 2 * time.Second
	// FarmSessionTimeout is SessionTimeout, and SessionIdle, when each
	// browser session has a farm browser of its own: a client that went
	// away without closing its MCP session (not every client sends the
	// DELETE) gives its browser back after this long without a call,
	// rather than after half an hour.
	FarmSessionTimeout = 10 * time.Minute
	// StreamGoneGrace: an MCP client over HTTP whose event stream (its
	// GET) was closed by the client's side, and that neither opens another
	// nor sends anything for this long, has left without ending its MCP
	// session (the TypeScript SDK's close() sends no DELETE): the session is
	// closed, and its browser goes after the departure grace. A client that
	// never opened an event stream is not judged by this.
	StreamGoneGrace = 10 * time.Second
	// StreamKeepAlive spaces the comments written on an idle event stream
	// (GET), so that a client or proxy that drops a silent stream (the
	// Python SDK after 5 minutes, nginx after 60 s) keeps it, and is not
	// taken for a client that left (StreamGoneGrace).
	StreamKeepAlive = 25 * time.Second
	// SessionIdle removes a browser session that has had no call for this
	// long and is no connected client's default (the janitor of RunHTTP);
	// Deps.DefaultSession is never removed.
	SessionIdle = 30 * time.Minute
)

// SessionHeader, on the requests of an MCP client over HTTP, names the
// browser session its calls default to instead of one of its own (the
// stdio proxy sends the --session it was given).
const SessionHeader = "Webpilot-Session"

// BrowserProfileHeader, on the requests of an MCP client over HTTP, selects
// the browser profile (the bridge: a Chrome or Edge profile by name, id or
// id prefix) of the browser sessions its calls make; without it they get
// the server's --browser-profile. The stdio proxy sends the
// --browser-profile it was given, so that clients wanting different
// profiles share one daemon.
const BrowserProfileHeader = "Webpilot-Browser-Profile"

// WorkdirHeader, on the requests of an MCP client over HTTP, names the
// client's working directory (absolute), whose ./.webpilot/recipes are the
// project recipes of its calls (still only once the user trusted that
// folder). The stdio proxy sends its own, since the daemon's is not the
// client's.
const WorkdirHeader = "Webpilot-Workdir"

// clientWorkdir is the WorkdirHeader of the client's call ("" for none or
// one that is not an absolute path).
func clientWorkdir(req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil {
		return ""
	}
	wd := req.Extra.Header.Get(WorkdirHeader)
	if len(wd) > 4096 || !filepath.IsAbs(wd) {
		return ""
	}
	return filepath.Clean(wd)
}

// maxBrowserProfileLen bounds BrowserProfileHeader.
const maxBrowserProfileLen = 64

// clientBrowserProfile is the BrowserProfileHeader of the client's call.
func clientBrowserProfile(req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil {
		return ""
	}
	return strings.TrimSpace(req.Extra.Header.Get(BrowserProfileHeader))
}

// checkBrowserProfile says whether v may select a browser profile: at most
// maxBrowserProfileLen letters, digits, '-', '_', '.' and spaces.
func checkBrowserProfile(v string) bool {
	if len(v) > maxBrowserProfileLen*4 || utf8.RuneCountInString(v) > maxBrowserProfileLen {
		return false
	}
	for _, c := range v {
		if !unicode.IsLetter(c) && !unicode.IsNumber(c) && !strings.ContainsRune("-_. ", c) {
			return false
		}
	}
	return true
}

// ClientSessionPrefix starts the name of the browser session an MCP client
// of the daemon or of serve gets by default (a stdio client's proxy is one
// too, so the name says client, not the transport): "client-" and the
// first 8 characters of its MCP session id, lower-cased.
// No client may name one (tools.CheckSessionName).
const ClientSessionPrefix = tools.ReservedSessionPrefix

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// Addr is the address the server listens on (host:port). When its host
	// is a loopback address or localhost, a request's Host header must
	// name localhost, 127.0.0.1, [::1] or that host (DNS rebinding).
	Addr string
	// Token, when set, is the bearer token every request needs
	// (Authorization: Bearer <token>), /health included.
	Token string
	// SharedDefault makes every MCP client default to Deps.DefaultSession
	// (the --session given explicitly); otherwise each client gets a
	// browser session of its own (ClientSessionPrefix).
	SharedDefault bool
	// Bounds; zero means the constant of the same name.
	SessionTimeout time.Duration
	MaxBodyBytes   int64
	MaxSessions    int
	DepartedGrace  time.Duration
	SessionIdle    time.Duration
	// StreamGoneGrace and StreamKeepAlive; zero means the constant of the
	// same name.
	StreamGoneGrace, StreamKeepAlive time.Duration
	// BareSessionTimeout; zero means the constant of the same name.
	BareSessionTimeout time.Duration
	// IdleExit, when positive, ends RunHTTP once the server has had no MCP
	// session and no request for this long (the per-user daemon).
	IdleExit time.Duration
	// Retirable serves POST /daemon/retire (daemon.RetirePath), by which a
	// proxy of a newer binary or other settings asks the daemon to exit
	// when it has no client, and GET /daemon/status and POST /daemon/stop
	// (webpilot daemon status|stop); it needs Token.
	Retirable bool
	// Status fills in the daemon's own facts (pid, backend, settings…)
	// of /daemon/status; the server adds its clients and sessions.
	Status func(*daemon.Status)
	// Pair serves POST /daemon/pair (webpilot pair while the daemon
	// runs): it arms code on the bridge listener, calls armed once the
	// extension can present it, and waits up to ttl (or ctx) for it; nil:
	// not served.
	Pair func(ctx context.Context, code string, ttl time.Duration, armed func()) (daemon.Paired, error)
}

// IsLoopback reports whether host (a host name or IP, without a port) is
// localhost or a loopback address.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// defaultSession is the browser session a call that names none runs in:
// over HTTP (an MCP session with an id) one of the client's own, named
// after its session id; otherwise Deps.DefaultSession.
func (s *Server) defaultSession(req *mcp.CallToolRequest) string {
	if !s.clientDefaults.Load() || req == nil || req.Session == nil {
		return s.deps.DefaultSession
	}
	if req.Extra != nil {
		if name := req.Extra.Header.Get(SessionHeader); name != "" {
			return name
		}
	}
	id := req.Session.ID()
	if id == "" {
		return s.deps.DefaultSession
	}
	return ClientSessionName(id)
}

// ClientSessionName is the default browser session of the MCP session id.
func ClientSessionName(id string) string {
	id = strings.ToLower(id)
	var b strings.Builder
	for _, c := range id {
		if b.Len() == 8 {
			break
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return ClientSessionPrefix + b.String()
}

// Sessions counts the MCP sessions open now.
func (s *Server) Sessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// Handler is the HTTP transport: Streamable HTTP at /mcp (stateful
// sessions that expire when idle) and GET /health, behind the checks that
// keep a web page in the user's own browser from driving it: the Host
// header (DNS rebinding), the Origin header and Sec-Fetch-Site (cross-site
// requests), the bearer token when one is set, the content type, and the
// body size. From now on, calls over an MCP session with an id default to
// a browser session of that client's own (unless o.SharedDefault).
func (s *Server) Handler(o HTTPOptions) http.Handler { return s.front(o) }

func (s *Server) front(o HTTPOptions) *front {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = SessionTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = MaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = MaxSessions
	}
	if o.BareSessionTimeout <= 0 {
		o.BareSessionTimeout = BareSessionTimeout
	}
	if o.DepartedGrace <= 0 {
		o.DepartedGrace = DepartedGrace
	}
	if o.StreamGoneGrace <= 0 {
		o.StreamGoneGrace = StreamGoneGrace
	}
	if o.StreamKeepAlive <= 0 {
		o.StreamKeepAlive = StreamKeepAlive
	}
	s.clientsMu.Lock()
	s.departGrace = o.DepartedGrace
	s.clientsMu.Unlock()
	s.clientDefaults.Store(!o.SharedDefault)
	f := &front{s: s, o: o, cop: http.NewCrossOriginProtection(), exit: make(chan struct{})}
	if host, _, err := net.SplitHostPort(o.Addr); err == nil && IsLoopback(host) {
		f.hosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, strings.ToLower(host): true}
	}
	if o.Token != "" {
		sum := sha256.Sum256([]byte(o.Token))
		f.token = sum[:]
	}
	f.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout, MaxRequestBodyBytes: o.MaxBodyBytes, Logger: s.log})
	return f
}

// front is the HTTP handler in front of the go-sdk's.
type front struct {
	s     *Server
	o     HTTPOptions
	mcp   http.Handler
	cop   *http.CrossOriginProtection
	hosts map[string]bool // Host names accepted; nil: any (not on loopback)
	token []byte          // sha256 of the bearer token; nil: none needed

	mu       sync.Mutex    // guards creating, retiring and idleSince
	creating int           // new sessions being made (initialize in flight)
	retiring bool          // no new session: the server is about to exit
	exit     chan struct{} // closed when retiring
	// idleSince is when the server was last busy, while it is not (zero
	// while busy); kept by idleExit.
	idleSince time.Time
}

// stopNow makes the server exit (RunHTTP returns) whatever its clients:
// webpilot daemon stop. It reports how many MCP sessions were open.
func (f *front) stopNow() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.s.Sessions()
	if !f.retiring {
		f.retiring = true
		close(f.exit)
	}
	return n
}

// retire makes the server exit (RunHTTP returns) if it has no MCP session
// and none being made; from then on new sessions are refused.
func (f *front) retire() (ok bool, sessions int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.retiring {
		return true, 0
	}
	n := f.s.Sessions() + f.creating
	if n > 0 {
		return false, n
	}
	f.retiring = true
	close(f.exit)
	return true, 0
}

// busy reports whether an MCP session is open or a request is being
// served.
func (f *front) busy() bool {
	f.mu.Lock()
	creating := f.creating
	f.mu.Unlock()
	f.s.posts.mu.Lock()
	posts := f.s.posts.n
	f.s.posts.mu.Unlock()
	return creating > 0 || posts > 0 || f.s.Sessions() > 0
}

// idleExit retires the server once it has not been busy for d.
func (f *front) idleExit(ctx context.Context, d time.Duration) {
	every := min(max(d/10, 10*time.Millisecond), time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.exit:
			return
		case <-tick.C:
		}
		if f.busy() {
			last = time.Now()
			f.mu.Lock()
			f.idleSince = time.Time{}
			f.mu.Unlock()
			continue
		}
		f.mu.Lock()
		f.idleSince = last
		f.mu.Unlock()
		if time.Since(last) >= d {
			if ok, _ := f.retire(); ok {
				f.s.log.Info("no MCP client for a while: exiting", "idle", d)
				return
			}
		}
	}
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.hosts != nil {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
		if !f.hosts[host] {
			f.refuse(w, r, http.StatusForbidden, "Host header not allowed: webpilot answers only on localhost")
			return
		}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !strings.EqualFold(origin, "http://"+r.Host) {
		f.refuse(w, r, http.StatusForbidden, "cross-origin requests are refused")
		return
	}
	if err := f.cop.Check(r); err != nil {
		f.refuse(w, r, http.StatusForbidden, "cross-origin requests are refused")
		return
	}
	if f.token != nil && !f.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="webpilot"`)
		f.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	}
	if r.Header.Get(SessionHeader) != "" {
		if err := tools.CheckSessionName(r.Header.Get(SessionHeader)); err != nil {
			msg := SessionHeader + ": not a valid session name (letters, digits, -_.:@, at most 64)"
			if be, ok := browser.AsError(err); ok {
				msg = SessionHeader + ": " + be.Message
			}
			f.refuse(w, r, http.StatusBadRequest, msg)
			return
		}
	}
	if !checkBrowserProfile(r.Header.Get(BrowserProfileHeader)) {
		f.refuse(w, r, http.StatusBadRequest, BrowserProfileHeader+": not a valid browser profile (letters, digits, -_. and spaces, at most 64)")
		return
	}
	if _, err := f.s.clientFor(r.Header); err != nil {
		f.refuse(w, r, http.StatusBadRequest, SettingsHeader+": "+err.Error())
		return
	}
	switch r.URL.Path {
	case "/health":
		f.health(w, r)
	case daemon.RetirePath, daemon.StatusPath, daemon.PairPath, daemon.StopPath, daemon.EndPath:
		f.daemonEndpoint(w, r)
	case "/mcp":
		f.serveMCP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// refuse answers a request the checks turned away, and logs it.
func (f *front) refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	f.s.log.Info("http: refused", "status", code, "why", msg, "method", r.Method, "path", r.URL.Path,
		"host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
	http.Error(w, msg, code)
}

// authorized compares the bearer token in constant time.
func (f *front) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], f.token) == 1
}

// health answers GET /health.
func (f *front) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	browserState, kind := "down", ""
	if m := f.s.deps.Manager; m != nil {
		info := m.Info()
		kind = info.Kind
		if info.Running {
			browserState = "up"
		}
	}
	body := map[string]any{
		"version":  f.s.version,
		"backend":  kind,
		"browser":  browserState,
		"sessions": f.s.Sessions(),
		"uptime_s": int64(time.Since(f.s.started).Seconds()),
	}
	f.mu.Lock()
	if f.retiring {
		body["retiring"] = true
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(body)
}

// daemonEndpoint serves the daemon's own endpoints (Retirable, with the
// token): retire, status, stop and pair.
func (f *front) daemonEndpoint(w http.ResponseWriter, r *http.Request) {
	if !f.o.Retirable || f.token == nil || r.URL.Path == daemon.PairPath && f.o.Pair == nil {
		http.NotFound(w, r)
		return
	}
	want := http.MethodPost
	if r.URL.Path == daemon.StatusPath {
		want = http.MethodGet
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var answer any
	switch r.URL.Path {
	case daemon.RetirePath:
		ok, n := f.retire()
		if ok {
			f.s.log.Info("asked to retire: exiting, no MCP client")
		}
		answer = daemon.Retired{Retiring: ok, Sessions: n}
	case daemon.StopPath:
		n := f.stopNow()
		f.s.log.Info("asked to stop (webpilot daemon stop)", "clients", n)
		answer = daemon.Stopping{Stopping: true, Clients: n}
	case daemon.StatusPath:
		answer = f.status()
	case daemon.PairPath:
		f.pair(w, r)
		return
	case daemon.EndPath:
		ended, code, err := f.s.end(r.Context(), r.URL.Query().Get("name"))
		if err != nil {
			http.Error(w, err.Error(), code)
			return
		}
		f.s.log.Info("asked to end (webpilot daemon end)", "client", ended.Client, "sessions", ended.Sessions)
		answer = ended
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(answer)
}

// pair serves POST /daemon/pair: {code, ttl_s} in; out, JSON lines: first
// {"armed": true} once the bridge listener takes the code (the caller shows
// it only then: an extension told it sooner could find no listener), then
// the pairing once the extension presented the code, or {"error": …}. A
// failure before the code is armed is a 409 with the reason.
func (f *front) pair(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
		TTL  int    `json:"ttl_s"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<10)).Decode(&in); err != nil || in.Code == "" || in.TTL < 1 || in.TTL > 900 {
		http.Error(w, `pair: the body must be {"code": "…", "ttl_s": 1…900}`, http.StatusConflict)
		return
	}
	f.s.posts.add() // a pairing under way keeps the daemon from idling out
	defer f.s.posts.done()
	enc := json.NewEncoder(w)
	armed := false
	p, err := f.o.Pair(r.Context(), in.Code, time.Duration(in.TTL)*time.Second, func() {
		armed = true
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = enc.Encode(daemon.PairLine{Armed: true})
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	})
	switch {
	case err != nil && !armed:
		http.Error(w, err.Error(), http.StatusConflict)
	case err != nil:
		_ = enc.Encode(daemon.PairLine{Error: err.Error()})
	default:
		_ = enc.Encode(daemon.PairLine{Paired: &p})
	}
}

// status is what GET /daemon/status answers.
func (f *front) status() daemon.Status {
	st := daemon.Status{Version: f.s.version, Started: f.s.started.UTC(), Addr: f.o.Addr, Browser: "down", Clients: f.s.Clients(), Sessions: []string{}}
	if m := f.s.deps.Manager; m != nil {
		st.Sessions = m.SessionNames()
		info := m.Info()
		st.Backend, st.BrowserVersion = info.Kind, info.Version
		if info.Running {
			st.Browser = "up"
		}
	}
	if f.o.IdleExit > 0 {
		st.IdleExit = f.o.IdleExit.String()
		f.mu.Lock()
		if since := f.idleSince; !since.IsZero() {
			st.IdleSince = &since
		}
		f.mu.Unlock()
	}
	if f.o.Status != nil {
		f.o.Status(&st)
	}
	return st
}

// serveMCP checks a POST's content type and size, reads its body within
// BodyReadTimeout, bounds the sessions a POST without a session id may
// create, and hands the request to the go-sdk.
func (f *front) serveMCP(w http.ResponseWriter, r *http.Request) {
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		stream := r.Method == http.MethodGet
		if f.s.requestBegins(sid, stream) {
			defer func() { f.s.requestEnds(sid, stream, r.Context().Err() != nil, f.o.StreamGoneGrace) }()
		}
	}
	if r.Method == http.MethodGet {
		kw := &keepAliveWriter{ResponseWriter: w}
		stop := kw.every(f.o.StreamKeepAlive)
		f.mcp.ServeHTTP(kw, r)
		stop()
		return
	}
	if r.Method != http.MethodPost {
		f.mcp.ServeHTTP(w, r)
		return
	}
	// A browser sends text/plain (even "text/plain; charset=application/
	// json") cross-site without a preflight: only application/json is
	// taken.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		f.refuse(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	if r.ContentLength > f.o.MaxBodyBytes {
		w.Header().Set("Connection", "close")
		f.refuse(w, r, http.StatusRequestEntityTooLarge, "request body exceeds "+strconv.FormatInt(f.o.MaxBodyBytes, 10)+" bytes")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(BodyReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, f.o.MaxBodyBytes))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			f.refuse(w, r, http.StatusRequestEntityTooLarge, "request body exceeds "+strconv.FormatInt(f.o.MaxBodyBytes, 10)+" bytes")
			return
		}
		f.refuse(w, r, http.StatusBadRequest, "could not read the request body")
		return
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))

	f.s.posts.add()
	defer f.s.posts.done()
	if r.Header.Get("Mcp-Session-Id") == "" {
		if f.s.stopping.Load() {
			http.Error(w, "webpilot is shutting down", http.StatusServiceUnavailable)
			return
		}
		f.mu.Lock()
		if f.retiring {
			f.mu.Unlock()
			http.Error(w, "this webpilot daemon is exiting: connect again to start a new one", http.StatusServiceUnavailable)
			return
		}
		if f.s.Sessions()+f.creating >= f.o.MaxSessions && !f.s.evictBare(min(f.o.BareSessionTimeout, BareEvictAge)) {
			f.mu.Unlock()
			w.Header().Set("Retry-After", "60")
			f.refuse(w, r, http.StatusServiceUnavailable, "too many MCP sessions open; close one or wait for idle ones to expire")
			return
		}
		f.creating++
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.creating--
			f.mu.Unlock()
		}()
	}
	f.mcp.ServeHTTP(w, r)
}

// keepAliveWriter is the ResponseWriter of an event stream (GET) that
// writes an SSE comment when it has been silent for a while. The go-sdk
// writes each event whole in one Write; the comments go between events.
type keepAliveWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	status int // 0 until the handler wrote its header
	last   time.Time
}

func (k *keepAliveWriter) WriteHeader(code int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.status == 0 {
		k.status, k.last = code, time.Now()
	}
	k.ResponseWriter.WriteHeader(code)
}

// FlushError flushes, in turn with the comments (http.ResponseController
// finds it before Unwrap).
func (k *keepAliveWriter) FlushError() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return http.NewResponseController(k.ResponseWriter).Flush()
}

// Flush is FlushError for an http.Flusher.
func (k *keepAliveWriter) Flush() { _ = k.FlushError() }

func (k *keepAliveWriter) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.status == 0 {
		k.status = http.StatusOK
	}
	k.last = time.Now()
	return k.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (Flush).
func (k *keepAliveWriter) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// every writes a comment on the stream whenever it has been silent for d,
// once the handler answered 200 with an event stream, until stop is
// called (before the handler's ServeHTTP returns).
func (k *keepAliveWriter) every(d time.Duration) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(max(d/2, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			k.mu.Lock()
			if k.status == http.StatusOK && strings.HasPrefix(k.ResponseWriter.Header().Get("Content-Type"), "text/event-stream") && time.Since(k.last) >= d {
				k.last = time.Now()
				if _, err := io.WriteString(k.ResponseWriter, ": keepalive\n\n"); err == nil {
					_ = http.NewResponseController(k.ResponseWriter).Flush()
				}
			}
			k.mu.Unlock()
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// RunHTTP serves the HTTP transport (Handler) on ln until ctx ends. Then it
// refuses new sessions (503) and calls (errStopping), gives the calls
// running ShutdownGrace to answer (then answers them with OUTCOME_UNKNOWN),
// closes the MCP sessions and the listener and returns nil; the caller
// closes the browser.
func (s *Server) RunHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	if o.Addr == "" {
		o.Addr = ln.Addr().String()
	}
	f := s.front(o)
	srv := &http.Server{
		Handler:           f,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if o.SessionIdle <= 0 {
		o.SessionIdle = SessionIdle
	}
	jctx, stopJanitor := context.WithCancel(ctx)
	janitorDone := make(chan struct{})
	go func() {
		defer close(janitorDone)
		s.janitor(jctx, o.SessionIdle)
	}()
	defer func() {
		stopJanitor()
		<-janitorDone
	}()
	if o.IdleExit > 0 {
		go f.idleExit(jctx, o.IdleExit)
	}
	go s.reapBare(jctx, f.o.BareSessionTimeout)
	select {
	case err := <-served:
		return fmt.Errorf("serve http on %s: %w", o.Addr, err)
	case <-ctx.Done():
	case <-f.exit:
	}
	stopJanitor()
	<-janitorDone
	// The listener stays open while the calls finish: a client's event
	// stream that broke now would fail its call. New sessions get 503 and
	// new calls errStopping meanwhile.
	s.stop()
	if n := s.posts.wait(s.grace); n > 0 {
		s.log.Warn("stopping: cutting off calls still running", "running", n, "after", s.grace)
		s.cutCalls()
		if n := s.posts.wait(cutSlack); n > 0 {
			s.log.Warn("stopping: requests left unanswered", "running", n)
		}
	}
	for ss := range s.mcp.Sessions() {
		_ = ss.Close() // ends the clients' event streams
	}
	bound, cancel := context.WithTimeout(context.Background(), cutSlack)
	defer cancel()
	_ = srv.Shutdown(bound) // closes the listener, then waits for the requests
	_ = srv.Close()
	<-served
	return nil
}

// inflight counts requests being served and waits for them.
type inflight struct {
	mu   sync.Mutex
	n    int
	cond *sync.Cond
}

func (f *inflight) init() { f.cond = sync.NewCond(&f.mu) }

func (f *inflight) add() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	f.mu.Unlock()
	f.cond.Broadcast()
}

// wait waits until no request is being served, at most d; it returns how
// many still were.
func (f *inflight) wait(d time.Duration) int {
	timer := time.AfterFunc(d, f.cond.Broadcast)
	defer timer.Stop()
	deadline := time.Now().Add(d)
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.n > 0 && time.Now().Before(deadline) {
		f.cond.Wait()
	}
	return f.n
}

// watchClient notes the MCP session of a request over HTTP, once: while it
// lasts, its default browser session (ClientSessionName) is in use; when it
// ends, that browser session is removed after the departure grace.
func (s *Server) watchClient(method string, req mcp.Request) {
	if req == nil {
		return
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil || ss.ID() == "" {
		return
	}
	// (a ping or a notification is no use: a flood of initialize and ping
	// must not hold the session slots)
	used := method != "initialize" && method != "ping" && !strings.HasPrefix(method, "notifications/")
	called := method == "tools/call"
	s.clientsMu.Lock()
	if rec := s.watched[ss]; rec != nil {
		rec.last = time.Now()
		rec.used = rec.used || used
		rec.called = rec.called || called
		s.clientsMu.Unlock()
		return
	}
	rec := &clientRec{id: ss.ID(), since: time.Now(), sessions: map[string]bool{}, used: used, called: called}
	rec.last = rec.since
	s.watched[ss] = rec
	counted := s.clientDefaults.Load()
	if counted {
		rec.def = ClientSessionName(ss.ID())
		if x := req.GetExtra(); x != nil && x.Header.Get(SessionHeader) != "" {
			rec.def, rec.named = x.Header.Get(SessionHeader), true
		}
		s.clients[rec.def]++
	}
	s.clientsMu.Unlock()
	s.showLive()
	go func() {
		_ = ss.Wait()
		s.clientsMu.Lock()
		delete(s.watched, ss)
		if counted {
			if s.clients[rec.def]--; s.clients[rec.def] <= 0 {
				delete(s.clients, rec.def)
			}
		}
		grace := s.departGrace
		s.clientsMu.Unlock()
		s.forgetClient(ClientSessionName(ss.ID()))
		s.showLive()
		if !counted {
			return
		}
		// The sessions private to the client (scope) go with it; a
		// default session it named (SessionHeader) is not its own: it
		// stays for the next client that names it, until the janitor
		// finds it idle.
		private := ClientSessionName(ss.ID()) + "/"
		s.log.Info("client left: its browser sessions go after the grace", "session", rec.def, "grace", grace)
		time.AfterFunc(grace, func() {
			if !rec.named {
				s.departed(rec.def)
			}
			s.departedPrivate(private)
		})
	}()
}

// requestBegins notes a request of the MCP session sid, when the server
// watches that session (it says whether): one more in flight (stream: an
// event stream, its GET). Any request ends a wait for a client whose
// stream closed (requestEnds).
func (s *Server) requestBegins(sid string, stream bool) bool {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	_, rec := s.watchedByID(sid)
	if rec == nil {
		return false
	}
	rec.active++
	rec.gone++
	rec.lost = false
	if stream {
		rec.streams++
	}
	return true
}

// requestEnds notes the end of a request of the MCP session sid. When it
// was the client's last event stream and the client's side closed it
// (left), the session is closed after grace unless the client sends or
// opens anything meanwhile: a client that exits without a DELETE does not
// hold its browser for the session timeout.
func (s *Server) requestEnds(sid string, stream, left bool, grace time.Duration) {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	ss, rec := s.watchedByID(sid)
	if rec == nil {
		return
	}
	rec.active--
	if stream {
		rec.streams--
		if left && rec.streams == 0 {
			rec.lost = true
		}
	}
	if !rec.lost || rec.streams > 0 || rec.active > 0 || s.stopping.Load() {
		return
	}
	// The client's side closed its last stream and nothing of it runs:
	// it has grace to come back.
	rec.gone++
	gen := rec.gone
	time.AfterFunc(grace, func() {
		s.clientsMu.Lock()
		still := s.watched[ss] == rec && rec.gone == gen && rec.active == 0 && rec.streams == 0
		s.clientsMu.Unlock()
		if !still || s.stopping.Load() {
			return
		}
		s.log.Info("client left: its event stream closed and it did not come back; closing its MCP session", "session", ClientSessionName(sid), "after", grace)
		s.endClient(ss)
	})
}

// endClient cuts the tool calls the client of ss has running, then closes
// its MCP session (which waits for them to answer).
func (s *Server) endClient(ss *mcp.ServerSession) {
	s.clientsMu.Lock()
	if rec := s.watched[ss]; rec != nil {
		for _, cancel := range rec.cancels {
			cancel()
		}
	}
	s.clientsMu.Unlock()
	_ = ss.Close()
}

// watchedByID is the watched MCP session with id sid and its record, or
// nils; clientsMu is held.
func (s *Server) watchedByID(sid string) (*mcp.ServerSession, *clientRec) {
	for ss, rec := range s.watched {
		if rec.id == sid {
			return ss, rec
		}
	}
	return nil, nil
}

// clientRec is what the server knows of a connected MCP client (with a
// session id): for daemon status.
type clientRec struct {
	id          string
	def         string // its default browser session, when counted
	named       bool   // def is a name the client gave (SessionHeader)
	used        bool   // it sent something besides initialize, pings and notifications
	called      bool   // it called a tool
	since, last time.Time
	calls       int
	sessions    map[string]bool // the browser sessions its calls used
	// active counts its requests in flight, streams its event streams
	// (GET) among them; gone counts requests and stream losses, so that
	// a wait for a client that left sees whether anything came since.
	active, streams, gone int
	// lost: its last event stream was closed by its side and it sent
	// nothing since; a call it had running then re-arms the wait when it
	// ends.
	lost bool
	// cancels cut its tool calls running (trackCall).
	cancels map[*int]context.CancelFunc
}

// trackCall notes the cancel of a tool call of the client of req while it
// runs (the returned func forgets it), so that ending the client (daemon
// end) cuts its calls instead of waiting for them.
func (s *Server) trackCall(req mcp.Request, cancel context.CancelFunc) func() {
	if req == nil {
		return func() {}
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return func() {}
	}
	key := new(int)
	s.clientsMu.Lock()
	rec := s.watched[ss]
	if rec != nil {
		if rec.cancels == nil {
			rec.cancels = map[*int]context.CancelFunc{}
		}
		rec.cancels[key] = cancel
	}
	s.clientsMu.Unlock()
	return func() {
		s.clientsMu.Lock()
		if rec != nil {
			delete(rec.cancels, key)
		}
		s.clientsMu.Unlock()
	}
}

// noteCall records a tool call of the client of req in browser session
// name.
func (s *Server) noteCall(req *mcp.CallToolRequest, name string) {
	if req == nil || req.Session == nil {
		return
	}
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	if rec := s.watched[req.Session]; rec != nil {
		rec.calls++
		rec.last = time.Now()
		if name != "" {
			rec.sessions[name] = true
		}
	}
}

// Clients describes the MCP clients connected now (with a session id:
// over HTTP), oldest first: the name and version each gave in initialize,
// since when, its calls and the browser sessions they used.
func (s *Server) Clients() []daemon.Client {
	s.clientsMu.Lock()
	type entry struct {
		ss  *mcp.ServerSession
		rec clientRec
		ses []string
	}
	var all []entry
	for ss, rec := range s.watched {
		e := entry{ss: ss, rec: *rec}
		for n := range rec.sessions {
			e.ses = append(e.ses, n)
		}
		all = append(all, e)
	}
	s.clientsMu.Unlock()
	out := make([]daemon.Client, 0, len(all))
	for _, e := range all {
		c := daemon.Client{ID: ClientSessionName(e.rec.id), Since: e.rec.since, Last: e.rec.last, Calls: e.rec.calls, Sessions: e.ses}
		c.Name, c.Version = sessionClient(e.ss)
		if c.Name == "" {
			c.Name = "(unnamed client)"
		}
		if e.rec.def != "" && !slices.Contains(c.Sessions, e.rec.def) {
			c.Sessions = append(c.Sessions, e.rec.def)
		}
		slices.Sort(c.Sessions)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b daemon.Client) int { return a.Since.Compare(b.Since) })
	return out
}

// inUse reports whether a connected MCP client defaults to the browser
// session.
func (s *Server) inUse(name string) bool {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	return s.clients[name] > 0
}

// departed removes the default browser session of a client that left, its
// grace over, unless a client defaults to it again or the server stops (it
// then closes the browser anyway). A call holding it finishes first.
func (s *Server) departed(name string) {
	m := s.deps.Manager
	if m == nil || s.stopping.Load() || s.inUse(name) || name == s.deps.DefaultSession {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.ceiling+BudgetSlack)
	defer cancel()
	if _, err := m.Remove(ctx, name); err != nil {
		s.log.Warn("could not remove a departed client's browser session", "session", name, "err", err)
	}
}

// departedPrivate removes the sessions of a client that left that only it
// could name (their keys start with prefix), unless the server stops.
func (s *Server) departedPrivate(prefix string) {
	m := s.deps.Manager
	if m == nil || s.stopping.Load() {
		return
	}
	for _, name := range m.SessionNames() {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.ceiling+BudgetSlack)
		if _, err := m.Remove(ctx, name); err != nil {
			s.log.Warn("could not remove a departed client's browser session", "session", name, "err", err)
		}
		cancel()
	}
}

// end ends the MCP client or browser session called name (daemon.EndPath):
// a client's MCP session is closed and its browser sessions removed now,
// not after the departure grace; a browser session that no connected
// client defaults to is removed. On failure it gives the HTTP status.
func (s *Server) end(ctx context.Context, name string) (daemon.Ended, int, error) {
	m := s.deps.Manager
	if name == "" || m == nil {
		return daemon.Ended{}, http.StatusBadRequest, errors.New("name a client or a browser session (`webpilot daemon status` lists them)")
	}
	s.clientsMu.Lock()
	var ss *mcp.ServerSession
	var rec *clientRec
	for x, r := range s.watched {
		if ClientSessionName(r.id) == name {
			ss, rec = x, r
		}
	}
	s.clientsMu.Unlock()
	// The removal finishes even when the asker stops waiting.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.ceiling+BudgetSlack)
	defer cancel()
	if ss != nil {
		out := daemon.Ended{Client: name, Sessions: []string{}}
		out.ClientName, _ = sessionClient(ss)
		s.endClient(ss)
		prefix := name + "/"
		for _, n := range m.SessionNames() {
			if (n == rec.def && !rec.named) || strings.HasPrefix(n, prefix) {
				if ok, err := m.Remove(ctx, n); err != nil {
					return out, http.StatusInternalServerError, fmt.Errorf("closed the client's MCP session, but could not remove its browser session %s: %w", n, err)
				} else if ok {
					out.Sessions = append(out.Sessions, n)
				}
			}
		}
		return out, http.StatusOK, nil
	}
	if !slices.Contains(m.SessionNames(), name) {
		return daemon.Ended{}, http.StatusNotFound, fmt.Errorf("no client or browser session is called %q (`webpilot daemon status` lists them)", name)
	}
	if s.inUse(name) {
		return daemon.Ended{}, http.StatusConflict, fmt.Errorf("a connected client uses the browser session %q: end that client instead (`webpilot daemon status` lists clients)", name)
	}
	if _, err := m.Remove(ctx, name); err != nil {
		return daemon.Ended{}, http.StatusInternalServerError, fmt.Errorf("remove the browser session %s: %w", name, err)
	}
	return daemon.Ended{Sessions: []string{name}}, http.StatusOK, nil
}

// BareEvictAge is how long an MCP session that has called no tool keeps
// its slot when every slot is taken and a new client comes: then the
// oldest such session (one that sent nothing but initialize and pings
// first) is closed to make room.
const BareEvictAge = 2 * time.Second

// evictBare closes the oldest MCP session that has called no tool for at
// least age — one that sent nothing but initialize and pings first — and
// says whether there was one.
func (s *Server) evictBare(age time.Duration) bool {
	var oldest *mcp.ServerSession
	var since time.Time
	var oldUsed bool
	s.clientsMu.Lock()
	for ss, rec := range s.watched {
		if rec.called || time.Since(rec.since) < age {
			continue
		}
		if oldest == nil || oldUsed && !rec.used || oldUsed == rec.used && rec.since.Before(since) {
			oldest, since, oldUsed = ss, rec.since, rec.used
		}
	}
	if oldest != nil {
		delete(s.watched, oldest) // (not chosen twice while it closes)
	}
	s.clientsMu.Unlock()
	if oldest == nil {
		return false
	}
	s.log.Info("every session slot is taken: closing the oldest MCP session that called no tool", "session", ClientSessionName(oldest.ID()))
	// Closed and gone before the new one is let in: the bound holds.
	_ = oldest.Close()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !slices.Contains(slices.Collect(s.mcp.Sessions()), oldest) {
			break
		}
	}
	return true
}

// reapBare closes, until ctx ends, the MCP sessions that sent nothing but
// initialize for d: a flood of bare initializes holds the session slots
// (MaxSessions) for seconds, not for SessionTimeout.
func (s *Server) reapBare(ctx context.Context, d time.Duration) {
	tick := time.NewTicker(min(max(d/4, 10*time.Millisecond), 5*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var bare []*mcp.ServerSession
		s.clientsMu.Lock()
		for ss, rec := range s.watched {
			if !rec.used && time.Since(rec.since) >= d {
				bare = append(bare, ss)
			}
		}
		s.clientsMu.Unlock()
		for _, ss := range bare {
			s.log.Info("closing an MCP session that sent nothing after initialize", "session", ClientSessionName(ss.ID()), "after", d)
			_ = ss.Close()
		}
	}
}

// janitor removes, until ctx ends, the browser sessions that have had no
// call for idle and are no connected client's default; never
// Deps.DefaultSession.
func (s *Server) janitor(ctx context.Context, idle time.Duration) {
	m := s.deps.Manager
	if m == nil {
		return
	}
	every := min(max(idle/4, 10*time.Millisecond), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, name := range m.SessionNames() {
			if name == s.deps.DefaultSession || s.inUse(name) {
				continue
			}
			bs, ok := m.Lookup(name)
			if !ok || bs.Idle() < idle {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, janitorWait)
			if _, err := m.RemoveIdle(rctx, name, idle); err != nil {
				s.log.Debug("idle session not removed", "session", name, "err", err)
			}
			cancel()
		}
	}
}

// janitorWait bounds how long the janitor waits for a session that a call
// took meanwhile.
const janitorWait = time.Second
