package backendtest

import (
	"context"
	"fmt"
	"sync"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/cdp/cdptest"
)

// Fake is an in-memory backend.Backend for unit tests: tabs are records,
// and Attach returns a scripted cdptest.Session that answers
// Runtime.evaluate of "1+1" (enough for the contract suite). Set OnAttach to
// script more.
type Fake struct {
	// OnAttach, when set, scripts each new session.
	OnAttach func(tab string, s *cdptest.Session)

	mu     sync.Mutex // guards the fields below
	next   int
	tabs   map[string]*fakeTab
	order  []string
	closed bool
}

type fakeTab struct {
	info     backend.TabInfo
	sessions []*cdptest.Session
}

// NewFake returns an empty fake backend.
func NewFake() *Fake {
	return &Fake{tabs: make(map[string]*fakeTab)}
}

// Tabs implements backend.Backend.
func (f *Fake) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, backend.ErrClosed
	}
	out := make([]backend.TabInfo, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, f.tabs[id].info)
	}
	return out, nil
}

// NewTab implements backend.Backend.
func (f *Fake) NewTab(ctx context.Context, url string) (backend.TabInfo, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return backend.TabInfo{}, backend.ErrClosed
	}
	if url == "" {
		url = "about:blank"
	}
	f.next++
	info := backend.TabInfo{ID: fmt.Sprintf("fake-%d", f.next), URL: url}
	f.tabs[info.ID] = &fakeTab{info: info}
	f.order = append(f.order, info.ID)
	f.mu.Unlock()
	return info, nil
}

// CloseTab implements backend.Backend.
func (f *Fake) CloseTab(ctx context.Context, id string) error {
	f.mu.Lock()
	t, ok := f.tabs[id]
	if !ok {
		f.mu.Unlock()
		return fmt.Errorf("fake: close %s: %w", id, backend.ErrTabNotFound)
	}
	delete(f.tabs, id)
	for i, o := range f.order {
		if o == id {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
	for _, s := range t.sessions {
		s.Close()
	}
	return nil
}

// Activate implements backend.Backend.
func (f *Fake) Activate(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.tabs[id]; !ok {
		return fmt.Errorf("fake: activate %s: %w", id, backend.ErrTabNotFound)
	}
	return nil
}

// Attach implements backend.Backend.
func (f *Fake) Attach(ctx context.Context, id string) (cdp.Caller, error) {
	f.mu.Lock()
	t, ok := f.tabs[id]
	if !ok {
		f.mu.Unlock()
		return nil, fmt.Errorf("fake: attach %s: %w", id, backend.ErrTabNotFound)
	}
	s := cdptest.NewSession()
	s.Reply("Runtime.evaluate", `{"result":{"type":"number","value":2,"description":"2"}}`)
	t.sessions = append(t.sessions, s)
	hook := f.OnAttach
	f.mu.Unlock()
	if hook != nil {
		hook(id, s)
	}
	return s, nil
}

// Info implements backend.Backend.
func (f *Fake) Info() backend.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return backend.Info{Kind: "fake", Running: !f.closed, Headless: true}
}

// Close implements backend.Backend.
func (f *Fake) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	var sessions []*cdptest.Session
	for _, t := range f.tabs {
		sessions = append(sessions, t.sessions...)
	}
	f.tabs = map[string]*fakeTab{}
	f.order = nil
	f.mu.Unlock()
	for _, s := range sessions {
		s.Close()
	}
	return nil
}
