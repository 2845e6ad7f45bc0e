package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// Both Session types satisfy the interfaces callers use.
var (
	_ Caller          = (*Session)(nil)
	_ cdproto.Session = (*Session)(nil)
)

func TestCallFrame(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ctx := context.Background()

	tests := []struct {
		name    string
		session string
		params  any
		want    string // frame without the id
	}{
		{"browser, no params", "", nil, `{"method":"Browser.getVersion"}`},
		{"session, params", "S1", map[string]any{"expression": "1+1"}, `{"sessionId":"S1","method":"Runtime.evaluate","params":{"expression":"1+1"}}`},
		{"empty struct params", "S2", struct{}{}, `{"sessionId":"S2","method":"Page.enable","params":{}}`},
	}
	var lastID int64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := strings.Split(strings.Split(tt.want, `"method":"`)[1], `"`)[0]
			ch := goCallCtx(ctx, c.Session(tt.session), method, tt.params)
			m := ft.next(t)
			if m.ID <= lastID {
				t.Errorf("id %d after %d; ids must increase", m.ID, lastID)
			}
			lastID = m.ID
			id := m.ID
			m.ID = 0
			got, err := jsonv2.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("frame = %s, want %s", got, tt.want)
			}
			ft.reply(t, id, `{}`)
			if r := await(t, ch); r.err != nil {
				t.Fatal(r.err)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	// The fake browser echoes the session and params of each command.
	ft.serve(func(m message) string {
		return fmt.Sprintf(`{"session":%q,"method":%q,"echo":%s}`, m.SessionID, m.Method, m.Params)
	})

	const workers, calls = 32, 25
	sessions := []*Session{c.Browser(), c.Session("A"), c.Session("B")}
	var wg sync.WaitGroup
	errs := make(chan error, workers*calls)
	for w := range workers {
		wg.Go(func() {
			s := sessions[w%len(sessions)]
			for i := range calls {
				var got struct {
					Session string `json:"session"`
					Method  string `json:"method"`
					Echo    struct {
						W, I int
					} `json:"echo"`
				}
				method := fmt.Sprintf("Test.m%d", i%3)
				err := s.Call(context.Background(), method, map[string]int{"W": w, "I": i}, &got)
				switch {
				case err != nil:
					errs <- err
				case got.Session != s.ID() || got.Method != method || got.Echo.W != w || got.Echo.I != i:
					errs <- fmt.Errorf("worker %d call %d on %q: got reply %+v", w, i, s.ID(), got)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.pending); n != 0 {
		t.Errorf("%d calls still pending", n)
	}
}

func TestBrowserError(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	tests := []struct {
		name  string
		frame string // %d is the id
		want  Error
	}{
		{
			name:  "code and message",
			frame: `{"id":%d,"sessionId":"S","error":{"code":-32000,"message":"Cannot find context with specified id"}}`,
			want:  Error{Method: "Runtime.evaluate", Code: -32000, Message: "Cannot find context with specified id"},
		},
		{
			name:  "with data",
			frame: `{"id":%d,"sessionId":"S","error":{"code":-32602,"message":"Invalid parameters","data":"Failed to deserialize params.expression"}}`,
			want:  Error{Method: "Runtime.evaluate", Code: -32602, Message: "Invalid parameters", Data: "Failed to deserialize params.expression"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := goCall(c.Session("S"), "Runtime.evaluate", map[string]string{"expression": "x"})
			ft.push(t, fmt.Sprintf(tt.frame, ft.next(t).ID))
			err := await(t, ch).err
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *cdp.Error", err, err)
			}
			if *ce != tt.want {
				t.Errorf("error = %+v, want %+v", *ce, tt.want)
			}
			if !strings.Contains(err.Error(), "Runtime.evaluate") || !strings.Contains(err.Error(), tt.want.Message) {
				t.Errorf("error text %q lacks the method or the message", err)
			}
			if errors.Is(err, ErrClosed) || errors.Is(err, ErrDetached) {
				t.Errorf("browser error %v matches a connection sentinel", err)
			}
		})
	}
}

func TestContextEnds(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		end  func(cancel context.CancelFunc) // ends the context after the send
		want error
	}{
		{
			name: "cancelled",
			ctx:  func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			end:  func(cancel context.CancelFunc) { cancel() },
			want: context.Canceled,
		},
		{
			name: "deadline",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 20*time.Millisecond)
			},
			end:  func(context.CancelFunc) {},
			want: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			s := c.Session("S")
			ch := goCallCtx(ctx, s, "Page.navigate", map[string]string{"url": "about:blank"})
			late := ft.next(t)
			start := time.Now()
			tt.end(cancel)
			r := await(t, ch)
			if !errors.Is(r.err, tt.want) {
				t.Fatalf("error = %v, want %v", r.err, tt.want)
			}
			if !strings.Contains(r.err.Error(), "Page.navigate") {
				t.Errorf("error %q does not name the method", r.err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("call returned %v after its context ended", d)
			}
			c.mu.Lock()
			_, pending := c.pending[late.ID]
			c.mu.Unlock()
			if pending {
				t.Error("abandoned call still pending")
			}

			// The late reply is dropped, and the next call gets its own.
			ft.reply(t, late.ID, `{"which":"late"}`)
			ch = goCall(s, "Page.navigate", nil)
			ft.reply(t, ft.next(t).ID, `{"which":"next"}`)
			if r := await(t, ch); r.err != nil || string(r.raw) != `{"which":"next"}` {
				t.Errorf("next call = %s, %v; want its own reply", r.raw, r.err)
			}
		})
	}

	t.Run("done before the call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := c.Browser().Call(ctx, "Browser.getVersion", nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		ft.noneSent(t)
	})
}

