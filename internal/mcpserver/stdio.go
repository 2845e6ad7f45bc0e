package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eofSlack is how much longer than the call ceiling an EOF on stdin waits for
// in-flight calls: a call ends by its ceiling, then needs a moment to answer.
const eofSlack = 5 * time.Second

// eofGrace bounds how long an EOF on stdin waits for in-flight calls: the
// call ceiling, or longer while a call with a budget of its own (a flow)
// runs past it, plus eofSlack.
func (s *Server) eofGrace() time.Duration {
	g := s.ceiling
	s.budgeted.Range(func(_, v any) bool {
		if d := time.Until(v.(time.Time)); d > g {
			g = d
		}
		return true
	})
	return g + eofSlack
}

// MaxLineBytes bounds one line of stdin (the go-sdk's default frame limit).
// A longer line is answered with an invalid-request error (with the
// request's id when a scan of its top level finds one; a notification is
// not answered) and skipped without being held in memory.
const MaxLineBytes = mcp.DefaultMaxLineLength

// maxDepth is the deepest JSON nesting the go-sdk decodes; deeper lines are
// refused before they reach it.
const maxDepth = 1000

// JSON-RPC error codes the stdin gate answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// batchlessVersion is the first protocol version without JSON-RPC batches;
// the go-sdk ends the session on a batch once it has negotiated it.
const batchlessVersion = "2025-06-18"

// RunStdio serves MCP on in/out until in ends or ctx is done. Calls still
// running when in reaches EOF finish and answer before the session ends: the
// go-sdk cancels in-flight calls on EOF, so the EOF is held back until every
// tools/call request read has been answered, at most the call ceiling plus a
// few seconds.
//
// When ctx ends (the process was told to stop), new calls are refused,
// running ones get ShutdownGrace to answer and are then answered with
// OUTCOME_UNKNOWN, and RunStdio returns nil once the answers are written:
// every call read gets an answer, and the caller closes the browser.
//
// Every line of in is checked before the go-sdk reads it, since the go-sdk
// ends the session on the first line it cannot decode: a line that is not
// JSON is answered with a parse error (-32700), one that is JSON but no
// JSON-RPC 2.0 message (or batch the session cannot take) with an invalid
// request error (-32600), and the session goes on. Those answers go through
// the same writer as the go-sdk's, one whole line per write.
//
// A request that the client cancels (notifications/cancelled) while it runs
// is not answered: the go-sdk cancels the call but still writes its result,
// and the writer drops it, as MCP asks of the receiver of a cancellation.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.WriteCloser) error {
	s.board.mu.Lock()
	s.board.stdio = true // the live view shows its one client
	s.board.mu.Unlock()
	p := newPending()
	w := &answerWriter{p: p, w: out, log: s.log}
	g := &eofGate{p: p, w: w, r: bufio.NewReaderSize(in, 1<<16), log: s}
	// The gate bounds lines itself (MaxLineBytes), so the transport's own
	// frame limit, which would end the session, is off.
	// The session runs on past ctx, which only starts the shutdown below.
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	ran := make(chan error, 1)
	go func() {
		ran <- s.mcp.Run(runCtx, &mcp.IOTransport{Reader: io.NopCloser(g), Writer: w, MaxLineLength: -1})
	}()
	select {
	case err := <-ran:
		if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	s.stop()
	if n := p.waitIdle(s.grace); n > 0 {
		s.log.Warn("stopping: cutting off calls still running", "running", n, "after", s.grace)
		s.cutCalls()
		if n := p.waitIdle(cutSlack); n > 0 {
			s.log.Warn("stopping: calls left unanswered", "running", n)
		}
	}
	stopRun()
	<-ran
	return nil
}

