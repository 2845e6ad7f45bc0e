package bridge_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// attached is a Backend over a fake extension with tab 7 attached.
func attached(t *testing.T) (*fakeExt, cdp.Caller, context.Context) {
	t.Helper()
	s, f, _ := admitted(t, 5*time.Second)
	b := bridge.New(s, bridge.BackendOptions{})
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	done := make(chan struct{})
	go func() {
		defer close(done)
		m := f.read(t)
		if m["op"] != "debugger.attach" {
			t.Errorf("first request = %v, want debugger.attach", m)
		}
		f.send(t, map[string]any{"id": m["id"], "result": map[string]any{}})
	}()
	target, err := b.Attach(ctx, "7")
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return f, target, ctx
}

// sendRaw writes one frame as it is.
func (f *fakeExt) sendRaw(t *testing.T, frame string) {
	t.Helper()
	if err := f.c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// Commands go out without waiting for the replies of those before them, and
// each reply reaches its own caller whatever the order the extension
// answers in.
func TestPipelinedCommandsAnsweredInAnyOrder(t *testing.T) {
	f, target, ctx := attached(t)
	const n = 3
	var wg sync.WaitGroup
	got := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res struct {
				Expr string `json:"expr"`
			}
			errs[i] = target.Call(ctx, "Runtime.evaluate", map[string]any{"expression": string(rune('a' + i))}, &res)
			got[i] = res.Expr
		}()
	}
	// All three requests arrive before any is answered.
	type req struct {
		id   any
		expr string
	}
	var reqs []req
	for range n {
		m := f.read(t)
		p, _ := m["params"].(map[string]any)
		if m["op"] != "debugger.send" || p["tabId"] != float64(7) || p["method"] != "Runtime.evaluate" {
			t.Fatalf("request = %v, want debugger.send of Runtime.evaluate on tab 7", m)
		}
		cp, _ := p["params"].(map[string]any)
		reqs = append(reqs, req{m["id"], cp["expression"].(string)})
	}
	for i := len(reqs) - 1; i >= 0; i-- { // answered last first
		f.send(t, map[string]any{"id": reqs[i].id, "result": map[string]any{"expr": reqs[i].expr}})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || got[i] != string(rune('a'+i)) {
			t.Errorf("call %d = %q, %v; want its own reply %q", i, got[i], errs[i], string(rune('a'+i)))
		}
	}
}

// An event the extension sends before a reply is delivered before the call
// returns: replies and events keep the order they came in.
func TestEventsAndRepliesKeepTheirOrder(t *testing.T) {
	f, target, ctx := attached(t)
	events, cancel := target.Events("Page.frameNavigated", "Runtime.consoleAPICalled")
	defer cancel()
	go func() {
		m := f.read(t)
		f.send(t, map[string]any{"event": "debugger.event", "params": map[string]any{"tabId": 7, "method": "Page.frameNavigated", "params": map[string]any{"frame": map[string]any{"id": "F"}}}})
		f.send(t, map[string]any{"event": "debugger.event", "params": map[string]any{"tabId": 7, "method": "Runtime.consoleAPICalled", "params": map[string]any{"type": "log"}}})
		f.send(t, map[string]any{"id": m["id"], "result": map[string]any{}})
	}()
	if err := target.Call(ctx, "Page.navigate", map[string]any{"url": "http://x.test/"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Page.frameNavigated", "Runtime.consoleAPICalled"} {
		select {
		case ev := <-events:
			if ev.Method != want {
				t.Errorf("event = %s, want %s", ev.Method, want)
			}
		default:
			t.Fatalf("the call returned before the event %s that came before its reply", want)
		}
	}
}

// Results, params and events pass through byte for byte (non-ASCII text,
// escapes, what HTML escaping would touch), and child sessions are routed
// both ways.
func TestFramesPassThroughUnchanged(t *testing.T) {
	f, target, ctx := attached(t)
	const value = `{"result":{"type":"string","value":"héllo \"q\" \\ \u2028 <a>&amp; \ud83d\ude00 end"}}`
	go func() {
		m := f.read(t)
		p := m["params"].(map[string]any)
		cp := p["params"].(map[string]any)
		if cp["expression"] != "\"é\" <b>" {
			t.Errorf("params reached the extension as %q", cp["expression"])
		}
		f.sendRaw(t, `{"id":`+jsonNumber(m["id"])+`,"result":`+value+`}`)
	}()
	var raw json.RawMessage
	if err := target.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "\"é\" <b>"}, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != value {
		t.Errorf("result = %s\nwant     %s", raw, value)
	}

	// A child target's command names the child to the extension, and the
	// child's events come on the child's session.
	const childEvent = `{"type":"log","args":[{"value":"ü\u0000 \"x\" </script>"}]}`
	child := target.(*cdp.Session).Child("CHILD")
	events, cancel := child.Events("Runtime.consoleAPICalled")
	defer cancel()
	go func() {
		m := f.read(t)
		p := m["params"].(map[string]any)
		if p["tabId"] != float64(7) || p["sessionId"] != "CHILD" {
			t.Errorf("child command reached the extension as %v", p)
		}
		f.sendRaw(t, `{"event":"debugger.event","params":{"tabId":7,"sessionId":"CHILD","method":"Runtime.consoleAPICalled","params":`+childEvent+`}}`)
		f.send(t, map[string]any{"id": m["id"], "result": map[string]any{}})
	}()
	if err := child.Call(ctx, "Runtime.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if string(ev.Params) != childEvent {
			t.Errorf("child event params = %s, want %s", ev.Params, childEvent)
		}
	default:
		t.Fatal("the child's event did not come on the child's session")
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Releasing remote objects is answered at once: the call does not wait for
// the extension, which still gets the command (in order, before the next)
// and whose late reply is dropped.
func TestReleaseIsAnsweredAtOnce(t *testing.T) {
	f, target, ctx := attached(t)
	if err := target.Call(ctx, "Runtime.releaseObjectGroup", map[string]any{"objectGroup": "g"}, nil); err != nil {
		t.Fatalf("release: %v", err)
	}
	m := f.read(t)
	if p := m["params"].(map[string]any); p["method"] != "Runtime.releaseObjectGroup" {
		t.Fatalf("request = %v, want the release", m)
	}
	release := m["id"]
	go func() {
		m := f.read(t)
		f.send(t, map[string]any{"id": release, "result": map[string]any{}}) // late
		f.send(t, map[string]any{"id": m["id"], "result": map[string]any{"result": map[string]any{"value": 2}}})
	}()
	var res struct {
		Result struct {
			Value int `json:"value"`
		} `json:"result"`
	}
	if err := target.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "2"}, &res); err != nil || res.Result.Value != 2 {
		t.Fatalf("the call after the release = %+v, %v", res, err)
	}
}
