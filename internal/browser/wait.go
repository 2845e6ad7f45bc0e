package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"regexp"
	"strings"
	"time"
)

// waitJS checks the target conditions of one frame in the walker's world.
//
//go:embed wait.js
var waitJS string

// Target states a wait condition can ask for.
const (
	StateVisible  = "visible"
	StateHidden   = "hidden"
	StateAttached = "attached"
	StateDetached = "detached"
	StateEnabled  = "enabled"
)

// WaitCondition is one condition of a wait: exactly one of a target (in
// State), URL, Title, NetworkIdle, Download or Time. Tier ranks it in
// mode any (0: the content is ready; 1 and up: fallbacks).
type WaitCondition struct {
	Target Locator
	// State is what the target must be: visible (default), hidden,
	// attached, detached or enabled. hidden and detached with a text
	// target mean the text is gone.
	State string
	// URL and Title match the page's: a glob (* any run of characters)
	// matched whole, /regex/flags, or else a case-insensitive part.
	URL   string
	Title string
	// NetworkIdle holds once no request of the page has been in flight for
	// NetworkIdleQuiet.
	NetworkIdle bool
	// Download holds once a download that began after the wait started has
	// completed.
	Download bool
	// Time holds once the wait has lasted this long.
	Time time.Duration
	Tier int
}

// WaitOptions are a wait's conditions, combined as any (the default: the
// first check where one holds ends the wait, and the lowest tier holding
// then wins) or all.
type WaitOptions struct {
	Conditions []WaitCondition
	All        bool
	Timeout    time.Duration // 0: the action timeout
}

// WaitResult is how a wait ended.
type WaitResult struct {
	// Index and Tier are those of the winning condition (mode any); Index
	// is -1 in mode all.
	Index   int
	Tier    int
	What    string // the winning condition, described
	Elapsed time.Duration
	// Holding are the indexes of the conditions that held at the last
	// check.
	Holding []int
	// Downloads are the downloads that began during the wait.
	Downloads []Download
}

// NetworkIdleQuiet is how long no request may have been in flight for a
// network_idle condition to hold.
var NetworkIdleQuiet = 500 * time.Millisecond

// waitPoll is the time between two checks of a wait.
const waitPoll = 100 * time.Millisecond

// diagSnapshotChars bounds the snapshot in a wait's diagnosis.
const diagSnapshotChars = 1500

// Describe says what the condition waits for, for messages.
func (c WaitCondition) Describe() string {
	switch {
	case !c.Target.Empty():
		d := c.Target.Describe()
		if c.Target.Text != "" && (c.State == StateHidden || c.State == StateDetached) {
			return d + " gone"
		}
		if c.State != "" && c.State != StateVisible {
			d += " " + c.State
		}
		return d
	case c.URL != "":
		return "url " + c.URL
	case c.Title != "":
		return "title " + c.Title
	case c.NetworkIdle:
		return "network idle"
	case c.Download:
		return "a download completed"
	case c.Time > 0:
		return fmt.Sprintf("%d ms passed", c.Time.Milliseconds())
	}
	return "nothing"
}

// waitCond is a checked condition with its compiled matchers.
type waitCond struct {
	WaitCondition
	i     int
	match func(string) bool // url, title
	kind  string            // target, url, title, network, download, time
	every bool              // a text or role target looked for in every frame
}

func condError(i int, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("conditions[%d]: ", i) + fmt.Sprintf(format, args...),
		Hint: `each condition takes one of: a target (ref, selector, text or role+name) with state; url; title; network_idle; download; time_ms — e.g. {"text":"Results"} or {"url":"*/done*"}`}
}

