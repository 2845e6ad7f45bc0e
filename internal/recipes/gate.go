package recipes

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/origin"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

// Site gate defaults and bounds.
const (
	DefaultGateRuns  = 1
	DefaultGateQueue = 8
	DefaultGateWait  = 30 * time.Second
	MaxGateRuns      = 16
	MaxGateQueue     = 100
	MinGateWait      = 100 * time.Millisecond
	MaxGateWait      = 10 * time.Minute
)

// Reasons of a SITE_BUSY error.
const (
	ReasonQueueFull    = "queue_full"
	ReasonQueueTimeout = "queue_timeout"
)

// GateOptions bound the recipe runs and flows on one site (registrable
// domain) at a time. The zero value takes the defaults.
type GateOptions struct {
	// Runs is how many may run on one site at once (default 1).
	Runs int
	// Queue is how many may wait for a site (default 8).
	Queue int
	// Wait is how long one may wait in the queue (default 30 s).
	Wait time.Duration
}

// withDefaults fills the zero fields.
func (o GateOptions) withDefaults() GateOptions {
	if o.Runs == 0 {
		o.Runs = DefaultGateRuns
	}
	if o.Queue == 0 {
		o.Queue = DefaultGateQueue
	}
	if o.Wait == 0 {
		o.Wait = DefaultGateWait
	}
	return o
}

// Check refuses settings out of range (after the defaults).
func (o GateOptions) Check() error {
	o = o.withDefaults()
	switch {
	case o.Runs < 1 || o.Runs > MaxGateRuns:
		return fmt.Errorf("site runs %d: takes 1 to %d", o.Runs, MaxGateRuns)
	case o.Queue < 0 || o.Queue > MaxGateQueue:
		return fmt.Errorf("site queue %d: takes 0 to %d", o.Queue, MaxGateQueue)
	case o.Wait < MinGateWait || o.Wait > MaxGateWait:
		return fmt.Errorf("site wait %v: takes %v to %v", o.Wait, MinGateWait, MaxGateWait)
	}
	return nil
}

// Gate keeps the runs on each site within GateOptions: a run enters its
// site's gate, waits its turn in a first-come queue when the site is busy,
// and is refused (SITE_BUSY) when the queue is full or its wait runs out.
// Different sites never wait on each other.
type Gate struct {
	opts GateOptions

	mu    sync.Mutex // guards sites
	sites map[string]*site
}

// site is one site's runs and queue.
type site struct {
	running int
	queue   []chan struct{} // first come first served; a send hands over a slot
}

// NewGate makes a gate; the options must pass Check.
func NewGate(o GateOptions) (*Gate, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	return &Gate{opts: o.withDefaults(), sites: map[string]*site{}}, nil
}

// Options are the gate's settings, defaults filled.
func (g *Gate) Options() GateOptions { return g.opts }

// Enter waits for a turn on the site (see Site) and returns the function
// that ends it (call it exactly once). wait bounds the time in the queue
// (0: the gate's Wait; it is never longer). The error is SITE_BUSY with
// the reason, the site and the queue in its diagnosis, or the context's.
func (g *Gate) Enter(ctx context.Context, siteName string, wait time.Duration) (func(), error) {
	if wait <= 0 || wait > g.opts.Wait {
		wait = g.opts.Wait
	}
	g.mu.Lock()
	s := g.sites[siteName]
	if s == nil {
		s = &site{}
		g.sites[siteName] = s
	}
	if s.running < g.opts.Runs && len(s.queue) == 0 {
		s.running++
		g.mu.Unlock()
		return g.releaser(siteName), nil
	}
	if len(s.queue) >= g.opts.Queue {
		running, queued := s.running, len(s.queue)
		g.mu.Unlock()
		return nil, busy(siteName, ReasonQueueFull, running, queued,
			fmt.Sprintf("%d run(s) on %s and %d waiting, the most allowed", running, siteName, queued),
			"try again in a while, or run it on another site first; the operator can raise --site-queue")
	}
	turn := make(chan struct{}, 1)
	s.queue = append(s.queue, turn)
	g.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-turn:
		return g.releaser(siteName), nil
	case <-timer.C:
	case <-ctx.Done():
	}
	g.mu.Lock()
	if !g.leave(siteName, s, turn) {
		g.mu.Unlock()
		// The turn came as the wait ended: it is ours, so use it.
		return g.releaser(siteName), nil
	}
	running, queued := s.running, len(s.queue)
	g.mu.Unlock()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return nil, busy(siteName, ReasonQueueTimeout, running, queued,
		fmt.Sprintf("waited %v for a turn on %s (%d run(s) there, %d waiting) and gave up", wait, siteName, running, queued),
		"the site is busy with other runs: try again later; the operator can raise --site-wait or --site-runs")
}

// leave takes turn out of the queue; false when it is not there (the turn
// was handed over). Call with g.mu held.
func (g *Gate) leave(name string, s *site, turn chan struct{}) bool {
	for i, c := range s.queue {
		if c == turn {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			g.tidy(name, s)
			return true
		}
	}
	return false
}

// tidy forgets an idle site. Call with g.mu held.
func (g *Gate) tidy(name string, s *site) {
	if s.running == 0 && len(s.queue) == 0 {
		delete(g.sites, name)
	}
}

// releaser ends one turn on the site: the slot goes to the first in the
// queue, or is freed.
func (g *Gate) releaser(name string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			s := g.sites[name]
			if s == nil {
				return
			}
			if len(s.queue) > 0 {
				next := s.queue[0]
				s.queue = s.queue[1:]
				next <- struct{}{} // buffered: the slot passes on, running stays
				return
			}
			s.running--
			g.tidy(name, s)
		})
	}
}

// SiteStatus is one busy site of the gate.
type SiteStatus struct {
	Site    string `json:"site"`
	Running int    `json:"running"`
	Queued  int    `json:"queued"`
}

// Status lists the sites with runs or a queue, by name.
func (g *Gate) Status() []SiteStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]SiteStatus, 0, len(g.sites))
	for name, s := range g.sites {
		out = append(out, SiteStatus{Site: name, Running: s.running, Queued: len(s.queue)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Site < out[j].Site })
	return out
}

func busy(siteName, reason string, running, queued int, msg, hint string) *toolerr.Error {
	return &toolerr.Error{Code: toolerr.CodeSiteBusy, Message: msg, Hint: hint,
		Diagnosis: map[string]any{"reason": reason, "site": siteName, "running": running, "queued": queued}}
}

// Site is the gate's name for where a URL (or a bare host) leads:
// origin.Site.
func Site(raw string) string { return origin.Site(raw) }
