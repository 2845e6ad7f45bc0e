package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// Env is what a call may know besides its session, set by the server for
// each call.
type Env struct {
	Manager *browser.Manager
	// Gate is the site gate flows and recipe runs enter; nil: none.
	Gate *recipes.Gate
	// Recipes is the recipe store (nil: none); HealWrite saves healed
	// locators back into a recipe's file.
	Recipes   *recipes.Store
	HealWrite bool
	// Secrets are the values tools type by name (secret: NAME); nil: none.
	Secrets *secrets.Set
	// Roots are the local directories the client declared as its roots
	// (asked when an upload needs them); nil for none.
	Roots func(ctx context.Context) []string
	// Status are facts for browser_status: configuration, the active tools.
	Status func() map[string]any
	// Progress tells the client how far a long call is (done of total, and
	// a message); nil when the client asked for no progress.
	Progress func(done, total int, msg string)
	// Decode checks and decodes the arguments of another active tool
	// exactly as that tool's own call would (coercion, schema, Check);
	// ErrInactive for a tool the server does not serve. browser_flow checks
	// its steps with it.
	Decode func(tool string, args map[string]any) (any, error)
	// Recent is a session's last actions, newest last (browser_status);
	// nil: none kept.
	Recent func(session string) []trace.Action
	// Sessions are the caller's sessions by its names (browser_status);
	// nil: every session of the manager.
	Sessions func() []string
	// TraceMask is applied to what browser_flow's trace keeps; nil is the
	// identity.
	TraceMask func(string) string
}

// Held is what a call holds while its tool runs: the session, inside its
// Session.Do, and the tab the tool works on (see Hold). The server makes
// one per call with NewHeld; the session methods that must run within Do
// are methods of Held, so a tool cannot call them outside it.
type Held struct {
	name string
	s    *browser.Session
	t    *browser.Tab
	env  *Env
}

// NewHeld is what a call holds: session s (nil when the tool holds none, or
// the session named does not exist) and tab t, with the call's environment.
// Only the server calls it, inside s.Do.
func NewHeld(name string, s *browser.Session, t *browser.Tab, env *Env) *Held {
	if env == nil {
		env = &Env{}
	}
	return &Held{name: name, s: s, t: t, env: env}
}

// Exists reports whether a session is held (HoldExistingSession: whether
// the session existed).
func (h *Held) Exists() bool { return h.s != nil }

// SessionName is the held session's name (the name asked for when it does
// not exist).
func (h *Held) SessionName() string {
	if h.s != nil {
		return h.s.Name()
	}
	return h.name
}

// Tab is the tab the call works on: the held one, or the one NewTab or
// SelectTab made current.
func (h *Held) Tab() *browser.Tab { return h.t }

// Navigate opens url in the tab and waits for the load.
func (h *Held) Navigate(ctx context.Context, url string, timeout time.Duration) (browser.NavResult, error) {
	return h.s.Navigate(ctx, h.t, url, timeout)
}

// History goes back, forward or reloads the tab.
func (h *Held) History(ctx context.Context, dir string, timeout time.Duration) (browser.NavResult, error) {
	return h.s.History(ctx, h.t, dir, timeout)
}

// Snapshot renders the tab's page.
func (h *Held) Snapshot(ctx context.Context, o browser.SnapshotOptions) (*browser.Snapshot, error) {
	return h.s.Snapshot(ctx, h.t, o)
}

// Find looks for elements in the tab's page.
func (h *Held) Find(ctx context.Context, o browser.FindOptions) (string, error) {
	return h.s.Find(ctx, h.t, o)
}

// Act performs an action in the tab.
func (h *Held) Act(ctx context.Context, a browser.Action) (*browser.ActionResult, error) {
	return h.s.Act(ctx, h.t, a)
}

// FillForm fills fields in the tab.
func (h *Held) FillForm(ctx context.Context, f browser.FormFill) (*browser.FormResult, error) {
	return h.s.FillForm(ctx, h.t, f)
}