// checkWait refuses conditions that cannot be waited for, before anything
// touches the page, and compiles them.
func checkWait(o WaitOptions) ([]*waitCond, error) {
	if len(o.Conditions) == 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "conditions is empty: give at least one condition",
			Hint: `e.g. {"conditions":[{"text":"Results"},{"selector":".error","tier":1}]}`}
	}
	var out []*waitCond
	for i, c := range o.Conditions {
		wc := &waitCond{WaitCondition: c, i: i}
		n := 0
		if !c.Target.Empty() || c.Target.Within != "" || c.Target.Frame != "" {
			wc.kind = "target"
			n++
		}
		if c.URL != "" {
			wc.kind = "url"
			n++
		}
		if c.Title != "" {
			wc.kind = "title"
			n++
		}
		if c.NetworkIdle {
			wc.kind = "network"
			n++
		}
		if c.Download {
			wc.kind = "download"
			n++
		}
		if c.Time > 0 {
			wc.kind = "time"
			n++
		}
		switch {
		case n == 0:
			return nil, condError(i, "nothing to wait for")
		case n > 1:
			return nil, condError(i, "give one thing to wait for per condition (a target, url, title, network_idle, download or time_ms); use mode all to combine them")
		case c.Tier < 0:
			return nil, condError(i, "tier must not be negative")
		case c.State != "" && wc.kind != "target":
			return nil, condError(i, "state goes with a target (ref, selector, text or role)")
		}
		switch c.State {
		case "", StateVisible, StateHidden, StateAttached, StateDetached, StateEnabled:
		default:
			return nil, condError(i, "state %q is not one of visible, hidden, attached, detached, enabled", c.State)
		}
		var err error
		switch wc.kind {
		case "target":
			if err := c.Target.validate(); err != nil {
				if we, ok := AsError(err); ok {
					we.Message = fmt.Sprintf("conditions[%d]: %s", i, we.Message)
				}
				return nil, err
			}
			if wc.State == "" {
				wc.State = StateVisible
			}
			if c.Target.Role != "" && (wc.State == StateAttached || wc.State == StateDetached) {
				return nil, condError(i, "a role target is matched on what is shown: use state visible or hidden (or a selector for attached and detached)")
			}
			wc.every = (c.Target.Text != "" || c.Target.Role != "") && c.Target.Within == "" && c.Target.Frame == ""
		case "url":
			wc.match, err = pageMatcher(i, "url", c.URL)
		case "title":
			wc.match, err = pageMatcher(i, "title", c.Title)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, wc)
	}
	return out, nil
}

// pageMatcher compiles a url or title value: /re/flags is a regular
// expression (RE2; flags i, m and s apply); a value with * is a glob (*
// any run of characters) matched against the whole string, ignoring case;
// anything else a case-insensitive part.
func pageMatcher(i int, field, v string) (func(string) bool, error) {
	m, err := valueMatcher(v)
	if err != nil {
		e := condError(i, "%s %s is not a valid regular expression: %v", field, v, err)
		e.Hint = patternHint
		return nil, e
	}
	return m, nil
}

// patternHint says how url and title values are written.
const patternHint = "write /pattern/ or /pattern/i (RE2 syntax: no lookaround or backreferences), a glob such as */done*, or plain text for a part"

// readAs says how valueMatcher reads v, for a reply that reports a miss.
func readAs(v string) string {
	if _, ok, _ := goPattern(v); ok {
		return "a regular expression"
	}
	if strings.Contains(v, "*") {
		return "a glob (* is any run of characters) matched against the whole value, ignoring case"
	}
	return "a part of the value, ignoring case"
}

