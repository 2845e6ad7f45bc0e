// Package extension carries the webpilot browser extension: the unpacked MV3 extension whose
// service worker dials the bridge backend and relays chrome.debugger and chrome.tabs for it.
//
// Files holds the extension exactly as Chrome loads it (manifest.json, the JavaScript
// modules, the popup) plus PROTOCOL.md, the wire protocol between the extension and the
// bridge; `webpilot extension --out DIR` writes it out for "Load unpacked". The extension's
// id is fixed by the manifest key, so the bridge can pin the WebSocket Origin to it; the
// stores give their listings ids of their own, which a release build pins too (IDs). The
// package holds no Go logic: the relay logic is protocol.js, tested with Node's test runner
// (node --test extension/test/).
package extension

import (
	"embed"
	"strings"
)

// Files is the unpacked extension, with PROTOCOL.md.
//
//go:embed manifest.json *.js *.html *.png PROTOCOL.md
var Files embed.FS

// storeIDs are the ids the Chrome Web Store and Edge Add-ons gave webpilot's
// listings, comma-separated. The stores refuse a manifest with a key and
// give an item an id of its own at its first upload, so these are known
// only then; a release build sets them (make release passes
// WEBPILOT_STORE_IDS as -ldflags "-X …/extension.storeIDs=ID,ID").
var storeIDs string

// IDs are the extension ids the bridge pins: ID, the unpacked extension's,
// and the store listings' ids the build carries.
func IDs() []string {
	ids := []string{ID}
	for _, id := range strings.Split(storeIDs, ",") {
		if id = strings.TrimSpace(id); id != "" && id != ID {
			ids = append(ids, id)
		}
	}
	return ids
}

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
