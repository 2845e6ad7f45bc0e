package cdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrClosed means the connection to the browser is gone.
	ErrClosed = errors.New("cdp: connection closed")
	// ErrDetached means the session's target was detached (tab closed,
	// debugger detached).
	ErrDetached = errors.New("cdp: session detached")
	// ErrDetachedByUser is joined to ErrDetached when the user let go of
	// the target (cancelled debugging on the browser's infobar).
	ErrDetachedByUser = errors.New("cdp: the user cancelled debugging of the target")
	// ErrReleasedByUser is joined to ErrDetachedByUser when the user took
	// the tab from webpilot (the bridge: dragged out of webpilot's tab
	// group or window): the tab is the user's now.
	ErrReleasedByUser = errors.New("cdp: the user took the tab from webpilot")
)

// Error is a command the browser answered with an error.
type Error struct {
	Method  string
	Code    int64
	Message string
	Data    string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("cdp: %s: %s (%d)", e.Method, e.Message, e.Code)
	if e.Data != "" {
		s += ": " + e.Data
	}
	return s
}

// Caller is what browser code needs from an attached CDP session (a tab or
// frame target): commands, event subscriptions and its end. [*Session]
// implements it; package cdptest has a scripted fake.
type Caller interface {
	// Call sends method with params and decodes the result into result
	// (which may be nil).
	Call(ctx context.Context, method string, params, result any) error
	// Subscribe buffers the events named method from now on; cancel stops
	// it (cdproto's session interface: its typed commands need it).
	Subscribe(method string) (events <-chan jsonv2.Value, cancel func())
	// Events buffers the events of the methods named from now on, in one
	// channel, in the order the browser sent them; cancel stops it.
	Events(methods ...string) (events <-chan Event, cancel func())
	// Done is closed when the session ends.
	Done() <-chan struct{}
}

// SubscriptionBuffer is the number of events a subscriber of one method may
// fall behind before events are dropped; a subscriber of several methods
// gets this many per method, up to MaxSubscriptionBuffer.
const SubscriptionBuffer = 512

// MaxSubscriptionBuffer bounds the buffer of one subscription.
const MaxSubscriptionBuffer = 4096

// BufferFor is the buffer of a subscription to n methods.
func BufferFor(n int) int { return min(SubscriptionBuffer*max(n, 1), MaxSubscriptionBuffer) }

// Event is one event as a subscriber gets it: its method and its params.
type Event struct {
	Method string
	Params jsonv2.Value
}

// Options configure a Conn. The zero value works.
type Options struct {
	Logger *slog.Logger
	// CloseErr, when set, is called once when the connection ends; its result
	// is joined to ErrClosed in the errors of pending and later calls (the
	// launch backend adds the tail of the browser's stderr this way). It may
	// take a while: it runs without the Conn's lock held.
	CloseErr func() error
	// ChildSessionID, when set, maps the session id of a child target (as
	// Target.attachedToTarget names it) attached through the parent session
	// to the id the Conn routes it by. A relay that multiplexes several
	// debuggees sets it; the default is the child's own id.
	ChildSessionID func(parent, child string) string
}

// message is one CDP frame in either direction.
type message struct {
	ID        int64         `json:"id,omitzero"`
	SessionID string        `json:"sessionId,omitzero"`
	Method    string        `json:"method,omitzero"`
	Params    jsonv2.Value  `json:"params,omitzero"`
	Result    jsonv2.Value  `json:"result,omitzero"`
	Error     *messageError `json:"error,omitzero"`
}

type messageError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitzero"`
}

type reply struct {
	result jsonv2.Value
	err    error
}

type pendingCall struct {
	method  string
	session string
	ch      chan reply
}

type subscriber struct {
	// One of the two is set: params gets only the params of one method
	// (Session.Subscribe), events the events of several (Session.Events).
	params chan jsonv2.Value
	events chan Event
	closed bool // under Conn.mu: one subscriber may sit under several keys
}

// close closes the channel once (under Conn.mu).
func (s *subscriber) close() {
	if !s.closed {
		s.closed = true
		if s.params != nil {
			close(s.params)
		} else {
			close(s.events)
		}
	}
}

type subKey struct{ session, method string }

// Conn is one connection to a browser; see the package doc.
type Conn struct {
	t      Transport
	log    *slog.Logger
	opts   Options
	nextID atomic.Int64
	drops  atomic.Int64
	done   chan struct{}
	wmu    sync.Mutex // serializes writes

	extraOnce sync.Once // runs opts.CloseErr
	extraErr  error     // its result

	mu       sync.Mutex // guards the fields below
	pending  map[int64]*pendingCall
	subs     map[subKey]map[*subscriber]struct{}
	sessions map[string]*Session
	// detached holds the ids of sessions whose target has detached, so that
	// a session looked up only after its detach (the event can overtake the
	// caller of Target.attachToTarget) is born ended. It is never pruned: an
	// entry is a few dozen bytes per tab ever attached.
	detached map[string]struct{}
	closeErr error
	// closeCause is the first real reason for a shutdown (a transport
	// failure), kept for whichever shutdown path finishes it.
	closeCause error
}

