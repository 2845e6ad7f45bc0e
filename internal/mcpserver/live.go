package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// StdioClient is the live view's id of the one client of stdio.
const StdioClient = "stdio"

// liveShowEvery is the shortest time between two updates of the live view.
const liveShowEvery = 300 * time.Millisecond

// errStopped is the cause of a call cut because the person pressed Stop.
var errStopped = errors.New("stopped by the person at the browser")

// board is the person's control of the clients, from the live view of
// their browser (backend.LiveView: the extension's popup): which clients
// are paused or stopped, the calls each has running (Stop cuts them), and
// the live view's updates. It is the one gate a call passes for them
// (Server.liveGate).
type board struct {
	mu sync.Mutex // guards the fields below
	// state is each client's control other than running: pause or stop.
	state map[string]browser.Control
	// changed is closed and replaced when state changes.
	changed chan struct{}
	// calls are the cancels of each client's calls running.
	calls map[string]map[*int]context.CancelCauseFunc
	// stdio: the server runs on stdio, for its one client; stdioName is
	// the name it gave (its initialize).
	stdio     bool
	stdioName string
	// due: an update of the live view is waiting for its timer.
	due bool
	// working is the page each browser session's last call worked on.
	working map[string]string
}

// worked notes the page a call of browser session key left its tab on.
func (s *Server) worked(key, page string) {
	b := &s.board
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.working == nil {
		b.working = map[string]string{}
	}
	b.working[key] = redact.OpenedURL(page)
}

// liveID is the live view's id of the client of req.
func (s *Server) liveID(req *mcp.CallToolRequest) string {
	if req != nil && req.Session != nil && req.Session.ID() != "" {
		return ClientSessionName(req.Session.ID())
	}
	return StdioClient
}

// liveGate lets a call of client id run: at once while the client runs;
// after Resume while it is paused (it tells progress each second, bounded
// by ctx); never once it is stopped (STOPPED_BY_USER). The returned
// context is cut when the person presses Stop, and done forgets the call.
func (s *Server) liveGate(ctx context.Context, id, name string, progress func(done, total int, msg string)) (context.Context, func(), error) {
	b := &s.board
	start := time.Now()
	for {
		b.mu.Lock()
		if id == StdioClient && name != "" {
			b.stdioName = name
		}
		st, ch := b.state[id], b.changed
		if ch == nil {
			b.changed = make(chan struct{})
			ch = b.changed
		}
		if st == "" {
			cctx, cancel := context.WithCancelCause(ctx)
			key := new(int)
			if b.calls == nil {
				b.calls = map[string]map[*int]context.CancelCauseFunc{}
			}
			if b.calls[id] == nil {
				b.calls[id] = map[*int]context.CancelCauseFunc{}
			}
			b.calls[id][key] = cancel
			b.mu.Unlock()
			return cctx, func() {
				b.mu.Lock()
				delete(b.calls[id], key)
				if len(b.calls[id]) == 0 {
					delete(b.calls, id)
				}
				b.mu.Unlock()
				cancel(nil)
			}, nil
		}
		b.mu.Unlock()
		if st == browser.ControlStop {
			return ctx, func() {}, stoppedError()
		}
		if progress != nil {
			progress(int(time.Since(start)/time.Second), 0, "paused by the person in the browser's webpilot popup: this call waits for Resume")
		}
		tick := time.NewTimer(time.Second)
		select {
		case <-ch:
		case <-tick.C:
		case <-ctx.Done():
			tick.Stop()
			return ctx, func() {}, &browser.Error{Code: browser.CodeTimeout,
				Message: fmt.Sprintf("the person paused this client in their browser (the webpilot extension's popup), and the call waited %s for Resume", time.Since(start).Round(time.Second)),
				Hint:    "tell the user the task waits for them: they press Resume (or Stop) for this client in the extension's popup; retry after that"}
		}
		tick.Stop()
	}
}

// stoppedError is the answer to a call of a client the person stopped.
func stoppedError() error {
	return &browser.Error{Code: browser.CodeStoppedByUser,
		Message: "the person at the browser pressed Stop for this client in the webpilot extension's popup: its calls fail and its tabs were closed",
		Hint:    "stop working in the browser and tell the user; they can press Resume for this client in the popup to let it go on"}
}

// stopCause maps a call cut by Stop to STOPPED_BY_USER.
func stopCause(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errStopped) {
		return stoppedError()
	}
	return err
}

