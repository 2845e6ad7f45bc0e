package endpoint

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/redact"
)

const (
	// DefaultWait is how long a call waits for a farm that holds the
	// connection in its queue (--endpoint-wait) before it answers that the
	// farm is full; the connection stays queued for the next call.
	DefaultWait = 30 * time.Second
	// phaseTimeout bounds each step of a connect but the wait in a farm's
	// queue: the TCP and TLS connect, the discovery request, the browser's
	// first answers.
	phaseTimeout = 30 * time.Second
	// waitNoteAfter: a connect that waited in a farm's queue longer than
	// this leaves a note for the session's next result.
	waitNoteAfter = time.Second
	// pressureTimeout bounds one read of the farm's /pressure.
	pressureTimeout = 2 * time.Second
	// pressureEvery spaces the reads of /pressure while a call waits.
	pressureEvery = 2 * time.Second
	// maxPressureBody bounds the /pressure reply.
	maxPressureBody = 64 << 10
)

// pending is the one connect a Backend has under way: it outlives the call
// that started it (a farm keeps it in its queue), so a later call resumes
// the wait rather than queueing a second connection.
type pending struct {
	done  chan struct{} // closed when the connect ended; l and err are set then
	l     *link
	err   error
	began time.Time
	// phase is what the connect is doing ("connect", "discovery",
	// "handshake", "browser"); held is set once the handshake request is
	// written and no answer has come: the farm holds the connection.
	phase atomic.Value
	held  atomic.Bool
	// heldSince is when held was set, answered when the handshake's answer
	// came (unix ns).
	heldSince, answered atomic.Int64
	// queued is set once the farm was seen with a queue while it held the
	// handshake (/pressure): the wait was for capacity, not for the
	// browser's start.
	queued atomic.Bool
	// cancel gives the connect up (Close, or a handshake held with no sign
	// of a farm for too long).
	cancel context.CancelFunc
}

// queueTime is how long the farm held p's handshake (until now when it
// still does).
func (p *pending) queueTime() time.Duration {
	since := p.heldSince.Load()
	if since == 0 {
		return 0
	}
	end := time.Now()
	if a := p.answered.Load(); a > 0 {
		end = time.Unix(0, a)
	}
	return end.Sub(time.Unix(0, since))
}

func (p *pending) phaseName() string {
	s, _ := p.phase.Load().(string)
	return s
}

func (p *pending) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// reconnect closes the connection that dropped, if any, and waits for a new
// one (b.lazy's Renew, run by one caller at a time): it resumes the connect
// under way, or starts one, and waits for it at most the call's share of
// Options.Wait. A call that stops waiting leaves the connect under way.
func (b *Backend) reconnect(ctx context.Context) (*link, error) {
	b.mu.Lock()
	old := b.cur
	b.cur = nil
	p := b.pend
	if p != nil && p.finished() {
		p, b.pend = nil, nil // it failed before this call: try again
	}
	if p == nil {
		p = b.startDial()
		b.pend = p
	}
	b.mu.Unlock()
	if old != nil {
		b.log.Warn("connection lost; connecting again", "reason", b.redactErr(old.conn.Err()))
		_ = old.conn.Close()
	}
	return b.await(ctx, p)
}

// startDial starts the connect p stands for; b.mu is held.
func (b *Backend) startDial() *pending {
	ctx, cancel := context.WithCancel(b.ctx)
	p := &pending{done: make(chan struct{}), began: time.Now(), cancel: cancel}
	p.phase.Store("connect")
	b.dials.Go(func() {
		defer cancel()
		l, err := b.connect(ctx, p)
		b.mu.Lock()
		if b.pend == p {
			b.pend = nil
		}
		if err == nil && b.closed {
			_ = l.conn.Close()
			l, err = nil, fmt.Errorf("endpoint: %w", backend.ErrClosed)
		}
		if err == nil {
			b.cur = l
			if q := p.queueTime(); p.queued.Load() && q > waitNoteAfter {
				b.waitNote = fmt.Sprintf("this session waited %s in the browser farm's queue for its browser (the farm was at capacity)", q.Round(100*time.Millisecond))
			}
		}
		p.l, p.err = l, err
		b.mu.Unlock()
		close(p.done)
	})
	return p
}

// TakeWait implements backend.Waiter: the note of the last connect that
// waited in the farm's queue, once.
func (b *Backend) TakeWait() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.waitNote
	b.waitNote = ""
	return n
}

