package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// rawSession is `webpilot mcp` as a subprocess driven line by line.
type rawSession struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan map[string]json.RawMessage // stdout, one parsed message a line
	stdout *syncBuffer                     // stdout as received
	exited chan struct{}                   // closed when the process has exited
	err    error                           // cmd.Wait's result, once exited
}

// startRaw starts webpilot with args and completes the MCP handshake.
func startRaw(t *testing.T, stderr *syncBuffer, args ...string) *rawSession {
	t.Helper()
	cmd := webpilotCmd(t, stderr, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawSession{t: t, stdin: stdin, lines: make(chan map[string]json.RawMessage, 100), stdout: new(syncBuffer), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			fmt.Fprintln(s.stdout, sc.Text())
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout carries a line that is no JSON-RPC message: %.200q", sc.Text())
				continue
			}
			s.lines <- m
		}
		close(s.lines)
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(backendtest.Timeout(20 * time.Second)):
			_ = cmd.Process.Kill()
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	s.await(`"init"`, backendtest.Timeout(30*time.Second))
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	return s
}

func (s *rawSession) send(lines ...string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		s.t.Fatalf("write to webpilot: %v; stdout:\n%s", err, s.stdout)
	}
}

// await returns the messages read until the one with id (JSON), which is
// the last.
func (s *rawSession) await(id string, d time.Duration) []map[string]json.RawMessage {
	s.t.Helper()
	var got []map[string]json.RawMessage
	timeout := time.After(d)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("webpilot ended its output before answering id %s; stdout:\n%.3000s", id, s.stdout)
			}
			got = append(got, m)
			if string(m["id"]) == id && (m["result"] != nil || m["error"] != nil) {
				return got
			}
		case <-timeout:
			s.t.Fatalf("no answer with id %s within %v; stdout:\n%.3000s", id, d, s.stdout)
		}
	}
}

// A malformed stdin line gets a JSON-RPC error and the process goes on:
// the next request is answered, and closing stdin still exits 0.
func TestStdioMalformedLinesSubprocess(t *testing.T) {
	s := startRaw(t, new(syncBuffer), mcpArgs...)
	for i, c := range []struct {
		line string
		code int
	}{
		{`{not json`, -32700},
		{`[]`, -32600},
		{`{}`, -32600},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600},
		{strings.Repeat("x", 5<<20), -32700},
	} {
		id := fmt.Sprintf(`"list-%d"`, i)
		s.send(c.line, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`)
		got := s.await(id, backendtest.Timeout(30*time.Second))
		if len(got) != 2 || got[0]["error"] == nil {
			t.Errorf("%.40q: want an error answer then the tools, got %d messages; stdout:\n%.2000s", c.line, len(got), s.stdout)
			continue
		}
		var e struct {
			Code int `json:"code"`
		}
		_ = json.Unmarshal(got[0]["error"], &e)
		if e.Code != c.code {
			t.Errorf("%.40q: error %s, want code %d", c.line, got[0]["error"], c.code)
		}
		if !strings.Contains(string(got[1]["result"]), "browser_navigate") {
			t.Errorf("%.40q: tools/list after it: %s", c.line, got[1]["result"])
		}
	}
	_ = s.stdin.Close()
	select {
	case <-s.exited:
		if s.err != nil {
			t.Errorf("webpilot exited with %v after stdin closed, want status 0", s.err)
		}
	case <-time.After(backendtest.Timeout(20 * time.Second)):
		t.Fatal("webpilot did not exit after stdin closed")
	}
}
