package tools

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Limits on text returned to the agent, from DESIGN.md.
const (
	SnapshotMaxChars      = 20_000 // browser_snapshot default
	InlineSnapshotMaxChar = 6_000  // snapshots returned by navigate and actions
)

// Deps is what the tools need.
type Deps struct {
	Manager        *browser.Manager
	DefaultSession string
	// Status adds configuration facts (values and their sources) to
	// browser_status.
	Status func() map[string]any
	Logger *slog.Logger
}

// Result is what a tool returns on success: text first, written for a model.
type Result struct {
	Text  string
	Image *Image // optional; rendered as one image block after the text
}

// Image is an image a tool returns, as raw encoded bytes.
type Image struct {
	Data     []byte
	MIMEType string
}

// Renderer turns a tool's outcome into an MCP result. Package mcpserver owns
// it, so error bodies are rendered in one place.
type Renderer func(ctx context.Context, tool string, res *Result, err error) *mcp.CallToolResult

// Register adds every tool to the server and returns their definitions.
func Register(s *mcp.Server, d *Deps, render Renderer) []*mcp.Tool {
	if d.DefaultSession == "" {
		d.DefaultSession = "default"
	}
	r := &registry{s: s, d: d, render: render}
	r.status()
	r.navigate()
	r.snapshot()
	r.find()
	r.action()
	r.fillForm()
	r.tabs()
	r.screenshot()
	r.dialog()
	r.close()
	return r.defs
}

type registry struct {
	s      *mcp.Server
	d      *Deps
	render Renderer
	defs   []*mcp.Tool
}

// add registers a tool whose input schema is inferred from In, with enum
// values from `enum:"a,b"` struct tags and bounds of numbers from
// `minimum:"N"` and `maximum:"N"` tags. Every integer argument needs both
// bounds: the schema is what keeps a value the Go type cannot hold (1e300,
// -1 for an offset) from reaching the decoder.
func add[In any](r *registry, t *mcp.Tool, h func(ctx context.Context, in In) (*Result, error)) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t.Name, err)) // a programming error
	}
	rt := reflect.TypeFor[In]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if enum := f.Tag.Get("enum"); enum != "" && schema.Properties[name] != nil {
			for _, v := range strings.Split(enum, ",") {
				schema.Properties[name].Enum = append(schema.Properties[name].Enum, v)
			}
		}
		if p := schema.Properties[name]; p != nil {
			p.Minimum = bound(t.Name, name, f.Tag.Get("minimum"))
			p.Maximum = bound(t.Name, name, f.Tag.Get("maximum"))
		}
	}
	dropNull(schema)
	t.InputSchema = schema
	r.defs = append(r.defs, t)
	mcp.AddTool(r.s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, err := h(context.WithValue(ctx, requestKey{}, req), in)
		return r.render(ctx, t.Name, res, err), nil, nil
	})
}

// bound reads a minimum or maximum tag ("" for none).
func bound(tool, arg, tag string) *float64 {
	if tag == "" {
		return nil
	}
	v, err := strconv.ParseFloat(tag, 64)
	if err != nil {
		panic(fmt.Sprintf("tools: %s.%s: bad bound %q", tool, arg, tag)) // a programming error
	}
	return &v
}

// SessionNameMax is the longest session name an agent may pass.
const SessionNameMax = 64

// CheckSessionName refuses a session name that is too long or has
// characters other than letters, digits and - _ . : @ (with
// INVALID_ARGUMENT); "" means the default session and passes.
func CheckSessionName(name string) error {
	valid := func(c rune) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:@", c)
	}
	ok := len(name) <= SessionNameMax
	for _, c := range name {
		ok = ok && valid(c)
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

// session picks the session a call runs in.
func (r *registry) session(name string) *browser.Session {
	if name == "" {
		name = r.d.DefaultSession
	}
	return r.d.Manager.Session(name)
}

func timeout(ms int) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// inlineSnapshot renders the snapshot a navigate or action call asked for.
func inlineSnapshot(ctx context.Context, s *browser.Session, t *browser.Tab, mode string) string {
	if mode == "" || mode == "none" {
		return ""
	}
	snap, err := s.Snapshot(ctx, t, browser.SnapshotOptions{Mode: mode, MaxChars: InlineSnapshotMaxChar})
	if err != nil {
		if be, ok := browser.AsError(err); ok {
			return fmt.Sprintf("\n(no snapshot: %s: %s)", be.Code, be.Message)
		}
		return "\n(no snapshot: the page could not be read)"
	}
	return "\n\n" + snap.Text
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

func ptr[T any](v T) *T { return &v }

// requestKey holds the MCP request of a tool call in its context.
type requestKey struct{}

// clientRoots are the local directories the client declared as its roots
// (file:// URIs), asked for with a short timeout; none when the client has
// no roots.
func clientRoots(ctx context.Context) []string {
	req, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
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

// dropNull turns the ["null", T] types the schema library gives slices and
// pointers into T: an omitted argument already means none, and every type
// word costs tokens in tools/list.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
}

// onPage runs an acting call on the session's tab (DIALOG_OPEN while a
// dialog waits for an answer) and ends its text with the tab's notes, then
// the dialog the call opened or else the snapshot asked for (diff by
// default).
func (r *registry) onPage(ctx context.Context, session, tab, snapshot string,
	fn func(ctx context.Context, s *browser.Session, t *browser.Tab) (string, *browser.DialogView, error)) (*Result, error) {
	s := r.session(session)
	var out *Result
	err := s.Do(ctx, func(ctx context.Context) error {
		t, err := s.ReadyTab(ctx, tab)
		if err != nil {
			return err
		}
		text, dialog, err := fn(ctx, s, t)
		if err != nil {
			return err
		}
		text += notes(t)
		if dialog != nil {
			out = &Result{Text: text + dialogText(dialog)}
			return nil
		}
		if snapshot == "" {
			snapshot = browser.ModeDiff
		}
		out = &Result{Text: text + inlineSnapshot(ctx, s, t, snapshot)}
		return nil
	})
	return out, err
}
