package bridge

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/coder/websocket"
)

// ProtocolVersion is the bridge protocol this binary speaks.
const ProtocolVersion = 5

// DefaultPort is where the extension looks for webpilot unless told
// otherwise.
const DefaultPort = 47218

// Close codes of a refused connection.
const (
	closeUnauthorized websocket.StatusCode = 4001
	closeVersion      websocket.StatusCode = 4002
	closeDuplicate    websocket.StatusCode = 4003
	closePairing      websocket.StatusCode = 4004
	closeExtension    websocket.StatusCode = 4005
)

// Read limits. Before the extension has proved the secret, nothing it
// sends may make the server allocate more than a hello takes (a hello or
// pair message is well under 1 KB: ids, a version, a user agent and a
// 44-character proof); once welcomed, replies such as full-page screenshots
// are large.
const (
	// HandshakeReadLimit is the largest first message (hello or pair) the
	// server reads; a larger one is refused with close code 4001.
	HandshakeReadLimit = 8 << 10
	// ReadLimit is the largest message of an admitted connection.
	ReadLimit = 256 << 20
)

// DefaultMaxUnauthenticated is how many connections may wait in the
// handshake at once unless Options.MaxUnauthenticated says otherwise.
const DefaultMaxUnauthenticated = 4

// DefaultHelloWait is how long a connection in the handshake may stay
// silent before a new connection may take its slot, unless
// Options.HelloWait says otherwise. The extension answers the challenge at
// once.
const DefaultHelloWait = 2 * time.Second

// Sentinel errors.
var (
	// ErrDisconnected means no extension is connected now.
	ErrDisconnected = errors.New("bridge: extension not connected")
	// ErrVersionMismatch means the extension speaks another protocol.
	ErrVersionMismatch = errors.New("bridge: protocol version mismatch")
	// ErrUnknownExtension means an extension whose id this binary does not
	// pin tried to connect (a store build newer than this binary).
	ErrUnknownExtension = errors.New("bridge: extension id not pinned")
	// ErrNotLoopback means the listen address is not a loopback address.
	ErrNotLoopback = errors.New("bridge: listen address must be loopback")
	// ErrAmbiguousProfile means several browser profiles are connected and
	// the selector does not pick one; the error is a *ProfileError.
	ErrAmbiguousProfile = errors.New("bridge: several browser profiles are connected")
)

// MaxProfiles is how many browser profiles may be connected at once; a
// further one is refused with close code 4003.
const MaxProfiles = 8

// Options configure a Server.
type Options struct {
	// Addr is the loopback address to listen on; "" means 127.0.0.1:DefaultPort.
	Addr string
	// ExtensionIDs are the pinned ids: only an Origin
	// chrome-extension://<id> of one of them may connect (the unpacked
	// extension's id and the store listings', extension.IDs).
	ExtensionIDs []string
	// Secret is the pairing secret; nil means not paired yet (only pairing
	// is possible).
	Secret []byte
	// ServerVersion names this binary in the challenge.
	ServerVersion string
	// Logger receives refusals and connection changes; nil discards.
	Logger *slog.Logger
	// HandshakeTimeout bounds the wait for hello or pair after the
	// challenge (default 10 s); a client that has not sent it by then is
	// refused with close code 4001.
	HandshakeTimeout time.Duration
	// MaxUnauthenticated bounds the connections in the handshake at once
	// (default DefaultMaxUnauthenticated); further ones are refused with
	// HTTP 503 before the upgrade, so a flood of local connections cannot
	// pile up, unless one of those waiting has been silent for HelloWait.
	MaxUnauthenticated int
	// HelloWait is how long a connection in the handshake may say nothing
	// and keep its slot against a new connection (default
	// DefaultHelloWait): when all MaxUnauthenticated slots are taken, a new
	// connection takes the slot of the oldest one that has sent nothing for
	// that long, which is closed. Connections that only hold a slot cannot
	// keep the extension out; the deadline for the hello is still
	// HandshakeTimeout.
	HelloWait time.Duration
	// IdleTimeout closes a connection that sent nothing for this long
	// (default 60 s; the extension pings every 20 s).
	IdleTimeout time.Duration
}