// pending tracks what the stdio gate and writer need to know about requests
// read and answers written: the tools/call requests not yet answered (for
// EOF), the initialize requests not yet answered and the protocol version
// the first one settled (for batches), the ids of requests in batches not
// yet answered, and the requests not yet answered with those of them the
// client cancelled (their answers are dropped). Ids are compared as the
// go-sdk sees them (jsonrpc.ID: a string, or a number made an integer), not
// as raw JSON: the SDK echoes "\u0061b" as "ab" and 1e0 or 1.0 as 1.
type pending struct {
	mu        sync.Mutex // guards the fields below
	ids       map[jsonrpc.ID]bool
	inits     map[jsonrpc.ID]bool
	batched   map[jsonrpc.ID]bool
	live      map[jsonrpc.ID]string // every request not yet answered: its method
	cancelled map[jsonrpc.ID]bool   // of those, the ones the client cancelled
	version   string                // negotiated by the first successful initialize
	cond      *sync.Cond
}

// maxCancelled bounds the cancelled requests remembered until their answer:
// a cancellation beyond it is still passed on (the call stops), but its
// answer is written.
const maxCancelled = 1024

// methodCancelled is the notification by which a client cancels a request.
const methodCancelled = "notifications/cancelled"

func newPending() *pending {
	p := &pending{ids: make(map[jsonrpc.ID]bool), inits: make(map[jsonrpc.ID]bool), batched: make(map[jsonrpc.ID]bool),
		live: make(map[jsonrpc.ID]string), cancelled: make(map[jsonrpc.ID]bool)}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// messages decodes one line, a message or a batch, with the SDK's own
// decoder. What it cannot decode, the SDK does not run either.
func messages(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	raws := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' {
		raws = nil
		if json.Unmarshal(line, &raws) != nil {
			return nil
		}
	}
	var msgs []jsonrpc.Message
	for _, raw := range raws {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

func (p *pending) noteRequests(msgs []jsonrpc.Message, batch bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range msgs {
		r, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if r.Method == methodCancelled && !r.ID.IsValid() {
			p.cancelLocked(r.Params)
			continue
		}
		if !r.ID.IsValid() {
			continue
		}
		p.live[r.ID] = r.Method
		if batch {
			p.batched[r.ID] = true
		}
		switch r.Method {
		case "tools/call":
			p.ids[r.ID] = true
		case "initialize":
			if p.version == "" {
				p.inits[r.ID] = true
			}
		}
	}
}

// cancelLocked notes the request that the params of a
// notifications/cancelled name, if it is one read and not yet answered
// (never initialize, which MCP does not let a client cancel).
func (p *pending) cancelLocked(params json.RawMessage) {
	var c struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &c) != nil {
		return
	}
	id, err := jsonrpc.MakeID(c.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	if method, ok := p.live[id]; ok && method != "initialize" && len(p.cancelled) < maxCancelled {
		p.cancelled[id] = true
	}
}

// noteAnswers notes the answers on one line the server writes and returns
// what to write of it: the line (rewritten false), or, when it answers a
// cancelled request, nothing (nil), or for a batch a new line without those
// answers (rewritten true). A cancelled request is forgotten once its
// answer has been dropped.
func (p *pending) noteAnswers(line []byte) (out []byte, rewritten bool) {
	p.mu.Lock()
	empty := len(p.ids) == 0 && len(p.inits) == 0 && len(p.batched) == 0 && len(p.live) == 0
	p.mu.Unlock()
	if empty {
		return line, false
	}
	var drop map[jsonrpc.ID]bool
	for _, m := range messages(line) {
		r, ok := m.(*jsonrpc.Response)
		if !ok || !r.ID.IsValid() {
			continue
		}
		p.mu.Lock()
		delete(p.ids, r.ID)
		delete(p.batched, r.ID)
		delete(p.live, r.ID)
		if p.cancelled[r.ID] {
			delete(p.cancelled, r.ID)
			if drop == nil {
				drop = make(map[jsonrpc.ID]bool)
			}
			drop[r.ID] = true
		}
		if p.inits[r.ID] {
			delete(p.inits, r.ID)
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if r.Error == nil && json.Unmarshal(r.Result, &res) == nil && res.ProtocolVersion != "" && p.version == "" {
				p.version = res.ProtocolVersion
				clear(p.inits)
			}
		}
		p.mu.Unlock()
		p.cond.Broadcast()
	}
	if drop == nil {
		return line, false
	}
	return withoutAnswers(line, drop), true
}

// withoutAnswers is a line of answers without those to the ids in drop: nil
// when none is left.
func withoutAnswers(line []byte, drop map[jsonrpc.ID]bool) []byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '[' {
		return nil // one answer, dropped
	}
	var raws, kept []json.RawMessage
	if json.Unmarshal(line, &raws) != nil {
		return nil
	}
	for _, raw := range raws {
		if r, ok := decodeResponse(raw); ok && drop[r.ID] {
			continue
		}
		kept = append(kept, raw)
	}
	if len(kept) == 0 {
		return nil
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil
	}
	return b
}

// decodeResponse decodes raw as a response.
func decodeResponse(raw []byte) (*jsonrpc.Response, bool) {
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, false
	}
	r, ok := m.(*jsonrpc.Response)
	return r, ok
}

