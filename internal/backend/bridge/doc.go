// Package bridge is the backend for the user's own Chrome, reached through
// the webpilot extension (see extension/PROTOCOL.md for the wire).
//
// A [Server] listens on loopback for the extension's service worker, which
// dials in. It admits a connection only when its Origin is the pinned
// extension id and the extension proves it holds the pairing secret (an
// HMAC of a fresh challenge; the secret never crosses the wire after
// pairing). Everything else is refused and logged. [Server.ArmPairing] lets
// an unpaired extension obtain the secret with a one-time code.
//
// A [Relay] is one admitted extension connection: requests to it
// (chrome.tabs, chrome.debugger) and events from it. [Backend] implements
// backend.Backend on a Server: tabs through chrome.tabs, and per tab a CDP
// session carried by chrome.debugger, so browser code sees the same
// cdp.Target as with a launched browser.
//
// The package knows nothing of refs, snapshots, agent sessions or MCP.
package bridge
