package browser

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/origin"
	"github.com/webpilot-mcp/webpilot/internal/outdir"
)

// PolicyOptions are the settings that govern what a session may do and how
// long it waits: the origin lists, the timeouts, where its files go, what
// happens to dialogs, what network output shows. (Where uploads may come
// from is the calling client's, each call: WithUploadRoots.) They belong to the client that makes the session, so two clients of
// one browser (the per-user daemon) each keep their own. Zero values take
// the defaults of Options.
type PolicyOptions struct {
	ActionTimeout  time.Duration
	NavTimeout     time.Duration
	AllowedOrigins []string
	BlockedOrigins []string
	AllowFileURLs  bool
	OutputDir      string
	OutputMaxBytes int64
	DialogPolicy   string
	NoRedact       bool
	CDPAllow       []string // nil: DefaultCDPAllow
	// HTTPAuth answers servers' and proxies' login challenges
	// (--http-auth), by origin.
	HTTPAuth []HTTPAuth
	// Approve is whether the session asks the person at their own browser
	// before it uses a site or binds their tab (--approve): ApproveAsk, or
	// ApproveAlways ("" is the same: never ask).
	Approve string
}

// Policy is a compiled PolicyOptions: the origin rules parsed and the
// output directory open. A session keeps the policy it was made with for
// its life (its tabs' watchers follow it), so a call from a client with
// another policy is refused rather than run under the wrong rules (see
// Manager.SessionWith). Policies with equal options are one value.
type Policy struct {
	opts PolicyOptions
	key  string
	// allowed and blocked are the parsed origin rules; a rule that does
	// not parse blocks every web origin (blocked) or allows none
	// (allowed), so a typo never opens what was meant to be closed.
	allowed, blocked []OriginRule
	// out is the output directory: what webpilot writes there, its
	// manifest and budget.
	out *outdir.Dir
}

// Options returns the policy's effective options.
func (p *Policy) Options() PolicyOptions { return p.opts }

// Key is a canonical text of the policy's options: equal keys, equal
// policies.
func (p *Policy) Key() string { return p.key }

// policyKey is the canonical text of o.
func policyKey(o PolicyOptions) string {
	sorted := func(v []string) string {
		v = slices.Clone(v)
		slices.Sort(v)
		return strings.Join(v, ",")
	}
	cdp := "default"
	if o.CDPAllow != nil {
		cdp = "[" + sorted(o.CDPAllow) + "]"
	}
	return fmt.Sprintf("a=%s|n=%s|allow=%s|block=%s|file=%t|out=%s|max=%d|dialog=%s|noredact=%t|cdp=%s|auth=%s|approve=%s",
		o.ActionTimeout, o.NavTimeout, sorted(o.AllowedOrigins), sorted(o.BlockedOrigins), o.AllowFileURLs,
		o.OutputDir, o.OutputMaxBytes, o.DialogPolicy, o.NoRedact, cdp, authKey(o.HTTPAuth), o.Approve)
}

// withDefaults fills o's zero values from the DESIGN.md defaults.
func (o PolicyOptions) withDefaults() PolicyOptions {
	if o.ActionTimeout <= 0 {
		o.ActionTimeout = 10 * time.Second
	}
	if o.NavTimeout <= 0 {
		o.NavTimeout = 30 * time.Second
	}
	if o.OutputDir == "" {
		o.OutputDir = DefaultOutputDir
	}
	if o.DialogPolicy == "" {
		o.DialogPolicy = DialogAsk
	}
	if o.OutputMaxBytes <= 0 {
		o.OutputMaxBytes = 100 << 20
	}
	return o
}

// Policy returns the compiled policy of o (defaults filled in), the same
// value for equal options. A rule that does not parse is logged and makes
// the policy refuse (see Policy.allowed).
func (m *Manager) Policy(o PolicyOptions) *Policy {
	o = o.withDefaults()
	key := policyKey(o)
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.policies[key]; ok {
		return p
	}
	p := &Policy{opts: o, key: key}
	var err error
	if p.allowed, err = ParseOriginRules(o.AllowedOrigins); err != nil {
		m.log.Error("allowed origins: a rule that does not parse allows nothing", "err", err)
		if len(p.allowed) == 0 {
			p.allowed = []OriginRule{origin.MatchNone("(invalid)")}
		}
	}
	if p.blocked, err = ParseOriginRules(o.BlockedOrigins); err != nil {
		m.log.Error("blocked origins: a rule that does not parse blocks every origin", "err", err)
		p.blocked = append(p.blocked, origin.MatchAll("(invalid rule)"))
	}
	// One output directory value per folder and budget, whichever
	// policies share it (its manifest is locked across processes anyway).
	outKey := fmt.Sprintf("%s|%d", o.OutputDir, o.OutputMaxBytes)
	if p.out = m.outs[outKey]; p.out == nil {
		p.out = outdir.New(o.OutputDir, o.OutputMaxBytes)
		m.outs[outKey] = p.out
	}
	m.policies[key] = p
	return p
}

// DefaultPolicy is the policy of sessions made without one of their own:
// the Manager's Options.
func (m *Manager) DefaultPolicy() *Policy { return m.policy }

// Caller is what the calling client brings to the session it holds, for
// the call (Held.SetCaller).
type Caller struct {
	// Mask hides the client's secrets: what the page shows is masked with
	// it as it is read, before any line is cut (a cut after masking could
	// leave a secret's first characters); nil: no secrets.
	Mask func(string) string
	// UploadRoots are the directories the call's uploads may come from
	// (besides the client's MCP roots): those of the calling client,
	// whatever session it calls in; nil: Options.UploadRoots.
	UploadRoots []string
	// Hide gives what the page-side matchers hide on a document of that
	// origin (a URL): the forms of the client's secrets that may be typed
	// there, longest first, each masked as its name before any agent
	// pattern, text or expect is compared with the page (frameWorld.eval);
	// nil: no secrets.
	Hide func(origin string) []HiddenText
	// Client names the calling client where several share the process
	// (the daemon, serve): the files webpilot writes for it in the output
	// directory are its own, and no other client's call may read them
	// (Session.localFiles); "" for the only client.
	Client string
	// Fragment names a secret of the client's that shows in text, whole
	// or in parts (secrets.Set.Fragment), for what cannot be masked once
	// written (a PDF); nil: no secrets.
	Fragment func(text string) string
}

// HiddenText is one form of a secret as a page may show it, and the name
// it is masked as (<secret:NAME>).
type HiddenText struct {
	Form string `json:"f"`
	Name string `json:"n"`
	// Parts: its pieces are hidden too (secrets.PartsShown).
	Parts bool `json:"p,omitempty"`
}

// hider is a Caller.Hide as sessionLink.hide holds it (nil: no secrets).
type hider func(origin string) []HiddenText

// mask is the calling client's secret masker, or nil.
func (t *Tab) mask() func(string) string {
	if t == nil {
		return nil
	}
	return t.link.caller.Mask
}

// Policy is the session's policy (fixed when the session was made).
func (s *Session) Policy() *Policy { return s.pol }

// policySet says an origin policy is configured.
func (p *Policy) policySet() bool { return len(p.allowed)+len(p.blocked) > 0 }

// OutputDir is the path of the policy's output directory.
func (p *Policy) OutputDir() string { return p.out.Path() }
