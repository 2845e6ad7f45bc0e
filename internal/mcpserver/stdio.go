package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eofSlack is how much longer than the call ceiling an EOF on stdin waits for
// in-flight calls: a call ends by its ceiling, then needs a moment to answer.
const eofSlack = 5 * time.Second

// eofGrace bounds how long an EOF on stdin waits for in-flight calls.
func (s *Server) eofGrace() time.Duration { return s.ceiling + eofSlack }

// RunStdio serves MCP on in/out until in ends (or ctx is done). Calls still
// running when in reaches EOF finish and answer before the session ends: the
// go-sdk cancels in-flight calls on EOF, so the EOF is held back until every
// tools/call request read has been answered, at most the call ceiling plus a
// few seconds.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.WriteCloser) error {
	p := newPending()
	g := &eofGate{p: p, r: bufio.NewReaderSize(in, 1<<16), grace: s.eofGrace(), log: s}
	w := &answerWriter{p: p, w: out}
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(g), Writer: w})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// pending is the set of tools/call request ids read but not yet answered.
// Ids are compared as the go-sdk sees them (jsonrpc.ID: a string, or a number
// made an integer), not as raw JSON: the SDK echoes "\u0061b" as "ab" and
// 1e0 or 1.0 as 1.
type pending struct {
	mu   sync.Mutex // guards ids
	ids  map[jsonrpc.ID]bool
	cond *sync.Cond
}

func newPending() *pending {
	p := &pending{ids: make(map[jsonrpc.ID]bool)}
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

func (p *pending) noteRequests(line []byte) {
	for _, m := range messages(line) {
		if r, ok := m.(*jsonrpc.Request); ok && r.Method == "tools/call" && r.ID.IsValid() {
			p.mu.Lock()
			p.ids[r.ID] = true
			p.mu.Unlock()
		}
	}
}

func (p *pending) noteAnswers(line []byte) {
	p.mu.Lock()
	empty := len(p.ids) == 0
	p.mu.Unlock()
	if empty {
		return
	}
	for _, m := range messages(line) {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID.IsValid() {
			p.mu.Lock()
			delete(p.ids, r.ID)
			p.mu.Unlock()
			p.cond.Broadcast()
		}
	}
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

// eofGate reads whole lines, notes tools/call requests as they are read,
// and on EOF waits until each has been answered.
type eofGate struct {
	p     *pending
	r     *bufio.Reader
	buf   []byte
	grace time.Duration
	log   *Server
}

func (g *eofGate) Read(b []byte) (int, error) {
	if len(g.buf) == 0 {
		line, err := g.r.ReadBytes('\n')
		if len(line) > 0 {
			g.p.noteRequests(line)
			g.buf = line
		} else if err != nil {
			if errors.Is(err, io.EOF) {
				if n := g.p.waitIdle(g.grace); n > 0 {
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

// answerWriter passes the server's output through and notes the answers.
type answerWriter struct {
	p    *pending
	w    io.WriteCloser
	mu   sync.Mutex // guards line
	line []byte
}

func (a *answerWriter) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	a.mu.Lock()
	a.line = append(a.line, b[:n]...)
	for {
		i := bytes.IndexByte(a.line, '\n')
		if i < 0 {
			break
		}
		a.p.noteAnswers(a.line[:i])
		a.line = a.line[i+1:]
	}
	a.mu.Unlock()
	return n, err
}

func (a *answerWriter) Close() error { return a.w.Close() }
