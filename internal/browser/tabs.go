package browser

import (
	"context"
	"errors"
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
	// Loading: a tab a page opened whose first document is not in yet; it
	// joins the session (and answers calls) once it is.
	Loading bool `json:"loading,omitempty"`
}

// tabSet is a session's tabs, and what it knows of them: the tabs it owns
// or bound (keyed by backend id), the current one, the short ids it gave
// out, the order the tabs were last used in, the popups it refused and the
// windows its pages asked for that it adopted. It opens, attaches, adopts,
// revives, closes and releases them. The session is held (Do) whenever
// one of its methods runs.
type tabSet struct {
	s *Session // the session the tabs are of: its backend, policy, link…
	// all are the session's tabs, keyed by backend id; current is the one
	// a call works on unless it names another.
	all     map[string]*Tab
	current *Tab
	// refused are tabs the session's pages opened on origins the policy
	// refuses: closed, never adopted.
	refused map[string]bool
	// ids are the short tab ids (t1, t2, …) given out in this session.
	// recent is the order the tabs were last used in: the next current tab
	// is the one used last.
	ids    tabIDs
	recent useOrder
	// windowOpensSeen is the count of windows the session's pages asked
	// for (sessionLink.windowOpens) when a read of the tab list for popups
	// last adopted one.
	windowOpensSeen int64
	// preparing are popups attached and being prepared outside the hold,
	// keyed by backend id: a tab whose first document is not in yet
	// answers nothing until it is, and a call does not wait out a slow
	// site for it (AdoptPopups).
	preparing map[string]*popupPrep
}

// newTabSet is the tab set of a new session s, with no tab yet.
func newTabSet(s *Session) tabSet {
	return tabSet{s: s, all: make(map[string]*Tab), refused: make(map[string]bool), preparing: make(map[string]*popupPrep)}
}

// popupPrep is a popup being attached and prepared by a goroutine of its
// own, which writes t or err and then closes done.
type popupPrep struct {
	done chan struct{}
	t    *Tab
	err  error
	// url is the URL to show for the popup while the browser lists it
	// blank: the one its window was asked on (sessionLink.asked); bound,
	// that its opener is the user's tab (a popup of it is never closed).
	url   string
	bound bool
}

// Tabs are the session's tabs as a held call sees them (Held.Tabs): the
// tabs it owns or bound, the current one, and the user's tabs it may
// bind (bind.go). A method that picks a tab (New, Select, Bind…) makes it
// the tab the call works on (Held.Tab) and the session's current tab.
type Tabs struct{ h *Held }

// IDs lists the short ids (t1, t2, …) of the tabs the session owns, in
// the order they joined it.
func (ts Tabs) IDs() []string { return ts.h.s.tabs.tabIDs() }

// tabIDs is Tabs.IDs; the session is held.
func (set *tabSet) tabIDs() []string {
	ids := make([]string, 0, len(set.all))
	for _, t := range set.all {
		ids = append(ids, t.ID)
	}
	sortTabIDs(ids)
	return ids
}

// List describes the session's tabs, adopting popups its tabs opened.
func (ts Tabs) List(ctx context.Context) ([]TabView, error) {
	s := ts.h.s
	found, err := s.tabs.AdoptPopups(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := s.be.Tabs(ctx)
	if err != nil {
		return nil, backendError("list tabs", err)
	}
	var out []TabView
	for _, v := range found {
		if v.Loading {
			out = append(out, v) // (not the session's until its page is in)
		}
	}
	for _, ti := range infos {
		t, ok := s.tabs.all[ti.ID]
		if !ok {
			continue
		}
		v := s.tabs.view(ti)
		v.Current = s.tabs.current != nil && s.tabs.current.target == ti.ID
		v.Bound = t.bind.bound
		v.Context = t.bctx.name
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return tabNumber(out[i].ID) < tabNumber(out[j].ID) })
	return out, nil
}

