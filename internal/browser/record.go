package browser

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// recordJS is the recorder that runs in webpilot's world of each document
// of a recorded tab.
//
//go:embed record.js
var recordJS string

// Recording bounds.
const (
	// RecordDefaultTimeout ends a recording nobody stopped.
	RecordDefaultTimeout = 10 * time.Minute
	// RecordMaxTimeout is the longest a recording may run.
	RecordMaxTimeout = 30 * time.Minute
	// RecordMaxSteps bounds the steps one recording keeps; past it the
	// recording ends (by "limit").
	RecordMaxSteps = 300
	// askedFor is how long the page's request for a navigation stands:
	// its commit normally follows within it.
	askedFor = 10 * time.Second
	// recordMarkWait bounds the wait for what a page had pending (a field
	// being typed in) when the recording stops.
	recordMarkWait = 2 * time.Second
)

// recordBinding is the binding through which the recorder tells its steps
// (in webpilot's world only: the page cannot call it).
var recordBinding = "__webpilot_rec_" + rand.Text()[:10]

// RecordOptions describe a recording: the person at the browser shows a
// task, and what they do becomes steps.
type RecordOptions struct {
	// Name is what is being recorded (the recipe's name), shown to the user.
	Name string
	// Message tells the user what to show; at most HandoffMessageMax.
	Message string
	// Secret are the labels (accessible names) or CSS selectors of fields
	// whose values are secrets besides password fields: their values never
	// leave the page.
	Secret []string
	// Timeout ends the recording (0: RecordDefaultTimeout).
	Timeout time.Duration
}

// RecordedStep is one thing the user did.
type RecordedStep struct {
	// Kind is navigate, click, dblclick, fill, select, check, uncheck,
	// press, upload, scroll, wait or tab (a new tab the page opened, which
	// the recording followed).
	Kind string
	// Element is the element the step acted on, as recipes keep it; nil
	// for navigate, scroll, wait, tab and a key pressed on the page.
	Element *Candidates
	// Value is the text typed (fill); never set for a secret field.
	Value string
	// Secret says the field's value is a secret: it was not read.
	Secret    bool
	Values    []string // select: the options' labels
	Key       string   // press
	Files     []string // upload: the file names the user chose
	URL       string   // navigate, tab
	Direction string   // scroll
	Text      string   // wait: the text that appeared
	At        time.Time
	// Tab is the short id of the tab the step happened in, and Page the
	// address of its page then: a step in another tab than the one
	// before is preceded by a "tab" step that selects it (tidySteps).
	Tab, Page string
}

// RecordStatus is where a recording stands.
type RecordStatus struct {
	Name    string
	Tab     string // the short id of the tab it started in
	Started time.Time
	Steps   int
	// EndedBy is "" while it runs, else "user" (Stop pressed), "agent",
	// "timeout", "tab closed" or "limit".
	EndedBy string
	// Headless says no person could see the recording (a headless launch
	// allowed by Options.RecordHeadless).
	Notice string
}

// Recorded is a recording that ended: its steps and notes.
type Recorded struct {
	RecordStatus
	Steps []RecordedStep
	// Notes tell what was not recorded (frames, a new tab that could not
	// be followed).
	Notes []string
}

// recording is a session's recording. It follows each recorded tab
// through the tab's recorder feature (recHook), on the tab's loop; its
// fields below mu are written there and read by the calls.
type recording struct {
	s       *Session
	opts    RecordOptions
	started time.Time
	tab     string // short id
	notice  string
	// run ends when the recording stops following its tabs (stop); the
	// workers that adopt a new tab (followPopup) end with it, and wg
	// counts them.
	run   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup
	timer *time.Timer   // ends it at its timeout
	ended chan struct{} // closed when it ends
	// finished is closed once the pages' pending steps are in and the
	// recorder is taken out of the pages.
	finished chan struct{}
	endOnce  sync.Once
	noticeBe backend.RecordingNotice // nil: the page shows a banner
	// id tells this recording's steps from those of a recorder an older
	// recording left in a page (one kept in the back/forward cache).
	id string

	mu      sync.Mutex
	steps   []RecordedStep
	notes   []string
	endedBy string
	tabs    []*recTab
	marks   map[string]chan struct{}
	stopped bool // stop was called: no worker is added to wg
}

