// Package browser is what an agent's browser work is made of, independent of
// MCP and of the backend that provides the browser.
//
// A [Manager] holds the agent [Session]s, keyed by name. A Session owns the
// tabs it opened, a current tab, and per tab a ref table. Calls within one
// Session are serialized (see [Session.Do]); different Sessions run in
// parallel and never share a tab. What may only run while a session is
// held (its tabs, their pages, its network log) are the methods of
// [Held], which only Do makes: the call's view of the session and of the
// tab it works on.
//
// A [Snapshot] is the agent's view of a page: one line per meaningful node,
// refs such as e3 on what an agent can act on. A ref lives as long as the
// document it was issued for: the same DOM node keeps its ref across
// snapshots of that document; after a navigation, old refs are stale. Ref
// numbers are never reused within a tab.
//
// # Concurrency
//
// Each CDP session of a tab (its page's, and one per out-of-process frame)
// has one goroutine, its loop, which alone reads that session's events, in
// the order the browser sent them, through one subscription. The loop
// keeps what events tell: the walker's execution contexts (worldCache), the
// requests in flight (requestTable, which network_idle and the quiet wait
// after an action read), the session's network log, and for the page the
// tab's features (the console, dialogs, downloads, the crash watch, the
// screencast, the recording), each of which names the events it follows
// and owns what they tell (feature). It answers what the browser asks
// while no call is listening (a dialog under an accept or dismiss policy,
// a document request paused for the origin policy) by handing the call to
// a worker; workers are joined when the loop ends, which is when the
// session ends. An idle tab has one goroutine (plus one per out-of-process
// frame), and a recording or a screencast adds none; every goroutine a
// tab starts carries the pprof label webpilot.tab with the tab's target
// id.
//
// The state a loop keeps is read by the session's calls under its mutex;
// a call that needs events of its own for a while (a navigation's lifecycle
// events, a file chooser) takes a subscription of its own and reads it in
// its own goroutine. The package has no package-level mutable state.
//
// Failures an agent must react to are [*Error] values with a [Code]; the MCP
// layer renders them. The package sees only the backend.Backend interface and
// the cdp.Caller sessions a backend attaches.
//
// # Where to read more
//
// ARCHITECTURE.md at the module root follows a click and a snapshot through
// this package's files; docs/snapshot.md, docs/actions.md, docs/tabs.md,
// docs/network.md and docs/page-tools.md describe each feature.
package browser
