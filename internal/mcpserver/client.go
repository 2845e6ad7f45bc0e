package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// SettingsHeader, on the requests of an MCP client over HTTP, carries that
// client's own settings (the stdio proxy sends those of its command line,
// environment and .webpilot.json). A server with Options.ClientSettings
// serves the client by them: its tools, origin policy, timeouts, output
// directory, secrets, recipes and trace; the format is the settings hook's.
const SettingsHeader = "Webpilot-Settings"

// maxSettingsHeader bounds SettingsHeader (the whole header block is
// bounded by maxHeaderBytes too).
const maxSettingsHeader = 48 << 10

// Client is what one MCP client's settings make of the server
// (Options.ClientSettings); the server's own options make the one of
// clients that send none.
type Client struct {
	// Tools are the client's active tools: tools/list shows only them and
	// a call to another is an unknown tool.
	Tools tools.Selection
	// Deps are the client's: Secrets, Recipes, RecipesFor, HealWrite,
	// Trace, TraceMask and Status are taken from here; Manager, Gate,
	// Logger and DefaultSession are always the server's.
	Deps *tools.Deps
	// Policy is given to the browser sessions the client's calls make,
	// and a session made with another is refused to it; nil: the
	// manager's default.
	Policy *browser.Policy
	// UploadRoots are where the client's uploads may come from (besides
	// its MCP roots); nil: the manager's Options.UploadRoots.
	UploadRoots []string
	// Ceiling bounds each call; zero: the server's.
	Ceiling time.Duration
	// Prewarm starts the browser (Options.OnInitialized) when the client
	// initializes.
	Prewarm bool
	// Conflict, when set, answers every tool call of the client but
	// browser_status: it asked for another browser than the one this
	// server drives (another backend, binary, profile, window mode…).
	Conflict *browser.Error
}

// clientCtxKey carries a request's Client in its context. It stays a
// context value on purpose: the receiving middleware works out the
// request's Client (settings header, refusal) once, and go-sdk hands the
// tool handler that runs next only ctx and the request; the Client is
// request-scoped, not a dependency of the Server.
type clientCtxKey struct{}

// clientCache caches the Client of each settings header.
type clientCache struct {
	mu sync.Mutex
	m  map[string]clientEntry
}

type clientEntry struct {
	c   *Client
	err error
}

// maxCachedClients bounds the cache; past it, it starts afresh (a client
// made again is equal: policies are shared by key).
const maxCachedClients = 64

// clientFor is the Client of the request header h: the server's own when
// it carries no settings or the server takes none.
func (s *Server) clientFor(h http.Header) (*Client, error) {
	if s.settings == nil || h == nil {
		return s.own, nil
	}
	raw := h.Get(SettingsHeader)
	if raw == "" {
		return s.own, nil
	}
	if len(raw) > maxSettingsHeader {
		return nil, fmt.Errorf("%s: longer than %d bytes", SettingsHeader, maxSettingsHeader)
	}
	s.cache.mu.Lock()
	e, ok := s.cache.m[raw]
	s.cache.mu.Unlock()
	if ok {
		return e.c, e.err
	}
	c, err := s.settings(raw)
	if err == nil {
		s.complete(c)
	}
	s.cache.mu.Lock()
	if len(s.cache.m) >= maxCachedClients {
		s.cache.m = make(map[string]clientEntry)
	}
	s.cache.m[raw] = clientEntry{c, err}
	s.cache.mu.Unlock()
	return c, err
}

// complete fills what a Client leaves out with the server's own.
func (s *Server) complete(c *Client) {
	if c.Deps == nil {
		c.Deps = &tools.Deps{}
	}
	d := *c.Deps
	d.Manager, d.Gate, d.Logger, d.DefaultSession = s.deps.Manager, s.deps.Gate, s.deps.Logger, s.deps.DefaultSession
	c.Deps = &d
	if c.Tools.Tools == nil {
		c.Tools = s.own.Tools
	}
	if c.Ceiling <= 0 {
		c.Ceiling = s.own.Ceiling
	}
}

// clientOf is the Client a request's middleware put in ctx, else the
// server's own.
func (s *Server) clientOf(ctx context.Context) *Client {
	if c, ok := ctx.Value(clientCtxKey{}).(*Client); ok && c != nil {
		return c
	}
	return s.own
}

// requestClient is the Client of req (its headers), or an error for
// settings that do not parse.
func (s *Server) requestClient(req mcp.Request) (*Client, error) {
	if req == nil {
		return s.own, nil
	}
	x := req.GetExtra()
	if x == nil {
		return s.own, nil
	}
	return s.clientFor(x.Header)
}

// filterTools keeps the tools of res the client has.
func filterTools(res *mcp.ListToolsResult, c *Client) {
	if res == nil {
		return
	}
	on := make(map[string]bool, len(c.Tools.Tools))
	for _, t := range c.Tools.Tools {
		on[t.Name] = true
	}
	kept := res.Tools[:0:0]
	for _, t := range res.Tools {
		if on[t.Name] {
			kept = append(kept, t)
		}
	}
	res.Tools = kept
}

// groupOn says the client has the capability group on.
func (c *Client) groupOn(g tools.Group) bool { return slices.Contains(c.Tools.Groups, g) }

// gateArgs leaves out of res the arguments whose group the client has off
// (tools.Tool.GatedArgs): each such tool gets a copy of its schema.
func gateArgs(res *mcp.ListToolsResult, c *Client) {
	if res == nil {
		return
	}
	for i, def := range res.Tools {
		t, ok := tableTool(def.Name)
		if !ok {
			continue
		}
		var off []string
		for name, g := range t.GatedArgs() {
			if !c.groupOn(g) {
				off = append(off, name)
			}
		}
		schema, ok := def.InputSchema.(*jsonschema.Schema)
		if len(off) == 0 || !ok || schema == nil {
			continue
		}
		sc := *schema
		sc.Properties = maps.Clone(schema.Properties)
		for _, name := range off {
			delete(sc.Properties, name)
		}
		d := *def
		d.InputSchema = &sc
		res.Tools[i] = &d
	}
}

// tableTool is the table's tool of that name.
func tableTool(name string) (tools.Tool, bool) {
	for _, t := range tools.Table() {
		if t.Name == name {
			return t, true
		}
	}
	return tools.Tool{}, false
}

// has says whether the client has the tool.
func (c *Client) has(name string) bool {
	for _, t := range c.Tools.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
