package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// pipePair returns two pipe transports wired to each other over io.Pipe
// pairs: what one writes, the other reads.
func pipePair(t testing.TB) (a, b Transport) {
	t.Helper()
	abR, abW := io.Pipe()
	baR, baW := io.Pipe()
	a = NewPipeTransport(baR, abW)
	b = NewPipeTransport(abR, baW)
	t.Cleanup(func() {
		a.Close()
		b.Close()
	})
	return a, b
}

// bigJSON returns a JSON string value of n bytes.
func bigJSON(n int) string {
	return `"` + strings.Repeat("x", n-2) + `"`
}

func TestPipeRoundTrip(t *testing.T) {
	checkGoroutines(t)
	const bufSize = 1 << 16 // the bufio.Reader's size in NewPipeTransport
	tests := []struct {
		name string
		msgs []string
	}{
		{"small", []string{`{"id":1,"method":"Browser.getVersion"}`, `{"id":1,"result":{}}`}},
		{"empty", []string{``, `{}`, ``}},
		{"unicode", []string{`{"params":{"text":"héllo, 世界 \u2028"}}`}},
		{"around the buffer size", []string{bigJSON(bufSize - 1), bigJSON(bufSize), bigJSON(bufSize + 1), `{}`}},
		{"300 KB", []string{bigJSON(300 << 10)}},
		{"several large", []string{bigJSON(300 << 10), `{"id":2}`, bigJSON(200<<10 + 7), bigJSON(3 * bufSize)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pipePair(t)
			werr := make(chan error, 1)
			go func() {
				for _, m := range tt.msgs {
					if err := a.WriteMessage([]byte(m)); err != nil {
						werr <- err
						return
					}
				}
				werr <- nil
			}()
			// Keep every message read: a reader that returned slices of its
			// buffer would corrupt the earlier ones.
			var got [][]byte
			for range tt.msgs {
				m, err := b.ReadMessage()
				if err != nil {
					t.Fatalf("read %d: %v", len(got), err)
				}
				got = append(got, m)
			}
			if err := <-werr; err != nil {
				t.Fatal(err)
			}
			for i, m := range tt.msgs {
				if string(got[i]) != m {
					t.Errorf("message %d: got %d bytes %.40q, want %d bytes %.40q", i, len(got[i]), got[i], len(m), m)
				}
			}
		})
	}
}

// nopWriter is a writer end that discards.
type nopWriter struct{ io.Writer }

func (nopWriter) Close() error { return nil }

// readAll reads messages from a pipe transport fed input in one write, until
// an error.
func readAll(t *testing.T, input string) (msgs []string, err error) {
	t.Helper()
	r, w := io.Pipe()
	tr := NewPipeTransport(r, nopWriter{io.Discard})
	defer tr.Close()
	go func() {
		w.Write([]byte(input))
		w.Close()
	}()
	for {
		m, err := tr.ReadMessage()
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, string(m))
	}
}

func TestPipeFraming(t *testing.T) {
	checkGoroutines(t)
	big := bigJSON(100 << 10)
	tests := []struct {
		name    string
		input   string // written in one Write, then the writer closes
		want    []string
		wantErr error
	}{
		{"nothing", "", nil, io.EOF},
		{"one", "{}\x00", []string{"{}"}, io.EOF},
		{"several in one write", "{\"id\":1}\x00{\"id\":2}\x00\x00{\"method\":\"M\"}\x00", []string{`{"id":1}`, `{"id":2}`, ``, `{"method":"M"}`}, io.EOF},
		{"large then small", big + "\x00{}\x00", []string{big, "{}"}, io.EOF},
		{"EOF mid-message", "{\"id\":1}\x00{\"id\":", []string{`{"id":1}`}, io.ErrUnexpectedEOF},
		{"EOF mid large message", "{}\x00" + big, []string{"{}"}, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, tt.input)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d messages, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("message %d = %.40q, want %.40q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestPipeWriteFrames(t *testing.T) {
	var buf bytes.Buffer
	tr := NewPipeTransport(io.NopCloser(strings.NewReader("")), nopWriter{&buf})
	for _, m := range []string{`{"id":1}`, ``, `{"id":2}`} {
		if err := tr.WriteMessage([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := buf.String(), "{\"id\":1}\x00\x00{\"id\":2}\x00"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestPipeCloseUnblocks(t *testing.T) {
	checkGoroutines(t)
	a, _ := pipePair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := a.ReadMessage()
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the read block
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("read after Close succeeded")
		}
	case <-time.After(waitTimeout):
		t.Fatal("Close did not unblock ReadMessage")
	}
	if err := a.WriteMessage([]byte(`{}`)); err == nil {
		t.Error("write after Close succeeded")
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestConnOverPipe runs a Conn on the pipe transport against a fake browser
// on the other end.
func TestConnOverPipe(t *testing.T) {
	checkGoroutines(t)
	ours, browser := pipePair(t)
	c := NewConn(ours, nil)
	defer c.Close()

	browserDone := make(chan error, 1)
	go func() {
		for {
			frame, err := browser.ReadMessage()
			if err != nil {
				browserDone <- err
				return
			}
			var m message
			if err := jsonv2.Unmarshal(frame, &m); err != nil {
				browserDone <- err
				return
			}
			var p runtime.EvaluateParams
			jsonv2.Unmarshal(m.Params, &p)
			// An event, then a large reply.
			browser.WriteMessage(fmt.Appendf(nil, `{"sessionId":%q,"method":"Runtime.consoleAPICalled","params":{"type":"log"}}`, m.SessionID))
			browser.WriteMessage(fmt.Appendf(nil, `{"id":%d,"sessionId":%q,"result":{"result":{"type":"string","value":%s}}}`,
				m.ID, m.SessionID, bigJSON(300<<10)))
		}
	}()

	s := c.Session("S")
	events, cancel := s.Subscribe("Runtime.consoleAPICalled")
	defer cancel()
	res, err := cdproto.Call(context.Background(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "'x'.repeat(300000)"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result == nil || len(res.Result.Value) != 300<<10 {
		t.Errorf("result value of %d bytes, want %d", len(res.Result.Value), 300<<10)
	}
	if got := drain(events); len(got) != 1 {
		t.Errorf("events = %q, want one", got)
	}

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-browserDone:
		if !errors.Is(err, io.EOF) {
			t.Errorf("browser side ended with %v, want EOF", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("browser side still reading after Close")
	}
}

func TestConnPipeEOFMidMessage(t *testing.T) {
	checkGoroutines(t)
	r, w := io.Pipe()
	c := NewConn(NewPipeTransport(r, nopWriter{io.Discard}), nil)
	defer c.Close()
	w.Write([]byte(`{"id":1,"res`))
	w.Close()
	wait(t, c.Done(), "Conn.Done")
	if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("Err = %v, want ErrClosed with unexpected EOF", err)
	}
}