// Screenshot captures the tab.
func (h *Held) Screenshot(ctx context.Context, o browser.ShotOptions) (*browser.Shot, error) {
	return h.s.Screenshot(ctx, h.t, o)
}

// Download fetches urls or the media of a target into the output directory.
func (h *Held) Download(ctx context.Context, o browser.FetchOptions) (*browser.FetchResult, error) {
	return h.s.Download(ctx, h.t, o)
}

// AnswerDialog answers the tab's open dialog.
func (h *Held) AnswerDialog(ctx context.Context, accept bool, text *string) (*browser.DialogView, error) {
	return h.s.AnswerDialog(ctx, h.t, accept, text)
}

// NewTab opens a tab in the session; it becomes current and the call's tab.
func (h *Held) NewTab(ctx context.Context) (*browser.Tab, error) {
	t, err := h.s.NewTab(ctx)
	if err == nil {
		h.t = t
	}
	return t, err
}

// SelectTab makes a tab of the session current and the call's tab.
func (h *Held) SelectTab(ctx context.Context, id string) (*browser.Tab, error) {
	t, err := h.s.SelectTab(ctx, id)
	if err == nil {
		h.t = t
	}
	return t, err
}

// SelectTabMatching makes the one tab whose URL or title matches current
// (part of either, or a /regex/).
func (h *Held) SelectTabMatching(ctx context.Context, match string) (*browser.Tab, error) {
	t, err := h.s.SelectTabMatching(ctx, match)
	if err == nil {
		h.t = t
	}
	return t, err
}

// CurrentTab is the session's current tab (opened when there is none).
func (h *Held) CurrentTab(ctx context.Context) (*browser.Tab, error) { return h.s.CurrentTab(ctx) }

// BindTab binds a tab the user opened (browser.Session.BindTab) and makes
// it the call's tab.
func (h *Held) BindTab(ctx context.Context, id, match string) (*browser.Tab, error) {
	t, err := h.s.BindTab(ctx, id, match)
	if err == nil {
		h.t = t
	}
	return t, err
}

// UnbindTab releases a bound tab (browser.Session.UnbindTab).
func (h *Held) UnbindTab(ctx context.Context, id string) (*browser.Tab, error) {
	return h.s.UnbindTab(ctx, id)
}

// BindableTabs lists the user's tabs that can be bound.
func (h *Held) BindableTabs(ctx context.Context) ([]browser.TabView, error) {
	return h.s.BindableTabs(ctx)
}

// CloseTab closes a tab of the session.
func (h *Held) CloseTab(ctx context.Context, id string) error { return h.s.CloseTab(ctx, id) }

// ListTabs lists the session's tabs.
func (h *Held) ListTabs(ctx context.Context) ([]browser.TabView, error) { return h.s.ListTabs(ctx) }

// BrowserProfileName names the browser profile the session's tabs live in
// (the bridge), or "".
func (h *Held) BrowserProfileName() string { return h.s.BrowserProfileName() }

// TabIDs are the ids of the session's tabs.
func (h *Held) TabIDs() []string { return h.s.TabIDs() }

// CloseTabs closes every tab of the session.
func (h *Held) CloseTabs(ctx context.Context) error { return h.s.CloseTabs(ctx) }

// Roots are the client's root directories (see Env.Roots).
func (h *Held) Roots(ctx context.Context) []string {
	if h.env.Roots == nil {
		return nil
	}
	return h.env.Roots(ctx)
}

// ShowURL is a URL as the agent is shown it: credentials redacted unless
// --no-redact.
func (h *Held) ShowURL(u string) string {
	if h.s == nil {
		return browser.RedactURL(u)
	}
	return h.s.ShowURL(u)
}

// BackendInfo describes the backend now.
func (h *Held) BackendInfo() backend.Info {
	if h.s != nil {
		return h.s.Backend().Info() // the one this session's tabs live on
	}
	return h.env.Manager.Backend().Info()
}

// SessionNames are the agent sessions that exist.
func (h *Held) SessionNames() []string {
	if h.env.Sessions != nil {
		return h.env.Sessions()
	}
	return h.env.Manager.SessionNames()
}