// recTab is a tab the recording follows.
type recTab struct {
	r      *recording
	t      *Tab
	id     string // its short id
	first  bool   // the tab the recording started in: closing it ends the recording
	acted  bool   // a step of the user's came from it (read by the tab's loop only)
	script string // the new-document script's identifier
	// mainID is the main frame's id (guarded by the recording's mu: the
	// tab's loop follows it, cleanup reads it).
	mainID string
	asked  time.Time // when the page last asked for the main frame's navigation, since it last committed (the loop's)
}

// evBindingCalled is the event through which the page's recorder tells
// its steps.
const evBindingCalled = "Runtime.bindingCalled"

// recHook is a tab's recorder feature: while the session's recording
// follows the tab, the tab's loop hands it the events it needs.
type recHook struct {
	mu sync.Mutex
	rt *recTab // nil while the tab is not recorded
}

func (k *recHook) events() []string {
	return []string{evBindingCalled, navCommitted, navRequested, evWindowOpen}
}

func (k *recHook) apply(g *loop, ev cdp.Event) {
	if rt := k.get(); rt != nil {
		rt.r.apply(g, rt, ev)
	}
}

// loopEnded is a recorded tab closing.
func (k *recHook) loopEnded(g *loop) {
	if rt := k.get(); rt != nil {
		rt.r.tabGone(g, rt)
	}
}

func (k *recHook) get() *recTab {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.rt
}

// set makes the tab followed by rt, or (nil) by none; old, when not nil,
// is let go only if it is the one following.
func (k *recHook) set(rt, old *recTab) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old == nil || k.rt == old {
		k.rt = rt
	}
}

// Recorder is the held session's recording of what the user does
// (recipe_record).
type Recorder struct{ h *Held }

