package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// endpointError is the agent-facing error of a failed connect to a browser
// endpoint (--cdp-endpoint): a farm at capacity (FARM_FULL: wait and retry),
// or an endpoint that refused the connection, the credentials, or did not
// answer (NO_BROWSER, each with its own words and hint). The endpoint's
// address is shown redacted; its token never is.
func endpointError(doing string, ee *backend.EndpointError, err error) *Error {
	diag := map[string]any{"endpoint": ee.Address, "reason": string(ee.Reason)}
	if ee.Phase != "" {
		diag["phase"] = ee.Phase
	}
	if ee.Status != 0 {
		diag["http_status"] = ee.Status
	}
	if ee.Waited > 0 {
		diag["waited_ms"] = ee.Waited.Milliseconds()
	}
	if ee.InQueue > 0 {
		diag["queued_ms"] = ee.InQueue.Milliseconds()
	}
	load := ""
	if l := ee.Load; l != nil {
		diag["farm"] = map[string]any{"running": l.Running, "queued": l.Queued, "max_concurrent": l.MaxConcurrent, "max_queued": l.MaxQueued}
		load = fmt.Sprintf(" (%d of %d browsers running, %d queued)", l.Running, l.MaxConcurrent, l.Queued)
	}
	secs := func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
	switch ee.Reason {
	case backend.FarmFull:
		if ee.Phase == "queue" {
			msg := fmt.Sprintf("cannot %s: the browser farm at %s is at capacity%s; this call waited %s for a browser", doing, ee.Address, load, secs(ee.Waited))
			if ee.InQueue > ee.Waited+time.Second {
				msg += fmt.Sprintf(" (the session has been in the farm's queue for %s)", secs(ee.InQueue))
			}
			return &Error{Code: CodeFarmFull, Message: msg,
				Hint:      "the session keeps its one place in the farm's queue: retry the call to go on waiting (a retry never queues again). To get a browser sooner: end agents or sessions you no longer need (on the daemon, `webpilot daemon status` lists them and `webpilot daemon end NAME` ends one), raise the farm's concurrency (browserless: CONCURRENT), or run fewer agents at once; --endpoint-wait sets how long one call waits",
				Diagnosis: diag, Err: err}
		}
		return &Error{Code: CodeFarmFull, Message: fmt.Sprintf("cannot %s: the browser farm at %s turned the connection away: it is at capacity and its queue is full%s (%s)", doing, ee.Address, load, ee.Detail),
			Hint:      "retry in a while; to get a browser sooner, end agents or sessions you no longer need (on the daemon, `webpilot daemon status` lists them and `webpilot daemon end NAME` ends one), raise the farm's concurrency or queue (browserless: CONCURRENT, QUEUED), or run fewer agents at once",
			Diagnosis: diag, Err: err}
	case backend.EndpointAuth:
		return &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: the browser endpoint at %s refused the credentials (HTTP %d)", doing, ee.Address, ee.Status),
			Hint:      "check the token the endpoint expects: in the --cdp-endpoint URL (?token=…) or a --cdp-header (Authorization: …); webpilot never prints it. The next call connects again",
			Diagnosis: diag, Err: err}
	case backend.EndpointRefused:
		return &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: nothing accepts connections at the browser endpoint %s (%s)", doing, ee.Address, ee.Detail),
			Hint:      "start the browser or farm, or fix the host and port in --cdp-endpoint; the next call connects again",
			Diagnosis: diag, Err: err}
	case backend.EndpointTimeout:
		if ee.Phase == "starting" || ee.Phase == "browser" {
			// The farm gave the session its browser, which is still
			// starting: the connection goes on.
			return &Error{Code: CodeTimeout, Message: fmt.Sprintf("cannot %s: the browser endpoint at %s is still starting this session's browser (%s)", doing, ee.Address, ee.Detail),
				Hint: "retry the call: it goes on with the same connection (a busy farm or machine starts browsers slowly)", Diagnosis: diag, Err: err}
		}
		msg := fmt.Sprintf("cannot %s: the browser endpoint at %s did not answer (%s: %s)", doing, ee.Address, ee.Phase, ee.Detail)
		hint := "check that the endpoint is reachable from here (a firewall, proxy or VPN may swallow the connection) and not overloaded; the next call connects again"
		if ee.Phase == "handshake" {
			hint = "a farm at capacity holds connections so, but this one did not say it is full (no /pressure answer): retry the call to go on waiting on the same connection (it never queues twice), or check the endpoint"
		}
		return &Error{Code: CodeNoBrowser, Message: msg, Hint: hint, Diagnosis: diag, Err: err}
	}
	return &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: the browser endpoint at %s did not give a browser (%s: %s)", doing, ee.Address, ee.Phase, ee.Detail),
		Hint:      "check that --cdp-endpoint names a browser's or farm's CDP address (ws://…, or http://… serving /json/version) and that its token (--cdp-header) is right; the next call connects again",
		Diagnosis: diag, Err: err}
}

// WithWaitReport returns ctx carrying r, which a backend that waits for a
// browser (a farm's queue) tells of the wait about once a second: how long
// the call has waited, the most it waits, and why.
func WithWaitReport(ctx context.Context, r func(waited, bound time.Duration, msg string)) context.Context {
	return backend.WithWaitReport(ctx, r)
}
