package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Snapshot modes.
const (
	ModeCompact     = snapshot.ModeCompact
	ModeFull        = snapshot.ModeFull
	ModeInteractive = "interactive"
	ModeDiff        = "diff"
)

// SnapshotOptions select what a snapshot shows.
type SnapshotOptions struct {
	Mode     string  // compact (default), full, interactive, diff
	MaxChars int     // 0: no cap
	Offset   int     // continue a capped snapshot at this character
	Scope    Locator // when set, only this element's subtree
}

// MaxSnapshotChars is the most a snapshot returns in one page: a larger
// max_chars (or none) is lowered to it, and the header says so.
const MaxSnapshotChars = 100_000

// Snapshot is a rendered view of a page.
type Snapshot struct {
	ID         string `json:"id"`
	URL        string `json:"url"`
	Title      string `json:"title"`
	Refs       int    `json:"refs"`
	Hidden     int    `json:"hidden"`      // hidden or zero-size elements left out
	Frames     int    `json:"frames"`      // child frames inlined
	TotalChars int    `json:"total_chars"` // size of the whole body before paging
	Text       string `json:"-"`           // header + (the requested page of) the body
	NextOffset int    `json:"next_offset,omitempty"`
	// Stopped is set when the walk ran out of its time budget: the number
	// of elements it read; the snapshot shows only those.
	Stopped int `json:"stopped,omitempty"`
	// Clamped is the max_chars asked for when it was above MaxSnapshotChars.
	Clamped int `json:"clamped,omitempty"`
	// Look is, for a first look at a big page that left parts unread,
	// how many elements it read and how many the page has.
	Look [2]int `json:"-"`
	// Human is what on the page waits for a person (a CAPTCHA, a one-time
	// code, a sign-in form): the tools say so, or fail with HUMAN_REQUIRED
	// where nobody can see the page.
	Human []HumanSign `json:"human,omitempty"`
	// diff is set when Text is the changes since the last snapshot (not a
	// whole page): its header says only what changed.
	diff *diffHead
}

// diffHead is what a diff's header says besides its id: the title, when
// it changed, and the URL as shown when it changed (relative to the last
// one on the same origin).
type diffHead struct {
	title bool
	url   string
}

// Snapshot renders the tab's page.
func (h *Held) Snapshot(ctx context.Context, o SnapshotOptions) (*Snapshot, error) {
	s, t := h.s, h.t
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	if o.Mode == "" {
		o.Mode = ModeCompact
	}
	clamped := 0
	if o.MaxChars > MaxSnapshotChars {
		clamped = o.MaxChars
	}
	if o.MaxChars <= 0 || o.MaxChars > MaxSnapshotChars {
		o.MaxChars = MaxSnapshotChars
	}
	switch o.Mode {
	case ModeCompact, ModeFull, ModeInteractive, ModeDiff:
	default:
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown snapshot mode %q", o.Mode), Hint: "use compact, full, interactive or diff"}
	}
	// Later pages of a cut snapshot come from the same render, so that the
	// parts join up (and a diff is not taken against itself).
	if c := t.view.cache; o.Offset > 0 && c != nil && c.mode == o.Mode && c.scope == o.Scope {
		snap := c.snap
		snap.Clamped = clamped
		snap.Text = reader{s}.page(&snap, c.body, o)
		return &snap, nil
	}
	defer t.releaseObjects(ctx)
	ictx, cancel := innerContext(ctx)
	defer cancel()
	body, snap, err := reader{s}.render(ictx, t, o)
	if err != nil {
		return nil, err
	}
	t.view.cache = &snapCache{mode: o.Mode, scope: o.Scope, body: body, snap: *snap}
	snap.Clamped = clamped
	snap.Text = reader{s}.page(snap, body, o)
	return snap, nil
}

