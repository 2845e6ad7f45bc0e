package browser

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Snapshot modes.
const (
	ModeCompact     = "compact"
	ModeFull        = "full"
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
}

// Snapshot renders the tab's page.
func (h *Held) Snapshot(ctx context.Context, o SnapshotOptions) (*Snapshot, error) {
	s, t := h.s, h.t
	if err := t.DialogError(); err != nil {
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
	if c := t.cache; o.Offset > 0 && c != nil && c.mode == o.Mode && c.scope == o.Scope {
		snap := c.snap
		snap.Clamped = clamped
		snap.Text = s.page(&snap, c.body, o)
		return &snap, nil
	}
	defer t.releaseObjects(ctx)
	ictx, cancel := innerContext(ctx)
	defer cancel()
	body, snap, err := s.render(ictx, t, o)
	if err != nil {
		return nil, err
	}
	t.cache = &snapCache{mode: o.Mode, scope: o.Scope, body: body, snap: *snap}
	snap.Clamped = clamped
	snap.Text = s.page(snap, body, o)
	return snap, nil
}

// render builds the snapshot body of the tab in the mode, and keeps the
// compact rendering of the whole page as the baseline of the next diff.
func (s *Session) render(ctx context.Context, t *Tab, o SnapshotOptions) (string, *Snapshot, error) {
	pt, err := t.collect(ctx, o.Scope)
	if err != nil {
		return "", nil, err
	}
	snap := &Snapshot{ID: s.nextSnapshotID(), URL: pt.url, Title: pt.title, Refs: pt.refs, Hidden: pt.hidden, Frames: pt.frames, Stopped: pt.stopped}
	base, _ := url.Parse(pt.url)
	var pre []string
	if pt.stopped > 0 {
		pre = append(pre, stoppedNote(pt.stopped))
	}
	if pt.modal {
		pre = append(pre, fmt.Sprintf("(a modal dialog is open: only it is shown; %d elements behind it are inert)", pt.inert))
	}
	cr := &renderer{base: base, mode: ModeCompact, keepURLs: s.pol.opts.NoRedact}
	compact := append(append([]string{}, pre...), flatten(cr.nodes(pt.items, 0))...)
	if o.Scope.Empty() {
		prev, prevDoc := t.lastSnap, t.lastDoc
		t.lastSnap, t.lastDoc = compact, pt.doc
		if o.Mode == ModeDiff {
			if prev != nil && prevDoc != pt.doc {
				// Lines of another document say nothing about this one.
				return "(another page since the last snapshot: full snapshot follows)\n" + strings.Join(compact, "\n"), snap, nil
			}
			return diffLines(prev, compact), snap, nil
		}
	} else if o.Mode == ModeDiff {
		return "", nil, &Error{Code: CodeInvalidArgument, Message: "mode diff takes no scope", Hint: "diff compares whole pages; use compact or full with scope"}
	}
	var out []string
	switch o.Mode {
	case ModeCompact:
		out = compact
	case ModeFull:
		fr := &renderer{base: base, mode: ModeFull, keepURLs: s.pol.opts.NoRedact}
		out = append(pre, flatten(fr.nodes(pt.items, 0))...)
	case ModeInteractive:
		fr := &renderer{base: base, mode: ModeFull, keepURLs: s.pol.opts.NoRedact}
		out = append(pre, interactive(fr.nodes(pt.items, 0))...)
	}
	return strings.Join(out, "\n"), snap, nil
}

// pageTree is the walker output of a page, child frames inlined, refs issued.
type pageTree struct {
	title, url    string
	doc           string // the walker's token of the main document
	hidden, inert int
	modal         bool
	refs, frames  int
	items         []*wnode
	stopped       int // the walk of the main document stopped after this many elements
}

// collect walks the tab's page (or the scope's subtree) and its frames.
func (t *Tab) collect(ctx context.Context, scope Locator) (*pageTree, error) {
	mainID, err := t.mainFrameID(ctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	w := frameWorld{sess: t.page, frameID: mainID}
	f := (*frameRefs)(nil)
	var sc walkScope
	if !scope.Empty() {
		el, err := t.locate(ctx, scope)
		if err != nil {
			return nil, err
		}
		w, sc.obj = el.world, el.objectID
	}
	res, err := w.walk(ctx, sc, walkBudget(ctx))
	if err != nil {
		return nil, walkError(ctx, err)
	}
	if !scope.Empty() && w.frameID != mainID {
		f = t.refs.frames[w.frameID]
	}
	if f == nil {
		f = t.refs.frame(w.frameID, w.frameID == mainID, w.sess, res.Doc)
	}
	pt := &pageTree{title: res.Title, url: res.URL, doc: res.Doc, hidden: res.Hidden, inert: res.Inert, modal: res.Modal, items: res.C, stopped: res.Stopped}
	t.inline(ctx, w, f, pt.items, 0, pt)
	return pt, nil
}

// inline issues the refs of nodes (of frame f) and walks the frames of
// their iframes into place.
func (t *Tab) inline(ctx context.Context, w frameWorld, f *frameRefs, nodes []*wnode, depth int, pt *pageTree) {
	for _, n := range nodes {
		if n.I != 0 {
			n.ref = t.refs.refFor(f, n.I, n.P)
			pt.refs++
		}
		if n.F != 0 {
			if depth >= maxFrameDepth {
				n.N += " (nested too deep: not shown)"
				continue
			}
			cw, res, err := t.walkFrame(ctx, w, n.F)
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
			n.C, n.frame, n.U = res.C, cf, res.URL
			if res.Stopped > 0 {
				n.N += " " + stoppedNote(res.Stopped)
			}
			pt.hidden += res.Hidden
			pt.frames++
			t.inline(ctx, cw, cf, n.C, depth+1, pt)
			continue
		}
		t.inline(ctx, w, f, n.C, depth, pt)
	}
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
func (t *Tab) walkFrame(ctx context.Context, w frameWorld, iframeID int) (frameWorld, *walkResult, error) {
	cw, err := t.frameOf(ctx, w, iframeID)
	if err != nil || cw.frameID == "" {
		return cw, nil, err
	}
	res, err := cw.walk(ctx, walkScope{}, walkBudget(ctx))
	for i := 0; err != nil && cw.sess == w.sess && i < 20 && ctx.Err() == nil; i++ {
		if s := t.kids.get(cw.frameID); s != nil {
			cw.sess = s
			res, err = cw.walk(ctx, walkScope{}, walkBudget(ctx))
			break
		}
		sleep(ctx, 50)
	}
	return cw, res, err
}

// renderer turns walker nodes into snapshot lines.
type renderer struct {
	base   *url.URL
	mode   string // full or compact
	chrome int    // inside page chrome (banner, navigation, contentinfo, complementary)
	whole  int    // runes compact mode added by showing texts whole (see prose)
	// keepURLs shows link and frame URLs as they are (--no-redact); else
	// token-like parameters are <redacted>, as in browser_network.
	keepURLs bool
}

// line is one rendered line before indentation.
type line struct {
	depth int
	text  string
	ref   bool // holds a ref
	head  bool // a heading
	plain bool // text of the page (not a container's label)
}

func flatten(ls []line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.Repeat(" ", l.depth) + l.text
	}
	return out
}

// interactive keeps the lines with refs, each heading once before them.
func interactive(ls []line) []string {
	var out []string
	head := ""
	for _, l := range ls {
		switch {
		case l.head:
			head = l.text
		case l.ref:
			if head != "" {
				out = append(out, head)
				head = ""
			}
			out = append(out, l.text)
		}
	}
	return out
}

// chromeRoles are page chrome: compact mode shows each on one line.
var chromeRoles = map[string]bool{"banner": true, "navigation": true, "contentinfo": true, "complementary": true}

// compactText is the length past which compact mode shortens a name or a
// long text.
const compactText = 80

// compactWhole is the longest text (a sentence, a short paragraph: an
// instruction whose last clause matters) compact mode shows whole, while
// the texts so shown add at most wholeBudget runes to the page: the top
// of a page (where a task's instructions stand) whole, the body of a long
// article as short as before (browser_read gives all of it).
const (
	compactWhole = 300
	wholeBudget  = 600
)

// foldMin is the shortest run of similar ref-free siblings compact mode folds.
const foldMin = 6

// foldProse is the shortest text block that counts as prose for folding.
const foldProse = 40

func (r *renderer) nodes(ns []*wnode, depth int) []line {
	return dropLabels(r.siblings(ns, depth))
}

// dropLabels leaves out a text line that only repeats the name of the
// control right after it (the text of its label).
func dropLabels(in []line) []line {
	out := in[:0:0]
	for i, l := range in {
		if !l.ref && !l.head && i+1 < len(in) && in[i+1].ref && in[i+1].depth == l.depth && strings.Contains(in[i+1].text, " "+quote(l.text)) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func (r *renderer) siblings(ns []*wnode, depth int) []line {
	var out []line
	if r.mode != ModeCompact || len(ns) < foldMin {
		for _, n := range ns {
			out = append(out, r.node(n, depth)...)
		}
		return out
	}
	// Compact: runs of similar siblings without refs keep their first three.
	groups := make([][]line, len(ns))
	for i, n := range ns {
		groups[i] = r.node(n, depth)
	}
	for i := 0; i < len(ns); {
		j := i
		key := foldKey(ns[i], groups[i])
		if key != "" {
			for j+1 < len(ns) && foldKey(ns[j+1], groups[j+1]) == key {
				j++
			}
		}
		if key != "" && j-i+1 >= foldMin {
			for k := i; k < i+3; k++ {
				out = append(out, groups[k]...)
			}
			var fold string
			switch ns[i].R {
			case "":
				chars := 0
				for k := i + 3; k <= j; k++ {
					chars += utf8.RuneCountInString(*ns[k].T)
				}
				fold = fmt.Sprintf("… %d more paragraphs, %s chars (mode=full shows them)", j-i-2, commas(chars))
			case "row":
				fold = fmt.Sprintf("… %d more rows like these (mode=full shows them)", j-i-2)
			default:
				fold = fmt.Sprintf("… %d more %ss like these (mode=full shows them)", j-i-2, ns[i].R)
			}
			out = append(out, line{depth: groups[i][0].depth, text: fold})
			i = j + 1
			continue
		}
		for k := i; k <= j; k++ {
			out = append(out, groups[k]...)
		}
		i = j + 1
	}
	return out
}

// foldKey is the shape of a sibling for folding: "" when it must not fold.
// Prose (text blocks of at least foldProse runes) folds too.
func foldKey(n *wnode, ls []line) string {
	if n.T != nil && len(ls) == 1 && utf8.RuneCountInString(*n.T) >= foldProse {
		return "text"
	}
	if n.T != nil || n.R == "" || n.R == "heading" || len(ls) == 0 {
		return ""
	}
	for _, l := range ls {
		if l.ref {
			return ""
		}
	}
	return n.R + "/" + strconv.Itoa(len(ls))
}

func (r *renderer) text(s string) string {
	if r.mode == ModeCompact {
		s = shorten(s, compactText)
	}
	return markPageLine(s)
}

// prose renders a run of text: in compact mode whole up to compactWhole
// runes while the budget lasts.
func (r *renderer) prose(s string) string {
	if n := utf8.RuneCountInString(s); r.mode == ModeCompact && n > compactText && n <= compactWhole {
		if extra := n - compactText; r.whole+extra <= wholeBudget {
			r.whole += extra
			return markPageLine(s)
		}
	}
	return r.text(s)
}

func (r *renderer) node(n *wnode, depth int) []line {
	if n.T != nil {
		return []line{{depth: depth, text: r.prose(*n.T), plain: true}}
	}
	switch {
	case n.R == "heading":
		prefix := strings.Repeat("#", max(1, min(n.L, 6))) + " "
		if len(n.C) > 0 {
			// A heading holding a link (or other control) reads as one line.
			parts := r.inlineParts(n.C)
			return []line{{depth: depth, text: prefix + strings.Join(parts, " "), head: true, ref: hasRef(n.C)}}
		}
		return []line{{depth: depth, text: prefix + r.text(n.N), head: true}}
	case n.R == "iframe":
		label := "iframe"
		if n.N != "" {
			label += " " + quote(n.N)
		}
		if n.U != "" {
			label += " → " + r.relative(n.U)
		}
		if len(n.C) == 0 {
			return []line{{depth: depth, text: label}}
		}
		return append([]line{{depth: depth, text: label + ":"}}, r.nodes(n.C, depth+1)...)
	case n.ref != "":
		l := line{depth: depth, text: r.control(n), ref: true}
		if len(n.C) == 0 {
			return []line{l}
		}
		kids := r.nodes(n.C, depth+1)
		if len(kids) == 1 && !kids[0].ref && !kids[0].head && kids[0].depth == depth+1 {
			// One line of text: on the control's line.
			l.text += ": " + kids[0].text
			return []line{l}
		}
		l.text += ":"
		return append([]line{l}, kids...)
	case n.R == "table" || n.R == "grid" || n.R == "treegrid":
		return r.table(n, depth)
	case n.R == "list":
		return r.nodes(n.C, depth)
	case n.R == "listitem":
		kids := r.nodes(n.C, depth)
		if len(kids) == 0 {
			return nil
		}
		if !kids[0].ref {
			kids[0].text = "- " + kids[0].text
		}
		for i := 1; i < len(kids); i++ {
			if kids[i].depth == depth {
				kids[i].depth = depth + 1
			}
		}
		return kids
	case n.R == "img":
		if n.N == "" || (r.chrome > 0 && r.mode == ModeCompact) {
			return nil
		}
		return []line{{depth: depth, text: "img " + quote(r.text(n.N))}}
	case chromeRoles[n.R] && r.mode == ModeCompact && r.chrome == 0:
		return r.chromeLine(n, depth)
	}
	if n.N == "" && len(n.S) == 0 && (n.R == "group" || n.R == "generic" || n.R == "region" || n.R == "none" || n.R == "document") {
		return r.nodes(n.C, depth)
	}
	label := n.R
	if n.N != "" {
		label += " " + quote(r.text(n.N))
	}
	label += r.valueStates(n)
	if chromeRoles[n.R] {
		r.chrome++
		defer func() { r.chrome-- }()
	}
	kids := r.nodes(n.C, depth+1)
	switch {
	case len(kids) == 0:
		if n.N == "" && len(n.S) == 0 {
			return nil
		}
		return []line{{depth: depth, text: label}}
	case len(kids) == 1 && !kids[0].ref && !kids[0].head && kids[0].depth == depth+1:
		return []line{{depth: depth, text: label + ": " + kids[0].text}}
	}
	return append([]line{{depth: depth, text: label + ":"}}, kids...)
}

// chromeLine renders page chrome on one line: its controls without link
// targets, its headings, and the short texts between them (a counter, a
// status, a caption), in document order; texts are shortened like the rest
// of compact mode, never dropped. Without controls it is its text.
func (r *renderer) chromeLine(n *wnode, depth int) []line {
	r.chrome++
	kids := r.nodes(n.C, 0)
	r.chrome--
	label := n.R
	if n.N != "" {
		label += " " + quote(n.N)
	}
	var parts []string
	refs := false
	for _, k := range kids {
		text := k.text
		switch {
		case k.ref:
			refs = true
			text = strings.TrimSuffix(text, ":")
		case !k.plain && !k.head && strings.HasSuffix(text, ":"):
			// A container's label ("navigation "Footer":") adds nothing here.
			continue
		}
		text = strings.TrimPrefix(text, "- ")
		if !k.ref {
			text = strings.Trim(text, separators)
		}
		if text != "" {
			parts = append(parts, text)
		}
	}
	if !refs {
		full := &renderer{base: r.base, mode: ModeFull, keepURLs: r.keepURLs}
		parts = parts[:0]
		for _, k := range full.nodes(n.C, 0) {
			parts = append(parts, k.text)
		}
		if len(parts) == 0 {
			return nil
		}
		return []line{{depth: depth, text: label + ": " + shorten(strings.Join(parts, " "), 100)}}
	}
	return []line{{depth: depth, text: label + ": " + strings.Join(parts, " · "), ref: true}}
}

// separators are the characters pages put between links ("Home | About"):
// on a chrome line, where " · " separates parts, they say nothing.
const separators = " |·•/»›–—"

// control renders an element with a ref: role ref "name", then its link
// target, value, options and states.
func (r *renderer) control(n *wnode) string {
	var b strings.Builder
	b.WriteString(n.R)
	b.WriteByte(' ')
	b.WriteString(n.ref)
	if n.N != "" {
		b.WriteByte(' ')
		b.WriteString(quote(r.text(n.N)))
	} else if n.H != "" {
		b.WriteString(" (" + markPageLine(n.H) + ")")
	}
	if n.R == "link" && n.U != "" && !(r.chrome > 0 && r.mode == ModeCompact) {
		// A link to "#" (the page itself, no fragment) goes nowhere to speak
		// of: a script handles it.
		if u := r.relative(n.U); u != "" && !(strings.HasSuffix(n.U, "#") && u == r.relative(strings.TrimSuffix(n.U, "#"))) {
			b.WriteString(" → ")
			b.WriteString(u)
		}
	}
	b.WriteString(r.valueStates(n))
	return b.String()
}

func (r *renderer) valueStates(n *wnode) string {
	var b strings.Builder
	if n.V != nil {
		b.WriteString(" = ")
		limit := 200
		if r.mode == ModeCompact {
			limit = 100
		}
		b.WriteString(quote(shorten(clean(*n.V), limit)))
	}
	if len(n.O) > 0 {
		opts := n.O
		more := n.OM
		if keep := 6; r.mode == ModeCompact && len(opts) > keep {
			more += len(opts) - (keep - 1)
			opts = opts[:keep-1]
		}
		b.WriteString(" {" + strings.Join(opts, "|"))
		if more > 0 {
			fmt.Fprintf(&b, "|…+%d", more)
		}
		b.WriteByte('}')
	}
	for _, s := range n.S {
		b.WriteString(" [" + s + "]")
	}
	return b.String()
}

// inlineParts renders nodes as the parts of one line (a table cell, a
// heading's content).
func (r *renderer) inlineParts(ns []*wnode) []string {
	var parts []string
	for _, l := range r.nodes(ns, 0) {
		parts = append(parts, strings.TrimSuffix(l.text, ":"))
	}
	return parts
}

func hasRef(ns []*wnode) bool {
	for _, n := range ns {
		if n.ref != "" || hasRef(n.C) {
			return true
		}
	}
	return false
}

// table renders a table as a header line and one line per row, its cells
// joined by "|".
func (r *renderer) table(n *wnode, depth int) []line {
	var rows []*wnode
	var collect func(ns []*wnode)
	collect = func(ns []*wnode) {
		for _, c := range ns {
			switch c.R {
			case "row":
				rows = append(rows, c)
			case "rowgroup", "":
				collect(c.C)
			}
		}
	}
	collect(n.C)
	cols := 0
	rowNodes := make([]*wnode, 0, len(rows))
	for _, row := range rows {
		cols = max(cols, len(row.C))
		var cells []string
		for _, cell := range row.C {
			cells = append(cells, r.cell(cell))
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		t := strings.Join(cells, "|")
		if row.ref != "" {
			// A row one clicks as a whole (a delegated listener's item).
			t = "row " + row.ref + ": " + t
		}
		rowNodes = append(rowNodes, &wnode{R: "row", T: &t, C: row.C, ref: row.ref})
	}
	label := n.R
	if n.N != "" {
		label += " " + quote(n.N)
	}
	out := []line{{depth: depth, text: fmt.Sprintf("%s %d×%d:", label, len(rows), cols)}}
	rr := &rowRenderer{r}
	out = append(out, rr.rows(rowNodes, depth+1)...)
	return out
}

// rowRenderer folds table rows like other siblings.
type rowRenderer struct{ r *renderer }

func (rr *rowRenderer) rows(rows []*wnode, depth int) []line {
	groups := make([]line, len(rows))
	for i, row := range rows {
		groups[i] = line{depth: depth, text: *row.T, ref: row.ref != "" || hasRef(row.C)}
	}
	if rr.r.mode != ModeCompact || len(rows) < foldMin {
		return groups
	}
	var out []line
	for i := 0; i < len(groups); {
		j := i
		for j+1 < len(groups) && !groups[i].ref && !groups[j+1].ref {
			j++
		}
		if !groups[i].ref && j-i+1 >= foldMin && i > 0 {
			out = append(out, groups[i:i+3]...)
			out = append(out, line{depth: depth, text: fmt.Sprintf("… %d more rows like these (mode=full shows them)", j-i-2)})
			i = j + 1
			continue
		}
		if !groups[i].ref && j-i+1 >= foldMin+1 && i == 0 {
			// Keep the header row and the first three rows.
			out = append(out, groups[0:4]...)
			out = append(out, line{depth: depth, text: fmt.Sprintf("… %d more rows like these (mode=full shows them)", j-3)})
			i = j + 1
			continue
		}
		out = append(out, groups[i:j+1]...)
		i = j + 1
	}
	return out
}

// cell renders a table cell's content on one line.
func (r *renderer) cell(n *wnode) string {
	if n.ref != "" {
		if len(n.C) > 0 {
			return r.control(n) + ": " + strings.Join(r.inlineParts(n.C), " ")
		}
		return r.control(n)
	}
	if len(n.C) == 0 {
		return r.text(n.N)
	}
	parts := r.inlineParts(n.C)
	return strings.Join(parts, " ")
}

// relative shortens a link target relative to the page: same origin loses
// its origin, a link to the page itself keeps only its #fragment; its
// credentials are redacted unless keepURLs.
func (r *renderer) relative(raw string) string {
	if !r.keepURLs {
		raw = redact.URL(raw)
	}
	return relativeURL(r.base, raw)
}

// relativeURL writes raw relative to base when both are on one origin: the
// path (and query), or only the fragment on base's own page; else raw.
func relativeURL(base *url.URL, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || base == nil {
		return raw
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return raw
	}
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	if u.Path == base.Path && u.RawQuery == base.RawQuery && u.Fragment != "" {
		return "#" + u.EscapedFragment()
	}
	if u.Fragment != "" {
		s += "#" + u.EscapedFragment()
	}
	return s
}

// page adds the header and cuts the body to the requested window.
func (s *Session) page(snap *Snapshot, body string, o SnapshotOptions) string {
	snap.TotalChars = utf8.RuneCountInString(body)
	part := body
	var tail string
	if o.Offset > 0 || (o.MaxChars > 0 && snap.TotalChars > o.MaxChars) {
		part, snap.NextOffset = window(body, o.Offset, o.MaxChars)
		end := o.Offset + utf8.RuneCountInString(part)
		if snap.NextOffset > 0 {
			tail = fmt.Sprintf("\n… cut at char %s of %s; browser_snapshot with offset=%d continues", commas(end), commas(snap.TotalChars), snap.NextOffset)
		} else if o.Offset >= snap.TotalChars {
			tail = fmt.Sprintf("(offset %s is past the end: the snapshot has %s chars)", commas(o.Offset), commas(snap.TotalChars))
		} else if o.Offset > 0 {
			tail = fmt.Sprintf("\n(end; chars %s–%s of %s)", commas(o.Offset), commas(end), commas(snap.TotalChars))
		}
	}
	title := Echo(snap.Title)
	if title == "" {
		title = "(untitled)"
	}
	hidden := ""
	if snap.Hidden > 0 {
		hidden = fmt.Sprintf("%d hidden · ", snap.Hidden)
	}
	header := fmt.Sprintf("# %s — %s   (%s · %d refs · %s%s chars)", title, Echo(s.ShowURL(snap.URL)), snap.ID, snap.Refs, hidden, commas(snap.TotalChars))
	if o.Mode == ModeDiff {
		header += " diff"
	}
	if snap.Clamped > 0 {
		header += fmt.Sprintf("\n(max_chars %s lowered to %s, the most one snapshot returns; offset continues)", commas(snap.Clamped), commas(MaxSnapshotChars))
	}
	return header + "\n" + part + tail
}

// window returns up to max runes of body from offset, ending at a line break
// when one is near, and the offset to continue from (0 at the end).
func window(body string, offset, max int) (string, int) {
	runes := []rune(body)
	if offset >= len(runes) {
		return "", 0
	}
	if offset < 0 {
		offset = 0
	}
	end := len(runes)
	if max > 0 && offset+max < end {
		end = offset + max
		// prefer to cut after a whole line
		for i := end - 1; i > offset+max/2; i-- {
			if runes[i] == '\n' {
				end = i + 1
				break
			}
		}
	}
	next := 0
	if end < len(runes) {
		next = end
	}
	return strings.TrimSuffix(string(runes[offset:end]), "\n"), next
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if strings.HasSuffix(a, " ") || strings.HasPrefix(b, " ") {
		return a + b
	}
	if r, _ := utf8.DecodeRuneInString(b); strings.ContainsRune(".,;:!?)]}", r) {
		return a + b
	}
	return a + " " + b
}

// clean collapses whitespace runs to one space.
func clean(s string) string {
	if s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// quote writes s in double quotes, escaping quotes and backslashes.
func quote(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// shorten cuts s to about n runes, saying how much was left out.
func shorten(s string, n int) string { return text.Clip(s, n) }

// commas formats n with thousands separators.
func commas(n int) string {
	s := strconv.Itoa(n)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
