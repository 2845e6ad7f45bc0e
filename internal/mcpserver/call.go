package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/flow"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// register adds a table entry to the go-sdk server: its definition, with
// the schema inferred from its input type, and the handler that runs it.
func (s *Server) register(t tools.Tool) {
	schema := s.learn(t)
	def := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: advertised(schema),
		Annotations: wireAnnotations(t.Annotations)}
	s.defs = append(s.defs, def)
	s.mcp.AddTool(def, s.handler(t))
}

// wireAnnotations are a tool's annotations as tools/list sends them: only
// what differs from MCP's defaults (not read-only, destructive, not
// idempotent, open world), nil when nothing does. (go-sdk writes
// readOnlyHint and idempotentHint of any annotations it sends.)
func wireAnnotations(a tools.Annotations) *mcp.ToolAnnotations {
	w := &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, IdempotentHint: a.Idempotent}
	if a.Destructive != nil && !*a.Destructive && !a.ReadOnly {
		w.DestructiveHint = a.Destructive
	}
	if a.OpenWorld != nil && !*a.OpenWorld {
		w.OpenWorldHint = a.OpenWorld
	}
	if *w == (mcp.ToolAnnotations{}) {
		return nil
	}
	return w
}

// advertised is the input schema tools/list shows: the one arguments are
// checked against (learn), less what the model needs no word of. Unknown
// arguments are refused by the check with the names that are known (so
// additionalProperties: false is left out); the shared arguments' bounds
// and values (tools.SharedBounds, tools.SharedEnums) are said once in
// Instructions; and an object nested in the arguments (an item of
// browser_fill_form's fields, of browser_wait's conditions) that takes a
// whole target leaves the target's fields (tools.TargetArgs) to the word
// "target" in its description, and one whose fields have no words of their
// own leaves them to the description that names them.
func advertised(s *jsonschema.Schema) *jsonschema.Schema { return advertise(s, true) }

// documented says whether a property has words of its own for the model:
// a description, a default or its values.
func documented(p *jsonschema.Schema) bool {
	return p.Description != "" || p.Default != nil || len(p.Enum) > 0
}

func advertise(s *jsonschema.Schema, root bool) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	c := *s
	if c.AdditionalProperties != nil && c.AdditionalProperties.Not != nil {
		c.AdditionalProperties = nil
	}
	if c.Properties != nil {
		target := !root
		for _, a := range tools.TargetArgs {
			_, ok := s.Properties[a]
			target = target && ok
		}
		c.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for name, p := range s.Properties {
			if target && slices.Contains(tools.TargetArgs, name) {
				continue
			}
			p = advertise(p, false)
			if tools.SharedBounds[name] && p.Type == "integer" {
				p.Minimum, p.Maximum = nil, nil
			}
			if root && tools.SharedEnums[name] {
				p.Enum = nil
			}
			c.Properties[name] = p
		}
		if !root && len(c.Required) == 0 && !slices.ContainsFunc(slices.Collect(maps.Values(c.Properties)), documented) {
			// Fields with no word of their own are named by the
			// description of what holds them (browser_wait's
			// conditions: "url|title (glob or /re/), network_idle, …"):
			// their list would say it twice.
			c.Properties = nil
		}
	}
	c.Items = advertise(s.Items, false)
	return &c
}

// learn keeps what checking a tool's arguments takes: the tool, its input
// schema (also resolved) and its properties' types. It returns the schema.
func (s *Server) learn(t tools.Tool) *jsonschema.Schema {
	schema, err := t.InputSchema()
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %v", err)) // a programming error in the table
	}
	// Resolving (which checks the schema itself) waits for the tool's
	// first call: done for every tool here, it was milliseconds of every
	// start before tools/list could be answered. TestSchemasResolve keeps
	// every tool's schema resolvable.
	s.schemas[t.Name] = sync.OnceValue(func() *jsonschema.Resolved {
		res, err := schema.Resolve(nil)
		if err != nil {
			panic(fmt.Sprintf("mcpserver: tool %s: %v", t.Name, err)) // a programming error in the table
		}
		return res
	})
	s.tools[t.Name] = t
	s.inputs[t.Name] = schema
	props := make(map[string]string)
	for name, p := range schema.Properties {
		props[name] = p.Type
	}
	s.props[t.Name] = props
	return schema
}