// Current returns the session's current tab, opening one when the session
// has none (or its tab has gone).
func (ts Tabs) Current(ctx context.Context) (*Tab, error) {
	s := ts.h.s
	if s.tabs.current != nil && s.tabs.current.alive() {
		return s.tabs.current, nil
	}
	if t := s.tabs.current; t != nil {
		if nt, err := s.tabs.revive(ctx, t); nt != nil || err != nil {
			return nt, err
		}
	}
	lost := false
	if t := s.tabs.current; t != nil {
		s.tabs.drop(t.target)
		s.tabs.current = nil
		// The agent must learn that the user took the tab back, rather
		// than find itself on a blank new one.
		if e, ok := t.page.Caller.(interface{ Err() error }); ok {
			if errors.Is(e.Err(), cdp.ErrDetachedByUser) {
				return nil, backendError("use the tab", e.Err())
			}
			lost = errors.Is(e.Err(), cdp.ErrClosed)
		}
	}
	nt, err := s.tabs.openTab(ctx)
	if err == nil && lost {
		// Tabs that went with the browser are gone too.
		for id, t := range s.tabs.all {
			if !t.alive() {
				s.tabs.drop(id)
			}
		}
		nt.notes.setLead(LostNote)
	}
	return nt, err
}

// ByID returns the session's tab by id ("" = current).
func (ts Tabs) ByID(ctx context.Context, id string) (*Tab, error) {
	s := ts.h.s
	if id == "" {
		return ts.Current(ctx)
	}
	key := s.tabs.ids.resolve(id)
	t, ok := s.tabs.all[key]
	if ok && !t.alive() {
		if nt, err := s.tabs.revive(ctx, t); nt != nil || err != nil {
			return nt, err
		}
	}
	if !ok || !t.alive() {
		s.tabs.drop(key)
		return nil, &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("tab %q is not open in session %q", Echo(id), s.shownToAgent()),
			Hint: "omit tab to use the session's current tab; browser_tabs list shows the session's tabs", Suggestions: ts.IDs()}
	}
	return t, nil
}

// Ready is ByID for a call that needs the page: PAGE_CRASHED while its
// page is crashed, DIALOG_OPEN while a dialog waits for an answer,
// ORIGIN_BLOCKED (and the page cleared) when the tab shows a document the
// origin policy refuses.
func (ts Tabs) Ready(ctx context.Context, id string) (*Tab, error) {
	t, err := ts.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := t.crash.err(); err != nil {
		return nil, err
	}
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	if err := t.checkShown(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Live is the session's tab by id ("" = current) when it is open and
// attached, else nil: unlike ByID it never opens, revives or forgets a
// tab.
func (ts Tabs) Live(id string) *Tab {
	s := ts.h.s
	t := s.tabs.current
	if id != "" {
		t = s.tabs.all[s.tabs.ids.resolve(id)]
	}
	if t == nil || !t.alive() {
		return nil
	}
	return t
}

// New opens a tab for the session and makes it current.
func (ts Tabs) New(ctx context.Context) (*Tab, error) {
	t, err := ts.h.s.tabs.openTab(ctx)
	if err == nil {
		ts.h.t = t
	}
	return t, err
}

// NewIn opens a tab of the session in the named browser context (made on
// first use) and makes it current.
func (ts Tabs) NewIn(ctx context.Context, name string) (*Tab, error) {
	s := ts.h.s
	t, err := s.contexts.open(ctx, s, name)
	if err == nil {
		ts.h.t = t
	}
	return t, err
}

// Select makes one of the session's tabs current.
func (ts Tabs) Select(ctx context.Context, id string) (*Tab, error) {
	s := ts.h.s
	if p := s.tabs.preparing[s.tabs.ids.resolve(id)]; p != nil {
		// A popup still loading its first page: selecting it waits for
		// that page, as a navigation would.
		wait, cancel := context.WithTimeout(ctx, s.pol.opts.NavTimeout)
		select {
		case <-p.done:
		case <-wait.Done():
		}
		cancel()
	}
	if _, err := s.tabs.AdoptPopups(ctx); err != nil {
		return nil, err
	}
	t, err := ts.ByID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.tabs.setCurrent(t)
	_ = s.be.Activate(ctx, t.target)
	ts.h.t = t
	return t, nil
}

// SelectMatching makes current the one tab of the session whose URL or
// title matches match (valueMatcher: a part, a */glob* matched whole, or
// /re/flags). None is TAB_NOT_FOUND, several AMBIGUOUS_TARGET, with the
// tabs as suggestions.
func (ts Tabs) SelectMatching(ctx context.Context, match string) (*Tab, error) {
	s := ts.h.s
	deadline := time.Now().Add(s.pol.opts.ActionTimeout)
	for {
		tabs, err := ts.List(ctx)
		if err != nil {
			return nil, err
		}
		v, err := matchTabs(tabs, match)
		if err == nil {
			return ts.Select(ctx, v.ID)
		}
		// A page of the session asked for a window that no tab answers
		// yet (a click just opened one, and the browser, or the extension,
		// lists it a moment later): look again, within the action timeout.
		be, _ := AsError(err)
		if be == nil || be.Code != CodeTabNotFound || s.link.windowOpens.Load() == s.tabs.windowOpensSeen || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pollInterval):
		}
	}
}

