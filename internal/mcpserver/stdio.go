package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EOFGrace bounds how long an EOF on stdin waits for in-flight calls.
var EOFGrace = CallCeiling + 5*time.Second

// RunStdio serves MCP on in/out until in ends (or ctx is done). Calls still
// running when in reaches EOF finish and answer before the session ends: the
// go-sdk cancels in-flight calls on EOF, so the EOF is held back until they
// are done.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.WriteCloser) error {
	g := &eofGate{s: s, r: bufio.NewReaderSize(in, 1<<16)}
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(g), Writer: out})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// eofGate reads whole lines, counts tools/call requests as they are read,
// and on EOF waits until every counted call has finished.
type eofGate struct {
	s   *Server
	r   *bufio.Reader
	buf []byte
}

func (g *eofGate) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		line, err := g.r.ReadBytes('\n')
		if len(line) > 0 {
			g.s.noteRequests(line)
			g.buf = line
		} else if err != nil {
			if errors.Is(err, io.EOF) {
				g.s.waitIdle(EOFGrace)
			}
			return 0, err
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// noteRequests counts the tools/call requests in one JSON-RPC line (a single
// message or a batch).
func (s *Server) noteRequests(line []byte) {
	line = bytes.TrimSpace(line)
	if !bytes.Contains(line, []byte("tools/call")) {
		return
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var msgs []msg
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &msgs)
	} else {
		var m msg
		if json.Unmarshal(line, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	n := 0
	for _, m := range msgs {
		if m.Method == "tools/call" && len(m.ID) > 0 && string(m.ID) != "null" {
			n++
		}
	}
	if n > 0 {
		s.mu.Lock()
		s.received += n
		s.mu.Unlock()
	}
}

func (s *Server) callFinished() {
	s.mu.Lock()
	s.finished++
	s.mu.Unlock()
	s.cond.Broadcast()
}

// waitIdle waits until every counted call finished, at most d.
func (s *Server) waitIdle(d time.Duration) {
	timer := time.AfterFunc(d, s.cond.Broadcast)
	defer timer.Stop()
	deadline := time.Now().Add(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.finished < s.received && time.Now().Before(deadline) {
		s.cond.Wait()
	}
	if s.finished < s.received {
		s.log.Warn("stdin closed with calls still running", "running", s.received-s.finished)
	}
}
