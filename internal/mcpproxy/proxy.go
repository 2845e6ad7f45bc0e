// Package mcpproxy relays MCP between stdio (the MCP host that started
// `webpilot mcp`) and the Streamable HTTP endpoint of the per-user webpilot
// daemon. It keeps the host's MCP session alive across a daemon restart: it
// finds or starts the daemon again, replays the host's initialize on a new
// HTTP session, and carries on; a call cut off by the restart is answered
// with an error that says it may or may not have run.
package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Endpoint is where the daemon takes MCP: its URL and bearer token.
type Endpoint struct {
	URL   string
	Token string
}

// Options configure Run.
type Options struct {
	// Connect finds or starts the daemon. stale is the endpoint that just
	// failed (nil on the first call): the daemon there is gone or does not
	// know the session.
	Connect func(ctx context.Context, stale *Endpoint) (Endpoint, error)
	// Header is sent with every request (e.g. Webpilot-Session).
	Header http.Header
	// Logger takes what the user may want to know (reconnects); nil
	// discards.
	Logger *slog.Logger
	// KeepAlive is how often an idle proxy pings the daemon, so that the
	// daemon does not expire the session of a host that is only quiet;
	// zero means 5 minutes.
	KeepAlive time.Duration
	// DrainTimeout bounds how long, after the host closed stdin, the
	// calls still running may take to answer; zero means 2 minutes.
	DrainTimeout time.Duration
	// HTTPClient, nil for a default one without timeouts (event streams
	// last as long as a call) that opens a connection for each message: a
	// message is never written on a connection a daemon that died left
	// behind, so such a daemon is found by the dial (nothing was sent: the
	// message goes to a new daemon), not by an answer that never comes.
	HTTPClient *http.Client
	// NamedSession says the client's calls default to a browser session it
	// names (Header's Webpilot-Session), which outlives its MCP session on
	// the same daemon: a new session there keeps its tabs.
	NamedSession bool
}

// LostNote leads the answer of the first tool call after the proxy had to
// open a new session (the daemon restarted, or forgot the session) once
// the host's calls had used the browser.
const LostNote = "Note: the webpilot daemon was restarted (or dropped this client's session) since the last call; every tab of this client's sessions is gone and its refs are stale: navigate again."

// MaxMessageBytes bounds one message from the host (the daemon takes at
// most 4 MiB per request anyway).
const MaxMessageBytes = 8 << 20

// tooLong stands for a message over MaxMessageBytes: it does not parse, so
// the host gets a parse error.
var tooLong = []byte("\x00 message too long")

// proxyIDPrefix starts the ids of the proxy's own requests (keep-alive
// pings, the replayed initialize): their answers are not the host's.
const proxyIDPrefix = "webpilot-proxy-"

// Run relays until the host closes in (after the calls still running have
// answered, at most DrainTimeout) or ctx ends; then it ends the daemon
// session.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 5 * time.Minute
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 2 * time.Minute
	}
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		o.HTTPClient = &http.Client{Transport: tr}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &proxy{o: o, out: out, lastSend: time.Now()}
	ep, err := o.Connect(ctx, nil)
	if err != nil {
		return err
	}
	p.ep = ep

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r)
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	keep := time.NewTicker(o.KeepAlive / 2)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			p.end()
			return nil
		case err := <-readErr:
			if !errors.Is(err, io.EOF) {
				o.Logger.Warn("reading stdin", "err", err)
			}
			p.drain(o.DrainTimeout)
			p.end()
			return nil
		case line := <-lines:
			p.handle(ctx, line)
		case <-keep.C:
			p.keepAlive(ctx)
		}
	}
}