// valueMatcher compiles a url or title value (see pageMatcher): the one
// matcher of url and title for waits, expects, flows and recipes.
func valueMatcher(v string) (func(string) bool, error) {
	if re, ok, err := goPattern(v); ok {
		if err != nil {
			return nil, err
		}
		return re.MatchString, nil
	}
	if strings.Contains(v, "*") {
		parts := strings.Split(v, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile("(?is)^" + strings.Join(parts, ".*") + "$")
		return re.MatchString, nil
	}
	low := strings.ToLower(v)
	return func(s string) bool { return strings.Contains(strings.ToLower(s), low) }, nil
}

// condState is what one check saw of a condition.
type condState struct {
	ok   bool
	seen string // what was seen, when it does not hold
	try  string // what to try then
}

// jsCond is a target condition as wait.js takes it.
type jsCond struct {
	I          int      `json:"i"`
	Sel        string   `json:"sel,omitempty"`
	Text       string   `json:"text,omitempty"`
	Role       string   `json:"role,omitempty"`
	Name       string   `json:"name,omitempty"`
	Exact      bool     `json:"exact,omitempty"`
	Within     string   `json:"within,omitempty"`
	WithinRef  *jsRef   `json:"withinRef,omitempty"`
	WithinName string   `json:"withinName,omitempty"`
	Ref        *jsRef   `json:"ref,omitempty"`
	All        bool     `json:"all,omitempty"`
	pats       []string // agent patterns in it
}

type jsRef struct {
	Doc string   `json:"doc"`
	WID int      `json:"wid"`
	FP  []string `json:"fp"`
}

// jsCount is wait.js's answer for one condition in one frame.
type jsCount struct {
	I    int      `json:"i"`
	A    int      `json:"a"`
	S    int      `json:"s"`
	E    int      `json:"e"`
	Why  string   `json:"why"`
	Near []string `json:"near"`
}

type jsAnswer struct {
	URL    string    `json:"url"`
	Title  string    `json:"title"`
	R      []jsCount `json:"r"`
	Frames []int     `json:"frames"`
	Bad    string    `json:"bad"`
	Busy   string    `json:"busy"`
}

// targetTally is what the frames of one check saw of a target condition.
type targetTally struct {
	a, s, e int
	why     string
	near    []string
	frame   string // why its frame could not be read
}

// waiter runs the checks of one wait on a tab.
type waiter struct {
	t       *Tab
	conds   []*waitCond
	start   time.Time
	dlMark  int
	net     *requestTable
	frames  map[string]frameWorld // frame spec → its world, while it answers
	kids    map[string]frameWorld // parent frame id + iframe number → world
	url     string
	title   string
	located bool // the page's url and title were read in this check
}

// Wait waits until the conditions hold (any: one of them, the lowest tier
// winning among those that hold at the same check; all: every one), or
// the timeout passes: TIMEOUT, with a diagnosis of the page and of each
// condition.
func (h *Held) Wait(ctx context.Context, o WaitOptions) (*WaitResult, error) {
	s, t := h.s, h.t
	conds, err := checkWait(o)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = s.pol.opts.ActionTimeout
	}
	return untilAnswered(ctx, t, func(ctx context.Context) (*WaitResult, error) {
		return reader{s}.wait(ctx, t, conds, o)
	})
}

func (rd reader) wait(ctx context.Context, t *Tab, conds []*waitCond, o WaitOptions) (*WaitResult, error) {
	defer t.releaseObjects(ctx)
	w := &waiter{t: t, conds: conds, start: time.Now(), dlMark: t.downloads.mark(), frames: map[string]frameWorld{}, kids: map[string]frameWorld{}}
	defer t.downloads.end(w.dlMark)
	var pats []string
	for _, c := range conds {
		switch c.kind {
		case "network":
			w.net = t.page.reqs
		case "target":
			pats = append(pats, c.Target.Text, c.Target.Name)
		}
	}
	if err := t.finder().checkPatterns(ctx, pats...); err != nil {
		return nil, err
	}
	// The wait ends at its timeout, or early enough before the call's
	// deadline to answer with a diagnosis.
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if d, ok := ctx.Deadline(); ok {
		var c2 context.CancelFunc
		wctx, c2 = context.WithDeadline(wctx, d.Add(-min(answerMargin+time.Second, time.Until(d)/2)))
		defer c2()
	}
	for {
		states, err := w.check(wctx, false)
		if ctx.Err() != nil {
			return nil, backendError("wait", context.Cause(ctx))
		}
		if _, agent := AsError(err); agent && wctx.Err() == nil {
			return nil, err
		}
		if err != nil {
			// A page between documents: checked again at the next poll.
			t.log.Debug("wait: check", "err", err)
		}
		if err == nil {
			if res := w.decide(states, o.All); res != nil {
				res.Downloads = t.downloads.now(w.dlMark)
				return res, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, backendError("wait", context.Cause(ctx))
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, backendError("wait", context.Cause(ctx))
			}
			return nil, w.timeout(ctx, o)
		case <-time.After(waitPoll):
		}
	}
}

// decide ends the wait when the conditions hold: in mode any the lowest
// tier among those holding (then the lowest index) wins.
func (w *waiter) decide(states []condState, all bool) *WaitResult {
	res := &WaitResult{Index: -1, Elapsed: time.Since(w.start)}
	for i, st := range states {
		if st.ok {
			res.Holding = append(res.Holding, i)
		}
	}
	if all {
		if len(res.Holding) != len(states) {
			return nil
		}
		res.What = fmt.Sprintf("all %d conditions", len(states))
		return res
	}
	if len(res.Holding) == 0 {
		return nil
	}
	best := res.Holding[0]
	for _, i := range res.Holding {
		if w.conds[i].Tier < w.conds[best].Tier {
			best = i
		}
	}
	res.Index, res.Tier, res.What = best, w.conds[best].Tier, w.conds[best].Describe()
	return res
}