// render builds the snapshot body of the tab in the mode, and keeps the
// compact rendering of the whole page as the baseline of the next diff.
func (rd reader) render(ctx context.Context, t *Tab, o SnapshotOptions) (string, *Snapshot, error) {
	s := rd.s
	pt, err := t.view.collect(ctx, o.Scope, o.Mode != ModeFull)
	if err != nil {
		return "", nil, err
	}
	snap := &Snapshot{ID: s.nextSnapshotID(), URL: pt.url, Title: pt.title, Refs: pt.refs, Hidden: pt.hidden, Frames: pt.frames, Stopped: pt.stopped, Human: pt.human}
	base, _ := url.Parse(pt.url)
	var pre []string
	if pt.stopped > 0 {
		pre = append(pre, stoppedNote(pt.stopped))
	}
	if pt.modal {
		pre = append(pre, fmt.Sprintf("(a modal dialog is open: only it is shown; %d elements behind it are inert)", pt.inert))
	}
	// The baseline of the next diff leaves focus out: focus moving alone
	// is not a change. The compact snapshot shows it; it is rendered again
	// only when the page has a focused field.
	cr := &snapshot.Renderer{Base: base, Mode: ModeCompact, KeepURLs: s.pol.opts.NoRedact, NoFocus: true}
	baseline := append(append([]string{}, pre...), cr.Lines(pt.items)...)
	compact := baseline
	if cr.Focused > 0 && o.Mode == ModeCompact {
		fr := &snapshot.Renderer{Base: base, Mode: ModeCompact, KeepURLs: s.pol.opts.NoRedact}
		compact = append(append([]string{}, pre...), fr.Lines(pt.items)...)
	}
	if o.Scope.Empty() {
		prev, prevDoc, prevHead, prevLook := t.view.lastSnap, t.view.lastDoc, t.view.lastHead, t.view.lastLook
		t.view.lastSnap, t.view.lastDoc, t.view.lastHead, t.view.lastLook = baseline, pt.doc, [2]string{pt.title, pt.url}, pt.all > 0
		if o.Mode == ModeDiff {
			if prev != nil && prevDoc != pt.doc {
				// Lines of another document say nothing about this one.
				return "(another page since the last snapshot: full snapshot follows)\n" + strings.Join(baseline, "\n"), snap, nil
			}
			if prev != nil && prevLook != (pt.all > 0) {
				// A first look against the whole page (or the other way
				// round): the rows one of them did not read are no change.
				head := "(the last snapshot read the whole page and this one is a first look, or the other way round: the page follows, not a diff)\n"
				if pt.all > 0 {
					snap.Look = [2]int{pt.read, pt.all}
					head += firstLookNote(pt.read, pt.all) + "\n"
				}
				return head + strings.Join(baseline, "\n"), snap, nil
			}
			body, full := snapshot.Diff(prev, baseline)
			if !full {
				snap.diff = &diffHead{title: prevHead[0] != pt.title}
				if prevHead[1] != pt.url {
					// On the same origin, the path (or the fragment) says it.
					prevURL, _ := url.Parse(prevHead[1])
					snap.diff.url = snapshot.RelativeURL(prevURL, s.ShowURL(pt.url))
				}
			}
			return body, snap, nil
		}
	} else if o.Mode == ModeDiff {
		return "", nil, &Error{Code: CodeInvalidArgument, Message: "mode diff takes no scope", Hint: "diff compares whole pages; use compact or full with scope"}
	}
	var out []string
	if pt.all > 0 {
		// (not in the diff's baseline: it moves with the scroll)
		snap.Look = [2]int{pt.read, pt.all}
		pre = append(pre, firstLookNote(pt.read, pt.all))
		compact = append([]string{firstLookNote(pt.read, pt.all)}, compact...)
	}
	switch o.Mode {
	case ModeCompact:
		out = compact
	case ModeFull:
		fr := &snapshot.Renderer{Base: base, Mode: ModeFull, KeepURLs: s.pol.opts.NoRedact}
		out = append(pre, fr.Lines(pt.items)...)
	case ModeInteractive:
		fr := &snapshot.Renderer{Base: base, Mode: ModeFull, KeepURLs: s.pol.opts.NoRedact}
		out = append(pre, fr.Interactive(pt.items)...)
	}
	return strings.Join(out, "\n"), snap, nil
}

// pageView is the tab's view of its page: it walks the page (and its
// frames) for snapshots, reads, measures and pictures it, and keeps what
// the next call starts from: the last snapshot (the diff's baseline, and
// its rendering for later pages), the walk the last action took while the
// page settled, and the last collection. The session's calls write it
// while the session is held; an action's quiet wait (quietWatch) notes the
// documents too big to walk during the wait.
type pageView struct {
	t        *Tab
	lastSnap []string   // compact lines of the last snapshot: the diff baseline
	lastDoc  string     // the main document (walker token) lastSnap is of
	lastHead [2]string  // the title and URL lastSnap is of
	lastLook bool       // lastSnap is of a first look that left parts unread
	cache    *snapCache // the last rendered snapshot, for offset pages
	// prewalk is the walk the last action took while the page settled,
	// for the snapshot that follows it (collect).
	prewalk *prewalked
	// waitHuman is what waited for a person when this call's action ended
	// its wait (the last check read it), for Person.Needed; nil when no
	// wait of this call read it (tabSet.callEnded clears it).
	waitHuman *[][2]string
	// reused is how many elements (subtrees counted once) the last walk of
	// the main document took over from the walk before.
	reused int
	// noPrewalk is the walker token of a document whose walk did not fit
	// prewalkBudget: actions on it leave the walk to the snapshot.
	noPrewalk string
	// collected is the last browser_collect result, for offset pages.
	collected *collectEntry
}