// readLine reads one newline-terminated message, at most MaxMessageBytes
// (the rest of a longer line is dropped, and the host told).
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxMessageBytes {
			buf = append(buf, chunk...)
		} else {
			buf = append(buf[:0:0], tooLong...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

type proxy struct {
	o   Options
	out io.Writer

	outMu sync.Mutex // guards writing to out

	mu        sync.Mutex // guards the fields below
	ep        Endpoint
	session   string // Mcp-Session-Id
	protocol  string // MCP-Protocol-Version
	gen       int    // bumped at every (re)connection
	initMsg   []byte // the host's initialize, replayed on a new session
	initedMsg []byte // the host's notifications/initialized
	lastSend  time.Time
	pingN     int
	reconnMu  sync.Mutex // one reconnection at a time
	getCancel context.CancelFunc
	calls     sync.WaitGroup // requests being relayed
	// used: a tool call other than browser_status was answered in this
	// session (gen); lost: the next tool call's answer starts with
	// LostNote.
	used, lost bool
	// relaying are the host's requests being relayed (by idKey);
	// cancelled, those of them the host cancelled: they get no answer.
	relaying, cancelled map[string]bool
}

// maxCancelled bounds the cancelled requests remembered while they are
// relayed; a cancellation beyond it still reaches the daemon, but the
// answer is relayed.
const maxCancelled = 1024

// idKey is a request id as one string whatever its spelling: 5, 5.0 and
// 5e0 are one id, and so are "ab" and "\u0061b".
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// relayStarted notes a request of the host being relayed.
func (p *proxy) relayStarted(id json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.relaying == nil {
		p.relaying, p.cancelled = make(map[string]bool), make(map[string]bool)
	}
	p.relaying[idKey(id)] = true
}

// relayEnded forgets a request once its relay has ended.
func (p *proxy) relayEnded(id json.RawMessage) {
	k := idKey(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.relaying, k)
	delete(p.cancelled, k)
}

// cancel notes the request a notifications/cancelled names, when it is one
// being relayed: MCP's receiver of a cancellation should not answer it, so
// the proxy answers it neither with the daemon's answer nor with an error
// of its own.
func (p *proxy) cancel(id json.RawMessage) {
	if len(id) == 0 {
		return
	}
	k := idKey(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.relaying[k] && len(p.cancelled) < maxCancelled {
		p.cancelled[k] = true
	}
}

// isCancelled reports whether the host cancelled request id.
func (p *proxy) isCancelled(id json.RawMessage) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled[idKey(id)]
}

// message is what the proxy needs to know of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
	Params *struct {
		Name      string          `json:"name"`      // tools/call
		RequestID json.RawMessage `json:"requestId"` // notifications/cancelled
	} `json:"params"`
}

func (m message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// write sends one message to the host, on one line.
func (p *proxy) write(msg []byte) {
	msg = bytes.TrimSpace(msg)
	if bytes.ContainsAny(msg, "\n\r") {
		var b bytes.Buffer
		if json.Compact(&b, msg) == nil {
			msg = b.Bytes()
		}
	}
	p.outMu.Lock()
	defer p.outMu.Unlock()
	_, _ = p.out.Write(append(append([]byte(nil), msg...), '\n'))
}

// replyError answers the host's request id with a JSON-RPC error.
func (p *proxy) replyError(id json.RawMessage, code int, msg string) {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg},
	})
	p.write(b)
}

// Error codes of the webpilot error contract the proxy answers a tool call
// with when the daemon could not.
const (
	codeOutcomeUnknown = "OUTCOME_UNKNOWN"
	codeNoBrowser      = "NO_BROWSER"
)

// Messages and hints of those answers.
const (
	msgCut     = "the connection to the webpilot daemon broke before the answer came: the call may or may not have run"
	hintCut    = "check the page (browser_snapshot) before repeating the call; the next call reconnects (a daemon that died is restarted, with a fresh browser session)"
	hintDaemon = "the next call tries again; the daemon's log is daemon.log in webpilot's folder of the user config dir; webpilot mcp --standalone runs without the daemon"
)

// replyFailure answers the host's request m that the daemon could not
// answer: a tool call gets a tool result with isError and the error body
// agents read everywhere else ({error:{code,message,hint,suggestions}});
// any other request a JSON-RPC error.
func (p *proxy) replyFailure(m message, code, msg, hint string) {
	if p.isCancelled(m.ID) {
		return
	}
	if m.Method != "tools/call" {
		p.replyError(m.ID, -32603, msg)
		return
	}
	// As the server writes errors: text for the agent, the same fields as
	// structuredContent for programs.
	body := map[string]any{"error": map[string]any{
		"code": code, "message": msg, "hint": hint, "suggestions": []string{"browser_status"},
	}}
	text := code + ": " + msg + "\nHint: " + hint + "\nSuggestions:\n- browser_status"
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": m.ID,
		"result": map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": text}}, "structuredContent": body},
	})
	p.write(b)
}

