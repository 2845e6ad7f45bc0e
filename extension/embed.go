// Package extension carries the webpilot browser extension: the unpacked MV3 extension whose
// service worker dials the bridge backend and relays chrome.debugger and chrome.tabs for it.
//
// Files holds the extension exactly as Chrome loads it (manifest.json, the JavaScript
// modules, the popup) plus PROTOCOL.md, the wire protocol between the extension and the
// bridge; `webpilot extension --out DIR` writes it out for "Load unpacked". The extension's
// id is fixed by the manifest key, so the bridge can pin the WebSocket Origin to it. The
// package holds no Go logic: the relay logic is protocol.js, tested with Node's test runner
// (node --test extension/test/).
package extension

import "embed"

// Files is the unpacked extension, with PROTOCOL.md.
//
//go:embed manifest.json *.js *.html *.png PROTOCOL.md
var Files embed.FS

const (
	// ID is the extension id Chrome derives from the manifest key.
	ID = "gdfkgapggjfanoafdlgbpnjpbdcepgmm"
	// Origin is the Origin header of the extension's WebSocket.
	Origin = "chrome-extension://" + ID
	// ProtocolVersion is the bridge protocol version the extension speaks (PROTOCOL.md).
	ProtocolVersion = 5
	// Version is the extension version; manifest.json and protocol.js say the same.
	Version = "0.1.0"
)
