package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Hand-off bounds.
const (
	// HandoffMessageMax is the longest message shown to the user.
	HandoffMessageMax = 300
	// HandoffDefaultTimeout is how long a hand-off waits unless told.
	HandoffDefaultTimeout = 5 * time.Minute
	// HandoffMaxTimeout is the longest a hand-off may wait.
	HandoffMaxTimeout = 15 * time.Minute
	// handoffTick is how often a hand-off reports progress while it waits.
	handoffTick = 5 * time.Second
)

// HandoffOptions describe a hand-off: the person at the browser takes over
// the tab (a login, a CAPTCHA, a second factor the agent must not do) and
// the call waits until Until holds, they say Done (bridge), or Timeout.
type HandoffOptions struct {
	// Message tells the user what to do; at most HandoffMessageMax characters.
	Message string
	// Until ends the hand-off once it holds (a wait condition); nil waits
	// for the user's Done only.
	Until *WaitCondition
	// Timeout bounds the wait (0: HandoffDefaultTimeout).
	Timeout time.Duration
	// Progress, when set, is told every few seconds how long the hand-off
	// has waited.
	Progress func(waited, timeout time.Duration)
}

// HandoffResult is how a hand-off ended.
type HandoffResult struct {
	// By is "condition" (Until held) or "user" (the user pressed Done).
	By string
	// What describes the condition that held.
	What    string
	Elapsed time.Duration
	URL     string
	Title   string
}

// The causes that end a hand-off's wait early: the user pressed Done, or
// the tab's session ended (closed, detached).
var (
	errHandoffDone    = errors.New("the user pressed Done")
	errHandoffTabGone = errors.New("the tab's session ended")
)

// checkHandoff refuses a hand-off that cannot work, before the tab is
// touched.
func (s *Session) checkHandoff(o *HandoffOptions) ([]*waitCond, backend.Handoff, error) {
	o.Message = strings.TrimSpace(o.Message)
	if o.Message == "" {
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: "message is empty: say what the user should do",
			Hint:        "the user reads it in a notification and the extension's popup: one short sentence",
			Suggestions: []string{`"message": "Please sign in, then press Done in the webpilot popup"`}}
	}
	if n := len([]rune(o.Message)); n > HandoffMessageMax {
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("message has %d characters: at most %d", n, HandoffMessageMax),
			Hint: "one short sentence the user reads in a notification"}
	}
	if s.rec != nil && s.rec.status().EndedBy == "" {
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: "the session is recording the user: a hand-off now would be recorded as part of the task",
			Hint: `the user already has the tab: tell them in the recording's message, or stop the recording first (recipe_record {"action": "stop"})`}
	}
	if o.Timeout <= 0 {
		o.Timeout = HandoffDefaultTimeout
	}
	if o.Timeout > HandoffMaxTimeout {
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("timeout_ms %d: at most %d", o.Timeout.Milliseconds(), HandoffMaxTimeout.Milliseconds()),
			Hint: "a hand-off waits at most 15 minutes; call it again if the user needs longer", Suggestions: []string{`"timeout_ms": 900000`}}
	}
	var conds []*waitCond
	if o.Until != nil {
		var err error
		if conds, err = checkWait(WaitOptions{Conditions: []WaitCondition{*o.Until}}); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Message = "until: " + e.Message
			}
			return nil, nil, err
		}
	}
	ho, _ := s.be.(backend.Handoff)
	info := s.be.Info()
	switch {
	case ho != nil:
	case info.Kind == "launch" && info.Headless:
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: "the browser is headless: nobody can see the tab to take it over",
			Hint: "a hand-off needs a browser the user sees: your own Chrome through the extension (webpilot pair), or webpilot started with --headed"}
	case o.Until == nil:
		return nil, nil, &Error{Code: CodeInvalidArgument, Message: "until is missing: without the browser extension the user has no Done button, so only a condition can end the hand-off",
			Hint:        "give until: what the page shows once the user is done (a URL, a title, an element)",
			Suggestions: []string{`"until": {"url": "*/account*"}`, `"until": {"text": "Signed in"}`}}
	}
	return conds, ho, nil
}