// Start starts recording what the user does in the held tab: the tab
// comes to the front, the user is shown that it is recording (the
// extension's badge, popup and notification, each with Stop; without the
// extension a banner in the page, which is not recorded), and every
// trusted click, typed text, choice, key and navigation becomes a step
// until Stop, the user's Stop, or the timeout. A headless launched browser
// refuses: nobody could show anything.
func (rc Recorder) Start(ctx context.Context, o RecordOptions) (*RecordStatus, error) {
	s, t := rc.h.s, rc.h.t
	if r := s.rec; r != nil {
		st := r.status()
		if st.EndedBy == "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("recording %q is already running in tab %s", Echo(st.Name), st.Tab),
				Hint: `stop it first: recipe_record {"action": "stop"}`}
		}
		r.discard(ctx)
		s.rec = nil
	}
	s.recorded = nil
	o.Message = strings.TrimSpace(o.Message)
	if n := len([]rune(o.Message)); n > HandoffMessageMax {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("message has %d characters: at most %d", n, HandoffMessageMax), Hint: "one short sentence the user reads"}
	}
	if o.Timeout <= 0 {
		o.Timeout = RecordDefaultTimeout
	}
	if o.Timeout > RecordMaxTimeout {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("timeout_ms %d: at most %d", o.Timeout.Milliseconds(), RecordMaxTimeout.Milliseconds()),
			Hint: "a recording runs at most 30 minutes"}
	}
	info := s.be.Info()
	nb, _ := s.be.(backend.RecordingNotice)
	if nb == nil && info.Headless && !s.m.opts.RecordHeadless {
		return nil, &Error{Code: CodeInvalidArgument, Message: "the browser is headless: nobody can show anything in it, and nobody would see that it records",
			Hint: "record in a browser the user sees: your own Chrome through the extension (webpilot pair), or webpilot started with --headed"}
	}
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	r := &recording{s: s, opts: o, started: time.Now(), tab: s.tabs.ids.shortOf(t.target), run: run, stop: stop, noticeBe: nb, id: rand.Text()[:12],
		ended: make(chan struct{}), finished: make(chan struct{}), marks: map[string]chan struct{}{}}
	if nb != nil {
		r.notice = "the extension shows it (badge, popup, notification) with Stop"
	} else {
		r.notice = "a banner in the page shows it, with Stop"
		if info.Headless {
			r.notice = "the browser is headless: nobody sees the banner (allowed for tests only)"
		}
	}
	u, err := t.URL(ctx)
	if err != nil {
		stop()
		return nil, backendError("read the tab's address", err)
	}
	r.steps = append(r.steps, RecordedStep{Kind: "navigate", URL: u, At: r.started, Tab: r.tab, Page: u})
	if err := r.follow(ctx, t, nb == nil); err != nil {
		stop()
		return nil, err
	}
	// What ends the recording on its own is waited for by workers of the
	// first tab's loop (with the tab's label); a tab that closes ends the
	// recording anyway.
	g := t.page
	if nb != nil {
		done, err := nb.StartRecordingNotice(ctx, t.target, recordNoticeText(o))
		if err != nil {
			r.discard(ctx)
			return nil, backendError("show the recording", err)
		}
		g.spawn(func(ctx context.Context) {
			select {
			case <-done:
				r.endAndFinish("user")
			case <-run.Done():
			case <-ctx.Done():
			}
		})
	} else {
		if err := s.be.Activate(ctx, t.target); err != nil {
			t.log.Debug("record: activate", "err", err)
		}
		_ = t.page.Call(ctx, "Page.bringToFront", nil, nil)
	}
	r.mu.Lock()
	r.timer = time.AfterFunc(o.Timeout, func() { r.endLater(g, "timeout") })
	r.mu.Unlock()
	// Whatever the user does, the snapshot cache and diff baseline are of
	// the page before.
	t.view.cache, t.view.lastSnap = nil, nil
	s.rec = r
	st := r.status()
	return &st, nil
}

// recordNoticeText is what the user's browser shows while it records.
func recordNoticeText(o RecordOptions) string {
	if o.Message != "" {
		return o.Message
	}
	if o.Name != "" {
		return "Recording " + o.Name + ": do the task, then press Stop"
	}
	return "Do the task, then press Stop"
}

// Status is the session's recording, or nil when there is none.
func (rc Recorder) Status() *RecordStatus {
	if rc.h.s.rec == nil {
		return nil
	}
	st := rc.h.s.rec.status()
	return &st
}

// Stop ends the session's recording (if the user, the timeout or the tab
// did not end it already) and returns what was recorded; the session then
// has no recording.
func (rc Recorder) Stop(ctx context.Context) (*Recorded, error) {
	s := rc.h.s
	r := s.rec
	if r == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("session %q is not recording", s.shownToAgent()),
			Hint: `start one: recipe_record {"action": "start", "name": "…"}`}
	}
	if r.end("agent") {
		r.cleanup(ctx)
	}
	select {
	case <-r.finished:
	case <-ctx.Done():
		return nil, backendError("stop the recording", ctx.Err())
	}
	s.rec = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &Recorded{RecordStatus: r.statusLocked(), Steps: tidySteps(r.steps), Notes: r.notes}
	s.recorded = out
	return out, nil
}

// Last is the session's last recording that was stopped, kept until
// another starts (recipe_record save), or nil.
func (rc Recorder) Last() *Recorded { return rc.h.s.recorded }

// status is the recording's state now.
func (r *recording) status() RecordStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.statusLocked()
}

func (r *recording) statusLocked() RecordStatus {
	return RecordStatus{Name: r.opts.Name, Tab: r.tab, Started: r.started, Steps: len(r.steps), EndedBy: r.endedBy, Notice: r.notice}
}