// StepChecker checks flow steps, and so recipe steps, as a server with
// every tool checks them when browser_flow or recipe_run is called: each
// step's arguments as its tool's own call (coercion, the input schema with
// its enums, ranges and argument names, the session name, the input's
// Check), with no browser, session or client. Its Run and Capture fail.
// `webpilot recipe validate` checks recipe files with it.
func StepChecker() flow.Executor {
	s := &Server{tools: make(map[string]tools.Tool), schemas: make(map[string]func() *jsonschema.Resolved),
		inputs: make(map[string]*jsonschema.Schema), props: make(map[string]map[string]string)}
	for _, t := range tools.Table() {
		s.learn(t)
	}
	return tools.StepChecker(func(tool string, args map[string]any) (any, error) { return s.decodeArgs(nil, tool, args) })
}

// handler runs one tool call: the arguments are coerced and validated
// against the advertised schema and decoded once into the tool's input, the
// hold is taken, the tool runs, and its outcome is rendered.
func (s *Server) handler(t tools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (out *mcp.CallToolResult, _ error) {
		// What the agent saw goes to the session's trace and recent actions.
		start := time.Now()
		var args map[string]any
		var session, tab string
		var failure *browser.Error // the error the agent got, if any: observe records it
		var caller browser.Caller  // what the client brings to the session: its glance uses it too
		defer func() { s.observe(ctx, t, req, args, session, tab, caller, start, out, failure) }()
		finish := func(res *tools.Result, err error) (*mcp.CallToolResult, error) {
			if err != nil {
				failure = s.toolError(t.Name, err)
				return errorResult(failure), nil
			}
			return s.render(ctx, t.Name, res, nil), nil
		}
		args, err := s.checkArgs(t.Name, req.Params.Arguments)
		if err != nil {
			return finish(nil, err)
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return finish(nil, err)
		}
		in, err := t.Decode(raw)
		if err != nil {
			return finish(nil, err)
		}
		c := s.clientOf(ctx)
		if err := gatedArgs(c, t, args); err != nil {
			return finish(nil, err)
		}
		d := c.Deps
		sc := s.scopeOf(req)
		env := &tools.Env{Manager: d.Manager, Gate: d.Gate, Recipes: d.Recipes, HealWrite: d.HealWrite, Secrets: d.Secrets, Client: s.clientID(req),
			Status:   func() map[string]any { return s.status(c) },
			Roots:    func(ctx context.Context) []string { return clientRoots(ctx, req) },
			Progress: progress(ctx, req, c.mask), TraceMask: d.TraceMask, OpenCLI: d.OpenCLI,
			Recent:   func(name string) []trace.Action { return s.recent.List(sc.key(name)) },
			Sessions: func() []string { return sc.sessions(d.Manager.SessionNames()) },
			Decode:   func(tool string, args map[string]any) (any, error) { return s.decodeArgs(c, tool, args) },
			Handoff:  slices.Contains(c.Tools.Groups, tools.GroupHandoff)}
		if wd := clientWorkdir(req); wd != "" && d.RecipesFor != nil {
			env.Recipes = d.RecipesFor(wd)
		}
		if p := env.Progress; p != nil {
			// A backend that waits for a browser (a farm's queue) says so.
			ctx = browser.WithWaitReport(ctx, func(waited, bound time.Duration, msg string) {
				p(int(waited/time.Second), int(bound/time.Second), msg)
			})
		}
		caller = browser.Caller{UploadRoots: c.UploadRoots, Client: s.clientID(req)}
		if d.Secrets.Len() > 0 {
			caller.Mask = d.Secrets.Mask
			sec := d.Secrets
			caller.Fragment = sec.Fragment
			caller.Hide = func(origin string) []browser.HiddenText {
				var out []browser.HiddenText
				for _, s := range sec.InPage(origin) {
					out = append(out, browser.HiddenText{Form: s.Form, Name: s.Name, Parts: s.Parts})
				}
				return out
			}
		}
		if p, ok := in.(tools.Preparer); ok {
			if err := p.Prepare(env); err != nil {
				return finish(nil, err)
			}
		}
		if t.Hold != tools.HoldNothing {
			// The person may have paused or stopped this client in their
			// browser's live view.
			gctx, leave, err := s.liveGate(ctx, s.liveID(req), clientName(req), env.Progress)
			if err != nil {
				return finish(nil, err)
			}
			defer leave()
			defer s.showLive()
			ctx = gctx
		}
		session, _ = args["session"].(string)
		if session == "" {
			session = s.defaultSession(req)
		}
		tab, _ = args["tab"].(string)
		key := sc.key(session)
		s.noteCall(req, key)
		ref := sessionRef{key: key, shown: session, label: clientName(req), profile: clientBrowserProfile(req), policy: c.Policy, caller: caller}
		res, err := s.hold(ctx, t, ref, tab, in, env)
		return finish(res, stopCause(ctx, err))
	}
}