// batchRefusal says why the session cannot take a batch of these requests
// now, or "" when it can: the go-sdk ends the session on a batch after
// negotiating a protocol without batches, and on a batch reusing the id of
// an earlier batch's request still running.
func (p *pending) batchRefusal(msgs []jsonrpc.Message) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.version >= batchlessVersion:
		return fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s; send one message per line", p.version)
	case len(p.inits) > 0:
		return "a batch cannot be sent before the answer to initialize"
	}
	seen := make(map[jsonrpc.ID]bool)
	for _, m := range msgs {
		r, ok := m.(*jsonrpc.Request)
		if !ok || !r.ID.IsValid() {
			continue
		}
		if seen[r.ID] || p.batched[r.ID] {
			return fmt.Sprintf("the batch reuses the request id %v", r.ID.Raw())
		}
		seen[r.ID] = true
	}
	return ""
}

// waitIdle waits until every read call has been answered, at most d; it
// returns how many were still unanswered.
func (p *pending) waitIdle(d time.Duration) int {
	timer := time.AfterFunc(d, p.cond.Broadcast)
	defer timer.Stop()
	deadline := time.Now().Add(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ids) > 0 && time.Now().Before(deadline) {
		p.cond.Wait()
	}
	return len(p.ids)
}

// eofGate reads whole lines, answers the ones the go-sdk could not decode
// and passes the others on, notes tools/call requests as they are read, and
// on EOF waits until each has been answered.
type eofGate struct {
	p   *pending
	w   *answerWriter
	r   *bufio.Reader
	buf []byte
	log *Server
}