// handle relays one message from the host.
func (p *proxy) handle(ctx context.Context, line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		// JSON-RPC: a message that does not parse is answered with a
		// parse error and no id.
		p.replyError(json.RawMessage("null"), -32700, "parse error: the message is not JSON (or longer than 8 MiB)")
		return
	}
	switch m.Method {
	case "initialize":
		p.mu.Lock()
		p.initMsg = append([]byte(nil), line...)
		p.mu.Unlock()
		// Sent before anything else, so that the session id is known.
		p.send(ctx, line, m)
		p.startGET(ctx)
		return
	case "notifications/initialized":
		p.mu.Lock()
		p.initedMsg = append([]byte(nil), line...)
		p.mu.Unlock()
	case "notifications/cancelled":
		if m.Params != nil {
			p.cancel(m.Params.RequestID)
		}
	}
	if m.isRequest() {
		p.calls.Add(1)
		p.relayStarted(m.ID)
		go func() {
			defer p.calls.Done()
			defer p.relayEnded(m.ID)
			p.send(ctx, line, m)
		}()
		return
	}
	// Notifications and the host's answers to the daemon's requests go in
	// order.
	p.send(ctx, line, m)
}

// send posts one message to the daemon and relays what comes back; when
// the daemon is gone or no longer knows the session, it reconnects and
// sends again, once.
func (p *proxy) send(ctx context.Context, line []byte, m message) {
	for attempt := 0; ; attempt++ {
		p.mu.Lock()
		ep, sid, proto, gen := p.ep, p.session, p.protocol, p.gen
		p.lastSend = time.Now()
		p.mu.Unlock()
		resp, err := p.post(ctx, ep, sid, proto, line)
		retry := false
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil && !notSent(err):
			// Sent, and the connection broke before the answer began:
			// the call may have run, so it is not sent again.
			if m.isRequest() {
				p.replyFailure(m, codeOutcomeUnknown, msgCut, hintCut)
			}
			return // the next message finds out whether the daemon is gone
		case err != nil:
			// The request did not reach a daemon (nothing listens): safe
			// to send again to a new one.
			retry = true
		case resp.StatusCode == http.StatusNotFound && sid != "",
			resp.StatusCode == http.StatusServiceUnavailable:
			// Session unknown (the daemon restarted or expired it) or the
			// daemon is stopping: nothing ran.
			drainClose(resp)
			retry = true
		}
		if retry {
			if attempt > 0 {
				p.failed(m, err, resp)
				return
			}
			// The host's own initialize goes to the new daemon as it is;
			// anything later needs the session replayed first.
			replay := m.Method != "initialize"
			if rerr := p.reconnect(ctx, gen, &ep, replay); rerr != nil {
				if m.isRequest() {
					p.replyFailure(m, codeNoBrowser, "the webpilot daemon could not be reached or started: "+rerr.Error(), hintDaemon)
				}
				return
			}
			if m.Method == "notifications/initialized" {
				return // the reconnection sent it
			}
			continue
		}
		p.relay(ctx, resp, m, gen)
		return
	}
}

// notSent reports whether err means the request never reached a server:
// the connection could not be made, or the kept-alive one it went out on
// had been closed by the daemon while idle (net/http's "server closed idle
// connection": the close came before the request, which a daemon that died
// between two calls leaves for the next one to find). A connection that
// broke after the daemon took the request is not this.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return strings.Contains(err.Error(), "server closed idle connection")
}

// failed answers a request the daemon would not take.
func (p *proxy) failed(m message, err error, resp *http.Response) {
	if !m.isRequest() {
		return
	}
	msg := "the webpilot daemon did not take the request"
	if err != nil {
		msg += ": " + err.Error()
	} else if resp != nil {
		msg += ": " + resp.Status
	}
	p.replyFailure(m, codeNoBrowser, msg, hintDaemon)
}

// post sends one message.
func (p *proxy) post(ctx context.Context, ep Endpoint, sid, proto string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	p.headers(req, ep, sid, proto)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return p.o.HTTPClient.Do(req)
}

func (p *proxy) headers(req *http.Request, ep Endpoint, sid, proto string) {
	for k, vs := range p.o.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if ep.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ep.Token)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if proto != "" {
		req.Header.Set("Mcp-Protocol-Version", proto)
	}
}