// waitBounds are how long a call with ctx waits: queue, for a farm that
// holds the handshake (Options.Wait), and by, when the call must answer
// (its deadline less a moment to answer; zero when ctx has none). A connect
// that is not held in a queue (connecting, discovery, the browser's first
// answers) is waited for until by: it is on its way.
func (b *Backend) waitBounds(ctx context.Context) (queue time.Duration, by time.Time) {
	queue = b.opts.Wait
	if queue <= 0 {
		queue = DefaultWait
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		by = dl.Add(-min(time.Second, max(left, 0)/10))
		queue = min(queue, max(time.Until(by), 0))
	}
	return queue, by
}

// await waits for p: until it is done, or it has been held in a full
// farm's queue for the call's queue bound, or the call must answer. A farm
// that holds the handshake while it starts the session's browser (its queue
// empty) is waited for until the call must answer. It reports the wait (the
// ctx's backend.WaitReport) about once a second.
func (b *Backend) await(ctx context.Context, p *pending) (*link, error) {
	start := time.Now()
	queue, by := b.waitBounds(ctx)
	report := backend.WaitReportOf(ctx)
	var answer <-chan time.Time // when the call must answer
	if !by.IsZero() {
		t := time.NewTimer(max(time.Until(by), 0))
		defer t.Stop()
		answer = t.C
	}
	check := time.NewTicker(50 * time.Millisecond)
	defer check.Stop()
	var load *backend.FarmLoad
	var reported, probed time.Time
	probes := make(chan *backend.FarmLoad, 1) // one /pressure read at a time, not blocking the wait
	probing := false
	budget := func() time.Duration {
		if by.IsZero() {
			return time.Second
		}
		return min(time.Second, time.Until(by))
	}
	for {
		select {
		case l := <-probes:
			probing = false
			if l != nil {
				load = l
				// Queued only when the farm is full: a session whose
				// browser is starting waits too, beside others queued.
				if l.Queued > 0 && l.Running >= l.MaxConcurrent && p.held.Load() {
					p.queued.Store(true)
				}
			}
			continue
		case <-p.done:
			return p.l, p.err
		case <-b.ctx.Done():
			return nil, fmt.Errorf("endpoint: %w", backend.ErrClosed)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil, fmt.Errorf("%s: %w", b.lazy.Waiting, ctx.Err())
			}
			return nil, b.stillWaiting(p, time.Since(start), load, 0)
		case <-answer:
			return nil, b.stillWaiting(p, time.Since(start), load, budget())
		case <-check.C:
		}
		if p.held.Load() {
			heldFrom := time.Unix(0, p.heldSince.Load())
			if heldFrom.Before(start) {
				heldFrom = start
			}
			if time.Since(heldFrom) >= queue && !starting(load) {
				waited := time.Since(start)
				if load == nil {
					// The farm's load tells a full farm from a slow
					// one: a read under way (a loaded farm answers
					// slowly) is waited for, up to its own bound.
					d := pressureTimeout
					if !by.IsZero() {
						d = min(d, time.Until(by))
					}
					if probing {
						load = awaitProbe(probes, d)
						probing = false
					} else {
						load = b.pressureWithin(d)
					}
				}
				if !starting(load) {
					return nil, b.stillWaiting(p, waited, load, budget())
				}
			}
			if !probing && time.Since(probed) >= pressureEvery {
				probed, probing = time.Now(), true
				go func() { probes <- b.pressure(ctx) }()
			}
		}
		if report != nil && time.Since(reported) >= time.Second && time.Since(start) >= time.Second {
			reported = time.Now()
			bound := queue
			if !by.IsZero() && (!p.held.Load() || starting(load)) {
				bound = time.Until(by) + time.Since(start)
			}
			report(time.Since(start), bound, b.waitMessage(p, load))
		}
	}
}

// awaitProbe waits up to d for the /pressure read under way (nil when it
// does not come in time, or the farm did not say).
func awaitProbe(probes <-chan *backend.FarmLoad, d time.Duration) *backend.FarmLoad {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case l := <-probes:
		return l
	case <-t.C:
		return nil
	}
}

// starting says the farm's load shows no queue: a handshake it holds is
// one whose browser it is starting.
func starting(load *backend.FarmLoad) bool {
	return load != nil && load.Queued == 0 && load.Available
}

// pressureWithin reads the farm's load for at most d (nil when d is too
// short or the farm does not say).
func (b *Backend) pressureWithin(d time.Duration) *backend.FarmLoad {
	if d < 50*time.Millisecond {
		return nil
	}
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	return b.pressure(ctx)
}