// control is the person's Pause, Resume or Stop of client id (the live
// view's buttons). It runs on the backend's reader: the work of a Stop
// goes on in its own goroutine.
func (s *Server) control(id string, action browser.Control) {
	b := &s.board
	b.mu.Lock()
	if b.state == nil {
		b.state = map[string]browser.Control{}
	}
	switch action {
	case browser.ControlResume:
		delete(b.state, id)
	default:
		b.state[id] = action
	}
	if b.changed != nil {
		close(b.changed)
	}
	b.changed = make(chan struct{})
	var cut []context.CancelCauseFunc
	if action == browser.ControlStop {
		for _, c := range b.calls[id] {
			cut = append(cut, c)
		}
	}
	b.mu.Unlock()
	s.log.Info("the person controls a client from the browser", "client", id, "action", action)
	for _, c := range cut {
		c(errStopped)
	}
	if action == browser.ControlStop {
		go s.closeClientSessions(id)
	}
	s.showLive()
}

// forgetClient drops what the board keeps of client id, gone.
func (s *Server) forgetClient(id string) {
	b := &s.board
	b.mu.Lock()
	delete(b.state, id)
	b.mu.Unlock()
}

// closeClientSessions closes the browser sessions of client id (their
// tabs), for the person's Stop: those only it can name, never a session it
// shares with other clients by name.
func (s *Server) closeClientSessions(id string) {
	m := s.deps.Manager
	if m == nil {
		return
	}
	var names []string
	for _, c := range s.liveClients() {
		if c.ID != id {
			continue
		}
		for _, ses := range c.Sessions {
			// Only the client's own sessions close: a session it shares by
			// name (--session, Webpilot-Session) is other clients' too.
			if id == StdioClient || ses.Name == id || strings.HasPrefix(ses.Name, id+"/") {
				names = append(names, ses.Name)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.ceiling+BudgetSlack)
	defer cancel()
	for _, n := range names {
		if _, err := m.Remove(ctx, n); err != nil {
			s.log.Warn("could not close a stopped client's browser session", "session", n, "err", err)
		}
	}
	s.showLive()
}

// liveClients is the daemon's record of its clients, as the live view
// shows them: over HTTP every client connected (Clients), on stdio the
// one; each with its state, its sessions and its last action.
func (s *Server) liveClients() []browser.LiveClient {
	b := &s.board
	b.mu.Lock()
	state := make(map[string]browser.Control, len(b.state))
	for k, v := range b.state {
		state[k] = v
	}
	stdioName := b.stdioName
	stdio := b.stdio
	working := maps.Clone(b.working)
	b.mu.Unlock()
	m := s.deps.Manager
	var out []browser.LiveClient
	add := func(id, name string, calls int, sessions []string) {
		c := browser.LiveClient{ID: id, Name: name, State: "running", Calls: calls, Sessions: []browser.LiveSession{}}
		switch state[id] {
		case browser.ControlPause:
			c.State = "paused"
		case browser.ControlStop:
			c.State = "stopped"
		}
		var last trace.Action
		for _, n := range sessions {
			ls := browser.LiveSession{Name: n, URL: working[n]}
			if m != nil {
				if bs, ok := m.Lookup(n); ok {
					ls.Group = bs.GroupName()
				} else if state[id] == browser.ControlStop {
					continue // closed by Stop
				} else {
					ls.URL = ""
				}
			}
			c.Sessions = append(c.Sessions, ls)
			if acts := s.recent.List(n); len(acts) > 0 && acts[len(acts)-1].Time > last.Time {
				last = acts[len(acts)-1]
			}
		}
		if last.Tool != "" {
			c.Last = strings.TrimSpace(last.Tool + " " + last.Target + " → " + last.Outcome)
			if t, err := time.Parse(time.RFC3339, last.Time); err == nil {
				c.LastAt = t.UnixMilli()
			}
		}
		out = append(out, c)
	}
	if !stdio {
		for _, c := range s.Clients() {
			add(c.ID, c.Name, c.Calls, c.Sessions)
		}
	} else if m != nil {
		names := m.SessionNames()
		slices.Sort(names)
		if len(names) > 0 || stdioName != "" {
			add(StdioClient, or(stdioName, "(unnamed client)"), 0, names)
		}
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// showLive updates the live view of the person's browser, at most once per
// liveShowEvery, when the backend has one.
func (s *Server) showLive() {
	m := s.deps.Manager
	if m == nil || !m.LiveView() {
		return
	}
	b := &s.board
	b.mu.Lock()
	if b.due {
		b.mu.Unlock()
		return
	}
	b.due = true
	b.mu.Unlock()
	time.AfterFunc(liveShowEvery, func() {
		b.mu.Lock()
		b.due = false
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.ShowLive(ctx, s.liveClients(), s.control); err != nil {
			s.log.Debug("the live view was not updated", "err", err)
		}
	})
}
