package cdp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// waitTimeout bounds every wait in these tests: "promptly" means well within
// it, and a hang fails the test instead of the whole binary.
const waitTimeout = 5 * time.Second

// errFakeClosed is what the fake transport's reads and writes return once it
// is closed.
var errFakeClosed = errors.New("fake transport closed")

// fakeTransport is an in-memory Transport. The test plays the browser: it
// reads what the Conn wrote with next and answers with push, reply, replyErr
// and event, or starts serve to answer automatically.
type fakeTransport struct {
	in     chan []byte  // frames for the Conn's reader
	sent   chan message // frames the Conn wrote, decoded
	closed chan struct{}
	once   sync.Once

	mu      sync.Mutex // guards readErr
	readErr error      // returned by ReadMessage once closed
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{
		in:     make(chan []byte, 4096),
		sent:   make(chan message, 4096),
		closed: make(chan struct{}),
	}
}

func (f *fakeTransport) ReadMessage() ([]byte, error) {
	select {
	case b := <-f.in:
		return b, nil
	case <-f.closed:
		f.mu.Lock()
		defer f.mu.Unlock()
		return nil, f.readErr
	}
}

func (f *fakeTransport) WriteMessage(b []byte) error {
	var m message
	if err := jsonv2.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("fake transport: undecodable frame %q: %w", b, err)
	}
	select {
	case <-f.closed:
		return errFakeClosed
	default:
	}
	select {
	case f.sent <- m:
		return nil
	case <-f.closed:
		return errFakeClosed
	}
}

func (f *fakeTransport) Close() error {
	f.fail(errFakeClosed)
	return nil
}

// fail ends the transport as a browser crash would: reads return err.
func (f *fakeTransport) fail(err error) {
	f.once.Do(func() {
		f.mu.Lock()
		f.readErr = err
		f.mu.Unlock()
		close(f.closed)
	})
}

// push hands one raw frame to the Conn's reader.
func (f *fakeTransport) push(t testing.TB, frame string) {
	t.Helper()
	select {
	case f.in <- []byte(frame):
	case <-f.closed:
		t.Fatalf("push after close: %s", frame)
	case <-time.After(waitTimeout):
		t.Fatalf("push blocked: %s", frame)
	}
}

func (f *fakeTransport) reply(t testing.TB, id int64, result string) {
	t.Helper()
	f.push(t, fmt.Sprintf(`{"id":%d,"result":%s}`, id, result))
}

func (f *fakeTransport) replyErr(t testing.TB, id, code int64, msg string) {
	t.Helper()
	f.push(t, fmt.Sprintf(`{"id":%d,"error":{"code":%d,"message":%q}}`, id, code, msg))
}

func (f *fakeTransport) event(t testing.TB, session, method, params string) {
	t.Helper()
	if session == "" {
		f.push(t, fmt.Sprintf(`{"method":%q,"params":%s}`, method, params))
		return
	}
	f.push(t, fmt.Sprintf(`{"sessionId":%q,"method":%q,"params":%s}`, session, method, params))
}

// next returns the next frame the Conn wrote.
func (f *fakeTransport) next(t testing.TB) message {
	t.Helper()
	select {
	case m := <-f.sent:
		return m
	case <-time.After(waitTimeout):
		t.Fatal("no message sent")
		return message{}
	}
}

// noneSent checks that the Conn wrote nothing more.
func (f *fakeTransport) noneSent(t testing.TB) {
	t.Helper()
	select {
	case m := <-f.sent:
		t.Fatalf("unexpected message sent: %+v", m)
	default:
	}
}

// serve answers every command until the transport closes: fn returns the
// result JSON. Replies go out in reverse order of each batch of waiting
// requests, so replies overtake each other as with a real browser.
func (f *fakeTransport) serve(fn func(m message) (result string)) {
	go func() {
		for {
			var batch []message
			select {
			case m := <-f.sent:
				batch = append(batch, m)
			case <-f.closed:
				return
			}
		more:
			for {
				select {
				case m := <-f.sent:
					batch = append(batch, m)
				default:
					break more
				}
			}
			for _, m := range slices.Backward(batch) {
				frame := fmt.Sprintf(`{"id":%d,"sessionId":%q,"result":%s}`, m.ID, m.SessionID, fn(m))
				select {
				case f.in <- []byte(frame):
				case <-f.closed:
					return
				}
			}
		}
	}()
}

// newTestConn returns a Conn on a fake transport, closed at the end of the
// test.
func newTestConn(t testing.TB, opts *Options) (*Conn, *fakeTransport) {
	t.Helper()
	ft := newFakeTransport()
	c := NewConn(ft, opts)
	t.Cleanup(func() { c.Close() })
	return c, ft
}

// checkGoroutines fails the test if it ends with more goroutines than it
// started with. Call it first so its cleanup runs last.
func checkGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(waitTimeout)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d at start, %d at end\n%s", before, n, buf)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// wait fails the test unless ch closes (or yields) in time.
func wait[T any](t testing.TB, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// result is the outcome of an asynchronous call.
type result struct {
	raw jsonv2.Value
	err error
}

// goCall runs a call in the background; read the outcome from the channel.
func goCall(s *Session, method string, params any) <-chan result {
	return goCallCtx(context.Background(), s, method, params)
}

// goCallCtx is goCall with a context.
func goCallCtx(ctx context.Context, s *Session, method string, params any) <-chan result {
	ch := make(chan result, 1)
	go func() {
		var raw jsonv2.Value
		err := s.Call(ctx, method, params, &raw)
		ch <- result{raw, err}
	}()
	return ch
}

// await returns the outcome of a goCall.
func await(t testing.TB, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitTimeout):
		t.Fatal("call did not return")
		return result{}
	}
}

// closedWithin reports whether ch is closed, waiting for it briefly.
func closedWithin[T any](ch <-chan T) bool {
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timer.C:
			return false
		}
	}
}

// drain returns what is buffered in ch without waiting.
func drain(ch <-chan jsonv2.Value) []string {
	var out []string
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, strings.TrimSpace(string(v)))
		default:
			return out
		}
	}
}

// drainEvents returns what is buffered in ch without waiting, each as
// "method params".
func drainEvents(ch <-chan Event) []string {
	var out []string
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev.Method+" "+strings.TrimSpace(string(ev.Params)))
		default:
			return out
		}
	}
}
