package browser

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// tabIDs gives a session's tabs short ids, t1, t2, …, in the order they join
// the session (opened, or adopted as popups). A number is never reused in a
// session, so an id the agent kept from a closed tab cannot reach another
// tab. The zero value is ready to use.
type tabIDs struct {
	seq   int
	short map[string]string // backend id → tN
	long  map[string]string // tN → backend id
}

// assign returns the tab's short id, numbering it when it is new.
func (m *tabIDs) assign(backendID string) string {
	if id, ok := m.short[backendID]; ok {
		return id
	}
	if m.short == nil {
		m.short, m.long = make(map[string]string), make(map[string]string)
	}
	m.seq++
	id := "t" + strconv.Itoa(m.seq)
	m.short[backendID], m.long[id] = id, backendID
	return id
}

// shortOf is the tab's short id, or "" when it never joined the session.
func (m *tabIDs) shortOf(backendID string) string { return m.short[backendID] }

// resolve turns what the agent sent into a backend id: a short id the
// session gave out, or else the id as it is (the browser's own tab ids,
// 32 hex characters on launch and endpoint, are still accepted).
func (m *tabIDs) resolve(id string) string {
	id = strings.TrimSpace(id)
	if b, ok := m.long[strings.ToLower(id)]; ok {
		return b
	}
	return id
}

// useOrder is the order in which a session's tabs were last used (made
// current, or worked on by a call), by backend id: the tab that becomes
// current when the current one leaves is the one used last, never one
// picked at random. The zero value is ready to use.
type useOrder struct {
	seq  int64
	last map[string]int64 // backend id → when last used
}

// use marks the tab used now.
func (u *useOrder) use(backendID string) {
	if u.last == nil {
		u.last = make(map[string]int64)
	}
	u.seq++
	u.last[backendID] = u.seq
}

// forget drops a tab that left the session.
func (u *useOrder) forget(backendID string) { delete(u.last, backendID) }

// latest is the tab of tabs (by backend id) used last; among tabs never
// used (popups adopted, not yet selected), the one that joined last. Nil
// when tabs is empty.
func (u *useOrder) latest(tabs map[string]*Tab) *Tab {
	var best *Tab
	var bestSeq int64
	for id, t := range tabs {
		seq := u.last[id]
		if best == nil || seq > bestSeq || (seq == bestSeq && tabNumber(t.ID) > tabNumber(best.ID)) {
			best, bestSeq = t, seq
		}
	}
	return best
}

// tabNumber orders short ids by their number ("t10" after "t9"); anything
// else sorts last.
func tabNumber(id string) int {
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "t")); err == nil && strings.HasPrefix(id, "t") {
		return n
	}
	return int(^uint(0) >> 1)
}

// sortTabIDs sorts short ids by number.
func sortTabIDs(ids []string) {
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := tabNumber(ids[i]), tabNumber(ids[j])
		if a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
}

// describeTab is a tab as a suggestion: `t2 "Title" https://…`.
func describeTab(v TabView) string {
	return fmt.Sprintf("%s %q %s", v.ID, shorten(v.Title, 80), shorten(v.URL, 160))
}

// matchTabs picks the tabs whose URL or title matches match: a
// case-insensitive substring, or /re/ or /re/i (RE2). Exactly one is the
// answer; none is TAB_NOT_FOUND and several AMBIGUOUS_TARGET, each with the
// session's tabs (or the candidates) as suggestions.
func matchTabs(tabs []TabView, match string) (TabView, error) {
	if strings.TrimSpace(match) == "" {
		return TabView{}, &Error{Code: CodeInvalidArgument, Message: "match is empty", Hint: "give part of the tab's URL or title, a glob such as */orders*, or /regex/"}
	}
	ok, err := valueMatcher(match)
	if err != nil {
		return TabView{}, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("match %s is not a valid regular expression: %v", Echo(match), err), Hint: patternHint}
	}
	var hits []TabView
	for _, t := range tabs {
		if ok(t.URL) || ok(t.Title) {
			hits = append(hits, t)
		}
	}
	list := func(vs []TabView) []string {
		out := make([]string, 0, len(vs))
		for _, v := range vs {
			out = append(out, describeTab(v))
		}
		return out
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return TabView{}, &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("no tab of the session has a URL or title matching %q", Echo(match)),
			Hint: "the suggestions are the session's tabs; select one by tab, or match part of its URL or title", Suggestions: list(tabs)}
	}
	return TabView{}, &Error{Code: CodeAmbiguousTarget, Message: fmt.Sprintf("%d tabs match %q", len(hits), Echo(match)),
		Hint: "select one of the candidates by tab, or make match more specific (a longer part of the URL, or /regex/)", Suggestions: list(hits)}
}