// Server accepts the extension's connection.
type Server struct {
	opts Options
	log  *slog.Logger
	ln   net.Listener
	http *http.Server

	hsMu    sync.Mutex   // guards waiting
	waiting []*handshake // the connections in the handshake, oldest first

	mu       sync.Mutex // guards the fields below
	secret   []byte
	relays   map[string]*Relay // the admitted connections, by profile id
	changed  chan struct{}     // closed and replaced when relays change
	lastErr  error             // why the last connection was refused or ended
	pairing  *pairing
	closed   bool
	refusals int
	// person is told the person's events (personEvents) of every
	// connection; welcomed is told of each connection admitted
	// (OnPerson).
	person   func(r *Relay, event string, params json.RawMessage)
	welcomed func(r *Relay)
}

// personEvents are the events the person causes in the extension's popup
// or notification, whichever agent session they are about: they go to the
// Server's OnPerson hook, not to a profile's CDP connection.
var personEvents = map[string]bool{"approval.answered": true, "approval.changed": true, "client.control": true}

// OnPerson sets what is told of the person's events (approval.answered,
// approval.changed, client.control) on any connection, and of each
// connection admitted (welcomed may be nil). Both run on the connection's
// goroutine and must not block.
func (s *Server) OnPerson(person func(r *Relay, event string, params json.RawMessage), welcomed func(r *Relay)) {
	s.mu.Lock()
	s.person, s.welcomed = person, welcomed
	s.mu.Unlock()
}

type pairing struct {
	code    string
	expires time.Time
	done    chan []byte
}

// Listen binds the server and starts accepting.
func Listen(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = fmt.Sprintf("127.0.0.1:%d", DefaultPort)
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 60 * time.Second
	}
	if opts.MaxUnauthenticated <= 0 {
		opts.MaxUnauthenticated = DefaultMaxUnauthenticated
	}
	if opts.HelloWait <= 0 {
		opts.HelloWait = DefaultHelloWait
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("bridge: listen %s: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(host); (ip == nil && host != "localhost") || (ip != nil && !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: %s", ErrNotLoopback, opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("bridge: listen %s: %w (is another webpilot running?)", opts.Addr, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, ln: ln, secret: opts.Secret, changed: make(chan struct{}), relays: make(map[string]*Relay)}
	mux := http.NewServeMux()
	mux.HandleFunc("/bridge", s.handle)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Port is the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// SetSecret replaces the pairing secret (after pairing, or to unpair).
func (s *Server) SetSecret(secret []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secret = secret
}

// ArmPairing accepts one pair message with code until ttl passes. The
// returned channel receives the new secret once an extension has paired,
// and is closed without a value when the pairing expires.
func (s *Server) ArmPairing(code string, ttl time.Duration) <-chan []byte {
	p := &pairing{code: normalizeCode(code), expires: time.Now().Add(ttl), done: make(chan []byte, 1)}
	s.mu.Lock()
	s.pairing = p
	s.mu.Unlock()
	time.AfterFunc(ttl, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.pairing == p {
			s.pairing = nil
			close(p.done)
		}
	})
	return p.done
}

func (s *Server) paired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.secret != nil
}

// Refusals counts refused connection attempts (for tests and status).
func (s *Server) Refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusals
}

// Relay returns the admitted connection sel names, waiting up to ctx for it
// to connect. sel is a profile's name (case-insensitive), its id or a
// unique prefix of the id; "" means the only one connected. Several
// connected and sel naming none of them (or "" with several) is an error
// matching ErrAmbiguousProfile at once. With no connection it returns an
// error matching ErrDisconnected (or ErrVersionMismatch when that is why
// the last one was refused); with sel, a *ProfileError that names the
// profiles that are connected.
func (s *Server) Relay(ctx context.Context, sel string) (*Relay, error) {
	for {
		s.mu.Lock()
		live, ch, last, closed := s.liveLocked(), s.changed, s.lastErr, s.closed
		s.mu.Unlock()
		if closed {
			return nil, fmt.Errorf("%w: server closed", ErrDisconnected)
		}
		r, err := pick(live, sel)
		if r != nil || err != nil {
			return r, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			s.mu.Lock()
			live = s.liveLocked()
			s.mu.Unlock()
			if sel != "" && len(live) > 0 {
				return nil, notConnected(sel, live)
			}
			if last != nil {
				return nil, last
			}
			if sel != "" {
				return nil, notConnected(sel, live)
			}
			return nil, ErrDisconnected
		}
	}
}

