package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// binder is the session's backend as a backend.Binder, or an error saying
// that this backend cannot bind tabs.
func (set *tabSet) binder() (backend.Binder, error) {
	s := set.s
	b, ok := s.be.(backend.Binder)
	if !ok {
		return nil, &Error{Code: CodeInvalidArgument, Message: "this browser backend cannot bind the user's tabs",
			Hint: "bind works on the launch, bridge and endpoint backends"}
	}
	return b, nil
}

// Bindable lists the tabs the user opened that no session holds: the
// candidates of browser_tabs bind. Their ID is the backend's id (what bind
// takes as tab); Current marks the tab the user is looking at, when the
// backend knows it.
func (ts Tabs) Bindable(ctx context.Context) ([]TabView, error) {
	s := ts.h.s
	b, err := s.tabs.binder()
	if err != nil {
		return nil, err
	}
	infos, err := b.UserTabs(ctx)
	if err != nil {
		return nil, backendError("list the browser's tabs", err)
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	var out []TabView
	for _, ti := range infos {
		if s.m.claimed[ti.ID] != nil {
			continue
		}
		out = append(out, TabView{ID: ti.ID, Title: ti.Title, URL: s.ShowURL(ti.URL), Current: ti.Active})
	}
	return out, nil
}

// Bind binds a tab the user opened to the session and makes it current:
// by id (the backend's id, as Bindable lists it), by match (a
// case-insensitive substring of its URL or title, or /re/), or with
// neither the tab the user is looking at. Only that tab is attached. None
// is TAB_NOT_FOUND and several AMBIGUOUS_TARGET, with the candidates as
// suggestions.
func (ts Tabs) Bind(ctx context.Context, id, match string) (*Tab, error) {
	s := ts.h.s
	b, err := s.tabs.binder()
	if err != nil {
		return nil, err
	}
	cands, err := ts.Bindable(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]string, 0, len(cands))
	for _, v := range cands {
		list = append(list, describeTab(v))
	}
	none := func(msg string) error {
		hint := "the suggestions are the user's tabs that can be bound (tab id, title, URL); bind one by tab or match"
		if len(cands) == 0 {
			hint = "no tab the user opened is free to bind: open the page in the browser first"
		}
		return &Error{Code: CodeTabNotFound, Message: msg, Hint: hint, Suggestions: list}
	}
	var pick TabView
	switch {
	case id != "":
		found := false
		for _, v := range cands {
			if v.ID == id {
				pick, found = v, true
			}
		}
		if !found {
			return nil, none(fmt.Sprintf("no tab %q is open for binding (a tab webpilot opened is not bound: it is a session's already)", Echo(id)))
		}
	case match != "":
		v, err := matchTabs(cands, match)
		var e *Error
		if errors.As(err, &e) && e.Code == CodeTabNotFound {
			return nil, none(fmt.Sprintf("no tab the user opened has a URL or title matching %q", Echo(match)))
		}
		if err != nil {
			return nil, err
		}
		pick = v
	default:
		var active []TabView
		for _, v := range cands {
			if v.Current {
				active = append(active, v)
			}
		}
		switch {
		case len(active) == 1:
			pick = active[0]
		case len(cands) == 1:
			pick = cands[0]
		case len(cands) == 0:
			return nil, none("no tab the user opened is open for binding")
		default:
			return nil, &Error{Code: CodeAmbiguousTarget, Message: fmt.Sprintf("the browser does not say which of %d tabs the user is looking at", len(cands)),
				Hint: "bind one of the candidates by tab, or by match (part of its URL or title)", Suggestions: list}
		}
	}
	if s.approver() != nil {
		// Binding one of the person's own tabs always asks them, whatever
		// they answered for its site before.
		if err := s.approve(ctx, pick.ID, pick.URL, pick.Title, true); err != nil {
			return nil, err
		}
	}
	t, err := s.tabs.prepareTab(ctx, pick.ID, b.Bind) // the popup lists it under the session (the backend's scope)
	if err != nil {
		return nil, err
	}
	t.bind.bound = true
	s.tabs.join(t)
	s.tabs.setCurrent(t)
	ts.h.t = t
	return t, nil
}

// Unbind releases a tab the session bound ("" = the current tab): the
// debugger is detached and the tab stays as the user had it.
func (ts Tabs) Unbind(ctx context.Context, id string) (*Tab, error) {
	s := ts.h.s
	var t *Tab
	if id == "" {
		t = s.tabs.current
	} else {
		t = s.tabs.all[s.tabs.ids.resolve(id)]
	}
	if t == nil || !t.bind.bound {
		var bound []string
		for _, o := range s.tabs.all {
			if o.bind.bound {
				bound = append(bound, o.ID)
			}
		}
		sortTabIDs(bound)
		what := "the current tab"
		if id != "" {
			what = fmt.Sprintf("tab %q", Echo(id))
		}
		return nil, &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("%s is not a tab session %q bound", what, s.shownToAgent()),
			Hint: "unbind releases tabs bound with browser_tabs bind (the suggestions); close closes the session's own", Suggestions: bound}
	}
	return t, s.tabs.releaseTab(ctx, t)
}

// releaseTab detaches a bound tab and forgets it; the tab stays open.
func (set *tabSet) releaseTab(ctx context.Context, t *Tab) error {
	s := set.s
	set.leave(t)
	set.unclaim(t.target)
	if !t.alive() {
		return nil
	}
	if !s.emulation.Empty() {
		// (the user's tab goes back as it was: what the session emulated
		// is reset before its debugger lets go)
		_ = Emulation{}.applyTo(ctx, t)
	}
	b, err := set.binder()
	if err != nil {
		return err
	}
	if err := b.Release(ctx, t.target, t.page.Caller); err != nil && !errors.Is(err, backend.ErrTabNotFound) {
		return backendError("release the tab", err)
	}
	return nil
}

// bindState is a tab's tie to the user, written by the session's calls
// while it is held.
type bindState struct {
	// bound: the user opened the tab and the session bound it
	// (browser_tabs bind); webpilot never closes it, only releases it.
	bound bool
	// detachReported: the session has told the agent (BRIDGE_DETACHED)
	// that debugging of this tab was cancelled.
	detachReported bool
}