// Status are the server's facts for browser_status.
func (h *Held) Status() map[string]any {
	if h.env.Status == nil {
		return nil
	}
	return h.env.Status()
}

// Read reads the page's (or an element's) content in the tab.
func (h *Held) Read(ctx context.Context, o browser.ReadOptions) (*browser.ReadResult, error) {
	return h.s.Read(ctx, h.t, o)
}

// Eval runs the agent's code in the tab's page.
func (h *Held) Eval(ctx context.Context, o browser.EvalOptions) (*browser.EvalResult, error) {
	return h.s.Eval(ctx, h.t, o)
}

// Frames lists the tab's frames.
func (h *Held) Frames(ctx context.Context) ([]browser.FrameInfo, error) {
	return h.s.Frames(ctx, h.t)
}

// Wait waits in the tab until conditions hold.
func (h *Held) Wait(ctx context.Context, o browser.WaitOptions) (*browser.WaitResult, error) {
	return h.s.Wait(ctx, h.t, o)
}

// Handoff gives the tab to the user until a condition holds or they say
// Done (browser_handoff).
func (h *Held) Handoff(ctx context.Context, o browser.HandoffOptions) (*browser.HandoffResult, error) {
	return h.s.Handoff(ctx, h.t, o)
}

// Describe takes the candidates of the element target resolves to now,
// for finding it again later (recipes).
func (h *Held) Describe(ctx context.Context, target browser.Locator) (*browser.Candidates, error) {
	return h.s.Describe(ctx, h.t, target)
}

// Relocate finds the element c describes in the tab's page now.
func (h *Held) Relocate(ctx context.Context, primary browser.Locator, c *browser.Candidates) (*browser.Relocation, error) {
	return h.s.Relocate(ctx, h.t, primary, c)
}

// SetLastFlow keeps the session's last flow that ran to its end.
func (h *Held) SetLastFlow(r *browser.FlowRecord) { h.s.SetLastFlow(r) }

// LastFlow is the session's last flow that ran to its end, or nil.
func (h *Held) LastFlow() *browser.FlowRecord { return h.s.LastFlow() }

// Secret is the declared secret of that name; an unknown name is
// INVALID_ARGUMENT listing the known names (never a value).
func (h *Held) Secret(name string) (secrets.Secret, error) {
	if sec, ok := h.env.Secrets.Lookup(name); ok {
		return sec, nil
	}
	names := h.env.Secrets.Names()
	if len(names) == 0 {
		return secrets.Secret{}, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("no secret %q: none are declared", browser.Echo(name)),
			Hint: "the user declares secrets with --secrets FILE (NAME=value lines) or WEBPILOT_SECRET_<NAME>; ask the user, or hand the tab over (browser_handoff) for them to type it"}
	}
	return secrets.Secret{}, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("no secret %q", browser.Echo(name)),
		Hint: "use one of the declared names", Suggestions: names}
}

// Collect reads repeated items of the tab's page (browser_collect).
func (h *Held) Collect(ctx context.Context, o browser.CollectOptions) (*browser.Collected, error) {
	return h.s.Collect(ctx, h.t, o)
}

// NetworkList lists the session's recorded requests (browser_network).
func (h *Held) NetworkList(q browser.NetworkQuery) (*browser.NetList, error) {
	return h.s.NetworkList(q)
}

// NetworkRequest describes one recorded request in full, with its body.
func (h *Held) NetworkRequest(ctx context.Context, g browser.NetworkGet) (*browser.NetDetail, error) {
	return h.s.NetworkRequest(ctx, g)
}

// ClearNetwork empties the session's network buffer.
func (h *Held) ClearNetwork() int { return h.s.ClearNetwork() }

// Console lists the tab's console messages and exceptions.
func (h *Held) Console(ctx context.Context, o browser.ConsoleOptions) (*browser.ConsoleResult, error) {
	return h.s.Console(ctx, h.t, o)
}
