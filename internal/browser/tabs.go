package browser

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// TabView describes one of a session's tabs for the agent.
type TabView struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Current bool   `json:"current,omitempty"`
	Opener  string `json:"opener,omitempty"`
	// Bound: a tab the user opened, bound by the session.
	Bound bool `json:"bound,omitempty"`
	// Context is the named browser context the tab is in ("": the
	// browser's own).
	Context string `json:"context,omitempty"`
}

// ListTabs describes the session's tabs, adopting popups its tabs opened.
func (h *Held) ListTabs(ctx context.Context) ([]TabView, error) {
	s := h.s
	if _, err := s.AdoptPopups(ctx); err != nil {
		return nil, err
	}
	infos, err := s.be.Tabs(ctx)
	if err != nil {
		return nil, backendError("list tabs", err)
	}
	var out []TabView
	for _, ti := range infos {
		if _, ok := s.tabs[ti.ID]; !ok {
			continue
		}
		v := s.view(ti)
		v.Current = s.current != nil && s.current.target == ti.ID
		v.Bound = s.tabs[ti.ID].bound
		v.Context = s.tabs[ti.ID].contextName
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return tabNumber(out[i].ID) < tabNumber(out[j].ID) })
	return out, nil
}

// view describes a tab of the session with short ids (its own and its
// opener's).
func (s *Session) view(ti backend.TabInfo) TabView {
	v := TabView{ID: s.ids.shortOf(ti.ID), Title: ti.Title, URL: s.ShowURL(ti.URL)}
	if ti.Opener != "" {
		v.Opener = s.ids.shortOf(ti.Opener)
	}
	return v
}

// AdoptPopups attaches tabs opened by the session's tabs (popups,
// target=_blank links) and makes them the session's; it returns them, with
// their new short ids. Those a bound tab opened are bound too. Call within
// Do.
func (s *Session) AdoptPopups(ctx context.Context) ([]TabView, error) {
	if len(s.tabs) == 0 {
		return nil, nil
	}
	opens := s.windowOpens.Load()
	infos, err := s.be.Tabs(ctx)
	if err != nil {
		return nil, backendError("list tabs", err)
	}
	var adopted []TabView
	// Popups of popups join too: repeat until nothing new.
	for changed := true; changed; {
		changed = false
		for _, ti := range infos {
			if _, mine := s.tabs[ti.ID]; mine || ti.Opener == "" || s.refused[ti.ID] {
				continue
			}
			if _, parent := s.tabs[ti.Opener]; !parent {
				continue
			}
			t, err := s.attachTab(ctx, ti.ID)
			if err != nil {
				continue // it may have closed already
			}
			if perr := s.refusedPopup(ctx, t, ti); perr != nil {
				// Its first load ran before webpilot could pause it: the tab
				// never joins the session, so no call can read it.
				_ = s.be.CloseTab(ctx, ti.ID)
				if opener := s.tabs[ti.Opener]; opener != nil {
					opener.addNote(fmt.Sprintf("closed a new tab on %s that the page opened: %s", shorten(perr.url, 200), perr.err.Message))
				}
				s.refused[ti.ID] = true
				changed = true
				continue
			}
			// A tab a bound (the user's) tab opened is the user's too:
			// followed, never closed.
			t.bound = s.tabs[ti.Opener].bound
			t.contextName, t.contextID = s.tabs[ti.Opener].contextName, s.tabs[ti.Opener].contextID // (a popup is in its opener's context)
			s.join(t)
			adopted = append(adopted, s.view(ti))
			changed = true
		}
	}
	// The windows asked for are taken as adopted one popup each; one asked
	// for but not listed yet (or that opened no tab of the session's) keeps
	// the next action reading the list.
	s.windowOpensSeen = min(opens, s.windowOpensSeen+int64(len(adopted)))
	if len(adopted) > 0 && s.current != nil {
		// A new tab in the same window hides the current one, and a hidden
		// tab is not rendered: input to it would wait for a frame that never
		// comes. The agent stays on its tab until it selects another.
		_ = s.be.Activate(ctx, s.current.target)
	}
	return adopted, nil
}

// adoptLatePopups adopts the popups that opened since the tab list was
// last read (AdoptPopups) when one may have: a page of the session asked
// for a window that no popup adopted yet answers, or a tab holds an
// out-of-process frame (whose window.open its page's loop does not see);
// else it reads nothing. Call within Do.
func (s *Session) adoptLatePopups(ctx context.Context) ([]TabView, error) {
	if s.windowOpens.Load() == s.windowOpensSeen && !s.framesOutOfProcess() {
		return nil, nil
	}
	return s.AdoptPopups(ctx)
}

// framesOutOfProcess says a tab of the session has attached an
// out-of-process frame.
func (s *Session) framesOutOfProcess() bool {
	for _, t := range s.tabs {
		if t.kids.count() > 0 {
			return true
		}
	}
	return false
}

// refusal is a URL the origin policy refuses, and why.
type refusal struct {
	url string
	err *Error
}

