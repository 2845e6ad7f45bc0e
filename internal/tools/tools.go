package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// Limits on text returned to the agent, from DESIGN.md.
const (
	SnapshotMaxChars      = 20_000 // browser_snapshot default
	InlineSnapshotMaxChar = 6_000  // snapshots returned by navigate and actions
)

// SharedArgs are the arguments DESIGN.md shares between tools, described
// once in the server's instructions (mcpserver.Instructions): a tool's
// schema may leave them undescribed, which saves tools/list tokens on every
// tool that takes them.
var SharedArgs = []string{"session", "tab", "ref", "selector", "text", "role", "name", "exact", "within", "frame", "max_chars", "offset", "timeout_ms", "snapshot"}

// SharedBounds are the shared integer arguments whose bounds are the same
// in every tool that takes them, said once in the server's instructions
// and left out of the schema tools/list shows (the arguments are still
// checked against them): timeout_ms 1–120000, max_chars 1–1000000, offset
// 0–10000000.
var SharedBounds = map[string]bool{"timeout_ms": true, "max_chars": true, "offset": true}

// SharedEnums are the shared arguments whose values the server's
// instructions list: the schema tools/list shows leaves their enum out
// (the arguments are still checked against it).
var SharedEnums = map[string]bool{"snapshot": true}

// TargetArgs are the fields of a target (LocatorIn), shared arguments all.
// An object nested in a tool's arguments that takes a whole target (an
// item of browser_fill_form's fields, of browser_wait's conditions) says
// "target" in its description, and the schema tools/list shows leaves
// these fields out of it (they are still checked).
var TargetArgs = []string{"ref", "selector", "text", "role", "name", "exact", "within", "frame"}

// Deps is what the tools need from the program that serves them.
type Deps struct {
	Manager *browser.Manager
	// Gate keeps browser_flow runs (and recipe runs) per site within
	// bounds; nil: no gate.
	Gate *recipes.Gate
	// Recipes is where recipe_list, recipe_run and recipe_save find and
	// keep recipes; HealWrite saves healed locators back into them.
	Recipes *recipes.Store
	// RecipesFor, when set, is the store of a client that names its own
	// working directory (mcpserver.WorkdirHeader): the same user folder,
	// that directory's project folder.
	RecipesFor func(workdir string) *recipes.Store
	HealWrite  bool
	// Secrets are the values tools type by name; every result is masked
	// with them (the server does it).
	Secrets        *secrets.Set
	DefaultSession string
	// Status adds configuration facts (values and their sources) to
	// browser_status.
	Status func() map[string]any
	Logger *slog.Logger
	// Trace, when set, records every tool call of every session into an
	// HTML file per session (--trace); nil: no session traces.
	Trace *trace.Recorder
	// TraceMask is applied to every string a trace or the recent actions
	// keep (browser_flow's trace too); nil is the identity.
	TraceMask func(string) string
	// OpenCLI is the OpenCLI found for the client (the opencli tools);
	// nil when none was.
	OpenCLI *OpenCLI
}

// Tool is one entry of the table: what is advertised (name, description,
// annotations, the input type its schema is inferred from), the capability
// group that switches it on, what the call holds while it runs, and Run.
type Tool struct {
	Name        string
	Description string
	Annotations Annotations
	Group       Group
	Hold        Hold

	input reflect.Type
	run   func(ctx context.Context, h *Held, in any) (*Result, error)
}

// Annotations are the hints a client gets about a tool (MCP's tool
// annotations): nil pointers are left out. There is no title: the tool's
// name reads well enough, and a title costs every tools/list tokens.
type Annotations struct {
	ReadOnly    bool
	Destructive *bool
	Idempotent  bool
	OpenWorld   *bool
}

// Hold says what a call holds while its tool runs. The server takes it
// before Run (Session.Do, then the tab) and renders the tab's notes and the
// inline snapshot after it, still holding it.
type Hold int

// Holds.
const (
	// HoldNothing: no session (browser_status).
	HoldNothing Hold = iota
	// HoldSession: the session named by the session argument (made when
	// new), no tab.
	HoldSession
	// HoldExistingSession: the session if it exists; otherwise Run gets a
	// Held with no session (Held.Exists is false).
	HoldExistingSession
	// HoldTab: the session and the tab named by the tab argument (default:
	// current), ready for a call on the page: DIALOG_OPEN while a dialog
	// waits, ORIGIN_BLOCKED on a refused page.
	HoldTab
	// HoldTabAsIs: the session and that tab even while a dialog is open
	// (browser_dialog).
	HoldTabAsIs
	// HoldTabToLeave: like HoldTab, but a tab showing a refused page is
	// taken anyway and the refusal noted (browser_navigate goes elsewhere).
	HoldTabToLeave
)

