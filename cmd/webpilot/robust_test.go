package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// rawSession is `webpilot mcp` as a subprocess driven line by line.
type rawSession struct {
	t      *testing.T
	cmd    *exec.Cmd
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
	s := &rawSession{t: t, cmd: cmd, stdin: stdin, lines: make(chan map[string]json.RawMessage, 100), stdout: new(syncBuffer), exited: make(chan struct{})}
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

// SIGTERM or SIGINT with a call in flight: the call answers (by itself when
// it ends within the shutdown grace, else with OUTCOME_UNKNOWN once the
// grace is over), the browser is closed, and webpilot exits 0. Before, it
// exited 1 at once and the call never got an answer.
func TestSignalDuringCall(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the process tree from /proc")
	}
	const shortDelay = 1500 * time.Millisecond // within the 5 s grace
	arrived := make(chan string, 100)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.URL.RequestURI()
		switch r.URL.Path {
		case "/slow":
			time.Sleep(shortDelay)
		case "/stuck": // answers only when the browser gives up or the test ends
			select {
			case <-r.Context().Done():
				return
			case <-release:
			}
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Slow page</title><p>finally</p>`)
	}))
	t.Cleanup(slow.Close)

	// Short names: the browser's socket path under the test's temp dir must
	// stay short.
	for _, c := range []struct {
		name   string
		sig    syscall.Signal
		path   string
		wantOK bool // the call answers by itself, else OUTCOME_UNKNOWN
	}{
		{"term-ends", syscall.SIGTERM, "/slow", true},
		{"int-ends", syscall.SIGINT, "/slow", true},
		// The cut-off path is the same for either signal; int-ends already
		// shows that SIGINT starts it (without the handler the process
		// would not exit).
		{"term-cut", syscall.SIGTERM, "/stuck", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr := new(syncBuffer)
			s := startRaw(t, stderr, mcpArgs...)
			uri := c.path + "?" + c.name
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_navigate","arguments":{"url":%q,"snapshot":"none"}}}`, slow.URL+uri))
			for timeout := time.After(backendtest.Timeout(60 * time.Second)); ; {
				select {
				case got := <-arrived:
					if got != uri {
						continue
					}
				case <-timeout:
					t.Fatalf("the page was never requested; stdout:\n%s\nstderr:\n%s", s.stdout, stderr)
				}
				break
			}
			// The browser runs: remember its processes.
			pid := s.cmd.Process.Pid
			procs := processTable(t)
			watch := map[int]proc{}
			for _, p := range descendantsOf(procs, pid) {
				watch[p] = procs[p]
			}
			if len(watch) == 0 {
				t.Fatalf("webpilot (pid %d) has no child process during a navigation", pid)
			}
			signalled := time.Now()
			if err := s.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			got := s.await("2", backendtest.Timeout(30*time.Second))
			answer := got[len(got)-1]
			answeredAfter := time.Since(signalled)
			var res struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if answer["error"] != nil || json.Unmarshal(answer["result"], &res) != nil || len(res.Content) == 0 {
				t.Fatalf("the call was not answered with a tool result: %v", answer)
			}
			text := res.Content[0].Text
			if c.wantOK {
				if res.IsError || !strings.Contains(text, "Slow page") {
					t.Errorf("the call did not finish: %s", text)
				}
			} else {
				if !res.IsError || !strings.HasPrefix(text, "OUTCOME_UNKNOWN: ") {
					t.Errorf("want OUTCOME_UNKNOWN for the call cut off, got isError=%v %s", res.IsError, text)
				}
				if answeredAfter < 4*time.Second {
					t.Errorf("the call was cut off %v after the signal, before the 5 s grace", answeredAfter)
				}
			}
			select {
			case <-s.exited:
				if s.err != nil {
					t.Errorf("webpilot exited with %v, want status 0; stderr:\n%s", s.err, stderr)
				}
			case <-time.After(backendtest.Timeout(30 * time.Second)):
				t.Fatalf("webpilot did not exit after %v", c.sig)
			}
			t.Logf("%v: the call answered %v after the signal, webpilot exited %v after it",
				c.sig, answeredAfter.Round(time.Millisecond), time.Since(signalled).Round(time.Millisecond))
			var alive []string
			deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
			for {
				alive = alive[:0]
				for p, info := range watch {
					if stillRunning(p, info) {
						alive = append(alive, fmt.Sprintf("%d %s", p, cmdline(p)))
					}
				}
				if len(alive) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(alive) > 0 {
				slices.Sort(alive)
				t.Errorf("browser processes outlived webpilot:\n%s", strings.Join(alive, "\n"))
			}
			if !strings.Contains(stderr.String(), "stopping") && !c.wantOK {
				t.Errorf("the log does not say calls were cut off; stderr:\n%s", stderr)
			}
		})
	}
}