func TestTransportFails(t *testing.T) {
	checkGoroutines(t)
	crash := errors.New("read |0: broken pipe")
	c, ft := newTestConn(t, &Options{
		CloseErr: func() error { return errors.New("browser stderr: Trace/breakpoint trap") },
	})
	browser, page := c.Browser(), c.Session("S")
	events, cancel := page.Subscribe("Page.loadEventFired")
	defer cancel()
	browserEvents, cancelBrowser := browser.Subscribe("Target.targetCreated")
	defer cancelBrowser()

	ch := goCall(page, "Page.navigate", nil)
	ft.next(t)
	ch2 := goCall(browser, "Browser.getVersion", nil)
	ft.next(t)
	start := time.Now()
	ft.fail(crash)

	checkErr := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s: error = %v, want one matching ErrClosed", what, err)
			return
		}
		for _, want := range []string{"broken pipe", "Trace/breakpoint trap"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", what, err, want)
			}
		}
	}
	checkErr("pending session call", await(t, ch).err)
	checkErr("pending browser call", await(t, ch2).err)
	if d := time.Since(start); d > time.Second {
		t.Errorf("pending calls failed %v after the transport", d)
	}
	wait(t, c.Done(), "Conn.Done")
	wait(t, page.Done(), "Session.Done")
	wait(t, browser.Done(), "browser Session.Done")
	checkErr("Conn.Err", c.Err())
	checkErr("Session.Err", page.Err())
	if !closedWithin(events) || !closedWithin(browserEvents) {
		t.Error("subscriptions stay open after the connection ended")
	}

	// Later calls, subscriptions and sessions fail at once.
	checkErr("later call", page.Call(context.Background(), "Page.reload", nil, nil))
	checkErr("later browser call", browser.Call(context.Background(), "Browser.getVersion", nil, nil))
	late, lateCancel := page.Subscribe("Page.frameNavigated")
	if !closedWithin(late) {
		t.Error("subscription after close is open")
	}
	lateCancel()
	lateCancel()
	s := c.Session("new")
	wait(t, s.Done(), "Done of a session made after close")
	checkErr("call on a session made after close", s.Call(context.Background(), "Page.enable", nil, nil))
	ft.noneSent(t)
}