// Handoff gives the tab to the user: it comes to the front with the message
// shown (the bridge: badge, notification and popup with a Done button), and
// the call waits until Until holds, the user presses Done, or the timeout
// passes (TIMEOUT). Refs from before may be stale afterwards: the user may
// have changed anything (a diff against the snapshot before says what).
func (p Person) Handoff(ctx context.Context, o HandoffOptions) (*HandoffResult, error) {
	s, t := p.h.s, p.h.t
	conds, ho, err := s.checkHandoff(&o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var done <-chan struct{}
	if ho != nil {
		if done, err = ho.StartHandoff(ctx, t.target, o.Message); err != nil {
			return nil, backendError("hand the tab over", err)
		}
		defer func() {
			ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := ho.EndHandoff(ectx, t.target); err != nil {
				t.log.Debug("handoff: end", "err", err)
			}
		}()
	} else {
		if err := s.be.Activate(ctx, t.target); err != nil {
			return nil, backendError("bring the tab to the front", err)
		}
		_ = t.page.Call(ctx, "Page.bringToFront", nil, nil)
	}
	// Whatever the user does, the snapshot cache is of the page before; the
	// diff baseline stays, so that the result can say what changed while
	// the user had the tab.
	t.view.cache = nil

	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-done: // nil without the extension: never
			cancel(errHandoffDone)
		case <-t.page.Done():
			cancel(errHandoffTabGone)
		case <-wctx.Done():
		}
	}()
	if o.Progress != nil {
		go func() {
			tick := time.NewTicker(handoffTick)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					o.Progress(time.Since(start), o.Timeout)
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	res := &HandoffResult{}
	if conds != nil {
		wr, err := reader{s}.wait(wctx, t, conds, WaitOptions{Conditions: []WaitCondition{*o.Until}, Timeout: o.Timeout})
		switch cause := context.Cause(wctx); {
		case ctx.Err() != nil:
			return nil, backendError("wait for the user", context.Cause(ctx))
		case errors.Is(cause, errHandoffDone):
			res.By = "user"
		case errors.Is(cause, errHandoffTabGone):
			return nil, backendError("wait for the user", tabEnded(ctx, t))
		case err != nil:
			return nil, handoffTimeout(err, o)
		default:
			res.By, res.What = "condition", wr.What
		}
	} else {
		timer := time.NewTimer(o.Timeout)
		defer timer.Stop()
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, backendError("wait for the user", context.Cause(ctx))
			}
			if errors.Is(context.Cause(wctx), errHandoffTabGone) {
				return nil, backendError("wait for the user", tabEnded(ctx, t))
			}
			res.By = "user"
		case <-timer.C:
			return nil, &Error{Code: CodeTimeout, Message: fmt.Sprintf("the user did not press Done within %s", o.Timeout.Round(time.Second)),
				Hint: "ask the user whether they are still at it, then call browser_handoff again (timeout_ms up to 900000), or give an until condition that tells when they are done"}
		}
	}
	res.Elapsed = time.Since(start)
	var page struct {
		Result struct {
			Value struct {
				URL   string `json:"url"`
				Title string `json:"title"`
			} `json:"value"`
		} `json:"result"`
	}
	if err := t.page.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "({url: location.href, title: document.title})", "returnByValue": true}, &page); err == nil {
		res.URL, res.Title = page.Result.Value.URL, page.Result.Value.Title
	}
	return res, nil
}

// tabEnded is why the tab's session ended (a call on it says: detached by
// the user, the tab closed, the connection lost), for backendError.
func tabEnded(ctx context.Context, t *Tab) error {
	if err := t.page.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "1"}, nil); err != nil {
		return err
	}
	return cdp.ErrDetached
}

// handoffTimeout turns the wait's TIMEOUT into the hand-off's.
func handoffTimeout(err error, o HandoffOptions) error {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeTimeout {
		return err
	}
	return &Error{Code: CodeTimeout,
		Message: fmt.Sprintf("the hand-off ended after %s: until (%s) did not hold and the user did not press Done. %s", o.Timeout.Round(time.Second), Echo(o.Until.Describe()), e.Message),
		Hint:    "ask the user whether they are still at it, then call browser_handoff again (timeout_ms up to 900000); check the page first (browser_snapshot)",
		Err:     err}
}
