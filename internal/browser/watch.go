package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// handleTimeout bounds the calls the watcher makes to answer the browser.
const handleTimeout = 5 * time.Second

// watch answers what the browser asks of a tab while nobody else is
// listening: JavaScript dialogs (which block every page script, and so
// every later call, until answered: by the dialog policy at once, or by the
// agent through browser_dialog) and, when an origin policy is set,
// paused document requests (blocked before they are sent, redirects and
// iframes included). It runs until the tab's session ends.
func (t *Tab) watch(dialogs, closed, paused, committed <-chan jsonv2.Value, cancel func()) {
	defer cancel()
	for {
		select {
		case <-t.t.Done():
			return
		case raw, ok := <-dialogs:
			if !ok {
				return
			}
			// A close the browser sent before this opening is already
			// queued on its own channel: apply it first, in order.
			for drained := false; !drained; {
				select {
				case _, ok := <-closed:
					if ok {
						t.dialogClosed()
					} else {
						drained = true
					}
				default:
					drained = true
				}
			}
			t.answerDialog(raw)
		case _, ok := <-closed:
			if !ok {
				return
			}
			t.dialogClosed()
		case raw, ok := <-paused:
			if !ok {
				paused = nil
				continue
			}
			t.answerRequest(t.t, raw)
		case raw, ok := <-committed:
			if !ok {
				committed = nil
				continue
			}
			t.checkCommit(raw)
		}
	}
}

// checkCommit is the origin policy's last line: a main-frame document that
// committed on an origin the policy refuses (a load that started before
// webpilot attached, as a popup's first one can) is replaced at once by
// about:blank.
func (t *Tab) checkCommit(raw jsonv2.Value) {
	var ev struct {
		Frame struct {
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
		} `json:"frame"`
	}
	if err := jsonv2.Unmarshal(raw, &ev); err != nil || ev.Frame.ParentID != "" || t.policy == nil {
		return
	}
	u, err := url.Parse(ev.Frame.URL)
	if err != nil {
		return
	}
	if perr := t.policy(u); perr != nil {
		t.clearRefused(ev.Frame.URL, perr, true)
	}
}

// clearRefused replaces a refused document with about:blank and, when
// note, says so in the next result.
func (t *Tab) clearRefused(raw string, perr *Error, note bool) {
	ctx, cancel := context.WithTimeout(context.Background(), handleTimeout)
	defer cancel()
	// t.blocked stays as it is: it names a load a call of the agent's
	// started, and this one was not (a later call would report it wrongly).
	_ = t.t.Call(ctx, "Page.navigate", map[string]any{"url": "about:blank"}, nil)
	if !note {
		return
	}
	t.addNote(fmt.Sprintf("the tab showed %s, which the origin policy refuses (%s); webpilot replaced it with about:blank", shorten(raw, 200), perr.Message))
}

// checkShown refuses a call on a tab whose document the origin policy
// refuses (it is cleared, and the next call finds about:blank).
func (t *Tab) checkShown(ctx context.Context) error {
	if t.policy == nil {
		return nil
	}
	f, err := t.mainFrame(ctx)
	if err != nil {
		return nil // the call itself reports a tab that cannot be read
	}
	u, err := url.Parse(f.URL)
	if err != nil {
		return nil
	}
	perr := t.policy(u)
	if perr == nil {
		return nil
	}
	t.clearRefused(f.URL, perr, false)
	return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("the tab was showing %s: %s", shorten(f.URL, 200), perr.Message),
		Hint: "webpilot replaced it with about:blank; navigate to an allowed origin", Suggestions: perr.Suggestions}
}

type dialogEvent struct {
	URL           string `json:"url"`
	Message       string `json:"message"`
	Type          string `json:"type"`
	DefaultPrompt string `json:"defaultPrompt"`
}

// answerDialog handles a dialog that opened, by the tab's dialog policy:
// accept or dismiss it at once and note that for the next result, or (ask)
// keep it open for browser_dialog and wake the call waiting on the page.
func (t *Tab) answerDialog(raw jsonv2.Value) {
	var d dialogEvent
	if err := jsonv2.Unmarshal(raw, &d); err != nil {
		return
	}
	d.Message = shorten(clean(d.Message), 500)
	if t.dialogPolicy == DialogAsk {
		t.mu.Lock()
		t.dialog = &d
		t.dialogGen++
		if !t.dialogSignalled {
			t.dialogSignalled = true
			close(t.dialogOpened)
		}
		t.mu.Unlock()
		return
	}
	accept := t.dialogPolicy == DialogAccept || d.Type == "alert"
	ctx, cancel := context.WithTimeout(context.Background(), handleTimeout)
	defer cancel()
	p := map[string]any{"accept": accept}
	if accept && d.Type == "prompt" {
		p["promptText"] = d.DefaultPrompt
	}
	err := t.t.Call(ctx, "Page.handleJavaScriptDialog", p, nil)
	verb := "dismissed"
	if accept {
		verb = "accepted"
	}
	note := fmt.Sprintf("a %s dialog said %s; webpilot %s it (--dialog-policy %s)", d.Type, quote(shorten(d.Message, 200)), verb, t.dialogPolicy)
	if err != nil {
		note = fmt.Sprintf("a %s dialog said %s and could not be answered: %v", d.Type, quote(shorten(d.Message, 200)), err)
	}
	t.addNote(note)
}

