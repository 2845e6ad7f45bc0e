package cdp

import (
	"context"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Session is one attached target (or the browser itself, with an empty id)
// on a Conn. It implements cdproto's Session interface and [Caller].
type Session struct {
	conn *Conn
	id   string
	done chan struct{}

	mu  sync.Mutex // guards err; taken under Conn.mu, never around it
	err error
}

func newSession(c *Conn, id string) *Session {
	return &Session{conn: c, id: id, done: make(chan struct{})}
}

// ID is the CDP session id ("" for the browser session).
func (s *Session) ID() string { return s.id }

// Conn is the connection the session runs on.
func (s *Session) Conn() *Conn { return s.conn }

// Child returns the session of a target attached through this one, given
// the sessionId of its Target.attachedToTarget event (an out-of-process
// iframe under auto-attach).
func (s *Session) Child(sessionID string) *Session {
	return s.conn.Session(s.conn.childID(s.id, sessionID))
}

// Call sends the command and decodes its result into result (may be nil).
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.conn.call(ctx, s, method, params, result)
}

// Send writes the command and returns, without waiting for its reply, the
// function that waits for it (bounded by ctx) and decodes it into result.
// Commands are written in the order Send is called: a target paused for
// its debugger answers nothing until Runtime.runIfWaitingForDebugger, so
// the commands that must run before it resumes are sent ahead of that one,
// and only then awaited.
func (s *Session) Send(ctx context.Context, method string, params any) (wait func(result any) error, err error) {
	return s.conn.send(ctx, s, method, params)
}

// Subscribe buffers the session's events named method from now on. The
// channel closes when cancel is called or the session ends.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := &subscriber{params: make(chan jsonv2.Value, SubscriptionBuffer)}
	return sub.params, s.conn.subscribe(s, sub, method)
}

// Events buffers the session's events of the methods named from now on,
// in one channel, in the order the browser sent them: state that events of
// several kinds change in turn (a context cleared, then one created; a
// request's start, response and end) is applied in that order. The channel
// closes when cancel is called or the session ends.
func (s *Session) Events(methods ...string) (<-chan Event, func()) {
	sub := &subscriber{events: make(chan Event, BufferFor(len(methods)))}
	return sub.events, s.conn.subscribe(s, sub, methods...)
}

// Done is closed when the session ends (detached or connection closed).
func (s *Session) Done() <-chan struct{} { return s.done }

// Err reports why the session ended, or nil while it is live.
func (s *Session) Err() error { return s.endErr() }

func (s *Session) endErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// refine replaces the error of a session that ended early in its
// connection's shutdown with the whole one (the cause and what closing
// found, e.g. the browser's exit status).
func (s *Session) refine(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		s.err = err
	}
}

func (s *Session) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	s.err = err
	close(s.done)
}
