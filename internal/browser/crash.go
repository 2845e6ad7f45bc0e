package browser

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// A page whose renderer crashed (killed, out of memory, Page.crash) answers
// nothing: the browser reports Inspector.targetCrashed, and from then on
// every call that needs the page fails at once with PAGE_CRASHED (Tabs.Ready)
// — a call under way when it happens too (WatchCrash) — until a navigation
// loads a page in a new renderer (browser_navigate, which a crashed tab
// does not refuse; the crash is forgotten once the browser took it).

// errPageCrashed is the cause of a call's context ended by a crash.
var errPageCrashed = errors.New("the page crashed")

// crashWatch is a tab's crash feature: whether its page's renderer is
// gone.
type crashWatch struct {
	log *slog.Logger
	mu  sync.Mutex
	// crashed is set when the page crashes, which ends the calls
	// watching (WatchCrash), and cleared when a navigation starts a new
	// page.
	crashed bool
	calls   callWatch
}

func newCrashWatch(log *slog.Logger) *crashWatch {
	return &crashWatch{log: log}
}

// evTargetCrashed is the event the crash watch follows.
const evTargetCrashed = "Inspector.targetCrashed"

func (c *crashWatch) events() []string { return []string{evTargetCrashed} }

// apply notes the crash and ends the calls that watch for it.
func (c *crashWatch) apply(*loop, cdp.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return
	}
	c.crashed = true
	c.calls.end(errPageCrashed)
	c.log.Info("the page crashed")
}

// reloaded forgets a crash: a navigation loaded a new page in the tab (the
// next crash is watched for afresh).
func (c *crashWatch) reloaded() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.crashed = false
}

// err is PAGE_CRASHED while the tab's page is crashed, else nil.
func (c *crashWatch) err() error {
	c.mu.Lock()
	crashed := c.crashed
	c.mu.Unlock()
	if !crashed {
		return nil
	}
	return crashError()
}

func crashError() *Error {
	return &Error{Code: CodePageCrashed, Message: "the tab's page crashed (its renderer is gone): it answers nothing until it is loaded again",
		Hint: `load it again with browser_navigate ({"go": "reload"} or its url); what the page held (form input, state) is lost`}
}

// WatchCrash returns a context that ends when the tab's page crashes, and
// a function that ends the watch and says whether the crash ended it
// (then PAGE_CRASHED replaces the call's error).
func (t *Tab) WatchCrash(ctx context.Context) (context.Context, func(err error) error) {
	c := t.crash
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		// A call that may run on a crashed page (the console, a dialog, a
		// navigate that loads a new one) is not ended for it.
		return ctx, func(err error) error { return err }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := c.calls.add(cancel)
	return ctx, func(err error) error {
		c.mu.Lock()
		stop()
		c.mu.Unlock()
		crashed := errors.Is(context.Cause(ctx), errPageCrashed)
		cancel(nil)
		if crashed && err != nil {
			return crashError()
		}
		return err
	}
}