// dialogClosed clears the open dialog when it was answered some other way
// (by the user, or by the page going away).
func (t *Tab) dialogClosed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearDialogLocked()
}

// clearDialogLocked forgets the open dialog; t.mu is held.
func (t *Tab) clearDialogLocked() {
	t.dialog = nil
	if t.dialogSignalled {
		t.dialogSignalled = false
		t.dialogOpened = make(chan struct{})
	}
}

type pausedEvent struct {
	RequestID string `json:"requestId"`
	Request   struct {
		URL string `json:"url"`
	} `json:"request"`
	FrameID string `json:"frameId"`
}

// answerRequest lets a paused document request (paused in sess: the tab's
// or an out-of-process frame's) go on, or fails it when the origin policy
// refuses its URL.
func (t *Tab) answerRequest(sess cdp.Caller, raw jsonv2.Value) {
	var p pausedEvent
	if err := jsonv2.Unmarshal(raw, &p); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), handleTimeout)
	defer cancel()
	u, err := url.Parse(p.Request.URL)
	if err == nil && t.policy != nil {
		if perr := t.policy(u); perr != nil {
			t.mu.Lock()
			t.blocked = p.Request.URL
			t.mu.Unlock()
			t.addNote(fmt.Sprintf("%s%s: %s", blockedNote, p.Request.URL, perr.Message))
			_ = sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": p.RequestID, "errorReason": "BlockedByClient"}, nil)
			return
		}
	}
	_ = sess.Call(ctx, "Fetch.continueRequest", map[string]any{"requestId": p.RequestID}, nil)
}

func (t *Tab) addNote(n string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.notes) < 20 {
		t.notes = append(t.notes, n)
	}
}

// addLead sets the tab's lead: what the agent must read before anything
// else of the next result (the session's tabs were lost with the browser).
func (t *Tab) addLead(n string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lead = n
}

// TakeLead returns and clears the tab's lead (addLead), or "".
func (t *Tab) TakeLead() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.lead
	t.lead = ""
	return n
}

// TakeNotes returns and clears what happened in the tab on its own since
// the last call (dialogs answered, loads blocked).
func (t *Tab) TakeNotes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.notes
	t.notes = nil
	return n
}

// lastBlocked returns and clears the URL of the last load the policy
// refused. The caller reports it as its error, so the note of that load is
// dropped too: it must not turn up in a later call's result.
func (t *Tab) lastBlocked() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.blocked
	t.blocked = ""
	if b != "" {
		kept := t.notes[:0]
		for _, n := range t.notes {
			if !strings.HasPrefix(n, blockedNote+b+":") {
				kept = append(kept, n)
			}
		}
		t.notes = kept
	}
	return b
}

// blockedNote starts the note of a load the policy refused.
const blockedNote = "blocked a load of "

// guardFrame applies the origin policy to the document loads of an
// out-of-process frame's session (its own navigations are paused there, not
// in the tab's session), until that session ends.
func (t *Tab) guardFrame(ctx context.Context, sess cdp.Caller) error {
	if t.policy == nil {
		return nil
	}
	paused, cancel := sess.Subscribe("Fetch.requestPaused")
	err := sess.Call(ctx, "Fetch.enable", map[string]any{"patterns": documentRequests}, nil)
	if err != nil {
		cancel()
		return err
	}
	go func() {
		defer cancel()
		for {
			select {
			case <-sess.Done():
				return
			case <-t.t.Done():
				return
			case raw, ok := <-paused:
				if !ok {
					return
				}
				t.answerRequest(sess, raw)
			}
		}
	}()
	return nil
}

// documentRequests is the Fetch pattern of the origin policy: every
// document request, paused before it is sent.
var documentRequests = []map[string]any{{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}}

// watchConsole records the tab's console messages, exceptions and
// downloads until its session ends.
func (t *Tab) watchConsole(msgs, exceptions, dlBegin, dlProgress <-chan jsonv2.Value, cancel func()) {
	defer cancel()
	for {
		select {
		case <-t.t.Done():
			return
		case raw, ok := <-msgs:
			if !ok {
				return
			}
			t.onConsole(raw)
		case raw, ok := <-exceptions:
			if !ok {
				return
			}
			t.onException(raw)
		case raw, ok := <-dlBegin:
			if !ok {
				return
			}
			t.onDownloadBegin(raw)
		case raw, ok := <-dlProgress:
			if !ok {
				return
			}
			t.onDownloadProgress(raw)
		}
	}
}