// check reads every condition once. diag asks for what the diagnosis
// tells (near matches, hidden text).
func (w *waiter) check(ctx context.Context, diag bool) ([]condState, error) {
	states := make([]condState, len(w.conds))
	w.located = false
	tallies, err := w.targets(ctx, diag)
	if err != nil {
		return nil, err
	}
	needLoc := false
	for _, c := range w.conds {
		needLoc = needLoc || c.kind == "url" || c.kind == "title"
	}
	if needLoc && !w.located {
		u, title, err := w.t.location(ctx)
		if err != nil {
			return nil, backendError("read the page's url", err)
		}
		w.url, w.title, w.located = maskWith(w.t.mask(), u), maskWith(w.t.mask(), title), true
	}
	for i, c := range w.conds {
		switch c.kind {
		case "target":
			states[i] = targetState(c, tallies[i])
		case "url":
			states[i] = condState{ok: c.match(w.url), seen: "url is " + shorten(w.url, 200) + ", wanted " + c.URL,
				try: "the page did not get there: check the step that should navigate; * matches any characters, a value without * a part of the url"}
		case "title":
			states[i] = condState{ok: c.match(w.title), seen: fmt.Sprintf("title is %q, wanted %s", shorten(w.title, 120), c.Title),
				try: "check the title with browser_read; * matches any characters, plain text a part"}
		case "network":
			ok, reqs, since := w.net.idle(NetworkIdleQuiet)
			st := condState{ok: ok}
			if len(reqs) > 0 {
				urls := make([]string, 0, 3)
				for _, q := range reqs[:min(3, len(reqs))] {
					urls = append(urls, fmt.Sprintf("%s (%.1f s)", shorten(q.url, 100), time.Since(q.start).Seconds()))
				}
				st.seen = fmt.Sprintf("%d %s still in flight: %s", len(reqs), plural(len(reqs), "request", "requests"), strings.Join(urls, ", "))
				st.try = "the page keeps a request open (polling, streaming, a slow API): wait for the content it brings instead of network_idle"
			} else {
				st.seen = fmt.Sprintf("requests keep starting: the last ended %d ms ago", since.Milliseconds())
				st.try = "the page polls often: wait for the content instead of network_idle"
			}
			states[i] = st
		case "download":
			states[i] = w.downloadState()
		case "time":
			el := time.Since(w.start)
			states[i] = condState{ok: el >= c.Time, seen: fmt.Sprintf("%d of %d ms had passed", el.Milliseconds(), c.Time.Milliseconds()),
				try: "give timeout_ms longer than time_ms"}
		}
	}
	return states, nil
}

func (w *waiter) downloadState() condState {
	ds := w.t.downloads.now(w.dlMark)
	if len(ds) == 0 {
		return condState{seen: "no download began after the wait started",
			try: "start the download first (browser_action click on its link or button), then wait; a download begun before the wait does not count"}
	}
	var seen []string
	for _, d := range ds {
		if d.State == "completed" {
			return condState{ok: true}
		}
		seen = append(seen, d.String())
	}
	return condState{seen: strings.Join(seen, "; "), try: "a large file needs a longer timeout_ms; a canceled one must be started again"}
}

