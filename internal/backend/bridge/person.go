package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// approvals are the person's answers as this server knows them, per
// browser profile: the rules (always, deny) the extension keeps in its
// storage and the "once" answers of agent sessions, learnt from each
// approval.ask's result and from approval.answered; and the asks the
// person has not answered yet. approval.changed (a rule revoked in the
// popup) forgets what it names.
type approvals struct {
	mu sync.Mutex // guards the fields below
	// known answers: a rule's key has no session; a once answer's has.
	known map[approvalKey]backend.Answer
	// waiting are the asks a call waits on, by ask id: closed when the
	// answer is in answered.
	waiting  map[string]chan struct{}
	answered map[string]backend.Answer // answers by ask id, the newest maxAnswered
	order    []string                  // answered's ids, oldest first
}

// approvalKey is a client's answer for a site in a browser profile: for
// an agent session (a once answer) or for every session (a rule).
type approvalKey struct {
	profile, client, session, site string
}

// maxAnswered bounds the answers kept by ask id, maxKnown the answers
// known per client and site.
const (
	maxAnswered = 256
	maxKnown    = 4096
)

// lookup is the known answer for q in profile: a rule, else the session's
// once; "" when none.
func (a *approvals) lookup(profile string, q backend.Approval) backend.Answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ans, ok := a.known[approvalKey{profile, q.Client, "", q.Site}]; ok {
		return ans
	}
	return a.known[approvalKey{profile, q.Client, q.Session, q.Site}]
}

// learn notes an answer to q.
func (a *approvals) learn(profile string, q backend.Approval, ans backend.Answer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known == nil {
		a.known = map[approvalKey]backend.Answer{}
	}
	if len(a.known) >= maxKnown {
		// Sessions come and go: their once answers go first (a session
		// whose answer went is asked again), the rules stay.
		for k := range a.known {
			if k.session != "" {
				delete(a.known, k)
			}
		}
	}
	switch {
	case ans == backend.AllowAlways:
		a.known[approvalKey{profile, q.Client, "", q.Site}] = ans
	case ans == backend.Deny && !q.Bind:
		a.known[approvalKey{profile, q.Client, "", q.Site}] = ans
	case ans == backend.AllowOnce && !q.Bind:
		a.known[approvalKey{profile, q.Client, q.Session, q.Site}] = ans
	}
}

// forget drops what is known of client on site in profile (a rule revoked
// in the popup, and the sessions' once answers with it); an empty client
// or site matches all.
func (a *approvals) forget(profile, client, site string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range a.known {
		if k.profile == profile && (client == "" || k.client == client) && (site == "" || k.site == site) {
			delete(a.known, k)
		}
	}
}

// wait returns the channel closed when ask is answered (at once when it
// was already).
func (a *approvals) wait(ask string) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.answered[ask]; ok {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if a.waiting == nil {
		a.waiting = map[string]chan struct{}{}
	}
	ch, ok := a.waiting[ask]
	if !ok {
		ch = make(chan struct{})
		a.waiting[ask] = ch
	}
	return ch
}

// answer records the person's answer to ask and wakes its waiters.
func (a *approvals) answer(ask string, ans backend.Answer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answered == nil {
		a.answered = map[string]backend.Answer{}
	}
	if _, ok := a.answered[ask]; !ok {
		a.order = append(a.order, ask)
		if len(a.order) > maxAnswered {
			delete(a.answered, a.order[0])
			a.order = a.order[1:]
		}
	}
	a.answered[ask] = ans
	if ch, ok := a.waiting[ask]; ok {
		close(ch)
		delete(a.waiting, ask)
	}
}

// answerOf is the recorded answer to ask.
func (a *approvals) answerOf(ask string) backend.Answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.answered[ask]
}

// validAnswer says whether s is one of the answers.
func validAnswer(s backend.Answer) bool {
	return s == backend.AllowOnce || s == backend.AllowAlways || s == backend.Deny
}

