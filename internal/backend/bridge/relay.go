package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/coder/websocket"
)

// Hello is what the extension said about itself.
type Hello struct {
	ExtensionVersion string `json:"extension_version"`
	ProfileID        string `json:"profile_id"`
	// ProfileName is the profile's name: the one the extension sent
	// (cleaned), one derived from the id for an older extension, with -2,
	// -3, … added when another connected profile has it.
	ProfileName string `json:"profile_name"`
	UserAgent   string `json:"user_agent"`
}

// OpError is an op the extension answered with an error.
type OpError struct {
	Op      string
	Code    string // no_tab, not_allowed, detached, bad_request, failed
	Message string
}

func (e *OpError) Error() string {
	return fmt.Sprintf("bridge: %s: %s (%s)", e.Op, e.Message, e.Code)
}

// Relay is one admitted extension connection. Its methods are safe for
// concurrent use.
type Relay struct {
	c     *websocket.Conn
	hello Hello
	log   *slog.Logger
	idle  time.Duration
	since time.Time // when the connection was admitted
	next  atomic.Int64
	done  chan struct{}
	wmu   sync.Mutex // serializes writes

	mu sync.Mutex // guards the fields below
	// pending are the requests waiting for their reply, by id: each gets
	// its reply on the reader goroutine and must not block.
	pending map[int64]func(reply)
	handler func(event string, params json.RawMessage)
	cause   error
	// person gets the person's events (personEvents); set before run.
	person func(r *Relay, event string, params json.RawMessage)
}

type reply struct {
	result json.RawMessage
	err    error
}

func newRelay(c *websocket.Conn, h Hello, log *slog.Logger, idle time.Duration) *Relay {
	return &Relay{c: c, hello: h, log: log, idle: idle, since: time.Now(), done: make(chan struct{}), pending: make(map[int64]func(reply))}
}

// Hello is what the extension said in its hello.
func (r *Relay) Hello() Hello { return r.hello }

// Done is closed when the connection has ended.
func (r *Relay) Done() <-chan struct{} { return r.done }

// OnEvent sets the function events are handed to. It runs on the reader
// goroutine and must not block.
func (r *Relay) OnEvent(h func(event string, params json.RawMessage)) {
	r.mu.Lock()
	r.handler = h
	r.mu.Unlock()
}

func (r *Relay) alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

func (r *Relay) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cause
}

