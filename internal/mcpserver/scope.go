package mcpserver

import (
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scope is how one client's session names map to the manager's: each MCP
// client over HTTP has a namespace of its own, so a name it gives (even one
// another client uses, read off that client's status) is a session of its
// own, and another client's tabs are never reachable by name. Shared are
// only what is shared on purpose: a default session the client named
// (SessionHeader: the proxy's and the CLI's --session) and, on a server
// started with --session (HTTPOptions.SharedDefault), every name, as on
// stdio, where there is one client.
type scope struct {
	// def is the key of the client's default session.
	def string
	// prefix namespaces the other names ("" shares them).
	prefix string
}

// scopeOf is the scope of the client of req.
func (s *Server) scopeOf(req *mcp.CallToolRequest) scope {
	sc := scope{def: s.defaultSession(req)}
	if !s.clientDefaults.Load() || req == nil || req.Session == nil || req.Session.ID() == "" {
		return sc // one client (stdio), or sharing asked for (--session)
	}
	sc.prefix = ClientSessionName(req.Session.ID()) + "/"
	return sc
}

// key is the manager's name of the client's session name ("": its default).
func (sc scope) key(name string) string {
	switch {
	case name == "" || name == sc.def:
		return sc.def
	case sc.prefix == "":
		return name
	}
	return sc.prefix + name
}

// shown is the client's name of a key it owns.
func (sc scope) shown(key string) string {
	return strings.TrimPrefix(key, sc.prefix)
}

// owns says whether the key is one of the client's sessions.
func (sc scope) owns(key string) bool {
	return sc.prefix == "" || key == sc.def || strings.HasPrefix(key, sc.prefix)
}

// sessions are the client's sessions among the manager's keys, by its
// names, sorted.
func (sc scope) sessions(keys []string) []string {
	out := []string{}
	for _, k := range keys {
		if sc.owns(k) {
			out = append(out, sc.shown(k))
		}
	}
	slices.Sort(out)
	return out
}

// clientID names the client of req among those that share the server
// (browser.Caller.Client: its output files are its own): over HTTP, its MCP
// session's; "" for the one client of stdio.
func (s *Server) clientID(req *mcp.CallToolRequest) string {
	if !s.clientDefaults.Load() || req == nil || req.Session == nil || req.Session.ID() == "" {
		return ""
	}
	return ClientSessionName(req.Session.ID())
}