// Current returns the admitted connection sel names (as Relay does) now,
// without waiting: none is an error matching ErrDisconnected.
func (s *Server) Current(sel string) (*Relay, error) {
	s.mu.Lock()
	live := s.liveLocked()
	s.mu.Unlock()
	r, err := pick(live, sel)
	switch {
	case err != nil:
		return nil, err
	case r != nil:
		return r, nil
	case sel != "":
		return nil, notConnected(sel, live)
	}
	return nil, ErrDisconnected
}

// Profiles describes the connected browser profiles, sorted by name.
func (s *Server) Profiles() []Hello {
	s.mu.Lock()
	live := s.liveLocked()
	s.mu.Unlock()
	out := make([]Hello, len(live))
	for i, r := range live {
		out[i] = r.hello
	}
	return out
}

// liveLocked lists the connections that are alive, sorted by name. Call
// with s.mu held.
func (s *Server) liveLocked() []*Relay {
	live := make([]*Relay, 0, len(s.relays))
	for _, r := range s.relays {
		if r.alive() {
			live = append(live, r)
		}
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := strings.ToLower(live[i].hello.ProfileName), strings.ToLower(live[j].hello.ProfileName)
		if a != b {
			return a < b
		}
		return live[i].hello.ProfileID < live[j].hello.ProfileID
	})
	return live
}

// ProfileError is a selection of a browser profile that names not exactly
// one connected profile. It matches ErrAmbiguousProfile (several match, or
// none was named and several are connected) or ErrDisconnected (none
// matches).
type ProfileError struct {
	// Selector is what the call asked for ("" when it named none).
	Selector string
	// Connected are the profiles connected when the selection failed.
	Connected []Hello
	// Ambiguous: several profiles would do.
	Ambiguous bool
}

func (e *ProfileError) Error() string {
	switch {
	case e.Ambiguous && e.Selector == "":
		return fmt.Sprintf("%d browser profiles are connected: %s", len(e.Connected), DescribeProfiles(e.Connected))
	case e.Ambiguous:
		return fmt.Sprintf("browser profile %q matches %d connected profiles: %s", e.Selector, len(e.Connected), DescribeProfiles(e.Connected))
	case len(e.Connected) == 0:
		return fmt.Sprintf("browser profile %q is not connected (no profile is)", e.Selector)
	}
	return fmt.Sprintf("browser profile %q is not connected (connected: %s)", e.Selector, DescribeProfiles(e.Connected))
}

// Is matches ErrAmbiguousProfile or ErrDisconnected, as the case is.
func (e *ProfileError) Is(target error) bool {
	if e.Ambiguous {
		return target == ErrAmbiguousProfile
	}
	return target == ErrDisconnected
}

// DescribeProfiles names profiles as "name (id 1a2b3c4d), …": the name and
// enough of the id to select it.
func DescribeProfiles(hs []Hello) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%s (id %s)", h.ProfileName, shortID(h.ProfileID))
	}
	return strings.Join(parts, ", ")
}

// shortID is the first 8 characters of a profile id.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// pick chooses the connection sel names among live: nil, nil when none
// does (yet).
func pick(live []*Relay, sel string) (*Relay, error) {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		switch len(live) {
		case 0:
			return nil, nil
		case 1:
			return live[0], nil
		}
		return nil, &ProfileError{Connected: hellosOf(live), Ambiguous: true}
	}
	for _, r := range live {
		if strings.EqualFold(r.hello.ProfileName, sel) || r.hello.ProfileID == sel {
			return r, nil
		}
	}
	var prefixed []*Relay
	for _, r := range live {
		if strings.HasPrefix(strings.ToLower(r.hello.ProfileID), strings.ToLower(sel)) {
			prefixed = append(prefixed, r)
		}
	}
	switch len(prefixed) {
	case 0:
		return nil, nil
	case 1:
		return prefixed[0], nil
	}
	return nil, &ProfileError{Selector: sel, Connected: hellosOf(prefixed), Ambiguous: true}
}

// notConnected is the error of a selection no live connection matches.
func notConnected(sel string, live []*Relay) error {
	return &ProfileError{Selector: sel, Connected: hellosOf(live)}
}

// Close stops listening and ends the connections.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	rs := make([]*Relay, 0, len(s.relays))
	for _, r := range s.relays {
		rs = append(rs, r)
	}
	s.mu.Unlock()
	for _, r := range rs {
		r.close(errors.New("bridge: server closed"))
	}
	return s.http.Close()
}