// Close closes one of the session's tabs (a bound one is released); a tab
// the session does not own is refused. When it was the current tab, the
// tab used most recently before it becomes current.
func (ts Tabs) Close(ctx context.Context, id string) error {
	s := ts.h.s
	if _, err := s.tabs.AdoptPopups(ctx); err != nil {
		return err
	}
	key := s.tabs.ids.resolve(id)
	t, ok := s.tabs.all[key]
	if !ok {
		return &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("tab %q is not one of session %q's tabs", Echo(id), s.shownToAgent()),
			Hint: "a session closes only the tabs it opened (and their popups); browser_tabs list shows them", Suggestions: ts.IDs()}
	}
	if t.bind.bound {
		return s.tabs.releaseTab(ctx, t)
	}
	s.tabs.leave(t)
	if !t.alive() {
		return nil
	}
	if err := s.be.CloseTab(ctx, key); err != nil {
		return backendError("close the tab", err)
	}
	s.tabs.unclaim(key)
	s.contexts.drop(ctx, s)
	return nil
}

// CloseAll closes every tab the session owns, and releases those it
// bound.
func (ts Tabs) CloseAll(ctx context.Context) error { return ts.h.s.tabs.closeTabs(ctx) }

// setCurrent makes t the session's current tab, and so its most recently
// used.
func (set *tabSet) setCurrent(t *Tab) {
	set.current = t
	set.recent.use(t.target)
}

// leave forgets a tab that leaves the session (closed or released): when
// it was the current tab, the session's tab used most recently becomes
// current (none when no tab is left).
func (set *tabSet) leave(t *Tab) {
	set.drop(t.target)
	if set.current == t {
		set.current = set.recent.latest(set.all)
	}
}

// drop forgets the tab of backend id target: no longer the session's, nor
// in its use order. It leaves the current tab alone (leave picks the next).
func (set *tabSet) drop(target string) {
	delete(set.all, target)
	set.recent.forget(target)
}

// join makes an attached tab the session's, giving it its short id.
func (set *tabSet) join(t *Tab) {
	s := set.s
	t.ID = set.ids.assign(t.target)
	set.all[t.target] = t
	s.m.mu.Lock()
	s.m.claimed[t.target] = t
	s.m.mu.Unlock()
}

// unclaim forgets a tab that left the session (closed or released).
func (set *tabSet) unclaim(target string) {
	s := set.s
	s.m.mu.Lock()
	delete(s.m.claimed, target)
	s.m.mu.Unlock()
}

// revive re-attaches the debugger to a tab of the session whose debugging
// ended while the tab itself lives on in the browser: the bridge's
// connection dropped (the extension's service worker was stopped, or Chrome
// restarted), or the user cancelled debugging of one of the agent's own
// tabs. A cancel is first reported (BRIDGE_DETACHED) once, so the agent
// learns of it; a tab the user bound (bindState.bound) stays detached. The
// revived tab keeps its short id and says, in a note, that refs from before
// are stale. It returns nil, nil when t cannot be revived (it ended for
// another reason, or is gone): the caller goes on as for a closed tab.
func (set *tabSet) revive(ctx context.Context, t *Tab) (*Tab, error) {
	cause := tabErr(t)
	if errors.Is(cause, cdp.ErrReleasedByUser) {
		return nil, nil // the user took it: it is theirs now
	}
	byUser := errors.Is(cause, cdp.ErrDetachedByUser)
	dropped := errors.Is(cause, backend.ErrBridgeDisconnected)
	if !byUser && !dropped {
		return nil, nil
	}
	if byUser && (!t.bind.detachReported || t.bind.bound) {
		t.bind.detachReported = true
		err := backendError("use the tab", cause)
		if be, ok := AsError(err); ok && t.bind.bound {
			be.Hint = "someone closed Chrome's \"is debugging this browser\" bar for the tab, which you had bound: bind it again to use it"
		}
		return nil, err
	}
	nt, err := set.attachTab(ctx, t.target)
	if err != nil {
		if be, ok := AsError(err); ok && be.Code == CodeTabNotFound {
			return nil, nil // closed meanwhile
		}
		return nil, err
	}
	nt.ID = t.ID
	nt.bind.bound = t.bind.bound
	notes := t.notes.kept()
	for _, n := range notes {
		nt.notes.add(n)
	}
	why := "the connection to the webpilot extension dropped (its service worker was restarted, or Chrome was)"
	if byUser {
		why = "debugging of the tab was cancelled in Chrome"
	}
	nt.notes.add("webpilot re-attached to this tab after " + why + ": the page may have changed meanwhile and refs from earlier snapshots are stale; take a fresh snapshot")
	set.all[t.target] = nt
	if set.current == t {
		set.current = nt
	}
	return nt, nil
}