// NewConn starts reading t. The Conn owns t and closes it on Close.
func NewConn(t Transport, opts *Options) *Conn {
	c := &Conn{
		t:        t,
		done:     make(chan struct{}),
		pending:  make(map[int64]*pendingCall),
		subs:     make(map[subKey]map[*subscriber]struct{}),
		sessions: make(map[string]*Session),
		detached: make(map[string]struct{}),
	}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.sessions[""] = newSession(c, "")
	go c.readLoop()
	return c
}

// childID is the routing id of the child session attached through parent.
func (c *Conn) childID(parent, child string) string {
	if c.opts.ChildSessionID == nil || parent == "" {
		return child
	}
	return c.opts.ChildSessionID(parent, child)
}

// Browser returns the browser-level session (no session id).
func (c *Conn) Browser() *Session { return c.Session("") }

// Session returns the session with the id, as returned by
// Target.attachToTarget with flatten. A session is created on first use; one
// whose Target.detachedFromTarget has been seen already is returned ended
// ([ErrDetached]), as is every session once the connection has ended.
func (c *Conn) Session(id string) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if ok {
		return s
	}
	s = newSession(c, id)
	if c.closeErr != nil {
		s.end(c.closeErr)
		return s
	}
	if _, gone := c.detached[id]; gone {
		// Not stored: there is nothing left to route to it.
		s.end(ErrDetached)
		return s
	}
	c.sessions[id] = s
	return s
}

// Reattached forgets that the target of session id detached, so that a
// later Session(id) is live again. It is for a relay whose session ids name
// the debuggee itself (the bridge's tab-<n>), which reuses the id when it
// attaches the same target again.
func (c *Conn) Reattached(id string) {
	c.mu.Lock()
	delete(c.detached, id)
	c.mu.Unlock()
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended, or nil while it is open. A
// connection whose end has begun (a write failed, the reader saw the
// transport end) reports it at once, before the shutdown is over.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil && c.closeCause != nil {
		return fmt.Errorf("%w: %w", ErrClosed, c.closeCause)
	}
	return c.closeErr
}

// Dropped reports how many events were dropped because a subscriber fell
// behind.
func (c *Conn) Dropped() int64 { return c.drops.Load() }

// commandsSent counts the commands every Conn of the process has written,
// and sentByMethod per method (string → *atomic.Int64).
var (
	commandsSent atomic.Int64
	sentByMethod sync.Map
)

// CommandsSent reports how many commands all connections of this process
// have sent to browsers (instrumentation: `make bench` shows it per
// action, through browser_status).
func CommandsSent() int64 { return commandsSent.Load() }