// relay passes the daemon's answer to one POST to the host: nothing (202),
// one JSON message, or an event stream of messages. A request whose answer
// never came (the stream broke) is answered with an error.
func (p *proxy) relay(ctx context.Context, resp *http.Response, m message, gen int) {
	defer drainClose(resp)
	if m.Method == "initialize" {
		p.mu.Lock()
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && p.gen == gen {
			p.session = sid
		}
		p.mu.Unlock()
	}
	if resp.StatusCode == http.StatusAccepted {
		return
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if m.isRequest() {
			p.replyFailure(m, codeNoBrowser, fmt.Sprintf("the webpilot daemon answered %s: %s", resp.Status, strings.TrimSpace(string(body))), hintDaemon)
		}
		return
	}
	answered := false
	deliver := func(data []byte) {
		var got message
		if json.Unmarshal(data, &got) != nil {
			return
		}
		if got.Method == "" && len(m.ID) > 0 && len(got.ID) > 0 && idKey(got.ID) == idKey(m.ID) {
			answered = true
			if p.isCancelled(m.ID) {
				return // the host cancelled the request: no answer
			}
			if m.Method == "initialize" && got.Result != nil {
				p.mu.Lock()
				p.protocol = got.Result.ProtocolVersion
				p.mu.Unlock()
			}
			if m.Method == "tools/call" {
				p.mu.Lock()
				lost := p.lost && p.gen == gen
				if lost {
					p.lost = false
				}
				if p.gen == gen && m.Params != nil && m.Params.Name != "browser_status" {
					p.used = true
				}
				p.mu.Unlock()
				if lost {
					data = withLead(data, LostNote)
				}
			}
		}
		if got.Method == "" && strings.Contains(string(got.ID), proxyIDPrefix) {
			return // a keep-alive answer
		}
		p.write(data)
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		readEvents(resp.Body, deliver)
	default:
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err == nil {
			if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
				var batch []json.RawMessage
				if json.Unmarshal(data, &batch) == nil {
					for _, one := range batch {
						deliver(one)
					}
				}
			} else {
				deliver(data)
			}
		}
	}
	if m.isRequest() && !answered && ctx.Err() == nil {
		p.replyFailure(m, codeOutcomeUnknown, msgCut, hintCut)
	}
}

// withLead puts note first in a tool result: before its first text, or,
// for an error, before its message (in the text's "CODE: message" line
// and in structuredContent).
func withLead(data []byte, note string) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(data, &msg) != nil {
		return data
	}
	var res map[string]any
	if json.Unmarshal(msg["result"], &res) != nil {
		return data
	}
	content, _ := res["content"].([]any)
	for _, c := range content {
		tc, ok := c.(map[string]any)
		if !ok || tc["type"] != "text" {
			continue
		}
		text, _ := tc["text"].(string)
		lead := strings.TrimPrefix(note, "Note: ") + " — "
		if body, ok := res["structuredContent"].(map[string]any); ok && res["isError"] == true {
			if e, ok := body["error"].(map[string]any); ok {
				m, _ := e["message"].(string)
				e["message"] = lead + m
				if code, _ := e["code"].(string); code != "" && strings.HasPrefix(text, code+": ") {
					tc["text"] = code + ": " + lead + strings.TrimPrefix(text, code+": ")
					break
				}
			}
		}
		tc["text"] = note + "\n\n" + text
		break
	}
	b, err := json.Marshal(res)
	if err != nil {
		return data
	}
	msg["result"] = b
	out, err := json.Marshal(msg)
	if err != nil {
		return data
	}
	return out
}

// readEvents calls deliver with the data of each server-sent event.
func readEvents(r io.Reader, deliver func([]byte)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				deliver(data)
				data = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	if len(data) > 0 {
		deliver(data)
	}
}

