package bridge_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

const extID = "gdfkgapggjfanoafdlgbpnjpbdcepgmm"

var secret = []byte("0123456789abcdef0123456789abcdef")

func listen(t *testing.T, opts bridge.Options) *bridge.Server {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	opts.ExtensionIDs = []string{extID}
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = 3 * time.Second
	}
	s, err := bridge.Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// fakeExt plays the extension's side of the handshake.
type fakeExt struct {
	c       *websocket.Conn
	nonce   string
	refused map[string]any
}

func dial(t *testing.T, s *bridge.Server, origin string) (*fakeExt, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, _, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/bridge", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.CloseNow() })
	f := &fakeExt{c: c}
	m := f.read(t)
	if m["type"] != "challenge" || m["protocol"] != float64(bridge.ProtocolVersion) {
		t.Fatalf("first message = %v, want a challenge", m)
	}
	f.nonce = m["nonce"].(string)
	return f, nil
}

func (f *fakeExt) send(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := f.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func (f *fakeExt) read(t *testing.T) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := f.c.Read(ctx)
	if err != nil {
		return map[string]any{"read_error": err.Error(), "close_code": float64(websocket.CloseStatus(err))}
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("server sent non-JSON %q", data)
	}
	return m
}

func (f *fakeExt) hello(t *testing.T, key []byte, profile string, protocol int) map[string]any {
	t.Helper()
	proof := ""
	if key != nil {
		var err error
		proof, err = bridge.Proof(key, f.nonce)
		if err != nil {
			t.Fatal(err)
		}
	}
	f.send(t, map[string]any{"type": "hello", "protocol": protocol, "extension_version": "0.1.0", "profile_id": profile, "user_agent": "test", "proof": proof})
	return f.read(t)
}

func TestRefusedConnections(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	for _, origin := range []string{"", "https://evil.example", "http://127.0.0.1:8080", "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhz", "chrome-extension://" + extID + ".evil"} {
		if _, err := dial(t, s, origin); err == nil {
			t.Errorf("origin %q was let in", origin)
		}
	}
	cases := []struct {
		name string
		key  []byte
	}{
		{"wrong secret", []byte("not the secret at all, 32 bytes!")},
		{"no proof", nil},
	}
	for _, c := range cases {
		f, err := dial(t, s, "chrome-extension://"+extID)
		if err != nil {
			t.Fatal(err)
		}
		m := f.hello(t, c.key, "p1", bridge.ProtocolVersion)
		if m["type"] != "refused" || m["reason"] != "unauthorized" {
			t.Errorf("%s: got %v, want refused unauthorized", c.name, m)
		}
		if code := f.read(t)["close_code"]; code != float64(4001) {
			t.Errorf("%s: close code %v, want 4001", c.name, code)
		}
	}
	// Something other than hello first.
	f, _ := dial(t, s, "chrome-extension://"+extID)
	f.send(t, map[string]any{"id": 1, "result": map[string]any{}})
	if m := f.read(t); m["type"] != "refused" {
		t.Errorf("a reply before hello: %v", m)
	}
	if n := s.Refusals(); n != 8 {
		t.Errorf("refusals counted = %d, want every refused attempt", n)
	}
	if r, _ := s.Current(""); r != nil {
		t.Error("a refused connection became the relay")
	}
}