// end marks the recording ended by who; it reports whether this call
// ended it (the caller then cleans up).
func (r *recording) end(by string) bool {
	ended := false
	r.endOnce.Do(func() {
		r.mu.Lock()
		r.endedBy = by
		r.mu.Unlock()
		close(r.ended)
		ended = true
	})
	return ended
}

// endAndFinish ends the recording from a worker (the user's Stop, the
// timeout, the tab gone, the step limit): the pages are flushed and let go
// at once, so that nothing the user does later is taken.
func (r *recording) endAndFinish(by string) {
	if !r.end(by) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.cleanup(ctx)
}

// endLater ends the recording (endAndFinish) on a worker of g's loop: the
// loop itself must go on taking the pages' events, which the flush waits
// for. A loop that has ended spawns nothing: the recording it followed
// ended with it.
func (r *recording) endLater(g *loop, by string) {
	g.spawn(func(context.Context) { r.endAndFinish(by) })
}

// discard lets go of a recording that ended and was never collected.
func (r *recording) discard(ctx context.Context) {
	if r.end("agent") {
		r.cleanup(ctx)
		return
	}
	// Ended by a worker: its cleanup must be done before anything
	// new goes into the page (or the notice of the tab).
	select {
	case <-r.finished:
	case <-ctx.Done():
	}
}

// cleanup takes what each page had pending (a field still being typed
// in), then stops following the tabs, takes the recorder out of the pages
// and the notice away. Called once, by whoever ended it.
func (r *recording) cleanup(ctx context.Context) {
	defer close(r.finished)
	r.mu.Lock()
	tabs := append([]*recTab(nil), r.tabs...)
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	for _, rt := range tabs {
		r.flush(ctx, rt)
	}
	// The tabs' loops stop handing events over, and no new tab is
	// adopted; one being adopted now is let go once its worker is done.
	r.mu.Lock()
	r.stopped = true
	tabs = append(tabs[:0], r.tabs...)
	r.mu.Unlock()
	for _, rt := range tabs {
		rt.t.rec.set(nil, rt)
	}
	r.stop()
	r.wg.Wait()
	// Every tab followed, a new tab adopted meanwhile too.
	r.mu.Lock()
	tabs = append(tabs[:0], r.tabs...)
	r.mu.Unlock()
	for _, rt := range tabs {
		rt.t.rec.set(nil, rt)
	}
	for _, rt := range tabs {
		t := rt.t
		select {
		case <-t.page.Done():
			continue
		default:
		}
		if rt.script != "" {
			if err := t.page.Call(ctx, "Page.removeScriptToEvaluateOnNewDocument", map[string]any{"identifier": rt.script}, nil); err != nil {
				t.log.Debug("record: remove the script", "err", err)
			}
		}
		// Without the binding, a recorder left anywhere (a page in the
		// back/forward cache) tells nobody anything.
		if err := t.page.Call(ctx, "Runtime.removeBinding", map[string]any{"name": recordBinding}, nil); err != nil {
			t.log.Debug("record: remove the binding", "err", err)
		}
		w := frameWorld{sess: t.page, frameID: r.mainOf(rt)}
		var v any
		if _, err := w.eval(ctx, "(globalThis.__webpilotRecorder ? (globalThis.__webpilotRecorder.end(), 1) : 0)", &v); err != nil {
			t.log.Debug("record: end the page's recorder", "err", err)
		}
	}
	if r.noticeBe != nil && len(tabs) > 0 {
		if err := r.noticeBe.EndRecordingNotice(ctx, tabs[0].t.target); err != nil {
			tabs[0].t.log.Debug("record: end the notice", "err", err)
		}
	}
}

