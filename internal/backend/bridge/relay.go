package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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

	mu      sync.Mutex // guards the fields below
	pending map[int64]chan reply
	handler func(event string, params json.RawMessage)
	cause   error
}

type reply struct {
	result json.RawMessage
	err    error
}

func newRelay(c *websocket.Conn, h Hello, log *slog.Logger, idle time.Duration) *Relay {
	return &Relay{c: c, hello: h, log: log, idle: idle, since: time.Now(), done: make(chan struct{}), pending: make(map[int64]chan reply)}
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
	r.pending[id] = ch
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
		var m struct {
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
		if err := json.Unmarshal(data, &m); err != nil {
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
		case m.Event != "":
			r.mu.Lock()
			h := r.handler
			r.mu.Unlock()
			if h != nil {
				h(m.Event, m.Params)
			}
		case m.ID != 0:
			r.mu.Lock()
			ch := r.pending[m.ID]
			r.mu.Unlock()
			if ch == nil {
				continue
			}
			if m.Error != nil {
				ch <- reply{err: &OpError{Code: m.Error.Code, Message: m.Error.Message}}
			} else {
				ch <- reply{result: m.Result}
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