// Result is what a tool returns on success: text first, written for a model.
// The server appends, in order, the notes of the tab (Tab, else the held
// tab), then Dialog or else the inline snapshot in mode Snapshot.
type Result struct {
	Text  string
	Image *Image // optional; rendered as one image block after the text
	// MoreImages are further image blocks, after Image: only when the
	// agent asked for several (browser_download indexes), since some
	// clients drop a result that carries more than one image.
	MoreImages []*Image
	// Tab is the tab the result tells of when the tool opened or selected
	// one; nil means the held tab, if any.
	Tab *browser.Tab
	// Dialog is a dialog the call opened: it is told in place of the
	// inline snapshot.
	Dialog *browser.DialogView
	// Snapshot is the mode of the inline snapshot ("" or none: none).
	Snapshot string
	// Value is what a flow step's save_as keeps when it is not the whole
	// text (browser_read: the content without its header line).
	Value *string
	// Notes are the lines of Text a flow keeps for a step whose output it
	// does not show whole: notes, unmet expectations, navigations, new
	// tabs, downloads, console errors, a form stopped by a dialog.
	Notes []string
	// Redirected: a navigation the site sent to another page than the one
	// asked for (a sign-in form there is a login wall).
	Redirected bool
	// Human is what on the page waits for a person (the server fills it
	// in after the inline snapshot, for a result that has Snapshot set; a
	// tool that read it itself, browser_snapshot, sets it, and the server
	// only notes it); it is the result's structured content.
	Human []browser.HumanSign
}

// resultText is a result's text as a tool writes it; the lines it writes
// with note are also the result's Notes.
type resultText struct {
	b     strings.Builder
	notes []string
}

// printf writes to the text.
func (t *resultText) printf(format string, a ...any) { fmt.Fprintf(&t.b, format, a...) }

// note writes a line of its own and keeps it as a note.
func (t *resultText) note(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	t.b.WriteString("\n" + line)
	t.notes = append(t.notes, line)
}

func (t *resultText) String() string { return t.b.String() }

// Image is an image a tool returns, as raw encoded bytes.
type Image struct {
	Data     []byte
	MIMEType string
}

// Checker is an input that checks itself before the call holds anything:
// arguments that contradict each other are refused without touching the
// browser.
type Checker interface {
	Check() error
}

// Def makes a table entry whose input is In and whose Run is run.
func Def[In any](t Tool, run func(ctx context.Context, h *Held, in In) (*Result, error)) Tool {
	t.input = reflect.TypeFor[In]()
	t.run = func(ctx context.Context, h *Held, in any) (*Result, error) { return run(ctx, h, in.(In)) }
	return t
}