func (g *eofGate) Read(b []byte) (int, error) {
	for len(g.buf) == 0 {
		line, over, err := g.readLine()
		switch {
		case over != nil:
			// JSON-RPC answers no notification, not even with an error;
			// a request is answered with its id when the scan found it.
			if id, notification := over.verdict(); notification {
				g.log.log.Warn("dropped a notification over the line limit", "limit", MaxLineBytes)
			} else {
				g.refuse(id, codeInvalidRequest, fmt.Sprintf("invalid request: a message is limited to %d bytes", MaxLineBytes))
			}
		case len(line) > 0:
			g.buf = g.screen(line)
		}
		if len(g.buf) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				if n := g.p.waitIdle(g.log.eofGrace()); n > 0 {
					g.log.log.Warn("stdin closed with calls still running", "running", n)
				}
			}
			return 0, err
		}
	}
	n := copy(b, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// readLine reads up to and including the next newline. A line over
// MaxLineBytes is read to its end but not kept: over is set instead, with
// what a scan of its top level found as it streamed past.
func (g *eofGate) readLine() (line []byte, over *lineScan, err error) {
	for {
		chunk, err := g.r.ReadSlice('\n')
		switch {
		case over != nil:
			over.feed(chunk)
		case len(line)+len(chunk) > MaxLineBytes:
			over = new(lineScan)
			over.feed(line)
			over.feed(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, over, err
		}
	}
}

// maxScanToken bounds the member name or scalar value a lineScan keeps.
const maxScanToken = 1 << 10

// lineScan follows the top level of a line too long to keep as it streams
// past, keeping only what the answer to it needs: whether the line is one
// JSON object, whether that object has a "method" member, and the raw value
// of its "id" member. It is tolerant, not a JSON checker: it tracks strings
// and nesting, and reads names and values only at the top level, so the id
// is found wherever it is on the line (often before the huge params, but
// not always), and an "id" nested in the params does not count.
type lineScan struct {
	depth     int      // 0 outside the object, 1 among its members
	closed    bool     // the object ended
	notObject bool     // the line is not one object (or text follows it)
	inString  bool     // in a string, at any depth
	escaped   bool     // after a backslash in a string
	want      scanWant // at the top level, outside strings: what comes next
	keeping   bool     // tok holds the top-level name or value being read
	tok       []byte
	tokLong   bool   // tok passed maxScanToken and was given up
	name      string // the member whose value comes next
	hasMethod bool
	hasID     bool
	id        []byte // the raw id: a string or scalar; nil when too long or nested
}

// scanWant is what a lineScan expects next among the object's members.
type scanWant int

const (
	wantName  scanWant = iota // a member name: after '{' or ','
	wantColon                 // the ':' after a name
	wantValue                 // a member's value
	inScalar                  // in a number or literal value
	wantComma                 // ',' or '}' after a value
)

func (s *lineScan) feed(b []byte) {
	for i := 0; i < len(b) && !s.notObject; i++ {
		if s.inString && !s.keeping && !s.escaped {
			// Inside a string nothing is kept: only a quote or a
			// backslash matters.
			j := bytes.IndexAny(b[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
		}
		s.scan(b[i])
	}
}

func scanSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (s *lineScan) scan(c byte) {
	if s.inString {
		s.keep(c)
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
			s.endToken()
		}
		return
	}
	switch {
	case s.closed:
		if !scanSpace(c) {
			s.notObject = true
		}
		return
	case s.depth == 0:
		switch {
		case c == '{':
			s.depth, s.want = 1, wantName
		case !scanSpace(c):
			s.notObject = true
		}
		return
	case s.depth == 1 && s.want == inScalar:
		if !scanSpace(c) && c != ',' && c != '}' {
			s.keep(c)
			return
		}
		s.endToken()
	}
	switch c {
	case '"':
		s.inString = true
		if s.depth == 1 && (s.want == wantName || s.want == wantValue) {
			s.startToken(c)
		}
	case '{', '[':
		if s.depth == 1 && s.want == wantValue {
			s.want = wantComma
			if s.name == "id" {
				s.hasID, s.id = true, nil // an object or array: no valid id
			}
		}
		s.depth++
	case '}', ']':
		s.depth--
		if s.depth == 0 {
			s.closed = true
		}
	case ':':
		if s.depth == 1 && s.want == wantColon {
			s.want = wantValue
		}
	case ',':
		if s.depth == 1 {
			s.want = wantName
		}
	default:
		if s.depth == 1 && s.want == wantValue && !scanSpace(c) {
			s.startToken(c)
			s.want = inScalar
		}
	}
}

func (s *lineScan) startToken(c byte) {
	s.keeping, s.tok, s.tokLong = true, append(s.tok[:0], c), false
}

func (s *lineScan) keep(c byte) {
	switch {
	case !s.keeping || s.tokLong:
	case len(s.tok) >= maxScanToken:
		s.tokLong = true
	default:
		s.tok = append(s.tok, c)
	}
}

// endToken ends the top-level name or value being read.
func (s *lineScan) endToken() {
	if !s.keeping {
		return
	}
	s.keeping = false
	if s.want == wantName {
		s.name = ""
		if !s.tokLong {
			_ = json.Unmarshal(s.tok, &s.name) // "\u0069d" is "id" too
		}
		s.hasMethod = s.hasMethod || s.name == "method"
		s.want = wantColon
		return
	}
	if s.name == "id" {
		s.hasID, s.id = true, nil
		if !s.tokLong {
			s.id = bytes.Clone(s.tok)
		}
	}
	s.want = wantComma
}

// verdict says how to answer the line: notification when it is one object
// with a method and no id (JSON-RPC answers none), else the id to answer
// with: the request's id when the object has a method and a string or
// whole-number id, else nil (null), as requestID does for a shorter line.
func (s *lineScan) verdict() (id any, notification bool) {
	if s.notObject || !s.hasMethod {
		return nil, false
	}
	if !s.hasID {
		return nil, s.closed
	}
	if s.id == nil {
		return nil, false
	}
	var v any
	if json.Unmarshal(s.id, &v) != nil {
		return nil, false
	}
	switch id := v.(type) {
	case string:
		return id, false
	case float64:
		if id == math.Trunc(id) && math.Abs(id) <= 1<<53 {
			return int64(id), false
		}
	}
	return nil, false
}

// screen checks a line as the go-sdk's transport will read it. It returns
// the line to pass on, newline-terminated, or nil when the line was blank or
// has been answered with an error here.
func (g *eofGate) screen(line []byte) []byte {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		g.refuse(nil, codeParseError, "parse error: the line is not valid JSON")
		return nil
	case depth(line) > maxDepth:
		g.refuse(nil, codeInvalidRequest, fmt.Sprintf("invalid request: JSON nested deeper than %d levels", maxDepth))
		return nil
	}
	var msgs []jsonrpc.Message
	batch := line[0] == '['
	if batch {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
			g.refuse(nil, codeInvalidRequest, "invalid request: an empty batch")
			return nil
		}
		for i, raw := range raws {
			m, err := decode(raw)
			if err != nil {
				g.refuse(nil, codeInvalidRequest, fmt.Sprintf("invalid request: batch element %d: %v", i, err))
				return nil
			}
			msgs = append(msgs, m)
		}
		if why := g.p.batchRefusal(msgs); why != "" {
			g.refuse(nil, codeInvalidRequest, "invalid request: "+why)
			return nil
		}
	} else {
		m, err := decode(line)
		if err != nil {
			g.refuse(requestID(line), codeInvalidRequest, "invalid request: "+err.Error())
			return nil
		}
		msgs = []jsonrpc.Message{m}
	}
	g.p.noteRequests(msgs, batch)
	return append(line, '\n')
}

// decode decodes one JSON-RPC 2.0 message with the go-sdk's decoder, after
// checking what it would otherwise accept wrongly or trip over.
func decode(raw []byte) (jsonrpc.Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("a JSON-RPC message must be a JSON object")
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// requestID is the id to echo in the error answer to a request that could
// not be taken: its id when it names a method and has a valid id, else null.
func requestID(line []byte) any {
	var v struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(line, &v) != nil || v.Method == nil {
		return nil
	}
	switch id := v.ID.(type) {
	case string:
		return id
	case float64:
		if id == math.Trunc(id) && math.Abs(id) <= 1<<53 {
			return int64(id)
		}
	}
	return nil
}

// depth is the deepest nesting of arrays and objects in a valid JSON text.
func depth(data []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// refuse answers a line the session cannot take with a JSON-RPC error.
func (g *eofGate) refuse(id any, code int, msg string) {
	g.log.log.Warn("refused a stdin line", "code", code, "message", msg)
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	if err != nil {
		return
	}
	if _, err := g.w.writeLine(append(b, '\n')); err != nil {
		g.log.log.Warn("answering a refused line", "err", err)
	}
}

// answerWriter passes the server's output through by whole lines, notes the
// answers and drops those to cancelled requests. Each line reaches out
// whole, never interleaved with another: the go-sdk writes one message per
// Write, newline included, and so does the gate.
type answerWriter struct {
	p    *pending
	w    io.WriteCloser
	log  *slog.Logger
	mu   sync.Mutex // serializes writes to w; guards line
	line []byte     // the start of a line not yet ended
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	data := b
	if len(a.line) > 0 {
		a.line = append(a.line, b...)
		data = a.line
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i+1]
		data = data[i+1:]
		out, rewritten := a.p.noteAnswers(line[:i])
		switch {
		case out == nil:
			a.log.Debug("dropped the answer to a cancelled request")
			continue
		case rewritten:
			line = append(out, '\n')
		}
		if _, err := a.w.Write(line); err != nil {
			a.line = a.line[:0]
			return 0, err
		}
	}
	a.line = append(a.line[:0], data...)
	return len(b), nil
}

// writeLine writes one line of the gate's own, not an answer to note.
func (a *answerWriter) writeLine(b []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.w.Write(b)
}

func (a *answerWriter) Close() error { return a.w.Close() }