func TestCloseFailsPending(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ch := goCall(c.Session("S"), "Page.navigate", nil)
	ft.next(t)
	events, cancel := c.Session("S").Subscribe("Page.loadEventFired")
	defer cancel()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := await(t, ch).err; !errors.Is(err, ErrClosed) {
		t.Errorf("pending call after Close: %v, want ErrClosed", err)
	}
	if !closedWithin(events) {
		t.Error("subscription open after Close")
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done open after Close returned")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Browser().Call(context.Background(), "Browser.close", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v, want ErrClosed", err)
	}
}

func TestWriteFails(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ft.fail(errFakeClosed)
	// Whether the reader has noticed yet or not, the call fails with ErrClosed.
	err := c.Browser().Call(context.Background(), "Browser.getVersion", nil, nil)
	if !errors.Is(err, ErrClosed) {
		t.Errorf("call on a dead transport: %v, want ErrClosed", err)
	}
}

func TestDetach(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	a, b := c.Session("A"), c.Session("B")
	aEvents, aCancel := a.Subscribe("Page.loadEventFired")
	defer aCancel()
	bEvents, bCancel := b.Subscribe("Page.loadEventFired")
	defer bCancel()
	detachEvents, detachCancel := c.Browser().Subscribe("Target.detachedFromTarget")
	defer detachCancel()

	aCall := goCall(a, "Runtime.evaluate", nil)
	ft.next(t)
	bCall := goCall(b, "Runtime.evaluate", nil)
	bID := ft.next(t).ID

	ft.event(t, "", "Target.detachedFromTarget", `{"sessionId":"A","targetId":"T1"}`)

	if err := await(t, aCall).err; !errors.Is(err, ErrDetached) || errors.Is(err, ErrClosed) {
		t.Errorf("pending call on the detached session: %v, want ErrDetached", err)
	}
	wait(t, a.Done(), "Done of the detached session")
	if !errors.Is(a.Err(), ErrDetached) {
		t.Errorf("Err of detached session = %v", a.Err())
	}
	if !closedWithin(aEvents) {
		t.Error("subscription of the detached session is open")
	}
	if got := drain(detachEvents); len(got) != 1 {
		t.Errorf("browser subscriber got %q, want the detach event", got)
	}

	// Later calls and subscriptions on the detached session fail at once,
	// without reaching the browser.
	if err := a.Call(context.Background(), "Runtime.evaluate", nil, nil); !errors.Is(err, ErrDetached) {
		t.Errorf("later call on the detached session: %v, want ErrDetached", err)
	}
	late, lateCancel := a.Subscribe("Page.loadEventFired")
	if !closedWithin(late) {
		t.Error("later subscription on the detached session is open")
	}
	lateCancel()
	ft.noneSent(t)

	// B is unaffected.
	select {
	case <-b.Done():
		t.Fatal("other session ended")
	default:
	}
	ft.event(t, "B", "Page.loadEventFired", `{"timestamp":1}`)
	ft.reply(t, bID, `{"ok":true}`)
	if r := await(t, bCall); r.err != nil || string(r.raw) != `{"ok":true}` {
		t.Errorf("call on the other session = %s, %v", r.raw, r.err)
	}
	if got := drain(bEvents); len(got) != 1 || got[0] != `{"timestamp":1}` {
		t.Errorf("other session's events = %q", got)
	}
	if c.Err() != nil {
		t.Errorf("connection ended: %v", c.Err())
	}
}