// snapCache keeps a rendered snapshot so that its later pages come from the
// same render.
type snapCache struct {
	mode  string
	scope Locator
	body  string
	snap  Snapshot
}

// pageTree is the walker output of a page, child frames inlined, refs issued.
type pageTree struct {
	title, url    string
	doc           string // the walker's token of the main document
	hidden, inert int
	modal         bool
	refs, frames  int
	items         []*snapshot.Node
	stopped       int // the walk of the main document stopped after this many elements
	// look: a first look (what is on screen and near it, of long
	// containers); read and all, when it left parts of the main document
	// unread, how many elements it read of how many.
	look      bool
	read, all int
	// human: what on the page and its frames waits for a person.
	human []HumanSign
}

// collect walks the tab's page (or the scope's subtree) and its frames;
// with look, a big page only as far as a first look reads it (the
// walker's opts.look; a scope is read whole).
func (v *pageView) collect(ctx context.Context, scope Locator, look bool) (*pageTree, error) {
	t := v.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	f := (*frameRefs)(nil)
	var sc walkScope
	if !scope.Empty() {
		el, err := t.finder().locate(ctx, scope)
		if err != nil {
			return nil, err
		}
		w, sc.obj = el.world, el.objectID
	}
	pre := v.prewalk
	v.prewalk = nil
	var res *walkResult
	// (a request seen since the walk may have changed what no mutation
	// reports: its event can come after the action's wait ended)
	sc.look = look && scope.Empty()
	// (the walk during an action is a first look)
	if pre != nil && sc.look && pre.frameID == mainID && time.Since(pre.at) < prewalkFresh && t.page.reqs.quietMark() == pre.reqs && (pre.stale == nil || !pre.stale()) {
		res, err = w.walkSince(ctx, pre, walkBudget(ctx))
	} else {
		res, err = w.walk(ctx, sc, walkBudget(ctx))
	}
	if err != nil {
		return nil, walkError(ctx, err)
	}
	v.reused = res.Reused
	if !scope.Empty() && w.frameID != mainID {
		f = t.refs.frames[w.frameID]
	}
	if f == nil {
		f = t.refs.frame(w.frameID, w.frameID == mainID, w.sess, res.Doc)
	}
	pt := &pageTree{title: res.Title, url: res.URL, doc: res.Doc, hidden: res.Hidden, inert: res.Inert, modal: res.Modal, items: res.C, stopped: res.Stopped, look: sc.look}
	if len(res.Look) == 2 {
		pt.read, pt.all = res.Look[0], res.Look[1]
	}
	pt.human = signsOf(res.H)
	v.inline(ctx, w, f, pt.items, 0, pt)
	return pt, nil
}

// inline issues the refs of nodes (of frame f) and walks the frames of
// their iframes into place.
func (v *pageView) inline(ctx context.Context, w frameWorld, f *frameRefs, nodes []*snapshot.Node, depth int, pt *pageTree) {
	t := v.t
	for _, n := range nodes {
		if n.I != 0 {
			n.Ref = t.refs.refFor(f, n.I, n.P)
			pt.refs++
		}
		if n.F != 0 {
			if depth >= maxFrameDepth {
				n.N += " (nested too deep: not shown)"
				continue
			}
			cw, res, err := v.walkFrame(ctx, w, n.F, pt.look)
			if err != nil || res == nil {
				why := "not loaded"
				if err != nil {
					why = "not readable"
					t.log.Debug("walk a frame", "err", err)
				}
				n.N += " (" + why + ")"
				continue
			}
			cf := t.refs.frame(cw.frameID, false, cw.sess, res.Doc)
			cf.parent, cf.owner = f, n.F
			n.C, n.U = res.C, res.URL
			if res.Stopped > 0 {
				n.N += " " + stoppedNote(res.Stopped)
			}
			pt.hidden += res.Hidden
			pt.human = addSigns(pt.human, res.H)
			pt.frames++
			v.inline(ctx, cw, cf, n.C, depth+1, pt)
			continue
		}
		v.inline(ctx, w, f, n.C, depth, pt)
	}
}