// targetState judges a target condition by what its frames saw.
func targetState(c *waitCond, tl targetTally) condState {
	what := c.Target.Describe()
	var st condState
	switch c.State {
	case StateVisible:
		st.ok = tl.s > 0
	case StateHidden:
		st.ok = tl.s == 0
	case StateAttached:
		st.ok = tl.a > 0
	case StateDetached:
		st.ok = tl.a == 0
	case StateEnabled:
		st.ok = tl.e > 0
	}
	if st.ok {
		return st
	}
	near := ""
	if len(tl.near) > 0 {
		near = "; near: " + strings.Join(tl.near, ", ")
	}
	text := c.Target.Text != ""
	switch {
	case tl.frame != "":
		st.seen = tl.frame
		st.try = "check frame against browser_snapshot (iframes are shown inline); the frame may not have loaded"
	case (c.State == StateVisible || c.State == StateEnabled) && tl.a > 0 && tl.s == 0:
		how := ""
		if tl.why != "" {
			how = " (" + tl.why + ")"
		}
		if text {
			st.seen = fmt.Sprintf("%s is in the page but not shown%s", what, how)
		} else {
			st.seen = fmt.Sprintf("%s exists but is hidden%s", what, how)
		}
		st.try = "wait for state attached if being in the page is enough, or for what reveals it (an action may be needed first)"
	case c.State == StateVisible || (c.State == StateEnabled && tl.s == 0):
		if tl.why != "" && c.Target.Within != "" {
			st.seen = tl.why
		} else if text {
			st.seen = "no visible text matches " + what + near
		} else {
			st.seen = "nothing matches " + what + near
		}
		st.try = "check the target with browser_find or browser_snapshot; text and name match a case-insensitive part unless exact, /re/i a pattern"
	case c.State == StateEnabled:
		st.seen = fmt.Sprintf("%s is shown but disabled", what)
		st.try = "the control stays disabled: a required field may be empty or invalid; check the form with browser_snapshot"
	case c.State == StateHidden:
		st.seen = fmt.Sprintf("%d shown %s %s %s", tl.s, plural(tl.s, "element", "elements"), plural(tl.s, "matches", "match"), what)
		st.try = "it is still shown: the page may need an action first, or more time (timeout_ms)"
	default: // detached
		st.seen = fmt.Sprintf("%d %s in the page %s %s", tl.a, plural(tl.a, "element", "elements"), plural(tl.a, "matches", "match"), what)
		st.try = "it is still in the page (maybe hidden: state hidden takes that as gone)"
	}
	return st
}

// worldKeyOf names a frame's world for grouping conditions.
func worldKeyOf(w frameWorld) string { return fmt.Sprintf("%p|%s", w.sess, w.frameID) }