func TestSubscriptionRouting(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	type key struct{ session, method string }
	subs := map[key]<-chan jsonv2.Value{}
	for _, k := range []key{
		{"", "Target.targetCreated"},
		{"S1", "Page.loadEventFired"},
		{"S1", "Runtime.consoleAPICalled"},
		{"S2", "Page.loadEventFired"},
	} {
		ch, cancel := c.Session(k.session).Subscribe(k.method)
		t.Cleanup(cancel)
		subs[k] = ch
	}
	// A second subscriber to the same key gets the same events.
	dup, dupCancel := c.Session("S1").Subscribe("Page.loadEventFired")
	defer dupCancel()

	events := []struct {
		session, method, params string
	}{
		{"S1", "Page.loadEventFired", `{"n":1}`},
		{"S2", "Page.loadEventFired", `{"n":2}`},
		{"", "Page.loadEventFired", `{"n":3}`},   // browser session: nobody
		{"S3", "Page.loadEventFired", `{"n":4}`}, // unknown session: nobody
		{"S1", "Runtime.consoleAPICalled", `{"n":5}`},
		{"", "Target.targetCreated", `{"n":6}`},
		{"S1", "Target.targetCreated", `{"n":7}`}, // method on the wrong session
		{"S1", "Page.loadEventFired", `{"n":8}`},
	}
	for _, e := range events {
		ft.event(t, e.session, e.method, e.params)
	}
	// The reader handles frames in order: once this reply is in, so are the
	// events.
	ch := goCall(c.Browser(), "Test.sync", nil)
	ft.reply(t, ft.next(t).ID, `{}`)
	await(t, ch)

	want := map[key][]string{
		{"", "Target.targetCreated"}:       {`{"n":6}`},
		{"S1", "Page.loadEventFired"}:      {`{"n":1}`, `{"n":8}`},
		{"S1", "Runtime.consoleAPICalled"}: {`{"n":5}`},
		{"S2", "Page.loadEventFired"}:      {`{"n":2}`},
	}
	for k, ch := range subs {
		if got := drain(ch); fmt.Sprint(got) != fmt.Sprint(want[k]) {
			t.Errorf("%q %s got %q, want %q", k.session, k.method, got, want[k])
		}
	}
	if got := drain(dup); fmt.Sprint(got) != fmt.Sprint(want[key{"S1", "Page.loadEventFired"}]) {
		t.Errorf("second subscriber got %q", got)
	}

	// Cancel closes the channel and stops delivery to it alone.
	dupCancel()
	if !closedWithin(dup) {
		t.Error("cancelled subscription is open")
	}
	dupCancel() // idempotent
	ft.event(t, "S1", "Page.loadEventFired", `{"n":9}`)
	ch = goCall(c.Browser(), "Test.sync", nil)
	ft.reply(t, ft.next(t).ID, `{}`)
	await(t, ch)
	if got := drain(subs[key{"S1", "Page.loadEventFired"}]); fmt.Sprint(got) != `[{"n":9}]` {
		t.Errorf("remaining subscriber got %q", got)
	}
	if c.Dropped() != 0 {
		t.Errorf("Dropped = %d, want 0", c.Dropped())
	}
}

