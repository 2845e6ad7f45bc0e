package tools

import (
	"context"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/redact"
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
	// Client names the calling client among those that share the process
	// (browser.Caller.Client): the output folders its calls make are its
	// own; "" for the only client.
	Client string
	// Roots are the local directories the client declared as its roots
	// (asked when an upload needs them); nil for none.
	Roots func(ctx context.Context) []string
	// Status are facts for browser_status: configuration, the active tools.
	Status func() map[string]any
	// Progress tells the client how far a long call is (done of total, and
	// a message); nil when the client asked for no progress.
	Progress func(done, total int, msg string)
	// Handoff: the client has browser_handoff, which a result names where
	// the page waits for a person.
	Handoff bool
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
	// OpenCLI is the OpenCLI the opencli tools run; nil when none was
	// found.
	OpenCLI *OpenCLI
}

// Held is what a call holds while its tool runs: the session, inside its
// Session.Do, as browser.Held (its operations and the tab the tool works
// on), with the call's environment. The server makes one per call with
// NewHeld; a tool cannot reach the session's held operations otherwise.
type Held struct {
	*browser.Held // nil when the tool holds no session
	name          string
	env           *Env
}

// NewHeld is what a call holds: h (nil when the tool holds none, or the
// session named does not exist) with the call's environment. Only the
// server calls it, inside Session.Do.
func NewHeld(name string, h *browser.Held, env *Env) *Held {
	if env == nil {
		env = &Env{}
	}
	return &Held{Held: h, name: name, env: env}
}

// Exists reports whether a session is held (HoldExistingSession: whether
// the session existed).
func (h *Held) Exists() bool { return h.Held != nil }

// SessionName is the held session's name (the name asked for when it does
// not exist).
func (h *Held) SessionName() string {
	if h.Held != nil {
		return h.Session().Name()
	}
	return h.name
}

// BrowserProfileName names the browser profile the session's tabs live in
// (the bridge), or "".
func (h *Held) BrowserProfileName() string { return h.Session().BrowserProfileName() }

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
	if h.Held == nil {
		return redact.OpenedURL(u)
	}
	return h.Session().ShowURL(u)
}

// BackendInfo describes the backend now.
func (h *Held) BackendInfo() backend.Info {
	if h.Held != nil {
		return h.Session().Backend().Info() // the one this session's tabs live on
	}
	return h.env.Manager.Info()
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