// revivable says whether a tab that is no longer attached may still be
// open in the browser (see revive).
func revivable(t *Tab) bool {
	err := tabErr(t)
	if errors.Is(err, cdp.ErrReleasedByUser) {
		return false // the user's tab now: never closed by webpilot
	}
	return errors.Is(err, cdp.ErrDetachedByUser) || errors.Is(err, backend.ErrBridgeDisconnected)
}

// tabErr is why the tab's CDP session ended (nil while it lives).
func tabErr(t *Tab) error {
	if e, ok := t.page.Caller.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// openTab opens a blank tab for the session, attached and prepared, and
// makes it current.
func (set *tabSet) openTab(ctx context.Context) (*Tab, error) {
	s := set.s
	be := s.be
	info, err := be.NewTab(ctx, "about:blank")
	if err != nil {
		return nil, backendError("open a tab", err)
	}
	t, err := set.attachTab(ctx, info.ID)
	if err != nil {
		_ = be.CloseTab(context.WithoutCancel(ctx), info.ID)
		return nil, err
	}
	// A new tab is still committing its initial about:blank; a navigation
	// sent before that commit is aborted (net::ERR_ABORTED).
	t.waitInitialLoad(ctx)
	set.join(t)
	set.setCurrent(t)
	// A connect that waited in a farm's queue is told of, once.
	if w, ok := s.own.(backend.Waiter); ok {
		if note := w.TakeWait(); note != "" {
			t.notes.setLead(note)
		}
	}
	return t, nil
}

// closeTabs is Tabs.CloseAll.
func (set *tabSet) closeTabs(ctx context.Context) error {
	s := set.s
	var errs []error
	for id, t := range set.all {
		if !t.alive() {
			if revivable(t) {
				// Still open in the user's Chrome: close it if the
				// extension is connected.
				_ = s.be.CloseTab(ctx, id)
			}
			set.drop(id) // otherwise gone with its browser: nothing to close
			continue
		}
		if t.bind.bound {
			// A tab the user opened is only let go.
			if err := set.releaseTab(ctx, t); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := s.be.CloseTab(ctx, id); err != nil && !errors.Is(err, backend.ErrTabNotFound) && !errors.Is(err, cdp.ErrClosed) {
			errs = append(errs, err)
		}
		set.drop(id)
		set.unclaim(id)
	}
	// Popups still being prepared go with the session: closed, unless the
	// user's tab opened them, and their loops stopped once ready.
	for id, p := range set.preparing {
		if !p.bound {
			_ = s.be.CloseTab(ctx, id)
		}
		go stopPrepared(p)
		delete(set.preparing, id)
	}
	set.current = nil
	s.contexts.drop(ctx, s)
	return errors.Join(errs...)
}

// view describes a tab of the session with short ids (its own and its
// opener's).
func (set *tabSet) view(ti backend.TabInfo) TabView {
	s := set.s
	v := TabView{ID: set.ids.shortOf(ti.ID), Title: ti.Title, URL: s.ShowURL(ti.URL)}
	if ti.Opener != "" {
		v.Opener = set.ids.shortOf(ti.Opener)
	}
	return v
}

// AdoptPopups attaches tabs opened by the session's tabs (popups,
// target=_blank links) and makes them the session's; it returns them, with
// their new short ids. Those a bound tab opened are bound too. Call within
// Do.
func (set *tabSet) AdoptPopups(ctx context.Context) ([]TabView, error) {
	s := set.s
	if len(set.all) == 0 {
		return nil, nil
	}
	opens := s.link.windowOpens.Load()
	infos, err := s.be.Tabs(ctx)
	if err != nil {
		return nil, backendError("list tabs", err)
	}
	set.forgetGonePreparing(infos)
	// A popup whose first document is not in yet is waited for within
	// the action timeout; after that the call goes on, and the popup joins
	// at the next call that reads the tab list once it is ready.
	wait := time.NewTimer(s.pol.opts.ActionTimeout)
	defer wait.Stop()
	waiting := true
	var adopted, loading []TabView
	// Popups of popups join too: repeat until nothing new.
	for changed := true; changed; {
		changed = false
		for _, ti := range infos {
			if _, mine := set.all[ti.ID]; mine || ti.Opener == "" || set.refused[ti.ID] {
				continue
			}
			opener := set.all[ti.Opener]
			if opener == nil {
				continue
			}
			p := set.preparing[ti.ID]
			fresh := p == nil
			if fresh {
				p = set.prepareInBackground(ti.ID)
				p.url, p.bound = s.link.asked.take(ti.URL), opener.bind.bound
				set.preparing[ti.ID] = p
			}
			// (the call that saw it open waits for it; a later call only
			// looks whether it is ready)
			if waiting && fresh {
				select {
				case <-p.done:
				case <-wait.C:
					waiting = false
				case <-ctx.Done():
					waiting = false
				}
			}
			select {
			case <-p.done:
			default:
				set.ids.assign(ti.ID) // (the id it keeps when it joins)
				shown := ti
				shown.URL = p.url
				loading = append(loading, set.view(shown))
				continue
			}
			delete(set.preparing, ti.ID)
			if p.err != nil {
				continue // it may have closed already
			}
			t := p.t
			set.finishPrepare(ctx, t)
			// (one the browser lists blank is checked on the URL its window
			// was asked on too: where it is going)
			checked := ti
			if checked.URL == "" || checked.URL == "about:blank" {
				checked.URL = p.url
			}
			if perr := set.refusedPopup(ctx, t, checked); perr != nil {
				// Its first load ran before webpilot could pause it: the tab
				// never joins the session, so no call can read it.
				t.page.stop()
				_ = s.be.CloseTab(ctx, ti.ID)
				opener.notes.add(fmt.Sprintf("closed a new tab on %s that the page opened: %s", shorten(perr.url, 200), perr.err.Message))
				set.refused[ti.ID] = true
				changed = true
				continue
			}
			// A tab a bound (the user's) tab opened is the user's too:
			// followed, never closed.
			t.bind.bound = opener.bind.bound
			t.bctx = opener.bctx // (a popup is in its opener's context)
			set.join(t)
			shown := ti
			if shown.URL == "" || shown.URL == "about:blank" {
				shown.URL = p.url
			}
			adopted = append(adopted, set.view(shown))
			changed = true
			if rt := opener.rec.get(); rt != nil {
				// A tab a recorded page opened is recorded too, whoever
				// adopts it first (the recorder's follower, or any call).
				rt.r.followAdopted(ctx, t)
			}
		}
	}
	// The windows asked for are taken as adopted one popup each; one asked
	// for but not listed yet (or that opened no tab of the session's) keeps
	// the next action reading the list.
	set.windowOpensSeen = min(opens, set.windowOpensSeen+int64(len(adopted)))
	s.link.asked.clear()
	if len(adopted)+len(loading) > 0 && set.current != nil {
		// A new tab in the same window hides the current one, and a hidden
		// tab is not rendered: input to it would wait for a frame that never
		// comes. The agent stays on its tab until it selects another.
		_ = s.be.Activate(ctx, set.current.target)
	}
	for _, v := range loading {
		v.Loading = true
		adopted = append(adopted, v)
	}
	return adopted, nil
}

// prepareInBackground attaches to the popup id and prepares it (Tab.init)
// in a goroutine of its own, bounded by the navigation timeout: what it
// does touches only the new tab, never the session.
func (set *tabSet) prepareInBackground(id string) *popupPrep {
	s := set.s
	p := &popupPrep{done: make(chan struct{})}
	tab := newTabFor(s, id)
	go func() {
		defer close(p.done)
		ctx, cancel := context.WithTimeout(context.Background(), s.pol.opts.NavTimeout)
		defer cancel()
		p.t, p.err = tab.attach(ctx, s.be.Attach)
	}()
	return p
}

// forgetGonePreparing drops the popups being prepared that the browser no
// longer lists (closed before they were ready).
func (set *tabSet) forgetGonePreparing(infos []backend.TabInfo) {
	listed := make(map[string]bool, len(infos))
	for _, ti := range infos {
		listed[ti.ID] = true
	}
	for id, p := range set.preparing {
		if !listed[id] {
			delete(set.preparing, id)
			go stopPrepared(p)
		}
	}
}

// stopPrepared stops the loop of a popup prepared for nothing, once its
// preparation ends.
func stopPrepared(p *popupPrep) {
	<-p.done
	if p.t != nil {
		p.t.page.stop()
	}
}

// adoptLatePopups adopts the popups that opened since the tab list was
// last read (AdoptPopups) when one may have: a page of the session asked
// for a window that no popup adopted yet answers, or a tab holds an
// out-of-process frame (whose window.open its page's loop does not see);
// else it reads nothing. Call within Do.
func (set *tabSet) adoptLatePopups(ctx context.Context) ([]TabView, error) {
	s := set.s
	if s.link.windowOpens.Load() == set.windowOpensSeen && len(set.preparing) == 0 && !set.framesOutOfProcess() {
		return nil, nil
	}
	return set.AdoptPopups(ctx)
}

// framesOutOfProcess says a tab of the session has attached an
// out-of-process frame.
func (set *tabSet) framesOutOfProcess() bool {
	for _, t := range set.all {
		if t.page.kids.count() > 0 {
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
func (set *tabSet) refusedPopup(ctx context.Context, t *Tab, ti backend.TabInfo) *refusal {
	origin := t.link.origin
	if origin == nil {
		return nil
	}
	urls := []string{ti.URL}
	if f, err := t.page.mainFrame(ctx); err == nil {
		urls = append(urls, f.URL)
	}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && raw != "" {
			if perr := origin(u); perr != nil {
				return &refusal{url: raw, err: perr}
			}
		}
	}
	return nil
}

// attachTab attaches to an existing tab and prepares it.
func (set *tabSet) attachTab(ctx context.Context, id string) (*Tab, error) {
	s := set.s
	return set.prepareTab(ctx, id, s.be.Attach)
}

// prepareTab attaches to a tab with attach and prepares it.
func (set *tabSet) prepareTab(ctx context.Context, id string, attach func(context.Context, string) (cdp.Caller, error)) (*Tab, error) {
	t, err := newTabFor(set.s, id).attach(ctx, attach)
	if err != nil {
		return nil, err
	}
	set.finishPrepare(ctx, t)
	return t, nil
}

// newTabFor is a tab of session s for the backend's tab id, not attached
// yet: it reads only what the session fixes when it is made.
func newTabFor(s *Session, id string) *Tab {
	t := newTab(id, nil, s.m.log)
	t.dialogs.policy = s.pol.opts.DialogPolicy
	t.link = s.link
	t.downloads.maxFetch = s.m.opts.MaxFetchBytes
	if !s.be.Info().Local {
		t.downloads.find = downloadFinder(s.be, id)
		t.downloads.remote = t.downloads.find == nil
	}
	return t
}

// attach attaches t with attach and starts its loop (Tab.init); it touches
// only t, so it may run outside the session's hold.
func (t *Tab) attach(ctx context.Context, attach func(context.Context, string) (cdp.Caller, error)) (*Tab, error) {
	c, err := attach(ctx, t.target)
	if err != nil {
		return nil, backendError("attach to the tab", err)
	}
	t.page.Caller = c
	if err := t.init(ctx); err != nil {
		t.page.stop()
		return nil, backendError("prepare the tab", err)
	}
	return t, nil
}

// finishPrepare gives a tab that joins the session what the session has
// set: where downloads go, and its emulation. Call within Do.
func (set *tabSet) finishPrepare(ctx context.Context, t *Tab) {
	s := set.s
	if s.be.Info().Local {
		t.downloads.save(ctx, s.pol)
	}
	if !s.emulation.Empty() {
		// (a tab that joins the session looks like the others to its page)
		if err := s.emulation.applyTo(ctx, t); err != nil {
			t.log.Debug("emulate on a new tab", "err", err)
		}
	}
}

// callEnded ends what stands for one call only: a walk that ended an
// action's wait (prewalked.final) is the page as that call left it, and a
// later call's snapshot asks the page whether it changed since; so is what
// waited for a person at the wait's end (pageView.waitHuman).
func (ts *tabSet) callEnded() {
	for _, t := range ts.all {
		if p := t.view.prewalk; p != nil {
			p.final = false
		}
		t.view.waitHuman = nil
	}
}