// Events gets the events of several methods in one channel, in the order
// they came, with their method; it closes once (not once per method) when
// its session detaches.
func TestEvents(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	evs, cancel := c.Session("S1").Events("Runtime.executionContextsCleared", "Runtime.executionContextCreated")
	defer cancel()
	ft.event(t, "S1", "Runtime.executionContextsCleared", `{}`)
	ft.event(t, "S1", "Runtime.executionContextCreated", `{"context":{"id":2}}`)
	ft.event(t, "S1", "Page.loadEventFired", `{}`)
	ft.event(t, "S2", "Runtime.executionContextCreated", `{"context":{"id":9}}`)
	ft.event(t, "S1", "Runtime.executionContextsCleared", `{"x":1}`)
	ch := goCall(c.Browser(), "Test.sync", nil)
	ft.reply(t, ft.next(t).ID, `{}`)
	await(t, ch)
	want := []string{
		`Runtime.executionContextsCleared {}`,
		`Runtime.executionContextCreated {"context":{"id":2}}`,
		`Runtime.executionContextsCleared {"x":1}`,
	}
	if got := drainEvents(evs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	ft.event(t, "", "Target.detachedFromTarget", `{"sessionId":"S1"}`)
	if !closedWithin(evs) {
		t.Error("the subscription of a detached session is open")
	}
	cancel() // after the detach closed it: no second close
}

func TestSlowSubscriber(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	s := c.Session("S")
	slow, cancel := s.Subscribe("Network.dataReceived") // never read
	defer cancel()

	const n = SubscriptionBuffer + 100
	for i := range n {
		ft.event(t, "S", "Network.dataReceived", fmt.Sprintf(`{"i":%d}`, i))
	}
	// The reader is not blocked: a reply queued after the flood arrives.
	ch := goCall(s, "Runtime.evaluate", nil)
	ft.reply(t, ft.next(t).ID, `{"ok":true}`)
	if r := await(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	if got := c.Dropped(); got != n-SubscriptionBuffer {
		t.Errorf("Dropped = %d, want %d", got, n-SubscriptionBuffer)
	}
	// The subscriber keeps the oldest events.
	got := drain(slow)
	if len(got) != SubscriptionBuffer || got[0] != `{"i":0}` {
		t.Errorf("subscriber holds %d events starting %q", len(got), got[:min(1, len(got))])
	}
}

// TestSubscribeCancelRace cancels subscriptions while the reader delivers
// their events. Delivery used to send outside the lock, so a cancel between
// the two closed the channel under it: "send on closed channel".
func TestSubscribeCancelRace(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	s := c.Session("S")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, cancel := s.Subscribe("Page.lifecycleEvent")
				cancel()
			}
		})
	}
	for i := range 3000 {
		ft.event(t, "S", "Page.lifecycleEvent", fmt.Sprintf(`{"i":%d}`, i))
	}
	ch := goCall(s, "Test.sync", nil)
	ft.reply(t, ft.next(t).ID, `{}`)
	await(t, ch)
	close(stop)
	wg.Wait()
}

