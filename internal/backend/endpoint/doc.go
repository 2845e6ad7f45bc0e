// Package endpoint is the backend for a browser that somebody else runs and
// exposes over the Chrome DevTools Protocol: a remote browser farm such as
// browserless or a Selenium Grid node, or a local Chromium started with
// --remote-debugging-port (the --cdp-endpoint flag, with --cdp-header).
//
// The endpoint is either the browser's WebSocket (ws:// or wss://) or its
// HTTP debugging address (http:// or https://), from which the WebSocket is
// discovered through GET /json/version (webSocketDebuggerUrl). The headers in
// [Options.Header] go with the discovery request and the WebSocket handshake,
// which is where farms expect their tokens.
//
// The Backend connects on first use and, after the connection drops,
// connects again on the next call. Tabs are Target.* operations on the
// browser-level session, as on the launch backend: Target.setDiscoverTargets
// reports tabs closing, new tabs open in their own background window
// (a background tab in a shared window is not rendered), and each Attach is
// a flat Target.attachToTarget session.
//
// A [Farm] is an endpoint that hands out a fresh browser per connection
// (browserless; a Selenium Grid per session): with --endpoint-per-session
// each agent session gets a Backend of its own from [Farm.NewBackend] (a
// farm is a factory of backends, not a backend itself), so N agents drive
// N remote browsers. Package farmtest runs the real browserless on
// loopback for the tests.
//
// A farm at capacity holds a connection's WebSocket handshake in its queue
// (browserless) or turns it away (HTTP 429, 503). A Backend has at most one
// connect under way: the call that started it waits Options.Wait at most
// (and never past its own deadline), then answers with a
// *backend.EndpointError of Reason FarmFull carrying the farm's load (from
// browserless's /pressure) while the connect stays in the queue; the next
// call resumes that wait rather than queueing again (browserless keeps a
// queued entry whose client left until its turn comes). Refused
// connections, refused credentials (401, 403) and endpoints that do not
// answer are told apart the same way (Reason).
//
// The browser is not ours: Close closes the tabs this Backend opened (and
// only those) and the connection, and leaves the browser running. URLs in
// errors, logs and [Backend.Info] have their credentials redacted.
package endpoint