func (s *Server) refuse(r *http.Request, why string) {
	s.mu.Lock()
	s.refusals++
	s.mu.Unlock()
	s.log.Warn("bridge: connection refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "why", why)
}

// handle upgrades an extension connection and runs the handshake.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	id, ok := strings.CutPrefix(origin, "chrome-extension://")
	pinned := ok && slices.Contains(s.opts.ExtensionIDs, id)
	// An extension whose id this binary does not pin (a store build this
	// binary predates) is told so over the socket, so its popup can say
	// it; anything else that is not the extension gets a bare 403. Only an
	// extension can send a chrome-extension:// Origin: a web page cannot.
	if !pinned && !(ok && isExtensionID(id)) {
		s.refuse(r, "origin is not the webpilot extension")
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	hs := &handshake{r: r, since: time.Now()}
	evicted, ok := s.admit(hs)
	if !ok {
		s.refuse(r, fmt.Sprintf("%d connections are already in the handshake", s.opts.MaxUnauthenticated))
		http.Error(w, "too many connections in the handshake", http.StatusServiceUnavailable)
		return
	}
	if evicted != nil {
		s.refuse(evicted.r, fmt.Sprintf("silent in the handshake for %v: its slot went to a new connection", time.Since(evicted.since).Round(time.Millisecond)))
		evicted.evict()
	}
	defer hs.release()
	rec := &hijackRecorder{ResponseWriter: w}
	c, err := websocket.Accept(rec, r, &websocket.AcceptOptions{OriginPatterns: []string{origin}})
	if err != nil {
		s.refuse(r, "websocket upgrade failed: "+err.Error())
		return
	}
	hs.c = c
	if !hs.setConn(rec.conn) {
		c.CloseNow() // evicted during the upgrade
		return
	}
	if !pinned {
		msg := fmt.Sprintf("this webpilot (%s) does not know the extension id %s: it pins %s; install webpilot's latest release (it pins the stores' ids), or load the extension `webpilot extension --out DIR` writes", s.opts.ServerVersion, id, strings.Join(s.opts.ExtensionIDs, ", "))
		s.refuse(r, "extension id "+id+" is not pinned")
		s.setLastErr(fmt.Errorf("%w: %s", ErrUnknownExtension, msg))
		s.refuseConn(context.Background(), hs, closeExtension, "extension", msg)
		return
	}
	// A backstop under the handshake deadline, for what the deadline timer
	// does not cover (a client that stops reading the challenge).
	hs.deadline(s.opts.HandshakeTimeout + closeGrace)
	// Above what readFirst reads, so the library never closes with its own
	// code (1009) first.
	c.SetReadLimit(2 * HandshakeReadLimit)
	ctx := context.Background()
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	if err := writeJSON(ctx, c, map[string]any{"type": "challenge", "protocol": ProtocolVersion,
		"nonce": base64.StdEncoding.EncodeToString(nonce), "server": "webpilot/" + s.opts.ServerVersion}); err != nil {
		c.CloseNow()
		return
	}
	data, ok := s.readFirst(ctx, r, hs)
	if !ok || !hs.spoke() {
		return
	}
	var h struct {
		Type             string `json:"type"`
		Protocol         int    `json:"protocol"`
		ExtensionVersion string `json:"extension_version"`
		ProfileID        string `json:"profile_id"`
		ProfileName      string `json:"profile_name"`
		UserAgent        string `json:"user_agent"`
		Proof            string `json:"proof"`
		Code             string `json:"code"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		s.refuse(r, "hello is not JSON")
		s.refuseConn(ctx, hs, closeUnauthorized, "unauthorized", "the first message must be hello or pair")
		return
	}
	if h.Type == "hello" || h.Type == "pair" {
		if h.Protocol != ProtocolVersion {
			msg := fmt.Sprintf("the extension speaks bridge protocol %d, this webpilot speaks %d: update the %s", h.Protocol, ProtocolVersion, olderSide(h.Protocol))
			s.refuse(r, msg)
			s.setLastErr(fmt.Errorf("%w: %s", ErrVersionMismatch, msg))
			s.refuseConn(ctx, hs, closeVersion, "version", msg)
			return
		}
	}
	switch h.Type {
	case "pair":
		s.pair(ctx, r, hs, h.Code)
		return
	case "hello":
	default:
		s.refuse(r, "first message was "+h.Type)
		s.refuseConn(ctx, hs, closeUnauthorized, "unauthorized", "the first message must be hello or pair")
		return
	}
	s.mu.Lock()
	secret := s.secret
	s.mu.Unlock()
	proof, _ := base64.StdEncoding.DecodeString(h.Proof)
	if secret == nil || !hmac.Equal(proof, sign(secret, nonce)) {
		why := "wrong or missing proof of the pairing secret"
		if secret == nil {
			why = "webpilot is not paired with an extension yet"
		}
		s.refuse(r, why)
		s.refuseConn(ctx, hs, closeUnauthorized, "unauthorized", why+"; run `webpilot pair`")
		return
	}
	if h.ProfileID == "" {
		s.refuse(r, "hello without profile_id")
		s.refuseConn(ctx, hs, closeUnauthorized, "unauthorized", "hello needs a profile_id")
		return
	}
	// The extension proved the secret: from here on it may send large
	// replies, it has no deadline but the relay's idle timeout, and it no
	// longer counts as waiting.
	c.SetReadLimit(ReadLimit)
	hs.deadline(0)
	hs.release()
	hello := Hello{ExtensionVersion: h.ExtensionVersion, ProfileID: h.ProfileID, ProfileName: CleanProfileName(h.ProfileName), UserAgent: h.UserAgent}
	if hello.ProfileName == "" {
		hello.ProfileName = derivedName(h.ProfileID, h.UserAgent)
	}
	s.mu.Lock()
	live := s.liveLocked()
	why := ""
	for _, o := range live {
		if o.hello.ProfileID == h.ProfileID {
			why = fmt.Sprintf("profile %s is already connected", h.ProfileID)
		}
	}
	if why == "" && len(live) >= MaxProfiles {
		why = fmt.Sprintf("%d browser profiles are connected, the most one webpilot serves: %s", len(live), DescribeProfiles(hellosOf(live)))
	}
	if why != "" {
		s.mu.Unlock()
		s.refuse(r, why)
		s.refuseConn(ctx, hs, closeDuplicate, "duplicate", why)
		return
	}
	hello.ProfileName = uniqueName(hello.ProfileName, live)
	relay := newRelay(c, hello, s.log, s.opts.IdleTimeout)
	relay.person = s.person
	welcomed := s.welcomed
	s.relays[h.ProfileID] = relay
	s.lastErr = nil
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if err := writeJSON(ctx, c, map[string]any{"type": "welcome", "protocol": ProtocolVersion}); err != nil {
		relay.close(err)
	} else if welcomed != nil {
		welcomed(relay)
	}
	s.log.Info("bridge: extension connected", "profile", h.ProfileID, "name", hello.ProfileName, "version", h.ExtensionVersion)
	relay.run() // until the connection ends
	s.mu.Lock()
	if s.relays[h.ProfileID] == relay {
		delete(s.relays, h.ProfileID)
		s.lastErr = fmt.Errorf("%w: the connection ended (%v)", ErrDisconnected, relay.err())
		close(s.changed)
		s.changed = make(chan struct{})
	}
	s.mu.Unlock()
	s.log.Info("bridge: extension disconnected", "profile", h.ProfileID, "why", relay.err())
}

// MaxProfileNameLen bounds a browser profile's name.
const MaxProfileNameLen = 64

// CleanProfileName is name as a profile may be called: letters, digits,
// '-', '_', '.' and spaces (any other character becomes '-'), trimmed, at
// most MaxProfileNameLen characters.
func CleanProfileName(name string) string {
	var b strings.Builder
	n := 0
	for _, c := range strings.TrimSpace(name) {
		if n == MaxProfileNameLen {
			break
		}
		switch {
		case unicode.IsLetter(c), unicode.IsNumber(c), c == '-', c == '_', c == '.', c == ' ':
			b.WriteRune(c)
		default:
			b.WriteRune('-')
		}
		n++
	}
	return strings.TrimSpace(b.String())
}

// derivedName names a profile whose extension sent no name (an older
// one): its browser and the start of its id, as the extension would.
func derivedName(id, userAgent string) string {
	brand := "chrome"
	if strings.Contains(userAgent, "Edg/") {
		brand = "edge"
	}
	return brand + "-" + shortID(id)[:min(4, len(id))]
}

// uniqueName is name, or name-2, name-3, … when a live connection has it.
func uniqueName(name string, live []*Relay) string {
	taken := func(n string) bool {
		for _, r := range live {
			if strings.EqualFold(r.hello.ProfileName, n) {
				return true
			}
		}
		return false
	}
	out := name
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s-%d", name, i)
	}
	return out
}

func hellosOf(rs []*Relay) []Hello {
	out := make([]Hello, len(rs))
	for i, r := range rs {
		out[i] = r.hello
	}
	return out
}

// readFirst reads the first message after the challenge, bounded in size
// (HandshakeReadLimit) and time (HandshakeTimeout). A client that sends
// more, or nothing in time, is refused with 4001 and ok is false.
func (s *Server) readFirst(ctx context.Context, r *http.Request, hs *handshake) (data []byte, ok bool) {
	// A read context that ends closes the connection at once, without a
	// close frame; a timer sends the refusal and 4001 instead.
	timedOut := make(chan struct{})
	timer := time.AfterFunc(s.opts.HandshakeTimeout, func() {
		defer close(timedOut)
		s.refuse(r, fmt.Sprintf("no hello or pair within %v", s.opts.HandshakeTimeout))
		s.refuseConn(ctx, hs, closeUnauthorized, "unauthorized", "no hello or pair within the handshake deadline")
	})
	data, err := readLimited(ctx, hs.c, HandshakeReadLimit)
	if !timer.Stop() {
		<-timedOut // the timer refused the connection
		return nil, false
	}
	if hs.wasEvicted() {
		return nil, false // closed, and logged, by the connection that took its slot
	}
	switch {
	case errors.Is(err, errTooLarge):
		// Closed at once, without the close handshake: waiting for the
		// client's close frame would read, and drop, whatever else it sends
		// for closeGrace (hundreds of MB over loopback). The refusal is
		// written first, for a client that reads it.
		s.refuse(r, fmt.Sprintf("first message over %d bytes", HandshakeReadLimit))
		hs.release()
		hs.deadline(closeGrace)
		_ = writeJSON(ctx, hs.c, map[string]any{"type": "refused", "reason": "unauthorized",
			"message": fmt.Sprintf("the first message is too large (over %d bytes); it must be hello or pair", HandshakeReadLimit)})
		hs.c.CloseNow()
		return nil, false
	case err != nil:
		s.refuse(r, "no hello: "+err.Error())
		hs.end(closeUnauthorized, "no hello")
		return nil, false
	}
	return data, true
}

var errTooLarge = errors.New("bridge: message too large")

// readLimited reads one message of at most limit bytes; of a larger one it
// reads limit+1 bytes and returns errTooLarge, leaving the rest unread.
func readLimited(ctx context.Context, c *websocket.Conn, limit int64) ([]byte, error) {
	_, rd, err := c.Reader(ctx)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

func (s *Server) setLastErr(err error) {
	s.mu.Lock()
	s.lastErr = err
	s.mu.Unlock()
}

func (s *Server) pair(ctx context.Context, r *http.Request, hs *handshake, code string) {
	s.mu.Lock()
	p := s.pairing
	ok := p != nil && time.Now().Before(p.expires) &&
		subtle.ConstantTimeCompare([]byte(normalizeCode(code)), []byte(p.code)) == 1
	if ok {
		s.pairing = nil // single use
	}
	s.mu.Unlock()
	if !ok {
		s.refuse(r, "pairing code wrong, expired or not expected")
		s.refuseConn(ctx, hs, closePairing, "pairing", "that pairing code is wrong or expired; run `webpilot pair` for a new one")
		return
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	if err := writeJSON(ctx, hs.c, map[string]any{"type": "paired", "secret": base64.StdEncoding.EncodeToString(secret)}); err != nil {
		hs.c.CloseNow()
		return
	}
	s.SetSecret(secret)
	p.done <- secret
	hs.end(websocket.StatusNormalClosure, "paired")
}

// isExtensionID says whether id is written as Chrome writes extension ids:
// 32 letters a to p.
func isExtensionID(id string) bool {
	return len(id) == 32 && strings.Trim(id, "abcdefghijklmnop") == ""
}

// refuseConn tells the client why and closes the connection with code.
func (s *Server) refuseConn(ctx context.Context, hs *handshake, code websocket.StatusCode, reason, msg string) {
	hs.release()
	hs.deadline(closeGrace)
	_ = writeJSON(ctx, hs.c, map[string]any{"type": "refused", "reason": reason, "message": msg})
	hs.end(code, reason)
}

// closeGrace is how long a refused client has to read the refusal and
// answer the close frame before its TCP connection is dropped.
const closeGrace = time.Second

// handshake is one connection until it is admitted or refused.
type handshake struct {
	c       *websocket.Conn
	r       *http.Request
	since   time.Time // when it took its slot
	release func()    // frees the connection's waiting slot (idempotent)

	mu      sync.Mutex // guards the fields below
	nc      net.Conn   // the TCP connection under c, for deadlines; nil if unknown
	said    bool       // its first message was read
	evicted bool       // its slot went to a newer connection
}

// admit gives hs a slot in the handshake: a free one, or else the slot of
// the oldest connection that has been silent for HelloWait (evicted, which
// the caller closes). ok is false when every slot is taken by a connection
// that is not silent, or not for long enough.
func (s *Server) admit(hs *handshake) (evicted *handshake, ok bool) {
	s.hsMu.Lock()
	defer s.hsMu.Unlock()
	if len(s.waiting) >= s.opts.MaxUnauthenticated {
		for i, w := range s.waiting { // oldest first
			if w.silentFor(s.opts.HelloWait) {
				evicted = w
				s.waiting = slices.Delete(s.waiting, i, i+1)
				break
			}
		}
		if evicted == nil {
			return nil, false
		}
	}
	s.waiting = append(s.waiting, hs)
	hs.release = sync.OnceFunc(func() {
		s.hsMu.Lock()
		defer s.hsMu.Unlock()
		if i := slices.Index(s.waiting, hs); i >= 0 {
			s.waiting = slices.Delete(s.waiting, i, i+1)
		}
	})
	return evicted, true
}

// silentFor reports whether the connection has sent nothing for d since it
// took its slot.
func (hs *handshake) silentFor(d time.Duration) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return !hs.said && time.Since(hs.since) >= d
}

// setConn records the TCP connection once upgraded; false when the
// connection was evicted meanwhile.
func (hs *handshake) setConn(nc net.Conn) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.nc = nc
	return !hs.evicted
}

// spoke records that the first message was read; false when the
// connection was evicted before.
func (hs *handshake) spoke() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.said = true
	return !hs.evicted
}

// wasEvicted reports whether the connection's slot went to a newer one.
func (hs *handshake) wasEvicted() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.evicted
}

// evict closes a silent connection whose slot went to a newer one: at once,
// with no close handshake to wait for (it says nothing).
func (hs *handshake) evict() {
	hs.mu.Lock()
	hs.evicted = true
	nc := hs.nc
	hs.mu.Unlock()
	if nc != nil {
		_ = nc.Close()
	}
}

// deadline bounds every read and write on the connection to d from now;
// 0 removes the bound.
func (hs *handshake) deadline(d time.Duration) {
	hs.mu.Lock()
	nc := hs.nc
	hs.mu.Unlock()
	if nc == nil {
		return
	}
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	_ = nc.SetDeadline(t)
}

// end closes the connection with code: the slot is freed at once, and the
// close handshake gets closeGrace at most.
func (hs *handshake) end(code websocket.StatusCode, reason string) {
	hs.release()
	hs.deadline(closeGrace)
	hs.c.Close(code, reason)
}

// hijackRecorder keeps the connection websocket.Accept hijacks, so the
// handshake can put deadlines on it.
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

// Hijack hands over the connection and remembers it.
func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.conn = c
	return c, brw, err
}

// sign is the proof of the secret for a nonce.
func sign(secret, nonce []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(nonce)
	return m.Sum(nil)
}

// Proof computes what a paired extension sends for a challenge nonce (both
// base64). Tests use it to play the extension.
func Proof(secret []byte, nonceB64 string) (string, error) {
	nonce, err := base64.StdEncoding.DecodeString(nonceB64)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sign(secret, nonce)), nil
}

func normalizeCode(code string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(code)))
}

func olderSide(extProtocol int) string {
	if extProtocol < ProtocolVersion {
		return "extension (webpilot extension --out DIR, then reload it in chrome://extensions)"
	}
	return "webpilot binary"
}

func writeJSON(ctx context.Context, c *websocket.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, b)
}