// targets runs wait.js in every frame a target condition looks at: one
// evaluation per frame per check.
func (w *waiter) targets(ctx context.Context, diag bool) (map[int]targetTally, error) {
	tallies := map[int]targetTally{}
	var every, mainOnly []jsCond
	type group struct {
		w     frameWorld
		conds []jsCond
	}
	groups := map[string]*group{}
	var order []string
	mainID := ""
	add := func(fw frameWorld, jc jsCond) {
		k := worldKeyOf(fw)
		g := groups[k]
		if g == nil {
			g = &group{w: fw}
			groups[k] = g
			order = append(order, k)
		}
		g.conds = append(g.conds, jc)
	}
	any := false
	for _, c := range w.conds {
		any = any || c.kind == "target"
	}
	if !any {
		return tallies, nil
	}
	id, err := w.t.page.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	mainID = id
	main := frameWorld{sess: w.t.page, frameID: mainID}
	for _, c := range w.conds {
		if c.kind != "target" {
			continue
		}
		tg := c.Target
		jc := jsCond{I: c.i, Text: tg.Text, Role: tg.Role, Name: tg.Name, Exact: tg.Exact,
			All: c.State == StateAttached || c.State == StateDetached}
		if tg.Selector != "" {
			jc.Sel = tg.Selector
		}
		fw := main
		if tg.Ref != "" {
			e, err := w.t.refs.lookup(tg.Ref)
			if err != nil {
				if we, ok := AsError(err); ok && we.Code == CodeStaleRef {
					tallies[c.i] = targetTally{} // gone: nothing matches
					continue
				}
				return nil, err
			}
			jc.Ref = &jsRef{Doc: e.frame.doc, WID: e.wid, FP: e.fp}
			fw = frameWorld{sess: e.frame.sess, frameID: e.frame.frameID}
			add(fw, jc)
			continue
		}
		if tg.Frame != "" {
			cw, err := w.frameWorld(ctx, tg.Frame)
			if err != nil {
				if fatal(err) {
					return nil, err
				}
				tallies[c.i] = targetTally{frame: "frame " + tg.Frame + ": " + errMessage(err)}
				continue
			}
			fw = cw
		}
		if tg.Within != "" {
			if IsRef(tg.Within) {
				e, err := w.t.refs.lookup(tg.Within)
				if err != nil {
					if fatal(err) {
						return nil, err
					}
					tallies[c.i] = targetTally{why: "within " + errMessage(err)}
					continue
				}
				jc.WithinRef, jc.WithinName = &jsRef{Doc: e.frame.doc, WID: e.wid, FP: e.fp}, tg.Within
				fw = frameWorld{sess: e.frame.sess, frameID: e.frame.frameID}
			} else {
				jc.Within = tg.Within
			}
		}
		if c.every {
			every = append(every, jc)
			continue
		}
		if worldKeyOf(fw) == worldKeyOf(main) {
			mainOnly = append(mainOnly, jc)
			continue
		}
		add(fw, jc)
	}
	tally := func(ans *jsAnswer) {
		for _, r := range ans.R {
			tl := tallies[r.I]
			tl.a += r.A
			tl.s += r.S
			tl.e += r.E
			if tl.why == "" {
				tl.why = r.Why
			}
			for _, n := range r.Near {
				if len(tl.near) < 3 {
					tl.near = append(tl.near, n)
				}
			}
			tallies[r.I] = tl
		}
	}
	// The main frame: its own conditions and those of every frame, with
	// the list of its iframes when some condition looks in every frame.
	ans, err := w.evalWait(ctx, main, append(mainOnly, every...), len(every) > 0, diag)
	if err != nil {
		return nil, err
	}
	// (masked before url and title patterns see them)
	w.url, w.title, w.located = maskWith(w.t.mask(), ans.URL), maskWith(w.t.mask(), ans.Title), true
	tally(ans)
	if len(every) > 0 {
		w.visitFrames(ctx, main, ans.Frames, every, diag, 1, tally)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	for _, k := range order {
		g := groups[k]
		ans, err := w.evalWait(ctx, g.w, g.conds, false, diag)
		if err != nil {
			if _, agent := AsError(err); agent || ctx.Err() != nil {
				return nil, err
			}
			// The frame went (navigated, detached): its targets are gone.
			for _, jc := range g.conds {
				if jc.Ref != nil || jc.WithinRef != nil {
					continue
				}
				tl := tallies[jc.I]
				tl.frame = "its frame could not be read: " + err.Error()
				tallies[jc.I] = tl
			}
			for spec, fw := range w.frames {
				if worldKeyOf(fw) == k {
					delete(w.frames, spec)
				}
			}
			continue
		}
		tally(ans)
	}
	return tallies, nil
}

// visitFrames runs the every-frame conditions in the child frames (iframe
// numbers ids of parent), as deep as snapshots inline them.
func (w *waiter) visitFrames(ctx context.Context, parent frameWorld, ids []int, conds []jsCond, diag bool, depth int, tally func(*jsAnswer)) {
	if depth > maxFrameDepth {
		return
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		key := fmt.Sprintf("%s#%d", parent.frameID, id)
		cw, ok := w.kids[key]
		if !ok {
			var err error
			cw, err = w.t.finder().frameOf(ctx, parent, id)
			if err != nil || cw.frameID == "" {
				continue
			}
			if s := w.t.page.kids.get(cw.frameID); s != nil {
				cw.sess = s
			}
			w.kids[key] = cw
		}
		ans, err := w.evalWait(ctx, cw, conds, true, diag)
		if err != nil {
			// Not readable now (loading, just attached out of process):
			// found again on the next check.
			delete(w.kids, key)
			continue
		}
		tally(ans)
		w.visitFrames(ctx, cw, ans.Frames, conds, diag, depth+1, tally)
	}
}

// frameWorld is the world of the iframe a frame spec names, kept while it
// answers.
func (w *waiter) frameWorld(ctx context.Context, spec string) (frameWorld, error) {
	if fw, ok := w.frames[spec]; ok {
		return fw, nil
	}
	fw, _, err := w.t.finder().targetWorld(ctx, spec)
	if err != nil {
		return frameWorld{}, err
	}
	if s := w.t.page.kids.get(fw.frameID); s != nil {
		fw.sess = s
	}
	w.frames[spec] = fw
	return fw, nil
}

// fatal says a target's error will not go away by waiting.
func fatal(err error) bool {
	we, ok := AsError(err)
	if !ok {
		return false
	}
	return we.Code == CodeInvalidArgument || we.Code == CodeAmbiguousTarget
}

func errMessage(err error) string {
	if we, ok := AsError(err); ok {
		return we.Message
	}
	return err.Error()
}

// evalWait runs wait.js with conds in world fw.
func (w *waiter) evalWait(ctx context.Context, fw frameWorld, conds []jsCond, frames, diag bool) (*jsAnswer, error) {
	if conds == nil {
		conds = []jsCond{}
	}
	var pats []string
	for _, c := range conds {
		pats = append(pats, c.Text, c.Name)
	}
	opts, _ := json.Marshal(map[string]any{"ms": patternBudget.Milliseconds(), "frames": frames, "diag": diag})
	cj, _ := json.Marshal(conds)
	call := "(" + waitJS + ")(W, " + string(cj) + ", " + string(opts) + ")"
	var ans jsAnswer
	err := fw.evalPatterns(ctx, false, pats, func(ctx context.Context) error {
		_, err := fw.eval(ctx, call, &ans)
		return err
	})
	if err != nil {
		if _, agent := AsError(err); agent {
			return nil, err
		}
		return nil, fmt.Errorf("check the page: %w", err)
	}
	if ans.Busy != "" {
		return nil, patternError(ans.Busy)
	}
	if ans.Bad != "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: ans.Bad, Hint: "use CSS syntax such as #id, .class, button[name=go]; or a ref from browser_snapshot"}
	}
	return &ans, nil
}