// waitMessage says what a waiting call waits for.
func (b *Backend) waitMessage(p *pending, load *backend.FarmLoad) string {
	if !p.held.Load() {
		return fmt.Sprintf("connecting to the browser endpoint %s (%s)", b.display, p.phaseName())
	}
	if starting(load) {
		return "the farm at " + b.display + " is starting this session's browser"
	}
	s := "waiting for a browser from the farm at " + b.display
	if load != nil {
		s += fmt.Sprintf(": %d of %d running, %d queued", load.Running, load.MaxConcurrent, load.Queued)
	}
	return s
}

// stillWaiting is the error of a call that stopped waiting for p, which
// goes on: the farm is full when it holds the handshake and its load (read
// within budget when not known) shows a queue or no room; it is starting
// the browser when it holds it with no queue; otherwise the endpoint is
// slow to answer. A handshake held for longer than phaseTimeout with no
// sign of a farm is given up, so that the next call connects afresh.
func (b *Backend) stillWaiting(p *pending, waited time.Duration, load *backend.FarmLoad, budget time.Duration) error {
	e := &backend.EndpointError{Reason: backend.EndpointTimeout, Address: b.display, Phase: p.phaseName(), Waited: waited}
	if !p.held.Load() {
		e.Detail = fmt.Sprintf("no answer after %s", waited.Round(100*time.Millisecond))
		return e
	}
	e.Phase = "handshake"
	e.InQueue = p.queueTime()
	if load == nil {
		load = b.pressureWithin(budget)
	}
	e.Load = load
	switch {
	case load != nil && (load.Queued > 0 || !load.Available):
		p.queued.Store(true)
		e.Reason, e.Phase = backend.FarmFull, "queue"
		e.Detail = fmt.Sprintf("the farm holds the connection in its queue (%d of %d running, %d queued)", load.Running, load.MaxConcurrent, load.Queued)
	case load != nil:
		e.Phase = "starting"
		e.Detail = fmt.Sprintf("the farm is starting this session's browser (%s so far)", e.InQueue.Round(100*time.Millisecond))
	default:
		e.Detail = "the endpoint accepted the connection but has not answered its WebSocket handshake"
		if e.InQueue > phaseTimeout {
			p.cancel()
		}
	}
	return e
}

// connect resolves the WebSocket, dials it (a farm may hold the handshake
// in its queue for as long as it is full), checks the browser answers and
// starts tab discovery. Each step but the queue has its own bound.
func (b *Backend) connect(ctx context.Context, p *pending) (*link, error) {
	began := time.Now()
	p.phase.Store("discovery")
	dctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	ws, err := b.resolve(dctx)
	cancel()
	if err != nil {
		return nil, b.classify(ctx, "discovery", err)
	}
	p.phase.Store("connect")
	trace := &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) {
			p.phase.Store("handshake")
			p.heldSince.Store(time.Now().UnixNano())
			p.held.Store(true)
		},
	}
	wsConn, resp, err := websocket.Dial(httptrace.WithClientTrace(ctx, trace), ws, &websocket.DialOptions{HTTPHeader: b.opts.Header, HTTPClient: dialClient()})
	if p.held.Load() {
		p.answered.Store(time.Now().UnixNano())
	}
	if err != nil {
		return nil, b.classifyHandshake(ctx, p.phaseName(), resp, err)
	}
	p.held.Store(false)
	p.phase.Store("browser")
	conn := cdp.NewConn(cdp.NewWebSocketTransport(wsConn), &cdp.Options{Logger: b.opts.Logger})
	bctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	defer cancel()
	l, err := b.start(bctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, b.classify(ctx, "browser", err)
	}
	args := []any{"version", l.version, "took", time.Since(began).Round(time.Millisecond)}
	if since := p.heldSince.Load(); since > 0 {
		if q := time.Since(time.Unix(0, since)); q > waitNoteAfter {
			args = append(args, "queued", q.Round(time.Millisecond))
		}
	}
	b.log.Info("connected", args...)
	return l, nil
}

// dialClient is the HTTP client of a WebSocket handshake: the TCP and TLS
// connects are bounded, the answer is not (a farm holds it while full).
func dialClient() *http.Client {
	d := &net.Dialer{Timeout: phaseTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{CheckRedirect: noRedirect, Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		TLSHandshakeTimeout: phaseTimeout,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
		DisableKeepAlives:   true,
	}}
}

// classifyHandshake names the failure of a WebSocket handshake: by the
// HTTP status the endpoint answered, else as a connect failure.
func (b *Backend) classifyHandshake(ctx context.Context, phase string, resp *http.Response, err error) error {
	if resp == nil {
		return b.classify(ctx, phase, err)
	}
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 512))
	}
	return b.statusError("handshake", resp.StatusCode, resp.Status, body)
}