// clientName is the name the client gave in initialize (its title, else
// its name), or "".
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	name, _ := sessionClient(req.Session)
	return name
}

// sessionClient is the name (its title, else its name) and version the
// client of ss gave in initialize.
func sessionClient(ss *mcp.ServerSession) (name, version string) {
	ip := ss.InitializeParams()
	if ip == nil || ip.ClientInfo == nil {
		return "", ""
	}
	if ip.ClientInfo.Title != "" {
		return ip.ClientInfo.Title, ip.ClientInfo.Version
	}
	return ip.ClientInfo.Name, ip.ClientInfo.Version
}

// decodeArgs checks and decodes arguments of a tool the client has as its
// own call does (coercion, schema, the input's Check): browser_flow checks
// its steps with it. A tool the client does not have is tools.ErrInactive;
// with no tool profile (StepChecker) c may be nil.
func (s *Server) decodeArgs(c *Client, tool string, args map[string]any) (any, error) {
	t, ok := s.tools[tool]
	if !ok || s.settings != nil && !c.has(tool) {
		return nil, tools.ErrInactive
	}
	if err := gatedArgs(c, t, args); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "arguments do not encode as JSON: " + err.Error(), Hint: "pass plain JSON values"}
	}
	checked, err := s.checkArgs(tool, raw)
	if err != nil {
		return nil, err
	}
	if raw, err = json.Marshal(checked); err != nil {
		return nil, err
	}
	return t.Decode(raw)
}

// gatedArgs refuses an argument whose capability group the client has off
// (tools.Tool.GatedArgs): it is not the tool's for that client.
func gatedArgs(c *Client, t tools.Tool, args map[string]any) error {
	if c == nil {
		return nil
	}
	for name, g := range t.GatedArgs() {
		if _, given := args[name]; given && !c.groupOn(g) {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("argument %q of %s is off in this tool profile", name, t.Name),
				Hint: fmt.Sprintf("the user can switch it on with --caps +%s (or --profile full)", g)}
		}
	}
	return nil
}

// progress is the call's progress hook: MCP progress notifications when the
// client's request carries a progress token, else nil.
func progress(ctx context.Context, req *mcp.CallToolRequest, mask func(string) string) func(done, total int, msg string) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return func(done, total int, msg string) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
			Progress: float64(done), Total: float64(total), Message: mask(msg)})
	}
}

// hold takes what the tool holds (tools.Hold), runs it and, still holding
// it, adds the tab's notes and then the dialog the call opened or else the
// inline snapshot the result asks for.
func (s *Server) hold(ctx context.Context, t tools.Tool, session sessionRef, tab string, in any, env *tools.Env) (*tools.Result, error) {
	if session.key == "" {
		session.key = s.deps.DefaultSession
	}
	if session.shown == "" {
		session.shown = session.key
	}
	if t.Hold == tools.HoldNothing {
		return t.Run(ctx, tools.NewHeld(session.shown, nil, env), in)
	}
	for {
		res, err := s.holdOnce(ctx, t, session, tab, in, env)
		// The session was removed (its client left, or it sat idle) while
		// the call waited for it: the call runs in a fresh one.
		if !errors.Is(err, browser.ErrSessionRemoved) {
			return res, err
		}
	}
}

// sessionRef names a call's session: the manager's key and the client's
// name for it (scope); what a session the call makes takes from its
// client: the label (the client's name), the browser profile it asked for
// (BrowserProfileHeader; "" for the default) and its policy (nil: the
// default); and what the client brings to the session for the call.
type sessionRef struct {
	key, shown, label, profile string
	policy                     *browser.Policy
	caller                     browser.Caller
}