// Request sends op with params and decodes the result into result (may be
// nil). It fails with ErrDisconnected when the connection ends first.
func (r *Relay) Request(ctx context.Context, op string, params, result any) error {
	id := r.next.Add(1)
	ch := make(chan reply, 1)
	r.mu.Lock()
	if r.cause != nil {
		cause := r.cause
		r.mu.Unlock()
		return fmt.Errorf("bridge: %s: %w (%v)", op, ErrDisconnected, cause)
	}
	r.pending[id] = func(rep reply) { ch <- rep }
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.pending, id)
		r.mu.Unlock()
	}()
	if params == nil {
		params = struct{}{}
	}
	msg, err := json.Marshal(map[string]any{"id": id, "op": op, "params": params})
	if err != nil {
		return fmt.Errorf("bridge: %s: %w", op, err)
	}
	r.wmu.Lock()
	err = r.c.Write(ctx, websocket.MessageText, msg)
	r.wmu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("bridge: %s: %w", op, ctx.Err())
		}
		r.close(err)
		return fmt.Errorf("bridge: %s: %w (%v)", op, ErrDisconnected, err)
	}
	select {
	case rep := <-ch:
		if rep.err != nil {
			var oe *OpError
			if errors.As(rep.err, &oe) {
				oe.Op = op
			}
			return rep.err
		}
		if result != nil && len(rep.result) > 0 {
			if err := json.Unmarshal(rep.result, result); err != nil {
				return fmt.Errorf("bridge: %s: decoding result: %w", op, err)
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bridge: %s: %w", op, ctx.Err())
	case <-r.done:
		return fmt.Errorf("bridge: %s: %w (%v)", op, ErrDisconnected, r.err())
	}
}

// writeTimeout bounds the write of one request: an extension that reads
// nothing for this long is gone.
const writeTimeout = 30 * time.Second

// send writes op with params, already encoded as a JSON object, and returns
// at once: done gets the reply on the reader goroutine and must not block.
// done is not called when the connection ends first (nor when send fails);
// whoever waits learns of the end from Done. Requests are written in the
// order of the calls, with no round trip awaited in between, so several may
// be in flight at once and answered in any order.
func (r *Relay) send(op string, params []byte, done func(result json.RawMessage, err error)) error {
	id := r.next.Add(1)
	r.mu.Lock()
	if r.cause != nil {
		cause := r.cause
		r.mu.Unlock()
		return fmt.Errorf("bridge: %s: %w (%v)", op, ErrDisconnected, cause)
	}
	r.pending[id] = func(rep reply) {
		var oe *OpError
		if errors.As(rep.err, &oe) {
			oe.Op = op
		}
		done(rep.result, rep.err)
	}
	r.mu.Unlock()
	msg := make([]byte, 0, len(params)+48)
	msg = append(msg, `{"id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"op":`...)
	msg = appendString(msg, op)
	msg = append(msg, `,"params":`...)
	msg = append(msg, params...)
	msg = append(msg, '}')
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	r.wmu.Lock()
	err := r.c.Write(ctx, websocket.MessageText, msg)
	r.wmu.Unlock()
	if err != nil {
		r.mu.Lock()
		delete(r.pending, id)
		r.mu.Unlock()
		r.close(err)
		return fmt.Errorf("bridge: %s: %w (%v)", op, ErrDisconnected, err)
	}
	return nil
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := jsonv2.Marshal(s) // a string always encodes
	return append(b, q...)
}

// inbound is one message from the extension: a reply, an event or a ping.
type inbound struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
	Event  string          `json:"event"`
	Params json.RawMessage `json:"params"`
	Type   string          `json:"type"`
	TS     json.RawMessage `json:"ts"`
}

// lenient takes text that is not valid UTF-8, as encoding/json did before
// it: such a string is passed on as it came.
var lenient = jsonv2.AllowInvalidUTF8(true)

// decodeInbound decodes one message in a single pass over it, the result
// or params kept as they came (a snapshot's reply runs to megabytes); the
// slower encoding/json takes what that pass refuses.
func decodeInbound(data []byte, m *inbound) error {
	if jsonv2.Unmarshal(data, m, lenient) == nil {
		return nil
	}
	*m = inbound{}
	return json.Unmarshal(data, m)
}

// run reads until the connection ends.
func (r *Relay) run() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), r.idle)
		_, data, err := r.c.Read(ctx)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("no message from the extension for %s", r.idle)
			}
			r.close(err)
			return
		}
		var m inbound
		if err := decodeInbound(data, &m); err != nil {
			r.log.Warn("bridge: undecodable message", "err", err)
			continue
		}
		switch {
		case m.Type == "ping":
			pong, _ := json.Marshal(map[string]any{"type": "pong", "ts": m.TS})
			r.wmu.Lock()
			wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = r.c.Write(wctx, websocket.MessageText, pong)
			cancel()
			r.wmu.Unlock()
		case personEvents[m.Event]:
			if r.person != nil {
				r.person(r, m.Event, m.Params)
			}
		case m.Event != "":
			r.mu.Lock()
			h := r.handler
			r.mu.Unlock()
			if h != nil {
				h(m.Event, m.Params)
			}
		case m.ID != 0:
			r.mu.Lock()
			done := r.pending[m.ID]
			delete(r.pending, m.ID)
			r.mu.Unlock()
			if done == nil {
				continue
			}
			if m.Error != nil {
				done(reply{err: &OpError{Code: m.Error.Code, Message: m.Error.Message}})
			} else {
				done(reply{result: m.Result})
			}
		}
	}
}

// close ends the connection once, failing every pending request.
func (r *Relay) close(cause error) {
	r.mu.Lock()
	if r.cause != nil {
		r.mu.Unlock()
		return
	}
	if cause == nil {
		cause = errors.New("closed")
	}
	r.cause = cause
	r.mu.Unlock()
	close(r.done)
	_ = r.c.CloseNow()
}
