package backend

import (
	"context"
	"errors"
	"time"
)

// ErrFarmFull means a browser farm (--cdp-endpoint) is at capacity: it held
// the connection in its queue past the wait a call allows, or turned it away
// (HTTP 429 or 503). It matches ErrNoBrowser; it is an *EndpointError with
// Reason FarmFull.
var ErrFarmFull = errors.New("backend: browser farm at capacity")

// EndpointReason tells apart why a connect to a browser endpoint failed.
type EndpointReason string

// The reasons of an EndpointError.
const (
	// EndpointRefused: nothing accepts connections at the address
	// (connection refused, no such host).
	EndpointRefused EndpointReason = "refused"
	// EndpointTimeout: the endpoint did not answer in time (the TCP or TLS
	// connect, the discovery request, or a handshake held with no sign of
	// a queue).
	EndpointTimeout EndpointReason = "timeout"
	// EndpointAuth: the endpoint refused the credentials (HTTP 401, 403).
	EndpointAuth EndpointReason = "auth"
	// FarmFull: the farm is at capacity (see ErrFarmFull).
	FarmFull EndpointReason = "full"
	// EndpointFailed: any other failure (an unexpected HTTP status, a
	// discovery answer that is not one, a browser that does not speak CDP).
	EndpointFailed EndpointReason = "failed"
)

// FarmLoad is what a farm says of its load (browserless's /pressure).
type FarmLoad struct {
	Running, Queued          int
	MaxConcurrent, MaxQueued int
	Available                bool
}

// EndpointError is a failed connect to a browser endpoint. Every text in
// it has the endpoint's credentials redacted. It matches ErrUnreachable
// (and so ErrNoBrowser), and ErrFarmFull as well when Reason is FarmFull.
type EndpointError struct {
	Reason EndpointReason
	// Address is the endpoint, redacted.
	Address string
	// Status is the HTTP status the endpoint answered, 0 when none came.
	Status int
	// Phase is what was under way: "connect", "discovery", "handshake",
	// "queue" (a handshake the farm holds while it is full), "browser".
	Phase string
	// Waited is how long this call waited; Queued, how long the session's
	// connection has been in the farm's queue (it may predate the call).
	Waited, InQueue time.Duration
	// Load is the farm's load when it could be read; nil otherwise.
	Load *FarmLoad
	// Detail is the cause in words (redacted).
	Detail string
}

func (e *EndpointError) Error() string {
	s := "endpoint " + e.Address + ": " + string(e.Reason)
	if e.Phase != "" {
		s += " (" + e.Phase + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap is ErrUnreachable, and ErrFarmFull for a full farm.
func (e *EndpointError) Unwrap() []error {
	if e.Reason == FarmFull {
		return []error{ErrUnreachable, ErrFarmFull}
	}
	return []error{ErrUnreachable}
}

// WaitReport is told, about once a second, how long a call has waited for
// a browser (a farm's queue) out of the most it waits, and why.
type WaitReport func(waited, bound time.Duration, msg string)

type waitReportKey struct{}

// WithWaitReport returns ctx carrying r, for a backend that waits for a
// browser while ctx's call runs.
func WithWaitReport(ctx context.Context, r WaitReport) context.Context {
	return context.WithValue(ctx, waitReportKey{}, r)
}

// WaitReportOf is the WaitReport ctx carries, or nil.
func WaitReportOf(ctx context.Context) WaitReport {
	r, _ := ctx.Value(waitReportKey{}).(WaitReport)
	return r
}

// Waiter is implemented by a backend whose connect can wait in a farm's
// queue: TakeWait returns, once, a note on the last connect that had to
// wait ("" when none did since the last TakeWait).
type Waiter interface {
	TakeWait() string
}