// Approve implements backend.Approver: a known answer at once; else the
// extension is asked (approval.ask). It answers with a rule it keeps, or
// with the id of the question it shows the person (its popup, a
// notification, a "?" badge); the call waits for approval.answered.
func (b *Backend) Approve(ctx context.Context, q backend.Approval) (backend.Answer, error) {
	r, _, err := b.session(ctx)
	if err != nil {
		return "", err
	}
	profile := r.hello.ProfileID
	if !q.Bind {
		// An allow is taken from what is known; a denial is asked of the
		// extension again (it answers from its rule), so that a revoke in
		// the popup counts at once.
		if ans := b.approvals.lookup(profile, q); ans != "" && ans != backend.Deny {
			return ans, nil
		}
	}
	params := map[string]any{"client": q.Client, "session": q.Session, "site": q.Site, "url": q.URL, "bind": q.Bind}
	if n, err := tabID(q.Tab); err == nil {
		params["tabId"] = n
	}
	if q.Title != "" {
		params["title"] = q.Title
	}
	var res struct {
		Answer backend.Answer `json:"answer"`
		Ask    string         `json:"ask"`
	}
	if err := r.Request(ctx, "approval.ask", params, &res); err != nil {
		return "", opErr(err, q.Tab)
	}
	if validAnswer(res.Answer) {
		b.approvals.learn(profile, q, res.Answer)
		return res.Answer, nil
	}
	if res.Ask == "" {
		return "", fmt.Errorf("the extension answered approval.ask with neither an answer nor a question")
	}
	done := b.approvals.wait(res.Ask)
	report := backend.WaitReportOf(ctx)
	start := time.Now()
	var bound time.Duration
	if dl, ok := ctx.Deadline(); ok {
		bound = time.Until(dl)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	what := fmt.Sprintf("waiting for the person to answer in their browser whether %s may use %s", orUnnamed(q.Client), q.Site)
	if q.Bind {
		what = fmt.Sprintf("waiting for the person to answer in their browser whether %s may use their tab on %s", orUnnamed(q.Client), q.Site)
	}
	if report != nil {
		report(0, bound, what)
	}
	for {
		select {
		case <-done:
			ans := b.approvals.answerOf(res.Ask)
			if !validAnswer(ans) {
				return "", fmt.Errorf("the extension answered question %s with %q", res.Ask, ans)
			}
			b.approvals.learn(profile, q, ans)
			return ans, nil
		case <-tick.C:
			if report != nil {
				report(time.Since(start), bound, what)
			}
		case <-r.Done():
			return "", fmt.Errorf("%w: the browser disconnected while the person was asked (%v)", backend.ErrBridgeDisconnected, r.err())
		case <-ctx.Done():
			// Nobody waits for the answer any more (time ran out, the call
			// was cancelled, its client left): the question is withdrawn
			// rather than left for the person to answer to no one.
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			if err := r.Request(wctx, "approval.end", map[string]any{"ask": res.Ask}, nil); err != nil {
				b.log.Debug("bridge: could not withdraw a question", "ask", res.Ask, "err", err)
			}
			cancel()
			return "", ctx.Err()
		}
	}
}

// orUnnamed is a client's name for the person.
func orUnnamed(client string) string {
	if client == "" {
		return "an unnamed client"
	}
	return client
}

// Approvals implements backend.Approver: the rules of every browser profile
// connected (approval.rules).
func (b *Backend) Approvals(ctx context.Context) ([]backend.ApprovalRule, error) {
	var out []backend.ApprovalRule
	var errs []error
	b.srv.mu.Lock()
	live := b.srv.liveLocked()
	b.srv.mu.Unlock()
	for _, r := range live {
		var res struct {
			Rules []backend.ApprovalRule `json:"rules"`
		}
		if err := r.Request(ctx, "approval.rules", map[string]any{}, &res); err != nil {
			errs = append(errs, fmt.Errorf("profile %s: %w", r.hello.ProfileName, err))
			continue
		}
		for _, rule := range res.Rules {
			rule.Profile = r.hello.ProfileName
			out = append(out, rule)
		}
	}
	return out, errors.Join(errs...)
}

// liveState is the live view's state: the record sent last (shown again to a
// browser that connects) and who is told of the person's controls.
type liveState struct {
	mu      sync.Mutex // guards the fields below
	last    []backend.LiveClient
	control func(client string, action backend.Control)
}

// ShowLive implements backend.LiveView: live.show to every browser profile
// connected.
func (b *Backend) ShowLive(ctx context.Context, clients []backend.LiveClient) error {
	if clients == nil {
		clients = []backend.LiveClient{}
	}
	b.live.mu.Lock()
	b.live.last = clients
	b.live.mu.Unlock()
	b.srv.mu.Lock()
	relays := b.srv.liveLocked()
	b.srv.mu.Unlock()
	var errs []error
	for _, r := range relays {
		if err := r.Request(ctx, "live.show", map[string]any{"clients": clients}, nil); err != nil {
			errs = append(errs, fmt.Errorf("profile %s: %w", r.hello.ProfileName, err))
		}
	}
	return errors.Join(errs...)
}

// OnControl implements backend.LiveView.
func (b *Backend) OnControl(f func(client string, action backend.Control)) {
	b.live.mu.Lock()
	b.live.control = f
	b.live.mu.Unlock()
}

// welcomed shows a browser that just connected the live view as it is.
func (b *Backend) welcomed(r *Relay) {
	b.live.mu.Lock()
	last := b.live.last
	b.live.mu.Unlock()
	if last == nil {
		last = []backend.LiveClient{} // what a popup kept from an earlier webpilot is gone
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.Request(ctx, "live.show", map[string]any{"clients": last}, nil); err != nil {
			b.log.Debug("bridge: could not show the live view", "err", err)
		}
	}()
}

// personEvent takes the person's events of any connection.
func (b *Backend) personEvent(r *Relay, event string, params json.RawMessage) {
	profile := r.hello.ProfileID
	switch event {
	case "approval.answered":
		var e struct {
			Ask     string         `json:"ask"`
			Answer  backend.Answer `json:"answer"`
			Client  string         `json:"client"`
			Session string         `json:"session"`
			Site    string         `json:"site"`
			Bind    bool           `json:"bind"`
		}
		if json.Unmarshal(params, &e) != nil || e.Ask == "" || !validAnswer(e.Answer) {
			b.log.Warn("bridge: an approval.answered that does not parse", "params", string(params))
			return
		}
		b.approvals.learn(profile, backend.Approval{Client: e.Client, Session: e.Session, Site: e.Site, Bind: e.Bind}, e.Answer)
		b.approvals.answer(e.Ask, e.Answer)
	case "approval.changed":
		var e struct {
			Client string `json:"client"`
			Site   string `json:"site"`
		}
		if json.Unmarshal(params, &e) != nil {
			return
		}
		b.approvals.forget(profile, e.Client, e.Site)
	case "client.control":
		var e struct {
			Client string          `json:"client"`
			Action backend.Control `json:"action"`
		}
		if json.Unmarshal(params, &e) != nil || e.Client == "" {
			return
		}
		switch e.Action {
		case backend.Pause, backend.Resume, backend.Stop:
		default:
			return
		}
		b.live.mu.Lock()
		f := b.live.control
		b.live.mu.Unlock()
		if f != nil {
			f(e.Client, e.Action)
		}
	}
}

var (
	_ backend.Approver = (*Backend)(nil)
	_ backend.LiveView = (*Backend)(nil)
)