// MethodSent reports how many commands named method all connections of
// this process have sent.
func MethodSent(method string) int64 {
	if n, ok := sentByMethod.Load(method); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// SentByMethod reports, per method, how many commands all connections of
// this process have sent.
func SentByMethod() map[string]int64 {
	out := make(map[string]int64)
	sentByMethod.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

func countSent(method string) {
	commandsSent.Add(1)
	n, ok := sentByMethod.Load(method)
	if !ok {
		n, _ = sentByMethod.LoadOrStore(method, new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}

// Close closes the transport and fails every pending call.
func (c *Conn) Close() error {
	err := c.t.Close()
	c.shutdown(ErrClosed)
	<-c.done
	return err
}

func (c *Conn) call(ctx context.Context, s *Session, method string, params, result any) error {
	wait, err := c.send(ctx, s, method, params)
	if err != nil {
		return err
	}
	return wait(result)
}

// send writes the command and returns the function that waits for its reply
// (bounded by ctx) and decodes it into result.
func (c *Conn) send(ctx context.Context, s *Session, method string, params any) (func(result any) error, error) {
	session := s.id
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	msg := message{ID: c.nextID.Add(1), SessionID: session, Method: method}
	if params != nil {
		raw, err := jsonv2.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("cdp: %s: encoding params: %w", method, err)
		}
		msg.Params = raw
	}
	frame, err := jsonv2.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("cdp: %s: encoding: %w", method, err)
	}
	p := &pendingCall{method: method, session: session, ch: make(chan reply, 1)}
	c.mu.Lock()
	if c.closeErr != nil {
		err := c.closeErr
		c.mu.Unlock()
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	// The session's own state, not the table's: a detached session is no
	// longer in c.sessions, and its calls must not reach the browser.
	if err := s.endErr(); err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	c.pending[msg.ID] = p
	c.mu.Unlock()

	c.log.Debug("send", "id", msg.ID, "session", session, "method", method)
	countSent(method)
	c.wmu.Lock()
	err = c.t.WriteMessage(frame)
	c.wmu.Unlock()
	if err != nil {
		c.forget(msg.ID)
		// A transport that fails a write is gone (a broken pipe: the
		// browser died). The end is recorded now, so that the next call
		// finds the connection down even while the reader has not yet seen
		// the end (a busy machine), and the shutdown starts.
		cause := fmt.Errorf("write: %w", err)
		c.mu.Lock()
		if c.closeCause == nil && c.closeErr == nil {
			c.closeCause = cause
		}
		c.mu.Unlock()
		go c.shutdown(cause)
		return nil, fmt.Errorf("cdp: %s: write: %w", method, errors.Join(ErrClosed, err))
	}
	return func(result any) error {
		select {
		case r := <-p.ch:
			if r.err != nil {
				return r.err
			}
			if result == nil || len(r.result) == 0 {
				return nil
			}
			if err := jsonv2.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("cdp: %s: decoding result: %w", method, err)
			}
			return nil
		case <-ctx.Done():
			c.forget(msg.ID)
			return fmt.Errorf("cdp: %s: %w", method, ctx.Err())
		}
	}, nil
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Conn) readLoop() {
	for {
		frame, err := c.t.ReadMessage()
		if err != nil {
			c.shutdown(err)
			return
		}
		var msg message
		if err := jsonv2.Unmarshal(frame, &msg); err != nil {
			// (a lone surrogate of a page's string: mended, not dropped,
			// or its call would wait until its deadline)
			if err = jsonv2.Unmarshal(mendFrame(frame), &msg); err != nil {
				c.log.Warn("undecodable frame", "err", err, "len", len(frame))
				continue
			}
		}
		if msg.ID != 0 {
			c.deliverReply(&msg)
			continue
		}
		if msg.Method != "" {
			c.deliverEvent(&msg)
		}
	}
}

func (c *Conn) deliverReply(msg *message) {
	c.mu.Lock()
	p := c.pending[msg.ID]
	delete(c.pending, msg.ID)
	c.mu.Unlock()
	if p == nil {
		c.log.Debug("late or unknown reply dropped", "id", msg.ID)
		return
	}
	if msg.Error != nil {
		p.ch <- reply{err: &Error{Method: p.method, Code: msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data}}
		return
	}
	p.ch <- reply{result: msg.Result}
}

func (c *Conn) deliverEvent(msg *message) {
	if msg.Method == "Target.detachedFromTarget" {
		var p struct {
			SessionID string `json:"sessionId"`
			Reason    string `json:"reason"`
		}
		if jsonv2.Unmarshal(msg.Params, &p) == nil && p.SessionID != "" {
			p.SessionID = c.childID(msg.SessionID, p.SessionID)
			why := ErrDetached
			// released_by_user: the bridge extension's word for a tab the
			// user dragged out of webpilot's tab group or window.
			switch p.Reason {
			case "canceled_by_user":
				why = fmt.Errorf("%w: %w", ErrDetached, ErrDetachedByUser)
			case "released_by_user":
				why = fmt.Errorf("%w: %w: %w", ErrDetached, ErrDetachedByUser, ErrReleasedByUser)
			}
			defer c.detach(p.SessionID, why)
		}
	}
	// Send under c.mu: cancel, detach and shutdown close subscriber channels
	// under it, so a channel cannot close between lookup and send. The sends
	// never block.
	var dropped int64
	c.mu.Lock()
	for s := range c.subs[subKey{msg.SessionID, msg.Method}] {
		sent := false
		if s.params != nil {
			select {
			case s.params <- msg.Params:
				sent = true
			default:
			}
		} else {
			select {
			case s.events <- Event{Method: msg.Method, Params: msg.Params}:
				sent = true
			default:
			}
		}
		if !sent {
			dropped = c.drops.Add(1)
		}
	}
	c.mu.Unlock()
	if dropped == 1 || (dropped > 0 && dropped%100 == 0) {
		c.log.Warn("subscriber fell behind; events dropped", "method", msg.Method, "dropped", dropped)
	}
}

// detach ends the session: its pending calls fail with why (an error
// matching ErrDetached), its subscriptions close.
func (c *Conn) detach(id string, why error) {
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	c.detached[id] = struct{}{}
	var fail []*pendingCall
	for pid, p := range c.pending {
		if p.session == id {
			fail = append(fail, p)
			delete(c.pending, pid)
		}
	}
	for k, set := range c.subs {
		if k.session == id {
			for sub := range set {
				sub.close()
			}
			delete(c.subs, k)
		}
	}
	if s != nil {
		// Under c.mu, so that no call or subscription can slip in between
		// the sweep above and the end of the session.
		s.end(why)
	}
	c.mu.Unlock()
	for _, p := range fail {
		p.ch <- reply{err: fmt.Errorf("cdp: %s: %w", p.method, why)}
	}
}

func (c *Conn) shutdown(cause error) {
	c.mu.Lock()
	over := c.closeErr != nil
	c.mu.Unlock()
	if over {
		return
	}
	// opts.CloseErr can take a while (the launch backend waits for the
	// browser's stderr to end), so it runs before c.mu is taken: calls,
	// subscriptions and cancels go on meanwhile, and those that slip in are
	// failed below like any other pending call.
	// The cause is recorded before CloseErr runs: a Close racing the
	// reader's failure must not replace the reason the connection was
	// lost (a broken pipe) with a bare ErrClosed.
	c.mu.Lock()
	if cause != nil && !errors.Is(cause, ErrClosed) && c.closeCause == nil {
		c.closeCause = cause
	}
	// The sessions end now, before CloseErr (which may take a while):
	// their Done tells a caller at once that this connection is lost, so
	// the next call makes a new tab instead of sending to the dead one, and
	// calls on them fail at once instead of waiting for the end. The full
	// error (with CloseErr's) goes to the calls still pending.
	early := ErrClosed
	if c.closeCause != nil {
		early = fmt.Errorf("%w: %w", ErrClosed, c.closeCause)
	}
	sessions := make([]*Session, 0, len(c.sessions))
	for _, s := range c.sessions {
		sessions = append(sessions, s)
	}
	c.mu.Unlock()
	for _, s := range sessions {
		s.end(early)
	}
	extra := c.closeExtra()
	c.mu.Lock()
	if c.closeCause != nil {
		cause = c.closeCause
	}
	c.mu.Unlock()
	// Both the cause and the extra stay in the chain, so callers can tell,
	// say, a lost bridge from a crashed browser with errors.Is.
	err := ErrClosed
	if cause != nil && !errors.Is(cause, ErrClosed) {
		err = fmt.Errorf("%w: %w", ErrClosed, cause)
	}
	if extra != nil {
		err = fmt.Errorf("%w: %w", err, extra)
	}
	c.mu.Lock()
	if c.closeErr != nil {
		// Another shutdown (Close racing the reader) got here first.
		c.mu.Unlock()
		return
	}
	c.closeErr = err
	pending := c.pending
	c.pending = make(map[int64]*pendingCall)
	for _, set := range c.subs {
		for sub := range set {
			sub.close()
		}
	}
	c.subs = make(map[subKey]map[*subscriber]struct{})
	// The sessions end before any call hears of the loss (and while a new
	// call would find closeErr set): a caller that gets "connection closed"
	// finds its session's Done closed, so the next call makes a new one
	// instead of trying the dead one again. Session.end takes only the
	// session's own lock.
	for _, s := range c.sessions {
		s.end(err)
		s.refine(err)
	}
	c.mu.Unlock()
	for _, p := range pending {
		p.ch <- reply{err: fmt.Errorf("cdp: %s: %w", p.method, err)}
	}
	c.log.Debug("connection closed", "err", err)
	close(c.done)
}

// closeExtra runs opts.CloseErr once, whoever asks first; later callers wait
// for its result. Never call it with c.mu held.
func (c *Conn) closeExtra() error {
	c.extraOnce.Do(func() {
		if c.opts.CloseErr != nil {
			c.extraErr = c.opts.CloseErr()
		}
	})
	return c.extraErr
}

// subscribe adds sub under each of the methods; the func returned cancels
// it.
func (c *Conn) subscribe(s *Session, sub *subscriber, methods ...string) func() {
	c.mu.Lock()
	if c.closeErr != nil || s.endErr() != nil {
		sub.close()
		c.mu.Unlock()
		return func() {}
	}
	for _, m := range methods {
		k := subKey{s.id, m}
		set := c.subs[k]
		if set == nil {
			set = make(map[*subscriber]struct{})
			c.subs[k] = set
		}
		set[sub] = struct{}{}
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, m := range methods {
				k := subKey{s.id, m}
				if set, ok := c.subs[k]; ok {
					if _, ok := set[sub]; ok {
						delete(set, sub)
						if len(set) == 0 {
							delete(c.subs, k)
						}
					}
				}
			}
			sub.close()
		})
	}
}