// TestCloseWhileBusy closes the connection while calls, subscriptions and
// events are in flight; with -race it checks the shutdown paths.
func TestCloseWhileBusy(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ft.serve(func(message) string { return `{}` })
	var wg sync.WaitGroup
	for i := range 8 {
		s := c.Session(fmt.Sprint("S", i%2))
		wg.Go(func() {
			for {
				if err := s.Call(context.Background(), "Test.ping", nil, nil); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("call: %v, want ErrClosed", err)
					}
					return
				}
			}
		})
		wg.Go(func() {
			for c.Err() == nil {
				ch, cancel := s.Subscribe("Test.event")
				cancel()
				if !closedWithin(ch) {
					t.Error("cancelled subscription is open")
					return
				}
			}
		})
	}
	go func() {
		for i := 0; ; i++ {
			select {
			case ft.in <- fmt.Appendf(nil, `{"sessionId":"S%d","method":"Test.event","params":{}}`, i%2):
			case <-ft.closed:
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	wg.Wait()
}

func TestReaderSkipsJunk(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ch := goCall(c.Browser(), "Browser.getVersion", nil)
	id := ft.next(t).ID
	for _, frame := range []string{
		`not json`,
		`{"id":"seven"}`,
		`{}`,
		`{"id":999999,"result":{}}`, // unknown id
		`{"id":999999,"error":{"code":1,"message":"x"}}`,
	} {
		ft.push(t, frame)
	}
	ft.reply(t, id, `{"product":"Chrome/140"}`)
	if r := await(t, ch); r.err != nil || string(r.raw) != `{"product":"Chrome/140"}` {
		t.Errorf("call = %s, %v", r.raw, r.err)
	}
	if c.Err() != nil {
		t.Errorf("junk ended the connection: %v", c.Err())
	}
}

func TestResultDecoding(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	s := c.Session("S")
	call := func(result any, reply string) error {
		errc := make(chan error, 1)
		go func() { errc <- s.Call(context.Background(), "Test.m", nil, result) }()
		ft.push(t, fmt.Sprintf(`{"id":%d,"sessionId":"S"%s}`, ft.next(t).ID, reply))
		select {
		case err := <-errc:
			return err
		case <-time.After(waitTimeout):
			t.Fatal("call did not return")
			return nil
		}
	}
	var v struct{ N int }
	if err := call(&v, `,"result":{"N":3}`); err != nil || v.N != 3 {
		t.Errorf("decode: %+v, %v", v, err)
	}
	if err := call(nil, `,"result":{"N":3}`); err != nil {
		t.Errorf("nil result: %v", err)
	}
	if err := call(&v, ``); err != nil {
		t.Errorf("reply without result: %v", err)
	}
	err := call(&v, `,"result":{"N":"three"}`)
	if err == nil || !strings.Contains(err.Error(), "Test.m") || !strings.Contains(err.Error(), "decoding") {
		t.Errorf("bad result: %v, want a decoding error naming the method", err)
	}
	if err := s.Call(context.Background(), "Test.m", func() {}, nil); err == nil {
		t.Error("unencodable params: no error")
	}
	ft.noneSent(t)
}

func TestTypedCall(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	s := c.Session("S")
	done := make(chan struct{})
	var res runtime.EvaluateResult
	var err error
	go func() {
		defer close(done)
		res, err = cdproto.Call(context.Background(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1"})
	}()
	m := ft.next(t)
	var p runtime.EvaluateParams
	if err := jsonv2.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if m.Method != "Runtime.evaluate" || m.SessionID != "S" || p.Expression != "1+1" {
		t.Errorf("sent %s on %q with %s", m.Method, m.SessionID, m.Params)
	}
	ft.reply(t, m.ID, `{"result":{"type":"number","value":2,"description":"2"}}`)
	wait(t, done, "typed call")
	if err != nil {
		t.Fatal(err)
	}
	if res.Result == nil || res.Result.Type != runtime.RemoteObjectTypeNumber || string(res.Result.Value) != "2" || res.Result.Description != "2" {
		t.Errorf("result = %+v", res.Result)
	}
}

// TestSlowCloseErrDoesNotStall: while Options.CloseErr runs (the launch
// backend waits there for the browser's stderr), the Conn's lock is free:
// calls, subscriptions, cancels and lookups return at once. CloseErr runs
// once, however many paths end the connection.
func TestSlowCloseErrDoesNotStall(t *testing.T) {
	checkGoroutines(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var calls sync.WaitGroup
	var mu sync.Mutex
	n := 0
	c, ft := newTestConn(t, &Options{CloseErr: func() error {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			close(entered)
		}
		<-release
		return errors.New("browser stderr: the tail")
	}})
	s := c.Session("S")
	events, cancel := s.Subscribe("Page.loadEventFired")
	pending := goCall(s, "Page.navigate", nil)
	ft.next(t)

	ft.fail(errors.New("read |0: broken pipe"))
	wait(t, entered, "CloseErr to be called")
	closing := make(chan struct{})
	calls.Go(func() { c.Close(); close(closing) }) // a second path to shutdown

	done := make(chan struct{})
	go func() {
		defer close(done)
		cancel()
		if !closedWithin(events) {
			t.Error("cancelled subscription is open")
		}
		_, lateCancel := s.Subscribe("Page.frameNavigated")
		lateCancel()
		_ = c.Session("other")
		_ = c.Err()
		_ = c.Browser().Call(context.Background(), "Browser.getVersion", nil, nil) // the write fails: the transport is gone
	}()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		close(release)
		t.Fatal("the Conn stalled while CloseErr ran")
	}
	close(release)

	err := await(t, pending).err
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "the tail") || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("pending call: %v, want ErrClosed with the cause and CloseErr's text", err)
	}
	wait(t, closing, "Close")
	if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "the tail") {
		t.Errorf("Conn.Err = %v", err)
	}
	calls.Wait()
	mu.Lock()
	defer mu.Unlock()
	if n != 1 {
		t.Errorf("CloseErr called %d times, want once", n)
	}
}