// TestStoreIDPinned: a store listing's id pinned beside the unpacked one
// connects as the unpacked extension does; the pins are still exact.
func TestStoreIDPinned(t *testing.T) {
	const storeID = "mnopmnopmnopmnopmnopmnopmnopmnop"
	s, err := bridge.Listen(bridge.Options{Addr: "127.0.0.1:0", ExtensionIDs: []string{extID, storeID}, Secret: secret, HandshakeTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for i, id := range []string{storeID, extID} {
		f, err := dial(t, s, "chrome-extension://"+id)
		if err != nil {
			t.Fatalf("pinned id %s: %v", id, err)
		}
		if m := f.hello(t, secret, fmt.Sprintf("profile-%d", i), bridge.ProtocolVersion); m["type"] != "welcome" {
			t.Errorf("pinned id %s: %v", id, m)
		}
	}
	for _, origin := range []string{"chrome-extension://" + storeID[:31], "chrome-extension://" + storeID + "/popup.html", "chrome-extension://*", "chrome-extension://" + storeID + "x"} {
		if _, err := dial(t, s, origin); err == nil {
			t.Errorf("origin %q was let in", origin)
		}
	}
	// An extension id the server does not pin (a store build newer than
	// the binary) is told why instead of the challenge, and closed 4005;
	// the backend's error says so too.
	const other = "abcdabcdabcdabcdabcdabcdabcdabcd"
	s, err = bridge.Listen(bridge.Options{Addr: "127.0.0.1:0", ExtensionIDs: []string{extID, storeID}, Secret: secret, HandshakeTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/bridge", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"chrome-extension://" + other}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	f := &fakeExt{c: c}
	if m := f.read(t); m["type"] != "refused" || m["reason"] != "extension" || !strings.Contains(m["message"].(string), other) || !strings.Contains(m["message"].(string), storeID) {
		t.Errorf("an unpinned extension id: %v", m)
	}
	if code := f.read(t)["close_code"]; code != float64(4005) {
		t.Errorf("close code %v, want 4005", code)
	}
	b := bridge.New(s, bridge.BackendOptions{ConnectWait: 200 * time.Millisecond})
	if _, err := b.NewTab(ctx, "about:blank"); err == nil || !strings.Contains(err.Error(), "does not know the extension id "+other) {
		t.Errorf("the backend's error after an unpinned extension: %v", err)
	}
}

func TestAcceptedAndDuplicate(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatal(err)
	}
	if m := f.hello(t, secret, "profile-a", bridge.ProtocolVersion); m["type"] != "welcome" {
		t.Fatalf("real extension: %v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := s.Relay(ctx, "")
	if err != nil || r.Hello().ProfileID != "profile-a" {
		t.Fatalf("Relay = %v, %v", r, err)
	}
	// A second hello with the same profile while the first lives.
	g, _ := dial(t, s, "chrome-extension://"+extID)
	if m := g.hello(t, secret, "profile-a", bridge.ProtocolVersion); m["type"] != "refused" || m["reason"] != "duplicate" {
		t.Errorf("duplicate profile: %v", m)
	}
	// Once the first is gone, a new one is admitted.
	f.c.Close(websocket.StatusNormalClosure, "bye")
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the relay did not end when the extension went away")
	}
	h, _ := dial(t, s, "chrome-extension://"+extID)
	if m := h.hello(t, secret, "profile-a", bridge.ProtocolVersion); m["type"] != "welcome" {
		t.Errorf("reconnect after close: %v", m)
	}
}

func TestVersionMismatch(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	f, _ := dial(t, s, "chrome-extension://"+extID)
	m := f.hello(t, secret, "p", bridge.ProtocolVersion+1)
	if m["type"] != "refused" || m["reason"] != "version" || !strings.Contains(m["message"].(string), "update the webpilot binary") {
		t.Errorf("newer extension: %v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Relay(ctx, ""); !errors.Is(err, bridge.ErrVersionMismatch) {
		t.Errorf("Relay after a version refusal = %v, want ErrVersionMismatch", err)
	}
	g, _ := dial(t, s, "chrome-extension://"+extID)
	if m := g.hello(t, secret, "p", 0); !strings.Contains(m["message"].(string), "update the extension") {
		t.Errorf("older extension: %v", m)
	}
}

func TestPairing(t *testing.T) {
	s := listen(t, bridge.Options{}) // not paired
	f, _ := dial(t, s, "chrome-extension://"+extID)
	if m := f.hello(t, secret, "p", bridge.ProtocolVersion); m["type"] != "refused" || !strings.Contains(m["message"].(string), "webpilot pair") {
		t.Errorf("hello before pairing: %v", m)
	}
	done := s.ArmPairing("ABCD-2345", time.Minute)
	pair := func(code string) map[string]any {
		g, _ := dial(t, s, "chrome-extension://"+extID)
		g.send(t, map[string]any{"type": "pair", "protocol": bridge.ProtocolVersion, "code": code, "profile_id": "p", "extension_version": "0.1.0"})
		return g.read(t)
	}
	if m := pair("WXYZ-0000"); m["type"] != "refused" || m["reason"] != "pairing" {
		t.Errorf("wrong code: %v", m)
	}
	// The right code, typed loosely, pairs once.
	done = s.ArmPairing("ABCD-2345", time.Minute)
	m := pair(" abcd 2345 ")
	if m["type"] != "paired" {
		t.Fatalf("right code: %v", m)
	}
	got, _ := base64.StdEncoding.DecodeString(m["secret"].(string))
	if len(got) != 32 {
		t.Fatalf("secret of %d bytes", len(got))
	}
	if sec := <-done; string(sec) != string(got) {
		t.Error("ArmPairing did not deliver the secret sent to the extension")
	}
	if m := pair("ABCD-2345"); m["type"] != "refused" {
		t.Errorf("a pairing code worked twice: %v", m)
	}
	h, _ := dial(t, s, "chrome-extension://"+extID)
	if m := h.hello(t, got, "p", bridge.ProtocolVersion); m["type"] != "welcome" {
		t.Errorf("hello with the paired secret: %v", m)
	}
	// An armed pairing expires.
	exp := s.ArmPairing("QQQQ-1111", 50*time.Millisecond)
	if _, ok := <-exp; ok {
		t.Error("an expired pairing delivered a secret")
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0"} {
		if _, err := bridge.Listen(bridge.Options{Addr: addr, ExtensionIDs: []string{extID}}); !errors.Is(err, bridge.ErrNotLoopback) {
			t.Errorf("Listen(%s) = %v, want ErrNotLoopback", addr, err)
		}
	}
}

// admitted returns a server with one fake extension connected.
func admitted(t *testing.T, idle time.Duration) (*bridge.Server, *fakeExt, *bridge.Relay) {
	t.Helper()
	s := listen(t, bridge.Options{Secret: secret, IdleTimeout: idle})
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatal(err)
	}
	if m := f.hello(t, secret, "p", bridge.ProtocolVersion); m["type"] != "welcome" {
		t.Fatalf("hello: %v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := s.Relay(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	return s, f, r
}

func TestRelayRequestsEventsAndPing(t *testing.T) {
	_, f, r := admitted(t, 5*time.Second)
	var mu sync.Mutex
	var events []string
	r.OnEvent(func(ev string, params json.RawMessage) {
		mu.Lock()
		events = append(events, ev+" "+string(params))
		mu.Unlock()
	})
	go func() {
		// The extension: answer one request with a result, one with an error.
		for i := 0; i < 2; i++ {
			m := f.read(t)
			id := m["id"]
			if m["op"] == "tabs.list" {
				f.send(t, map[string]any{"id": id, "result": map[string]any{"tabs": []any{map[string]any{"tabId": 5}}}})
			} else {
				f.send(t, map[string]any{"id": id, "error": map[string]any{"message": "No tab with id: 99.", "code": "no_tab"}})
			}
		}
		f.send(t, map[string]any{"event": "tabs.removed", "params": map[string]any{"tabId": 5}})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var res struct {
		Tabs []struct {
			TabID int `json:"tabId"`
		} `json:"tabs"`
	}
	if err := r.Request(ctx, "tabs.list", nil, &res); err != nil || len(res.Tabs) != 1 || res.Tabs[0].TabID != 5 {
		t.Fatalf("tabs.list = %+v, %v", res, err)
	}
	err := r.Request(ctx, "tabs.close", map[string]any{"tabId": 99}, nil)
	var oe *bridge.OpError
	if !errors.As(err, &oe) || oe.Code != "no_tab" || oe.Op != "tabs.close" {
		t.Fatalf("error reply = %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if len(events) != 1 || events[0] != `tabs.removed {"tabId":5}` {
		t.Errorf("events = %q", events)
	}
	mu.Unlock()
	f.send(t, map[string]any{"type": "ping", "ts": 42})
	if m := f.read(t); m["type"] != "pong" || m["ts"] != float64(42) {
		t.Errorf("ping answered with %v", m)
	}
}

func TestDroppedConnectionFailsPendingRequests(t *testing.T) {
	_, f, r := admitted(t, 5*time.Second)
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		errc <- r.Request(ctx, "debugger.send", map[string]any{"tabId": 1, "method": "Runtime.evaluate"}, nil)
	}()
	f.read(t) // the request arrived; now the extension vanishes
	f.c.CloseNow()
	select {
	case err := <-errc:
		if !errors.Is(err, bridge.ErrDisconnected) {
			t.Errorf("pending request = %v, want ErrDisconnected", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request pending when the connection dropped did not fail")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := r.Request(ctx, "tabs.list", nil, nil); !errors.Is(err, bridge.ErrDisconnected) {
		t.Errorf("request after the drop = %v", err)
	}
}

func TestIdleConnectionIsClosed(t *testing.T) {
	_, _, r := admitted(t, 300*time.Millisecond)
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a silent extension was kept past the idle timeout")
	}
}

// The Backend turns "no extension" and "wrong protocol" into the backend
// sentinels the browser layer reports as BRIDGE_DISCONNECTED and
// BRIDGE_VERSION_MISMATCH.
func TestBackendErrors(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	b := bridge.New(s, bridge.BackendOptions{ConnectWait: 200 * time.Millisecond})
	ctx := context.Background()
	if _, err := b.Tabs(ctx); !errors.Is(err, backend.ErrBridgeDisconnected) {
		t.Errorf("no extension: %v", err)
	}
	f, _ := dial(t, s, "chrome-extension://"+extID)
	f.hello(t, secret, "p", bridge.ProtocolVersion+1)
	if _, err := b.Tabs(ctx); !errors.Is(err, backend.ErrBridgeVersion) {
		t.Errorf("newer extension: %v", err)
	}
	info := b.Info()
	if info.Kind != "bridge" || !info.Paired || info.Running || info.Protocol != bridge.ProtocolVersion {
		t.Errorf("Info = %+v", info)
	}
	unpaired := bridge.New(listen(t, bridge.Options{}), bridge.BackendOptions{ConnectWait: 100 * time.Millisecond})
	if _, err := unpaired.Tabs(ctx); !errors.Is(err, backend.ErrBridgeDisconnected) || !strings.Contains(err.Error(), "webpilot pair") {
		t.Errorf("unpaired: %v", err)
	}
}

// A tab whose debugging the user cancels in Chrome ends its CDP session
// with an error the browser layer reports as BRIDGE_DETACHED.
func TestUserCancelledDebugging(t *testing.T) {
	s, f, _ := admitted(t, 5*time.Second)
	b := bridge.New(s, bridge.BackendOptions{})
	go func() {
		m := f.read(t) // debugger.attach
		f.send(t, map[string]any{"id": m["id"], "result": map[string]any{}})
		m = f.read(t) // a command that the detach interrupts
		_ = m
		f.send(t, map[string]any{"event": "debugger.detached", "params": map[string]any{"tabId": 7, "reason": "canceled_by_user"}})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	target, err := b.Attach(ctx, "7")
	if err != nil {
		t.Fatal(err)
	}
	err = target.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "1"}, nil)
	if !errors.Is(err, cdp.ErrDetached) || !errors.Is(err, cdp.ErrDetachedByUser) {
		t.Fatalf("call on a tab the user took back = %v", err)
	}
	select {
	case <-target.Done():
	case <-ctx.Done():
		t.Fatal("the session did not end")
	}
}