// flush asks a page for what it has pending and waits, briefly, until
// its steps are in.
func (r *recording) flush(ctx context.Context, rt *recTab) {
	t := rt.t
	select {
	case <-t.page.Done():
		return
	default:
	}
	mark := rand.Text()[:12]
	got := make(chan struct{})
	r.mu.Lock()
	r.marks[mark] = got
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.marks, mark)
		r.mu.Unlock()
	}()
	w := frameWorld{sess: t.page, frameID: r.mainOf(rt)}
	var v any
	if _, err := w.eval(ctx, fmt.Sprintf("(globalThis.__webpilotRecorder ? globalThis.__webpilotRecorder.flush(%q).then(() => 1) : 0)", mark), &v); err != nil || v != float64(1) {
		return
	}
	wait := time.NewTimer(recordMarkWait)
	defer wait.Stop()
	select {
	case <-got:
	case <-wait.C:
	case <-ctx.Done():
	}
}

// follow puts the recorder into the tab: the binding, the script for
// every new document and the one showing now; the tab's loop hands what
// they tell to the recording (recHook).
func (r *recording) follow(ctx context.Context, t *Tab, banner bool) error {
	opts, _ := json.Marshal(map[string]any{"id": r.id, "secret": r.opts.Secret, "banner": banner, "message": recordNoticeText(r.opts)})
	src := strings.NewReplacer("__OPTS__", string(opts), "__HEAL__", strings.TrimSpace(healJS), "__BINDING__", recordBinding).Replace(recordJS)
	src = strings.TrimSuffix(strings.TrimSpace(src), ";")
	id, err := t.page.mainFrameID(ctx)
	if err != nil {
		return backendError("record the tab", err)
	}
	rt := &recTab{r: r, t: t, id: r.s.tabs.ids.shortOf(t.target), mainID: id}
	r.mu.Lock()
	rt.first = len(r.tabs) == 0
	r.mu.Unlock()
	// Followed before anything can happen, so that no step is missed.
	t.rec.set(rt, nil)
	fail := func(doing string, err error) error {
		t.rec.set(nil, rt)
		return backendError(doing, err)
	}
	if err := t.page.Call(ctx, "Runtime.addBinding", map[string]any{"name": recordBinding, "executionContextName": worldName}, nil); err != nil {
		return fail("record the tab", err)
	}
	var added struct {
		Identifier string `json:"identifier"`
	}
	if err := t.page.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": src + ";", "worldName": worldName}, &added); err != nil {
		return fail("record the tab", err)
	}
	fail = func(doing string, err error) error {
		t.rec.set(nil, rt)
		_ = t.page.Call(ctx, "Page.removeScriptToEvaluateOnNewDocument", map[string]any{"identifier": added.Identifier}, nil)
		return backendError(doing, err)
	}
	rt.script = added.Identifier
	w := frameWorld{sess: t.page, frameID: id}
	var v any
	if _, err := w.eval(ctx, "("+src+", 1)", &v); err != nil {
		return fail("record the tab", err)
	}
	r.mu.Lock()
	r.tabs = append(r.tabs, rt)
	r.mu.Unlock()
	return nil
}

// recEvent is what the recorder script tells through the binding.
type recEvent struct {
	ID        string      `json:"id"`
	K         string      `json:"k"`
	U         string      `json:"u"`
	C         *Candidates `json:"c"`
	Value     *string     `json:"value"`
	Secret    bool        `json:"secret"`
	Values    []string    `json:"values"`
	Key       string      `json:"key"`
	Files     []string    `json:"files"`
	Direction string      `json:"direction"`
	Text      string      `json:"text"`
	Mark      string      `json:"mark"`
}

// tabGone is a recorded tab closing (its loop ending): the one the
// recording started in ends it; another (a popup that closed itself) is
// just no longer followed.
func (r *recording) tabGone(g *loop, rt *recTab) {
	if rt.first {
		r.endLater(g, "tab closed")
	}
}

