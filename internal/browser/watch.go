package browser

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// handleTimeout bounds the calls the loop's workers make to answer the
// browser.
const handleTimeout = 5 * time.Second

// committed is the origin policy's last line: a main-frame document that
// committed on an origin the policy refuses (a load that started before
// webpilot attached, as a popup's first one can) is replaced at once by
// about:blank.
func (g *loop) committed(raw jsonv2.Value) {
	t := g.tab
	var ev struct {
		Frame struct {
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
		} `json:"frame"`
	}
	if err := jsonv2.Unmarshal(raw, &ev); err != nil || ev.Frame.ParentID != "" || t.link.origin == nil {
		return
	}
	u, err := url.Parse(ev.Frame.URL)
	if err != nil {
		return
	}
	if perr := t.link.origin(u); perr != nil {
		g.spawn(func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, handleTimeout)
			defer cancel()
			t.clearRefused(ctx, ev.Frame.URL, perr, true)
		})
	}
}

// clearRefused replaces a refused document with about:blank and, when
// note, says so in the next result.
func (t *Tab) clearRefused(ctx context.Context, raw string, perr *Error, note bool) {
	// t.notes.blocked stays as it is: it names a load a call of the agent's
	// started, and this one was not (a later call would report it wrongly).
	_ = t.page.Call(ctx, "Page.navigate", map[string]any{"url": "about:blank"}, nil)
	if !note {
		return
	}
	t.notes.add(fmt.Sprintf("the tab showed %s, which the origin policy refuses (%s); webpilot replaced it with about:blank", shorten(raw, 200), perr.Message))
}

// checkShown refuses a call on a tab whose document the origin policy
// refuses (it is cleared, and the next call finds about:blank).
func (t *Tab) checkShown(ctx context.Context) error {
	origin := t.link.origin
	if origin == nil {
		return nil
	}
	f, err := t.page.mainFrame(ctx)
	if err != nil {
		return nil // the call itself reports a tab that cannot be read
	}
	u, err := url.Parse(f.URL)
	if err != nil {
		return nil
	}
	perr := origin(u)
	if perr == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
	t.clearRefused(cctx, f.URL, perr, false)
	cancel()
	return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("the tab was showing %s: %s", shorten(f.URL, 200), perr.Message),
		Hint: "webpilot replaced it with about:blank; navigate to an allowed origin", Suggestions: perr.Suggestions}
}

// noteBox is what a tab has to tell the agent in the next result: notes
// of what happened in the tab on its own (dialogs answered, loads the
// origin policy refused, popups closed), a lead read before anything else,
// and the URL of the last load the policy refused. The loop and its
// workers write it (dialogs, paused requests), and so do the session's
// calls; the next call's result takes it.
type noteBox struct {
	mu      sync.Mutex // guards the fields below
	list    []string
	lead    string // read first in the next result (setLead)
	blocked string // the URL of the last load the policy refused
}

// add keeps a note for the next result (at most 20).
func (b *noteBox) add(n string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.list) < 20 {
		b.list = append(b.list, n)
	}
}

// setLead sets the tab's lead: what the agent must read before anything
// else of the next result (the session's tabs were lost with the browser).
func (b *noteBox) setLead(n string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lead = n
}

// takeLead returns and clears the lead (setLead), or "".
func (b *noteBox) takeLead() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.lead
	b.lead = ""
	return n
}

// take returns and clears the notes.
func (b *noteBox) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.list
	b.list = nil
	return n
}

// kept returns the notes without clearing them.
func (b *noteBox) kept() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.list)
}

// block records a load the policy refused: its URL, for lastBlocked, and
// its note.
func (b *noteBox) block(url, note string) {
	b.mu.Lock()
	b.blocked = url
	b.mu.Unlock()
	b.add(note)
}

// lastBlocked returns and clears the URL of the last load the policy
// refused. The caller reports it as its error, so the note of that load is
// dropped too: it must not turn up in a later call's result.
func (b *noteBox) lastBlocked() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.blocked
	b.blocked = ""
	if u != "" {
		kept := b.list[:0]
		for _, n := range b.list {
			if !strings.HasPrefix(n, blockedNote+u+":") {
				kept = append(kept, n)
			}
		}
		b.list = kept
	}
	return u
}

// TakeLead returns and clears the tab's lead (noteBox.setLead), or "".
func (t *Tab) TakeLead() string { return t.notes.takeLead() }

// TakeNotes returns and clears what happened in the tab on its own since
// the last call (dialogs answered, loads blocked).
func (t *Tab) TakeNotes() []string { return t.notes.take() }

// blockedNote starts the note of a load the policy refused.
const blockedNote = "blocked a load of "