// statusError is the EndpointError of an HTTP answer that is not the one
// wanted.
func (b *Backend) statusError(phase string, code int, status string, body []byte) error {
	e := &backend.EndpointError{Reason: backend.EndpointFailed, Address: b.display, Status: code, Phase: phase}
	// The body is redacted whole before it is cut, so that no part of a
	// secret it repeats is left; a body the read cut may end in one.
	said := b.redactText(strings.Join(strings.Fields(string(body)), " "))
	if r := []rune(said); len(r) > 200 {
		said = string(r[:200]) + "…"
	}
	e.Detail = "answered HTTP " + b.redactText(status)
	if said != "" {
		e.Detail += ": " + said
	}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Reason = backend.EndpointAuth
	case http.StatusTooManyRequests:
		e.Reason = backend.FarmFull
		e.Load = b.pressureWithin(time.Second)
	case http.StatusServiceUnavailable:
		// A farm's "no room", or a proxy whose backend is down: full
		// only when the farm says so.
		if l := b.pressureWithin(time.Second); l != nil && (l.Queued > 0 || !l.Available || l.Running >= l.MaxConcurrent) {
			e.Reason, e.Load = backend.FarmFull, l
		}
	}
	return e
}

// classify names a failed step of a connect that got no HTTP answer to go
// by: refused, timed out, closed, or another failure.
func (b *Backend) classify(ctx context.Context, phase string, err error) error {
	if b.ctx.Err() != nil {
		return fmt.Errorf("endpoint: %w", backend.ErrClosed)
	}
	var se *statusErr
	if errors.As(err, &se) {
		return b.statusError(phase, se.code, se.status, se.body)
	}
	e := &backend.EndpointError{Reason: backend.EndpointFailed, Address: b.display, Phase: phase, Detail: b.redactText(err.Error())}
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		e.Reason = backend.EndpointRefused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		e.Reason = backend.EndpointTimeout
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		e.Detail = fmt.Sprintf("no answer in %s (%s)", phaseTimeout, phase)
	}
	return e
}

// statusErr is an HTTP answer of the discovery request that is not 200.
type statusErr struct {
	code   int
	status string
	body   []byte
}

func (e *statusErr) Error() string { return "answered HTTP " + e.status }

// pressure reads the farm's load from browserless's GET /pressure (at the
// endpoint's root, with its query and headers); nil when the endpoint has
// no such route or does not answer in time.
func (b *Backend) pressure(ctx context.Context) *backend.FarmLoad {
	u, err := url.Parse(b.opts.URL)
	if err != nil {
		return nil
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	u.Path, u.RawPath, u.Fragment = "/pressure", "", ""
	ctx, cancel := context.WithTimeout(ctx, pressureTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil
	}
	for k, vs := range b.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := pressureClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var v struct {
		Pressure *struct {
			Running       int  `json:"running"`
			Queued        int  `json:"queued"`
			MaxConcurrent int  `json:"maxConcurrent"`
			MaxQueued     int  `json:"maxQueued"`
			IsAvailable   bool `json:"isAvailable"`
		} `json:"pressure"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxPressureBody)).Decode(&v); err != nil || v.Pressure == nil || v.Pressure.MaxConcurrent <= 0 {
		return nil
	}
	pr := v.Pressure
	return &backend.FarmLoad{Running: pr.Running, Queued: pr.Queued, MaxConcurrent: pr.MaxConcurrent, MaxQueued: pr.MaxQueued, Available: pr.IsAvailable}
}

// pressureClient reads /pressure; it follows no redirect (the token stays
// with the endpoint's host).
var pressureClient = &http.Client{CheckRedirect: noRedirect}

// noRedirect keeps a request with the endpoint's host: its headers (a
// token) never go to another. A redirect is answered as it came.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// discoveryClient reads /json/version; it follows no redirect.
var discoveryClient = &http.Client{CheckRedirect: noRedirect}

// redactText hides the endpoint's credentials in s: those of its URL and
// the values of its headers.
func (b *Backend) redactText(s string) string {
	s = redact.EndpointIn(s, b.opts.URL)
	for k, vs := range b.opts.Header {
		if strings.EqualFold(k, "Host") {
			continue
		}
		for _, v := range vs {
			if len(v) >= 4 {
				s = strings.ReplaceAll(s, v, redact.Redacted)
			}
			// "Bearer TOKEN": the token alone too.
			if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= 4 {
				s = strings.ReplaceAll(s, tok, redact.Redacted)
			}
		}
	}
	return s
}

var _ backend.Waiter = (*Backend)(nil)