// TestSessionAfterDetach: a Target.detachedFromTarget can arrive before the
// caller of Target.attachToTarget looks its session up; the session it then
// gets is already ended instead of live forever.
func TestSessionAfterDetach(t *testing.T) {
	checkGoroutines(t)
	c, ft := newTestConn(t, nil)
	ft.event(t, "", "Target.detachedFromTarget", `{"sessionId":"EARLY","targetId":"T1"}`)
	// The event is handled once a later reply has been read.
	ch := goCall(c.Browser(), "Test.sync", nil)
	ft.reply(t, ft.next(t).ID, `{}`)
	await(t, ch)

	s := c.Session("EARLY")
	select {
	case <-s.Done():
	default:
		t.Fatal("a session detached before its lookup is live")
	}
	if !errors.Is(s.Err(), ErrDetached) {
		t.Errorf("Err = %v, want ErrDetached", s.Err())
	}
	if err := s.Call(context.Background(), "Runtime.evaluate", nil, nil); !errors.Is(err, ErrDetached) {
		t.Errorf("call: %v, want ErrDetached", err)
	}
	events, cancel := s.Subscribe("Page.loadEventFired")
	defer cancel()
	if !closedWithin(events) {
		t.Error("subscription on the detached session is open")
	}
	ft.noneSent(t)
	if s2 := c.Session("EARLY"); !errors.Is(s2.Err(), ErrDetached) {
		t.Errorf("second lookup: Err = %v, want ErrDetached", s2.Err())
	}
	// Other sessions are unaffected.
	if err := c.Session("LIVE").Err(); err != nil {
		t.Errorf("another session: Err = %v", err)
	}
}

// A lost connection ends its sessions at once, before the close work
// (CloseErr: the launch backend waiting for the browser's exit) is done: a
// caller that checks a session's Done right after the loss sees it ended,
// and its calls fail at once instead of waiting.
func TestSessionsEndBeforeCloseWork(t *testing.T) {
	release := make(chan struct{})
	c, ft := newTestConn(t, &Options{
		CloseErr: func() error { <-release; return errors.New("browser exited: signal: killed") },
	})
	page := c.Session("S")
	ft.fail(errors.New("EOF"))
	wait(t, page.Done(), "Session.Done while the close work runs")
	if err := page.Call(context.Background(), "Page.reload", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("a call while the close work runs: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
		t.Error("Conn.Done closed before the close work was done")
	default:
	}
	close(release)
	wait(t, c.Done(), "Conn.Done")
	if err := page.Err(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Session.Err after the close work = %v, want the whole error", err)
	}
}

// brokenWrites is a fake transport whose writes fail once broken is set,
// while its reads still wait: a browser that died, before the reader has
// seen the end of its pipe.
type brokenWrites struct {
	*fakeTransport
	broken atomic.Bool
}

func (b *brokenWrites) WriteMessage(m []byte) error {
	if b.broken.Load() {
		return errors.New("write |1: broken pipe")
	}
	return b.fakeTransport.WriteMessage(m)
}

// A write that fails ends the connection at once: Err says so before the
// reader has seen the end, so that the next call (the launcher's check)
// starts a new browser instead of writing to the dead one again, and the
// connection shuts down.
func TestWriteFailureEndsConn(t *testing.T) {
	ft := &brokenWrites{fakeTransport: newFakeTransport()}
	c := NewConn(ft, nil)
	defer c.Close()
	if c.Err() != nil {
		t.Fatalf("a new connection: Err = %v", c.Err())
	}
	ft.broken.Store(true)
	err := c.Browser().Call(context.Background(), "Browser.getVersion", nil, nil)
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("call on a broken pipe: %v", err)
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Err right after the failed write = %v, want ErrClosed with the cause", err)
	}
	select {
	case <-c.Done():
	case <-time.After(waitTimeout):
		t.Fatal("the connection did not shut down after a failed write")
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Err after the shutdown = %v", err)
	}
}
