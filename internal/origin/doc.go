// Package origin reads and matches the origin rules of --allowed-origins,
// --blocked-origins and a secret's origins: example.com, *.example.com,
// https://example.com:8443, [::1], file://, data: (see [Rule]); and a URL's
// site ([Site]: its registrable domain), by which the recipes' site gate
// and the person's approvals go.
//
// Hosts are compared as the browser canonicalizes them, so a rule cannot be
// dodged by writing a host another way. It is pure code over net/url and
// imports nothing of webpilot's; the engine (internal/browser) decides what
// a page may load with it, internal/secrets where a secret may be typed.
package origin