// refusedPopup applies the origin policy to a tab a page opened: the URL
// the browser lists for it and the document its main frame holds once
// attached (from then on its loads are paused and checked like any other).
func (s *Session) refusedPopup(ctx context.Context, t *Tab, ti backend.TabInfo) *refusal {
	if t.policy == nil {
		return nil
	}
	urls := []string{ti.URL}
	if f, err := t.mainFrame(ctx); err == nil {
		urls = append(urls, f.URL)
	}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && raw != "" {
			if perr := t.policy(u); perr != nil {
				return &refusal{url: raw, err: perr}
			}
		}
	}
	return nil
}

// attachTab attaches to an existing tab and prepares it.
func (s *Session) attachTab(ctx context.Context, id string) (*Tab, error) {
	return s.prepareTab(ctx, id, s.be.Attach)
}

// prepareTab attaches to a tab with attach and prepares it.
func (s *Session) prepareTab(ctx context.Context, id string, attach func(context.Context, string) (cdp.Caller, error)) (*Tab, error) {
	target, err := attach(ctx, id)
	if err != nil {
		return nil, backendError("attach to the tab", err)
	}
	t := newTab(id, target, s.m.log)
	t.dialogs.policy = s.pol.opts.DialogPolicy
	t.httpAuth = s.pol.opts.HTTPAuth
	t.routes = s.routes
	t.net = s.net
	if s.pol.policySet() {
		t.policy = s.pol.originPolicy
	}
	t.downloads.outputs = s.pol
	t.windowOpens = &s.windowOpens
	t.caller = &s.caller
	t.owner = s.clientID
	t.hider = s.hider
	t.downloads.maxFetch = s.m.opts.MaxFetchBytes
	local := s.be.Info().Local
	if !local {
		t.downloads.find = downloadFinder(s.be, id)
		t.downloads.remote = t.downloads.find == nil
	}
	if err := t.init(ctx); err != nil {
		t.page.stop()
		return nil, backendError("prepare the tab", err)
	}
	if local {
		t.downloads.save(ctx, s.pol)
	}
	if !s.emulation.Empty() {
		// (a tab that joins the session looks like the others to its page)
		if err := s.emulation.applyTo(ctx, t); err != nil {
			t.log.Debug("emulate on a new tab", "err", err)
		}
	}
	return t, nil
}

// NewTab opens a tab for the session and makes it current.
func (h *Held) NewTab(ctx context.Context) (*Tab, error) {
	t, err := h.s.openTab(ctx)
	if err == nil {
		h.t = t
	}
	return t, err
}

// SelectTab makes one of the session's tabs current.
func (h *Held) SelectTab(ctx context.Context, id string) (*Tab, error) {
	s := h.s
	if _, err := s.AdoptPopups(ctx); err != nil {
		return nil, err
	}
	t, err := h.TabByID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.current = t
	_ = s.be.Activate(ctx, t.target)
	h.t = t
	return t, nil
}

// SelectTabMatching makes current the one tab of the session whose URL or
// title matches match (valueMatcher: a part, a */glob* matched whole, or
// /re/flags).
// None is TAB_NOT_FOUND, several AMBIGUOUS_TARGET, with the tabs as
// suggestions.
func (h *Held) SelectTabMatching(ctx context.Context, match string) (*Tab, error) {
	s := h.s
	deadline := time.Now().Add(s.pol.opts.ActionTimeout)
	for {
		tabs, err := h.ListTabs(ctx)
		if err != nil {
			return nil, err
		}
		v, err := matchTabs(tabs, match)
		if err == nil {
			return h.SelectTab(ctx, v.ID)
		}
		// A page of the session asked for a window that no tab answers
		// yet (a click just opened one, and the browser, or the extension,
		// lists it a moment later): look again, within the action timeout.
		be, _ := AsError(err)
		if be == nil || be.Code != CodeTabNotFound || s.windowOpens.Load() == s.windowOpensSeen || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pollInterval):
		}
	}
}

// CloseTab closes one of the session's tabs; a tab the session does not own
// is refused.
func (h *Held) CloseTab(ctx context.Context, id string) error {
	s := h.s
	if _, err := s.AdoptPopups(ctx); err != nil {
		return err
	}
	key := s.ids.resolve(id)
	t, ok := s.tabs[key]
	if !ok {
		return &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("tab %q is not one of session %q's tabs", Echo(id), s.shownToAgent()),
			Hint: "a session closes only the tabs it opened (and their popups); browser_tabs list shows them", Suggestions: h.TabIDs()}
	}
	if t.bound {
		return s.releaseTab(ctx, t)
	}
	delete(s.tabs, key)
	if s.current == t {
		s.current = nil
		for _, other := range s.tabs {
			s.current = other
			break
		}
	}
	if !t.alive() {
		return nil
	}
	if err := s.be.CloseTab(ctx, key); err != nil {
		return backendError("close the tab", err)
	}
	s.unclaim(key)
	s.dropContexts(ctx)
	return nil
}
