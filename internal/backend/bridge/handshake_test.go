package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
)

// untilClosed reads what the server sends until the connection ends and
// returns the messages and the close code.
func (f *fakeExt) untilClosed(t *testing.T, within time.Duration) ([]map[string]any, websocket.StatusCode) {
	t.Helper()
	deadline := time.Now().Add(within)
	var msgs []map[string]any
	for time.Now().Before(deadline) {
		m := f.read(t)
		if _, ok := m["read_error"]; ok {
			return msgs, websocket.StatusCode(m["close_code"].(float64))
		}
		msgs = append(msgs, m)
	}
	t.Fatalf("the connection was still open after %v (got %v)", within, msgs)
	return nil, 0
}

// A first message far larger than any hello is refused without the server
// reading it into memory: before authentication a local
// process must not be able to make webpilot allocate what it sends.
func TestOversizeFirstMessageIsRefused(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	// 10 MB hello, built before the first measurement.
	var b bytes.Buffer
	b.WriteString(`{"type":"hello","protocol":3,"profile_id":"p","proof":"","user_agent":"`)
	b.WriteString(strings.Repeat("A", 10<<20))
	b.WriteString(`"}`)
	payload := b.Bytes()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatal(err)
	}
	werr := make(chan error, 1)
	go func() { werr <- f.c.Write(context.Background(), websocket.MessageText, payload) }()
	// The server closes the TCP connection at once (no close frame: see
	// TestOversizeFirstFrameClosesAtOnce), after writing the refusal, which
	// the client may or may not read before the reset.
	msgs, _ := f.untilClosed(t, 10*time.Second)
	if len(msgs) > 1 || len(msgs) == 1 && (msgs[0]["type"] != "refused" || msgs[0]["reason"] != "unauthorized" || !strings.Contains(msgs[0]["message"].(string), "too large")) {
		t.Errorf("messages before the close = %v, want at most one refusal saying the message is too large", msgs)
	}
	select {
	case <-werr:
	case <-time.After(10 * time.Second):
		t.Error("the server stopped reading the oversize message without closing the connection")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(payload)
	allocated := int64(after.TotalAlloc - before.TotalAlloc)
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("during the refusal: %.1f MB allocated, heap in use grew by %.1f MB, heap taken from the OS grew by %.1f MB",
		float64(allocated)/(1<<20), float64(grown)/(1<<20), float64(int64(after.HeapSys)-int64(before.HeapSys))/(1<<20))
	if allocated > 4<<20 {
		t.Errorf("refusing a 10 MB first message allocated %.1f MB, want under 4 MB", float64(allocated)/(1<<20))
	}
	if grown > 20<<20 {
		t.Errorf("the heap grew by %.1f MB", float64(grown)/(1<<20))
	}
	if r, _ := s.Current(""); r != nil {
		t.Error("an oversize hello became the relay")
	}
}

// A client that says nothing after the challenge is refused with 4001 once
// the handshake deadline passes.
func TestSilentClientIsRefusedAtTheDeadline(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret, HandshakeTimeout: 300 * time.Millisecond})
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msgs, code := f.untilClosed(t, 5*time.Second)
	if code != 4001 {
		t.Errorf("close code %d, want 4001 (messages %v)", code, msgs)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("closed after %v, want about the 300 ms deadline", took)
	}
	if s.Refusals() != 1 {
		t.Errorf("refusals = %d, want 1", s.Refusals())
	}
}

