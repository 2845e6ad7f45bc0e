package cdptest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Call is one command a Session received.
type Call struct {
	Method string
	// Params are the params as JSON, as the real connection would send them;
	// nil when the caller passed nil.
	Params jsonv2.Value
}

// Handler answers one command. It gets the params as JSON and returns the
// result (marshalled with jsonv2; nil for none) or an error.
type Handler func(params jsonv2.Value) (result any, err error)

// Session is a scripted fake of an attached target; see the package doc. It
// is safe for concurrent use. The zero value is not usable; call NewSession.
type Session struct {
	done chan struct{}

	mu       sync.Mutex // guards the fields below
	handlers map[string]Handler
	calls    []Call
	subs     map[string]map[*sub]struct{}
	closed   bool
	dropped  int64
}

var _ cdp.Caller = (*Session)(nil)

// NewSession returns a live Session with no handlers.
func NewSession() *Session {
	return &Session{
		done:     make(chan struct{}),
		handlers: make(map[string]Handler),
		subs:     make(map[string]map[*sub]struct{}),
	}
}

// Handle makes fn answer every later call of method, replacing any earlier
// handler. Calls run fn on a goroutine of their own, so fn may block (to
// test timeouts, say); a call whose context ends or whose session closes
// returns without waiting for fn, and fn's result is dropped.
func (s *Session) Handle(method string, fn func(params jsonv2.Value) (result any, err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = fn
}

// Reply makes every later call of method return resultJSON, such as a
// reply recorded from a browser. It panics if resultJSON is not valid JSON.
func (s *Session) Reply(method, resultJSON string) {
	raw := jsonv2.Value(resultJSON)
	if !raw.IsValid() {
		panic(fmt.Sprintf("cdptest: Reply(%q): result is not valid JSON", method))
	}
	s.Handle(method, func(jsonv2.Value) (any, error) { return raw, nil })
}

// Fail makes every later call of method fail with err.
func (s *Session) Fail(method string, err error) {
	s.Handle(method, func(jsonv2.Value) (any, error) { return nil, err })
}

// Emit sends an event to the current subscribers of method. params is
// marshalled with jsonv2 (pass a [jsonv2.Value] for raw JSON); Emit panics if
// that fails. As with the real connection, a subscriber whose buffer
// ([cdp.SubscriptionBuffer]) is full loses the event (see [Session.Dropped]).
// After Close, Emit does nothing.
func (s *Session) Emit(method string, params any) {
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		panic(fmt.Sprintf("cdptest: Emit(%q): encoding params: %v", method, err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for sb := range s.subs[method] {
		if !sb.send(cdp.Event{Method: method, Params: jsonv2.Value(raw)}) {
			s.dropped++
		}
	}
}

// Calls returns the calls received so far, in order, including those with no
// handler.
func (s *Session) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Dropped reports how many events Emit dropped because a subscriber fell
// behind.
func (s *Session) Dropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Close ends the session as a detach or a lost connection would: Done
// closes, subscriptions close, calls in flight and later fail with an error
// matching [cdp.ErrClosed]. Close may be called more than once.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for _, set := range s.subs {
		for sb := range set {
			sb.close()
		}
	}
	clear(s.subs)
	close(s.done)
}

// Done is closed by Close.
func (s *Session) Done() <-chan struct{} { return s.done }

// sub is one subscription, under the key of each of its methods.
// One of params (Subscribe) and events (Events) is set.
type sub struct {
	params chan jsonv2.Value
	events chan cdp.Event
	closed bool // under Session.mu
}

func (sb *sub) close() {
	if sb.closed {
		return
	}
	sb.closed = true
	if sb.params != nil {
		close(sb.params)
	} else {
		close(sb.events)
	}
}

// send hands an event over without blocking; false: the buffer is full.
func (sb *sub) send(ev cdp.Event) bool {
	if sb.params != nil {
		select {
		case sb.params <- ev.Params:
			return true
		default:
			return false
		}
	}
	select {
	case sb.events <- ev:
		return true
	default:
		return false
	}
}

// Subscribe buffers the params of the events Emit sends for method from
// now on. The channel closes when cancel is called or the session closes.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sb := &sub{params: make(chan jsonv2.Value, cdp.SubscriptionBuffer)}
	return sb.params, s.add(sb, method)
}

// Events buffers the events Emit sends for the methods named from now on,
// in one channel, in the order they are emitted. The channel closes when
// cancel is called or the session closes.
func (s *Session) Events(methods ...string) (<-chan cdp.Event, func()) {
	sb := &sub{events: make(chan cdp.Event, cdp.BufferFor(len(methods)))}
	return sb.events, s.add(sb, methods...)
}

// add puts sb under each of the methods; the func returned cancels it.
func (s *Session) add(sb *sub, methods ...string) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		sb.close()
		return func() {}
	}
	for _, m := range methods {
		set := s.subs[m]
		if set == nil {
			set = make(map[*sub]struct{})
			s.subs[m] = set
		}
		set[sb] = struct{}{}
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, m := range methods {
			delete(s.subs[m], sb)
		}
		sb.close()
	}
}

// Call records the call, runs the method's handler and decodes its result
// into result (which may be nil), as the real connection decodes a reply.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cdptest: %s: %w", method, err)
	}
	var rawParams jsonv2.Value
	if params != nil {
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return fmt.Errorf("cdptest: %s: encoding params: %w", method, err)
		}
		rawParams = b
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("cdptest: %s: %w", method, cdp.ErrClosed)
	}
	s.calls = append(s.calls, Call{Method: method, Params: rawParams})
	h := s.handlers[method]
	s.mu.Unlock()
	if h == nil {
		return fmt.Errorf("cdptest: no handler for %s", method)
	}

	type outcome struct {
		raw jsonv2.Value
		err error
	}
	out := make(chan outcome, 1)
	go func() {
		res, err := h(rawParams)
		switch {
		case err != nil:
			out <- outcome{err: withMethod(method, err)}
		case res == nil:
			out <- outcome{}
		default:
			raw, err := jsonv2.Marshal(res)
			if err != nil {
				err = fmt.Errorf("cdptest: %s: encoding result: %w", method, err)
			}
			out <- outcome{raw: raw, err: err}
		}
	}()
	var o outcome
	select {
	case o = <-out:
	case <-ctx.Done():
		return fmt.Errorf("cdptest: %s: %w", method, ctx.Err())
	case <-s.done:
		return fmt.Errorf("cdptest: %s: %w", method, cdp.ErrClosed)
	}
	if o.err != nil {
		return o.err
	}
	if result == nil || len(o.raw) == 0 {
		return nil
	}
	if err := jsonv2.Unmarshal(o.raw, result); err != nil {
		return fmt.Errorf("cdptest: %s: decoding result: %w", method, err)
	}
	return nil
}

// withMethod fills in the Method of a *cdp.Error that lacks one, as the real
// connection names the method of every browser error.
func withMethod(method string, err error) error {
	// Only a bare *cdp.Error: a wrapped one is the handler's to word.
	if ce, ok := err.(*cdp.Error); ok && ce.Method == "" {
		c := *ce
		c.Method = method
		return &c
	}
	return err
}
