package cdptest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/cdp/cdptest"
)

var _ cdproto.Session = (*cdptest.Session)(nil)

// checkGoroutines fails the test if it ends with more goroutines than it
// started with.
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
			if time.Now().After(deadline) {
				t.Errorf("goroutine leak: %d at start, %d at end", before, runtime.NumGoroutine())
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

func TestHandleTypedCall(t *testing.T) {
	checkGoroutines(t)
	s := cdptest.NewSession()
	defer s.Close()
	s.Handle("Runtime.evaluate", func(params jsonv2.Value) (any, error) {
		var p cdpruntime.EvaluateParams
		if err := jsonv2.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return map[string]any{"result": map[string]any{"type": "string", "value": "evaluated " + p.Expression}}, nil
	})
	res, err := cdproto.Call(context.Background(), s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "1+1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Type != cdpruntime.RemoteObjectTypeString || string(res.Result.Value) != `"evaluated 1+1"` {
		t.Errorf("result = %+v", res.Result)
	}
}

func TestReplyRecorded(t *testing.T) {
	s := cdptest.NewSession()
	s.Reply("Accessibility.getFullAXTree", `{"nodes":[
		{"nodeId":"1","ignored":false,"role":{"type":"role","value":"futureRole"},"childIds":["2"]},
		{"nodeId":"2","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"OK"},"parentId":"1"}]}`)
	// A recorded reply reaches the caller as sent: an enum value cdproto
	// does not know (futureRole) decodes into a lenient struct.
	type value struct {
		Value string `json:"value"`
	}
	var tree struct {
		Nodes []struct {
			Role value `json:"role"`
			Name value `json:"name"`
		} `json:"nodes"`
	}
	if err := s.Call(context.Background(), "Accessibility.getFullAXTree", struct{}{}, &tree); err != nil {
		t.Fatal(err)
	}
	if len(tree.Nodes) != 2 || tree.Nodes[0].Role.Value != "futureRole" || tree.Nodes[1].Name.Value != "OK" {
		t.Errorf("nodes = %+v", tree.Nodes)
	}
	// Every call gets the reply.
	if err := s.Call(context.Background(), "Accessibility.getFullAXTree", map[string]string{"frameId": "F"}, nil); err != nil {
		t.Fatal(err)
	}
	calls := s.Calls()
	want := []cdptest.Call{
		{Method: "Accessibility.getFullAXTree", Params: jsonv2.Value(`{}`)},
		{Method: "Accessibility.getFullAXTree", Params: jsonv2.Value(`{"frameId":"F"}`)},
	}
	if fmt.Sprintf("%s", calls) != fmt.Sprintf("%s", want) {
		t.Errorf("calls = %s, want %s", calls, want)
	}

	defer func() {
		if recover() == nil {
			t.Error("Reply with invalid JSON did not panic")
		}
	}()
	s.Reply("Page.navigate", `{"frameId":`)
}

func TestCallErrors(t *testing.T) {
	checkGoroutines(t)
	s := cdptest.NewSession()
	defer s.Close()
	s.Fail("Runtime.evaluate", &cdp.Error{Code: -32000, Message: "Execution context was destroyed."})
	s.Fail("Page.navigate", fmt.Errorf("navigating: %w", cdp.ErrDetached))
	s.Reply("Page.getFrameTree", `{"frameTree":"not an object"}`)
	ctx := context.Background()

	err := s.Call(ctx, "DOM.getDocument", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "DOM.getDocument") {
		t.Errorf("no handler: error %v does not name the method", err)
	}

	var ce *cdp.Error
	err = s.Call(ctx, "Runtime.evaluate", nil, nil)
	if !errors.As(err, &ce) || ce.Method != "Runtime.evaluate" || ce.Code != -32000 {
		t.Errorf("browser error = %#v", err)
	}

	if err := s.Call(ctx, "Page.navigate", nil, nil); !errors.Is(err, cdp.ErrDetached) {
		t.Errorf("handler error = %v, want ErrDetached", err)
	}

	_, err = cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err == nil || !strings.Contains(err.Error(), "decoding result") {
		t.Errorf("undecodable result: %v", err)
	}

	if err := s.Call(ctx, "Page.enable", func() {}, nil); err == nil {
		t.Error("unencodable params: no error")
	}

	got := []string{}
	for _, c := range s.Calls() {
		got = append(got, c.Method)
	}
	if want := "[DOM.getDocument Runtime.evaluate Page.navigate Page.getFrameTree]"; fmt.Sprint(got) != want {
		t.Errorf("calls = %v, want %v", got, want)
	}
}

func TestCallContextAndClose(t *testing.T) {
	checkGoroutines(t)
	s := cdptest.NewSession()
	release := make(chan struct{})
	defer close(release)
	s.Handle("Page.navigate", func(jsonv2.Value) (any, error) {
		<-release // a browser that never answers
		return nil, nil
	})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.Call(ctx, "Page.navigate", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: %v", err)
	}
	if err := s.Call(ctx, "Page.navigate", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call with an ended context: %v", err)
	}

	errc := make(chan error, 1)
	go func() { errc <- s.Call(context.Background(), "Page.navigate", nil, nil) }()
	events, _ := s.Subscribe("Page.loadEventFired")
	for len(s.Calls()) < 2 {
		time.Sleep(time.Millisecond)
	}
	s.Close()
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, cdp.ErrClosed) {
			t.Errorf("call in flight at Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the call in flight")
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done open after Close")
	}
	if _, ok := <-events; ok {
		t.Error("subscription open after Close")
	}
	if err := s.Call(context.Background(), "Page.navigate", nil, nil); !errors.Is(err, cdp.ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
	late, _ := s.Subscribe("Page.loadEventFired")
	if _, ok := <-late; ok {
		t.Error("subscription after Close is open")
	}
	s.Emit("Page.loadEventFired", nil) // no-op
}

func TestEmit(t *testing.T) {
	s := cdptest.NewSession()
	defer s.Close()
	load, cancelLoad := s.Subscribe("Page.loadEventFired")
	load2, cancelLoad2 := s.Subscribe("Page.loadEventFired")
	console, cancelConsole := s.Subscribe("Runtime.consoleAPICalled")
	defer cancelConsole()

	s.Emit("Page.loadEventFired", page.EventLoadEventFired{})
	s.Emit("Page.domContentEventFired", page.EventDomContentEventFired{}) // nobody
	s.Emit("Runtime.consoleAPICalled", jsonv2.Value(`{"type":"log","args":[]}`))

	for _, ch := range []<-chan jsonv2.Value{load, load2} {
		if got := string(<-ch); got != `{"timestamp":0}` {
			t.Errorf("load event = %s", got)
		}
	}
	if got := string(<-console); got != `{"type":"log","args":[]}` {
		t.Errorf("console event = %s", got)
	}

	cancelLoad()
	cancelLoad()
	if _, ok := <-load; ok {
		t.Error("cancelled subscription is open")
	}
	s.Emit("Page.loadEventFired", jsonv2.Value(`{"timestamp":2}`))
	if got := string(<-load2); got != `{"timestamp":2}` {
		t.Errorf("remaining subscriber got %s", got)
	}

	// A full subscriber loses events instead of blocking Emit.
	for range cdp.SubscriptionBuffer + 3 {
		s.Emit("Page.loadEventFired", jsonv2.Value(`{}`))
	}
	if got := s.Dropped(); got != 3 {
		t.Errorf("Dropped = %d, want 3", got)
	}
	cancelLoad2()

	// Typed iteration over the fake's events.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := cdproto.Events(ctx, s, page.FrameNavigated)
	s.Emit("Page.frameNavigated", jsonv2.Value(`{"frame":{"id":"F1","loaderId":"L","url":"https://example.com/","domainAndRegistry":"example.com","securityOrigin":"https://example.com","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]},"type":"Navigation"}`))
	for ev, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Frame.ID != "F1" {
			t.Errorf("frame = %+v", ev.Frame)
		}
		break
	}
}