// holdOnce is hold on the session as the manager has it now.
func (s *Server) holdOnce(ctx context.Context, t tools.Tool, session sessionRef, tab string, in any, env *tools.Env) (*tools.Result, error) {
	m := s.deps.Manager
	var bs *browser.Session
	if t.Hold == tools.HoldExistingSession {
		var ok bool
		if bs, ok = m.Lookup(session.key); !ok {
			return t.Run(ctx, tools.NewHeld(session.shown, nil, env), in)
		}
	} else {
		// A session the client's call makes lives on the browser profile
		// the client asked for (BrowserProfileHeader), under the client's
		// policy.
		pol := session.policy
		bs = m.SessionWith(session.key, session.profile, pol)
		bs.SetShown(session.shown)
		if session.label != "" {
			bs.SetLabel(session.label) // the user's Chrome names the session's tab group after its client
		}
		if pol == nil {
			pol = m.DefaultPolicy()
		}
		if bs.Policy() != pol {
			return nil, otherPolicy(session.shown)
		}
	}
	var out *tools.Result
	err := bs.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		h.SetCaller(session.caller)
		var bt *browser.Tab
		var err error
		cleared := ""
		switch t.Hold {
		case tools.HoldTab:
			bt, err = h.Tabs().Ready(ctx, tab)
		case tools.HoldTabAsIs:
			bt, err = h.Tabs().ByID(ctx, tab)
		case tools.HoldTabToLeave:
			bt, err = h.Tabs().Ready(ctx, tab)
			if be, ok := browser.AsError(err); ok && be.Code == browser.CodeOriginBlocked {
				// The tab showed a refused page and was cleared: going
				// elsewhere is what the agent asks anyway.
				cleared = "\nNote: " + be.Message + "; webpilot cleared it."
				bt, err = h.Tabs().ByID(ctx, tab)
			} else if ok && be.Code == browser.CodePageCrashed {
				// A navigation loads a page in a new renderer.
				cleared = "\nNote: the tab's page had crashed; this navigation loaded a new one."
				bt, err = h.Tabs().ByID(ctx, tab)
			}
		}
		if err != nil {
			return err
		}
		h.Use(bt)
		if t.Hold == tools.HoldTab {
			// The person's approval of the page the call reads or acts on.
			if err := h.Person().Approve(ctx); err != nil {
				return err
			}
		}
		rctx, done := ctx, func(err error) error { return err }
		if bt != nil {
			// A page that crashes while the call runs ends it at once.
			rctx, done = bt.WatchCrash(ctx)
		}
		res, err := t.Run(rctx, tools.NewHeld(session.shown, h, env), in)
		err = done(err)
		if err != nil {
			return err
		}
		if res == nil {
			res = &tools.Result{}
		}
		about := res.Tab
		if about == nil {
			about = bt
		}
		if about == nil {
			out = res
			return nil
		}
		// The page the call led to is shown to the agent only once the
		// person allows its site.
		h.Use(about)
		if err := h.Person().Approve(ctx); err != nil {
			return err
		}
		s.worked(session.key, h.Person().Page())
		if lead := about.TakeLead(); lead != "" {
			res.Text = "Note: " + lead + "\n\n" + res.Text
		}
		res.Text += cleared + notes(about)
		if n := bs.TakeNote(); n != "" {
			res.Text += "\nNote: " + n
		}
		if res.Dialog != nil {
			res.Text += dialogText(res.Dialog)
		} else {
			h.Use(about)
			own := res.Text
			text, snap := inlineSnapshot(ctx, h, res.Snapshot)
			res.Text += text
			if err := personNeeded(ctx, h, t, res, own, snap, env); err != nil {
				return err
			}
		}
		out = res
		return nil
	})
	return out, err
}

// otherPolicy refuses a call in a session that a client with other
// settings made: the session's tabs follow that client's origin policy,
// timeouts and output directory, which are not this client's.
func otherPolicy(session string) error {
	return &browser.Error{Code: browser.CodeInvalidArgument,
		Message: fmt.Sprintf("session %q was made by a client with other settings (origin lists, timeouts, output directory, dialog policy, redaction or CDP allow-list); a session keeps the settings of the client that made it, so this client may not use it", session),
		Hint:    "use a session of your own (another session name, or none), or give both clients the same settings"}
}