// apply takes one event of a recorded tab, on the tab's loop: what waits
// goes to a worker.
func (r *recording) apply(g *loop, rt *recTab, ev cdp.Event) {
	switch ev.Method {
	case evBindingCalled:
		var b struct {
			Name    string `json:"name"`
			Payload string `json:"payload"`
		}
		var e recEvent
		if json.Unmarshal(ev.Params, &b) != nil || b.Name != recordBinding || json.Unmarshal([]byte(b.Payload), &e) != nil || e.ID != r.id {
			return
		}
		switch e.K {
		case "mark":
			r.mu.Lock()
			if ch := r.marks[e.Mark]; ch != nil {
				close(ch)
				delete(r.marks, e.Mark)
			}
			r.mu.Unlock()
			return
		case "stop":
			r.endLater(g, "user")
			return
		case "frame":
			r.note(fmt.Sprintf("the user worked inside a frame (%s): what they did there is not recorded; check the steps around it", Echo(shorten(e.Text, 80))))
			return
		case "click", "dblclick", "fill", "select", "check", "uncheck", "press", "upload", "scroll", "wait":
		default:
			return
		}
		st := RecordedStep{Kind: e.K, Element: e.C, Secret: e.Secret, Values: e.Values, Key: e.Key, Files: e.Files, Direction: e.Direction, Text: e.Text, At: time.Now(), Tab: rt.id, Page: e.U}
		rt.acted = true
		if e.Value != nil && !e.Secret {
			st.Value = *e.Value
		}
		if st.Element == nil && (e.K != "press" && e.K != "scroll" && e.K != "wait") {
			r.note(fmt.Sprintf("a %s whose element could not be described was left out", e.K))
			return
		}
		r.add(g, st)
	case navRequested:
		var e struct {
			FrameID string `json:"frameId"`
		}
		if json.Unmarshal(ev.Params, &e) == nil && e.FrameID == r.mainOf(rt) {
			rt.asked = time.Now()
		}
	case navCommitted:
		var e struct {
			Frame struct {
				ID       string `json:"id"`
				ParentID string `json:"parentId"`
				URL      string `json:"url"`
				Fragment string `json:"urlFragment"`
			} `json:"frame"`
		}
		if json.Unmarshal(ev.Params, &e) != nil || e.Frame.ParentID != "" {
			return
		}
		// A request that never committed (a download, a 204) is not held
		// against an address typed much later.
		asked := !rt.asked.IsZero() && time.Since(rt.asked) < askedFor
		rt.asked = time.Time{}
		r.mu.Lock()
		rt.mainID = e.Frame.ID
		r.mu.Unlock()
		if !rt.first && !rt.acted {
			// A tab the page opened loading what it was opened for: the
			// click that opened it is the step.
			return
		}
		if asked {
			// The page asked for it (a link, a form, a script): the step
			// that caused it is recorded, and the next step's wait is
			// enough. Only what the browser itself was told to load (an
			// address typed, a bookmark, back) is a step.
			return
		}
		u := e.Frame.URL + e.Frame.Fragment
		if u == "about:blank" {
			return
		}
		r.add(g, RecordedStep{Kind: "navigate", URL: u, At: time.Now(), Tab: rt.id, Page: u})
	case evWindowOpen:
		var e struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(ev.Params, &e) != nil {
			return
		}
		r.mu.Lock()
		following := !r.stopped
		if following {
			r.wg.Add(1)
		}
		r.mu.Unlock()
		if !following {
			return
		}
		started := g.spawn(func(ctx context.Context) {
			defer r.wg.Done()
			// (it ends with the loop or with the recording)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(r.run, cancel)()
			r.followPopup(ctx)
		})
		if !started {
			r.wg.Done()
		}
	}
}

