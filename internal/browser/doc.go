// Package browser is what an agent's browser work is made of, independent of
// MCP and of the backend that provides the browser.
//
// A [Manager] holds the agent [Session]s, keyed by name. A Session owns the
// tabs it opened, a current tab, and per tab a ref table. Calls within one
// Session are serialized (see [Session.Do]); different Sessions run in
// parallel and never share a tab.
//
// A [Snapshot] is the agent's view of a page: one line per meaningful node,
// refs such as e3 on what an agent can act on. A ref lives as long as the
// document it was issued for: the same DOM node keeps its ref across
// snapshots of that document; after a navigation, old refs are stale. Ref
// numbers are never reused within a tab.
//
// Failures an agent must react to are [*Error] values with a [Code]; the MCP
// layer renders them. The package sees only the backend.Backend interface and
// cdp.Target sessions.
package browser