// status are the facts browser_status adds to the backend and sessions:
// the program's (configuration), and the client's settings and tools.
func (s *Server) status(c *Client) map[string]any {
	out := map[string]any{}
	if c.Deps.Status != nil {
		for k, v := range c.Deps.Status() {
			out[k] = v
		}
	}
	out["profile"] = c.Tools.Profile
	out["caps"] = c.Tools.Caps.String()
	out["tools"] = c.Tools.Names()
	out["tool_count"] = len(c.Tools.Tools)
	if c.Conflict != nil {
		out["conflict"] = c.Conflict.Message
	}
	return out
}

// inlineSnapshot renders the snapshot of the call's tab that a navigate
// or action call asked for, and gives it (nil: none was taken).
func inlineSnapshot(ctx context.Context, h *browser.Held, mode string) (string, *browser.Snapshot) {
	if mode == "" || mode == "none" {
		return "", nil
	}
	snap, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: mode, MaxChars: tools.InlineSnapshotMaxChar})
	if err != nil {
		if be, ok := browser.AsError(err); ok {
			return fmt.Sprintf("\n(no snapshot: %s: %s)", be.Code, be.Message), nil
		}
		return "\n(no snapshot: the page could not be read)", nil
	}
	return "\n\n" + snap.Text, snap
}

// notes renders what happened in the tab on its own (dialogs answered,
// loads blocked) since the last call.
func notes(t *browser.Tab) string {
	var b strings.Builder
	for _, n := range t.TakeNotes() {
		b.WriteString("\nNote: " + n)
	}
	return b.String()
}

// dialogText tells the agent about a dialog a call opened.
func dialogText(d *browser.DialogView) string {
	return fmt.Sprintf("\nA %s dialog opened and waits for an answer: %q. Answer it with browser_dialog (accept or dismiss); until then other calls report DIALOG_OPEN.", d.Type, d.Message)
}

// clientRoots are the local directories the client declared as its roots
// (file:// URIs), asked for with a short timeout; none when the client has
// no roots.
func clientRoots(ctx context.Context, req *mcp.CallToolRequest) []string {
	if req == nil || req.Session == nil {
		return nil
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, r := range res.Roots {
		if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && u.Path != "" {
			dirs = append(dirs, filepath.FromSlash(u.Path))
		}
	}
	return dirs
}

// checkArgs coerces string-encoded values where the schema wants another
// type, then validates against the tool's schema and checks the session
// name.
func (s *Server) checkArgs(tool string, raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			if e := overflow(s.inputs[tool], raw); e != nil {
				return nil, e
			}
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "arguments must be a JSON object: " + err.Error(),
				Hint: `pass the arguments as an object, e.g. {"url": "https://example.com"}`}
		}
	}
	coerce(args, s.props[tool])
	if err := s.schemas[tool]().Validate(args); err != nil {
		return nil, argError(s.inputs[tool], args, err)
	}
	if _, ok := s.props[tool]["session"]; ok {
		if name, ok := args["session"].(string); ok {
			if strings.TrimSpace(name) == "" {
				// An empty name given is a name gone missing on the way, not a
				// choice of the default session.
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "session is empty",
					Hint: `omit session for the default one, or name it like "research" or "task-2"`}
			}
			if err := tools.CheckSessionName(name); err != nil {
				return nil, err
			}
		}
	}
	return args, nil
}

// overflow explains arguments that are an object but do not decode: an
// argument holds a number no float64 can (1e400). Nil when that is not it.
func overflow(root *jsonschema.Schema, raw json.RawMessage) *browser.Error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var v any
		if json.Unmarshal(fields[n], &v) == nil {
			continue
		}
		want := describe(root.Properties[n])
		return &browser.Error{Code: browser.CodeInvalidArgument,
			Message: fmt.Sprintf("%s must be %s; got %s", n, want, show(json.RawMessage(fields[n]))),
			Hint:    fmt.Sprintf("pass %s as %s", n, want)}
	}
	return nil
}