// timeout is the TIMEOUT error of a wait whose conditions did not hold in
// time, with a diagnosis: the page's url, title and a short snapshot, and
// for each condition what was seen and what to try.
func (w *waiter) timeout(ctx context.Context, o WaitOptions) error {
	dctx, cancel := beyondContext(withCallDeadline(ctx), 3*time.Second)
	defer cancel()
	states, err := w.check(dctx, true)
	var conds []any
	for i, c := range w.conds {
		entry := map[string]any{"condition": i, "what": c.Describe()}
		if !o.All {
			entry["tier"] = c.Tier
		}
		switch {
		case err != nil:
			entry["seen"] = "the page could not be checked: " + errMessage(err)
		case states[i].ok:
			entry["seen"] = "holds now"
		default:
			entry["seen"] = states[i].seen
			entry["try"] = states[i].try
		}
		conds = append(conds, entry)
	}
	diag := map[string]any{"conditions": conds, "elapsed_ms": time.Since(w.start).Milliseconds(), "mode": map[bool]string{false: "any", true: "all"}[o.All]}
	if u, title, lerr := w.t.location(dctx); lerr == nil {
		diag["url"], diag["title"] = u, title
	} else if w.located {
		diag["url"], diag["title"] = w.url, w.title
	}
	if snap := w.t.view.diagSnapshot(dctx); snap != "" {
		diag["snapshot"] = snap
	}
	held := 0
	for _, st := range states {
		if st.ok {
			held++
		}
	}
	msg := fmt.Sprintf("none of the %d conditions held within %d ms", len(w.conds), o.Timeout.Milliseconds())
	if len(w.conds) == 1 {
		msg = fmt.Sprintf("the condition (%s) did not hold within %d ms", w.conds[0].Describe(), o.Timeout.Milliseconds())
	}
	if o.All {
		msg = fmt.Sprintf("%d of the %d conditions held within %d ms, not all", held, len(w.conds), o.Timeout.Milliseconds())
	}
	return &Error{Code: CodeTimeout, Message: msg,
		Hint:      "diagnosis.conditions says what was seen and what to try for each; compare with diagnosis.snapshot, fix the condition or do the step the page waits for, or raise timeout_ms",
		Diagnosis: diag}
}

// diagSnapshot is a compact snapshot of the page cut to diagSnapshotChars,
// for a diagnosis; it does not move the diff baseline.
func (v *pageView) diagSnapshot(ctx context.Context) string {
	pt, err := v.collect(ctx, Locator{}, true)
	if err != nil {
		return ""
	}
	base, _ := parseURL(pt.url)
	r := &snapshot.Renderer{Base: base, Mode: ModeCompact}
	body := strings.Join(r.Lines(pt.items), "\n")
	head := fmt.Sprintf("# %s — %s\n", orUntitled(pt.title), pt.url)
	text := head + body
	if len(text) <= diagSnapshotChars {
		return text
	}
	cut := text[:diagSnapshotChars]
	if i := strings.LastIndexByte(cut, '\n'); i > len(head) {
		cut = cut[:i]
	}
	return cut + fmt.Sprintf("\n… (cut at %d of %d chars: browser_snapshot shows the rest)", len(cut), len(text))
}

// maskWith is s masked by mask (nil: s).
func maskWith(mask func(string) string, s string) string {
	if mask == nil {
		return s
	}
	return mask(s)
}