// followPopup adopts the tab a recorded page opened into the session
// (AdoptPopups, which has the recording follow it: followAdopted), trying
// for a while, since the tab may be listed a moment after the page asked
// for it. A call that adopted it first had it followed the same way.
func (r *recording) followPopup(ctx context.Context) {
	s := r.s
	var lastErr error
	for try := 0; try < 20 && ctx.Err() == nil; try++ {
		var found bool
		err := s.Do(ctx, func(ctx context.Context, h *Held) error {
			adopted, err := s.tabs.AdoptPopups(ctx)
			found = len(adopted) > 0
			return err
		})
		if found || ctx.Err() != nil {
			return
		}
		lastErr = err
		select {
		case <-time.After(150 * time.Millisecond):
		case <-ctx.Done():
			return
		}
	}
	// Nothing new to adopt and no error: the tab closed at once, or a
	// call adopted it first (and the recording follows it).
	if lastErr != nil && ctx.Err() == nil {
		r.note("a new tab the page opened could not be followed (" + Echo(lastErr.Error()) + "): what was done in it is not recorded")
	}
}

// followAdopted records in nt, a tab a recorded page opened that just
// joined the session, and makes it the session's current tab, as the
// recipe's step that selects it will; the session is held. A recording
// that ended follows nothing.
func (r *recording) followAdopted(ctx context.Context, nt *Tab) {
	// (counted in wg, as the follower is: a cleanup under way waits for
	// it and then lets the tab go too)
	r.mu.Lock()
	stopped := r.stopped
	if !stopped {
		r.wg.Add(1)
	}
	r.mu.Unlock()
	if stopped {
		return
	}
	defer r.wg.Done()
	s := r.s
	if err := r.follow(ctx, nt, r.noticeBe == nil); err != nil {
		r.note("a new tab the page opened could not be followed (" + Echo(err.Error()) + "): what was done in it is not recorded")
		return
	}
	s.tabs.setCurrent(nt)
	_ = s.be.Activate(ctx, nt.target)
}

// mainOf is the tab's main frame id.
func (r *recording) mainOf(rt *recTab) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return rt.mainID
}

// add keeps a step (on g's loop); past RecordMaxSteps the recording
// ends.
func (r *recording) add(g *loop, st RecordedStep) {
	r.mu.Lock()
	if len(r.steps) >= RecordMaxSteps {
		r.mu.Unlock()
		r.endLater(g, "limit")
		return
	}
	r.steps = append(r.steps, st)
	r.mu.Unlock()
}

// note keeps a line about what was not recorded.
func (r *recording) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.notes {
		if n == s {
			return
		}
	}
	r.notes = append(r.notes, s)
}

// tidySteps merges what one gesture recorded twice (the clicks of a
// double-click, a field filled twice in a row, a navigation to where the
// page already was) and puts a "tab" step before the first step in
// another tab than the one before.
func tidySteps(in []RecordedStep) []RecordedStep {
	var out []RecordedStep
	cur := ""
	for _, st := range in {
		if st.Tab != "" {
			if cur != "" && st.Tab != cur {
				// The user went on in another tab (one the page opened,
				// or back in the first when it closed).
				out = append(out, RecordedStep{Kind: "tab", URL: st.Page, At: st.At, Tab: st.Tab, Page: st.Page})
			}
			cur = st.Tab
		}
		switch st.Kind {
		case "dblclick":
			for k := 0; k < 2 && len(out) > 0; k++ {
				last := out[len(out)-1]
				if last.Kind != "click" || !sameElement(last.Element, st.Element) || st.At.Sub(last.At) > time.Second {
					break
				}
				out = out[:len(out)-1]
			}
		case "fill":
			if n := len(out); n > 0 && out[n-1].Kind == "fill" && sameElement(out[n-1].Element, st.Element) {
				out = out[:n-1]
			}
		case "navigate":
			if n := len(out); n > 0 && out[n-1].Kind == "navigate" && out[n-1].URL == st.URL {
				continue
			}
		}
		out = append(out, st)
	}
	return out
}

// sameElement says two descriptions are of one element.
func sameElement(a, b *Candidates) bool {
	if a == nil || b == nil {
		return false
	}
	if a.Fingerprint != b.Fingerprint {
		return false
	}
	if len(a.CSS) > 0 && len(b.CSS) > 0 {
		return a.CSS[0] == b.CSS[0]
	}
	return true
}