// The read limit is raised once the extension has proved the secret:
// replies such as full-page screenshots are large.
func TestLargeMessageAfterAuthentication(t *testing.T) {
	// A long idle timeout: under the race detector and a loaded machine
	// the 8 MB reply takes seconds to build and read.
	_, f, r := admitted(t, time.Minute)
	big := strings.Repeat("x", 8<<20)
	go func() {
		m := f.read(t)
		reply := fmt.Appendf(nil, `{"id":%v,"result":{"data":"%s"}}`, m["id"], big)
		if err := f.c.Write(context.Background(), websocket.MessageText, reply); err != nil {
			t.Errorf("write the reply: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res struct {
		Data string `json:"data"`
	}
	if err := r.Request(ctx, "debugger.send", map[string]any{"tabId": 1, "method": "Page.captureScreenshot"}, &res); err != nil {
		t.Fatalf("an 8 MB reply after welcome: %v", err)
	}
	if len(res.Data) != len(big) {
		t.Errorf("reply of %d bytes, want %d", len(res.Data), len(big))
	}
}

// At most MaxUnauthenticated connections wait in the handshake at once; a
// further one is refused before the upgrade, and a slot frees when a
// handshake ends.
func TestUnauthenticatedConnectionsAreBounded(t *testing.T) {
	// HelloWait over the test's length: the silent clients keep their
	// slots against newcomers (see TestSilentConnectionsDoNotKeepTheExtensionOut).
	s := listen(t, bridge.Options{Secret: secret, HandshakeTimeout: 10 * time.Second, MaxUnauthenticated: 2, HelloWait: time.Minute})
	var silent []*fakeExt
	for i := 0; i < 2; i++ {
		f, err := dial(t, s, "chrome-extension://"+extID)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	h.Set("Origin", "chrome-extension://"+extID)
	c, resp, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/bridge", &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		c.CloseNow()
		t.Fatal("a third unauthenticated connection was accepted while two were waiting")
	}
	if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("third connection: %v (response %v), want 503", err, resp)
	}
	// One of the silent clients goes away: a real extension gets in.
	silent[0].c.CloseNow()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := dial(t, s, "chrome-extension://"+extID)
		if err == nil {
			if m := f.hello(t, secret, "p", bridge.ProtocolVersion); m["type"] != "welcome" {
				t.Fatalf("hello once a slot was free: %v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot freed after a waiting client left: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The admitted connection holds no slot: beside the one still
	// waiting, another may wait.
	if _, err := dial(t, s, "chrome-extension://"+extID); err != nil {
		t.Errorf("a waiting slot is still taken by the admitted connection: %v", err)
	}
}

// An oversize first frame makes the server close the TCP connection at
// once, without a close handshake that would read (and drop) whatever the
// client goes on sending: the client's write fails before it has sent
// much more than the socket buffers hold. A raw client declares a 1 GiB
// frame and streams it. Before, the server read about 290 MB during the
// close handshake's 1 s grace.
func TestOversizeFirstFrameClosesAtOnce(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret, HandshakeTimeout: time.Minute})
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fmt.Fprintf(nc, "GET /bridge HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: chrome-extension://%s\r\n\r\n", s.Addr(), extID)
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %s", resp.Status)
	}
	// A final text frame of 1 GiB, masked with a zero key: the payload is
	// sent as is.
	const declared = 1 << 30
	frame := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(frame[2:10], declared)
	// Only a guard against a server that neither reads nor closes.
	_ = nc.SetWriteDeadline(time.Now().Add(2 * time.Minute))
	if _, err := nc.Write(frame); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	var sent int64
	var werr error
	for sent < declared && werr == nil {
		var n int
		n, werr = nc.Write(chunk)
		sent += int64(n)
	}
	t.Logf("the client sent %.1f MB before its write failed (%v)", float64(sent)/(1<<20), werr)
	var ne net.Error
	switch {
	case werr == nil:
		t.Fatalf("the server read the whole %d MB frame", declared>>20)
	case errors.As(werr, &ne) && ne.Timeout():
		t.Fatalf("the server stopped reading without closing the connection")
	}
	// The socket buffers hold a few MB (the client's send buffer at most
	// 4 MB here; the server's receive window stays small as it reads no
	// more); the server itself read 8 KB.
	const most = 8 << 20
	if sent > most {
		t.Errorf("the client sent %d MB before the server closed the connection, want at most %d MB", sent>>20, most>>20)
	}
}

// Silent connections (the right Origin, then nothing) do not keep the
// extension out: when every handshake slot is taken, a new connection takes
// the slot of the oldest one that has said nothing for HelloWait, which is
// closed, and completes its handshake. Before, the extension got 503 until
// the silent ones reached the handshake deadline, and again whenever they
// came back.
func TestSilentConnectionsDoNotKeepTheExtensionOut(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret, HandshakeTimeout: time.Minute, HelloWait: time.Nanosecond})
	var silent []*fakeExt
	for range bridge.DefaultMaxUnauthenticated {
		f, err := dial(t, s, "chrome-extension://"+extID)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, f)
	}
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatalf("the extension, beside %d silent connections: %v", len(silent), err)
	}
	if m := f.hello(t, secret, "p", bridge.ProtocolVersion); m["type"] != "welcome" {
		t.Fatalf("hello beside silent connections: %v", m)
	}
	// The oldest silent connection gave up its slot.
	if m := silent[0].read(t); m["read_error"] == nil {
		t.Errorf("the oldest silent connection got %v, want its connection closed", m)
	}
}