// startGET opens the standalone event stream of the session, for what the
// daemon sends outside any call; it ends with the session.
func (p *proxy) startGET(ctx context.Context) {
	p.mu.Lock()
	if p.getCancel != nil {
		p.getCancel()
	}
	gctx, cancel := context.WithCancel(ctx)
	p.getCancel = cancel
	ep, sid, proto := p.ep, p.session, p.protocol
	p.mu.Unlock()
	if sid == "" {
		cancel()
		return
	}
	go func() {
		for gctx.Err() == nil {
			req, err := http.NewRequestWithContext(gctx, http.MethodGet, ep.URL, nil)
			if err != nil {
				return
			}
			p.headers(req, ep, sid, proto)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := p.o.HTTPClient.Do(req)
			if err != nil {
				return // the next POST notices and reconnects
			}
			if resp.StatusCode != http.StatusOK {
				drainClose(resp)
				return // 405: no stream; 404: session gone
			}
			readEvents(resp.Body, func(data []byte) { p.write(data) })
			drainClose(resp)
			select {
			case <-gctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
}

// reconnect finds or starts the daemon again (unless another call did it
// since gen) and opens a new session there with the host's initialize.
func (p *proxy) reconnect(ctx context.Context, gen int, stale *Endpoint, replay bool) error {
	p.reconnMu.Lock()
	defer p.reconnMu.Unlock()
	p.mu.Lock()
	if p.gen != gen {
		p.mu.Unlock()
		return nil // done meanwhile
	}
	initMsg, initedMsg := p.initMsg, p.initedMsg
	p.mu.Unlock()
	ep, err := p.o.Connect(ctx, stale)
	if err != nil {
		return err
	}
	sid, proto := "", ""
	if replay && initMsg != nil {
		// The host's initialize again, under an id of the proxy's own:
		// the host has its answer already.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(initMsg, &raw); err != nil {
			return err
		}
		raw["id"] = json.RawMessage(strconv.Quote(proxyIDPrefix + "init"))
		body, _ := json.Marshal(raw)
		resp, err := p.post(ctx, ep, "", "", body)
		if err != nil {
			return fmt.Errorf("initialize a new session with the daemon: %w", err)
		}
		sid = resp.Header.Get("Mcp-Session-Id")
		var res message
		if resp.StatusCode == http.StatusOK {
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				readEvents(resp.Body, func(d []byte) { _ = json.Unmarshal(d, &res) })
			} else {
				_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&res)
			}
		}
		drainClose(resp)
		if resp.StatusCode != http.StatusOK || sid == "" {
			return fmt.Errorf("initialize a new session with the daemon: %s", resp.Status)
		}
		if res.Result != nil {
			proto = res.Result.ProtocolVersion
		}
		if initedMsg != nil {
			if resp, err := p.post(ctx, ep, sid, proto, initedMsg); err == nil {
				drainClose(resp)
			}
		}
	}
	p.mu.Lock()
	p.ep, p.session, p.protocol = ep, sid, proto
	p.gen++
	// The tabs of the old session are gone: its default browser session
	// (named after the old session id) in any case, a named one when the
	// daemon is another (a new token).
	if replay && p.used && (!p.o.NamedSession || stale == nil || stale.Token != ep.Token) {
		p.lost = true
	}
	p.used = false
	p.mu.Unlock()
	if replay {
		p.o.Logger.Warn("reconnected to the webpilot daemon: a new session (the browser session starts afresh)", "url", ep.URL)
	}
	if sid != "" {
		p.startGET(ctx)
	}
	return nil
}

// keepAlive pings the daemon when nothing was sent for a while.
func (p *proxy) keepAlive(ctx context.Context) {
	p.mu.Lock()
	quiet := time.Since(p.lastSend) >= p.o.KeepAlive/2
	ep, sid, proto := p.ep, p.session, p.protocol
	p.pingN++
	n := p.pingN
	if quiet && sid != "" {
		p.lastSend = time.Now()
	}
	p.mu.Unlock()
	if !quiet || sid == "" {
		return
	}
	// Only to the daemon of the session: a ping never reconnects, so a
	// daemon that was stopped (webpilot daemon stop) stays stopped until
	// the host sends something.
	ping := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%q,"method":"ping"}`, proxyIDPrefix+"ping-"+strconv.Itoa(n))
	go func() {
		if resp, err := p.post(ctx, ep, sid, proto, ping); err == nil {
			drainClose(resp)
		}
	}()
}

// drain waits for the calls being relayed, at most d.
func (p *proxy) drain(d time.Duration) {
	done := make(chan struct{})
	go func() {
		p.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		p.o.Logger.Warn("stdin closed: not waiting longer for the calls still running", "after", d)
	}
}

// end closes the daemon session (DELETE), so that the daemon knows the
// client left.
func (p *proxy) end() {
	p.mu.Lock()
	ep, sid, proto := p.ep, p.session, p.protocol
	if p.getCancel != nil {
		p.getCancel()
	}
	p.mu.Unlock()
	if sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, ep.URL, nil)
	if err != nil {
		return
	}
	p.headers(req, ep, sid, proto)
	if resp, err := p.o.HTTPClient.Do(req); err == nil {
		drainClose(resp)
	}
}

func drainClose(resp *http.Response) {
	if resp == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