// firstLookNote says a snapshot is a first look at a big page.
func firstLookNote(read, all int) string {
	return fmt.Sprintf("(a first look at a big page: %s of its %s elements read, what is on screen and near it; lines \"… not read in this first look\" say what was left; scroll and snapshot again, or use mode=full or a scope)", commas(read), commas(all))
}

// stoppedNote says a walk was cut at its time budget.
func stoppedNote(n int) string {
	return fmt.Sprintf("(walk stopped after %s elements at the time budget: the rest of the page is not shown; use scope or browser_find)", commas(n))
}

// walkError is the error of a walk that failed: TIMEOUT when the call ran
// out of time (the walk was stopped in the page).
func walkError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &Error{Code: CodeTimeout, Message: "reading the page took longer than the call's time; the walk was stopped",
			Hint: "snapshot a part of the page (scope) or look for elements with browser_find; a larger timeout_ms may help", Err: err}
	}
	return backendError("read the page", err)
}

// walkFrame walks the document of the iframe element iframeID of w. An
// out-of-process frame is attached a moment after it starts loading: a
// frame the parent's session cannot reach is waited for briefly.
func (v *pageView) walkFrame(ctx context.Context, w frameWorld, iframeID int, look bool) (frameWorld, *walkResult, error) {
	t := v.t
	cw, err := t.finder().frameOf(ctx, w, iframeID)
	if err != nil || cw.frameID == "" {
		return cw, nil, err
	}
	res, err := cw.walk(ctx, walkScope{look: look}, walkBudget(ctx))
	for i := 0; err != nil && cw.sess == w.sess && i < 20 && ctx.Err() == nil; i++ {
		if s := t.page.kids.get(cw.frameID); s != nil {
			cw.sess = s
			res, err = cw.walk(ctx, walkScope{look: look}, walkBudget(ctx))
			break
		}
		sleep(ctx, 50)
	}
	return cw, res, err
}

// page adds the header and cuts the body to the requested window.
func (rd reader) page(snap *Snapshot, body string, o SnapshotOptions) string {
	s := rd.s
	snap.TotalChars = utf8.RuneCountInString(body)
	part := body
	var tail string
	if o.Offset > 0 || (o.MaxChars > 0 && snap.TotalChars > o.MaxChars) {
		part, snap.NextOffset = text.Window(body, o.Offset, o.MaxChars)
		end := o.Offset + utf8.RuneCountInString(part)
		if snap.NextOffset > 0 {
			tail = fmt.Sprintf("\n… cut at char %s of %s; browser_snapshot with offset=%d continues", commas(end), commas(snap.TotalChars), snap.NextOffset)
		} else if o.Offset >= snap.TotalChars {
			tail = fmt.Sprintf("(offset %s is past the end: the snapshot has %s chars)", commas(o.Offset), commas(snap.TotalChars))
		} else if o.Offset > 0 {
			tail = fmt.Sprintf("\n(end; chars %s–%s of %s)", commas(o.Offset), commas(end), commas(snap.TotalChars))
		}
	}
	var header string
	if d := snap.diff; d != nil {
		// A diff's header says only what changed: the lines and, when they
		// did, the title and the URL.
		header = "# " + snap.ID + " diff"
		if d.title {
			header += " · title " + quote(Echo(snap.Title))
		}
		if d.url != "" {
			header += " · " + Echo(d.url)
		}
	} else {
		title := Echo(snap.Title)
		if title == "" {
			title = "(untitled)"
		}
		hidden := ""
		if snap.Hidden > 0 {
			hidden = fmt.Sprintf("%d hidden · ", snap.Hidden)
		}
		header = fmt.Sprintf("# %s — %s   (%s · %d refs · %s%s chars)", title, Echo(s.ShowURL(snap.URL)), snap.ID, snap.Refs, hidden, commas(snap.TotalChars))
	}
	if snap.Clamped > 0 {
		header += fmt.Sprintf("\n(max_chars %s lowered to %s, the most one snapshot returns; offset continues)", commas(snap.Clamped), commas(MaxSnapshotChars))
	}
	return header + "\n" + part + tail
}

// clean collapses whitespace runs to one space.
func clean(s string) string { return text.Clean(s) }

// quote writes s in double quotes, escaping quotes and backslashes.
func quote(s string) string { return text.Quote(s) }

// shorten cuts s to about n runes, saying how much was left out.
func shorten(s string, n int) string { return text.Clip(s, n) }

// commas formats n with thousands separators.
func commas(n int) string { return text.Commas(n) }