// Decode reads arguments, already validated against InputSchema, into the
// tool's input type, and checks them (Checker).
func (t Tool) Decode(args json.RawMessage) (any, error) {
	p := reflect.New(t.input)
	if len(args) > 0 {
		if err := json.Unmarshal(args, p.Interface()); err != nil {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "invalid arguments: " + err.Error(),
				Hint: "check the tool's input schema (tools/list) for names, types and ranges", Err: err}
		}
	}
	in := p.Elem().Interface()
	if c, ok := in.(Checker); ok {
		if err := c.Check(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Run runs the tool on a decoded input within what the call holds.
func (t Tool) Run(ctx context.Context, h *Held, in any) (*Result, error) {
	return t.run(ctx, h, in)
}

// InputSchema is the schema advertised for the tool, inferred from its
// input type, with enum values from `enum:"a,b"` struct tags, the default
// (JSON) from `default:"…"` and bounds of numbers from `minimum:"N"` and
// `maximum:"N"` tags. Every integer argument
// needs both bounds: the schema is what keeps a value the Go type cannot
// hold (1e300, -1 for an offset) from reaching the decoder.
func (t Tool) InputSchema() (*jsonschema.Schema, error) {
	schema, err := jsonschema.ForType(t.input, nil)
	if err != nil {
		return nil, fmt.Errorf("tools: schema for %s: %w", t.Name, err)
	}
	for i := range t.input.NumField() {
		f := t.input.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		p := schema.Properties[name]
		if p == nil {
			continue
		}
		if enum := f.Tag.Get("enum"); enum != "" {
			for _, v := range strings.Split(enum, ",") {
				p.Enum = append(p.Enum, v)
			}
		}
		if def := f.Tag.Get("default"); def != "" {
			if !json.Valid([]byte(def)) {
				return nil, fmt.Errorf("tools: %s.%s: default %q is not JSON", t.Name, name, def)
			}
			p.Default = json.RawMessage(def)
		}
		if p.Type == "array" && p.Items != nil || len(p.Types) == 2 && p.Types[1] == "array" && p.Items != nil {
			p = p.Items // an array of numbers: the bounds are its items'
		}
		if p.Minimum, err = bound(t.Name, name, f.Tag.Get("minimum")); err != nil {
			return nil, err
		}
		if p.Maximum, err = bound(t.Name, name, f.Tag.Get("maximum")); err != nil {
			return nil, err
		}
	}
	dropNull(schema)
	return schema, nil
}

// GatedArgs are the arguments that exist only while their capability
// group is on (a `group:"name"` tag): the core profile's schema leaves
// them out, and a call that names one is refused like any unknown
// argument.
func (t Tool) GatedArgs() map[string]Group {
	var out map[string]Group
	for i := range t.input.NumField() {
		f := t.input.Field(i)
		if g := f.Tag.Get("group"); g != "" {
			if out == nil {
				out = map[string]Group{}
			}
			out[strings.Split(f.Tag.Get("json"), ",")[0]] = Group(g)
		}
	}
	return out
}

// bound reads a minimum or maximum tag ("" for none).
func bound(tool, arg, tag string) (*float64, error) {
	if tag == "" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(tag, 64)
	if err != nil {
		return nil, fmt.Errorf("tools: %s.%s: bad bound %q: %w", tool, arg, tag, err)
	}
	return &v, nil
}

// dropNull turns the ["null", T] types the schema library gives slices and
// pointers into T, and drops additionalProperties that allow anything (maps):
// an omitted argument already means none, and every type word costs tokens
// in tools/list.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.AdditionalProperties != nil && reflect.ValueOf(*s.AdditionalProperties).IsZero() {
		s.AdditionalProperties = nil // {} allows anything, as no word does
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
}

// ReservedSessionPrefix starts the names of the default sessions the
// daemon and serve give their clients (mcpserver.ClientSessionName); no
// client may name one.
const ReservedSessionPrefix = "client-"

// SessionNameMax is the longest session name an agent may pass.
const SessionNameMax = 64

// CheckSessionName refuses a session name that is too long or has
// characters other than letters, digits and - _ . : @, or starts with
// ReservedSessionPrefix (with INVALID_ARGUMENT); "" means the default
// session and passes.
func CheckSessionName(name string) error {
	valid := func(c rune) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:@", c)
	}
	ok := len(name) <= SessionNameMax
	for _, c := range name {
		ok = ok && valid(c)
	}
	if ok && strings.HasPrefix(strings.ToLower(name), ReservedSessionPrefix) {
		// Whatever way it comes (argument, --session, the session header),
		// such a name would reach another client's private session.
		return &browser.Error{Code: browser.CodeInvalidArgument,
			Message: fmt.Sprintf("session %q: names starting with %q are the names of the MCP clients' own default sessions, which only their client reaches", name, ReservedSessionPrefix),
			Hint:    `name a session of your own, like "research" or "task-2"; omit session for your default one`}
	}
	if ok {
		return nil
	}
	// The nearest valid name: other characters as '-', cut to the limit.
	near := []rune(strings.Map(func(c rune) rune {
		if valid(c) {
			return c
		}
		return '-'
	}, name))
	near = near[:min(len(near), SessionNameMax)]
	shown := []rune(name)
	if len(shown) > SessionNameMax {
		shown = append(shown[:SessionNameMax], '…')
	}
	return &browser.Error{Code: browser.CodeInvalidArgument,
		Message: fmt.Sprintf("session %q is not a valid session name: use 1 to %d letters, digits and - _ . : @ (got %d characters)",
			string(shown), SessionNameMax, len([]rune(name))),
		Hint:        `name sessions like "research", "task-2" or "agent@site:1"; omit session for the default one`,
		Suggestions: []string{fmt.Sprintf(`"session": %q`, string(near))}}
}

func timeout(ms int) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

func ptr[T any](v T) *T { return &v }
