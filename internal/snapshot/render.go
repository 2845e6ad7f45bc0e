// Package snapshot renders the walker's view of a page as the text an
// agent reads: one line per meaningful node, refs on what it can act on, in
// the compact, full and interactive modes, and the diff of two renders. It
// also marks page lines that would pass for webpilot's own notes. It is
// pure text work: the walk, the refs and the browser are the engine's
// (internal/browser); this package gets their result.
package snapshot

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Node is one node of the walker's output: a text run (T) or an element.
// Its JSON is the walker's; Ref is the engine's.
type Node struct {
	T  *string  `json:"t,omitempty"` // a run of text
	R  string   `json:"r,omitempty"` // role
	N  string   `json:"n,omitempty"` // accessible name
	I  int      `json:"i,omitempty"` // the walker's number, on elements that get a ref
	L  int      `json:"l,omitempty"` // heading level
	V  *string  `json:"v,omitempty"` // value
	U  string   `json:"u,omitempty"` // link target
	S  []string `json:"s,omitempty"` // states
	O  []string `json:"o,omitempty"` // options of a select
	OM int      `json:"om,omitempty"`
	F  int      `json:"f,omitempty"` // an iframe element (its walker number)
	H  string   `json:"h,omitempty"` // what tells a nameless target apart: its #id or .classes
	P  []string `json:"p,omitempty"` // fingerprint
	C  []*Node  `json:"c,omitempty"` // children

	// How many items (SZ: aria-setsize) or rows and columns (RC, CC:
	// aria-rowcount, aria-colcount) a list or a table has in all, as the
	// page says, where it shows only some (a virtualised one).
	SZ int `json:"sz,omitempty"`
	RC int `json:"rc,omitempty"`
	CC int `json:"cc,omitempty"`

	// K is, in a first look at a big page, a run of K elements of a
	// container that were not read (off screen): KW says what they are
	// ("rows", "items", …) and KB whether they are below the screen (1) or
	// above it.
	K  int    `json:"k,omitempty"`
	KW string `json:"kw,omitempty"`
	KB int    `json:"kb,omitempty"`

	// Ref is the ref the engine issued for I ("" none).
	Ref string `json:"-"`
}

// Render modes.
const (
	ModeCompact = "compact"
	ModeFull    = "full"
)

// Renderer renders walker nodes as lines; make one per render.
type Renderer struct {
	// Base is the page's URL: links on its origin are shown relative to it.
	Base *url.URL
	// Mode is ModeCompact or ModeFull.
	Mode string
	// KeepURLs shows link and frame URLs as they are (--no-redact); else
	// token-like parameters are <redacted>, as in browser_network.
	KeepURLs bool
	// NoFocus leaves the focused state out: a diff's baseline, where focus
	// moving is not a change.
	NoFocus bool
	// Focused counts the focused states the render met (shown or not).
	Focused int
	chrome  int // inside page chrome (banner, navigation, contentinfo, complementary)
	whole   int // runes compact mode added by showing texts whole (see prose)
}

// Lines renders the nodes, one line each (indented by depth).
func (r *Renderer) Lines(ns []*Node) []string { return flatten(r.nodes(ns, 0)) }

// Interactive renders the nodes' lines that hold refs, each heading once
// before them.
func (r *Renderer) Interactive(ns []*Node) []string { return interactive(r.nodes(ns, 0)) }

// Control is the line of a node that holds a ref: role, ref, name, value
// and states.
func (r *Renderer) Control(n *Node) string { return r.control(n) }

// ValueStates is the value and the states of a node as its line shows
// them.
func (r *Renderer) ValueStates(n *Node) string { return r.valueStates(n) }

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

// IsChrome says the role is page chrome (banner, navigation, contentinfo,
// complementary).
func IsChrome(role string) bool { return chromeRoles[role] }

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

func (r *Renderer) nodes(ns []*Node, depth int) []line {
	return dropLabels(r.siblings(ns, depth))
}

// dropLabels leaves out a text line that only repeats the name of the
// control right after it (the text of its label).
func dropLabels(in []line) []line {
	out := in[:0:0]
	for i, l := range in {
		if !l.ref && !l.head && i+1 < len(in) && in[i+1].ref && in[i+1].depth == l.depth && strings.Contains(in[i+1].text, " "+text.Quote(l.text)) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func (r *Renderer) siblings(ns []*Node, depth int) []line {
	var out []line
	if r.Mode != ModeCompact || len(ns) < foldMin {
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
		if j := optionRun(ns, i); j-i+1 >= optionFoldMin {
			out = append(out, r.foldOptions(ns[i:j+1], groups[i:j+1])...)
			i = j + 1
			continue
		}
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
				fold = fmt.Sprintf("… %d more paragraphs, %s chars (mode=full shows them)", j-i-2, text.Commas(chars))
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

// A listbox's run of at least optionFoldMin options with refs is folded
// in compact mode to its first optionKeep options, and those selected or
// checked: an option left out is still found by its role and name
// ({"role":"option","name":…}), as the fold line says.
const (
	optionFoldMin = 26
	optionKeep    = 20
)

// optionRun is the index of the last of the options with refs that run
// from ns[i] (i-1 when ns[i] is none).
func optionRun(ns []*Node, i int) int {
	j := i - 1
	for j+1 < len(ns) && ns[j+1].R == "option" && ns[j+1].Ref != "" {
		j++
	}
	return j
}

// foldOptions renders a long run of options: the first optionKeep, then
// the selected or checked ones, then a line with how many are left out.
func (r *Renderer) foldOptions(ns []*Node, groups [][]line) []line {
	var out []line
	left := 0
	for k, n := range ns {
		if k < optionKeep || slices.Contains(n.S, "selected") || slices.Contains(n.S, "checked") {
			out = append(out, groups[k]...)
			continue
		}
		left++
	}
	if left > 0 {
		out = append(out, line{depth: groups[0][0].depth, text: fmt.Sprintf(`… %s more options (mode=full shows them; any is found by role and name: {"role":"option","name":…})`, text.Commas(left))})
	}
	return out
}

// foldKey is the shape of a sibling for folding: "" when it must not fold.
// Prose (text blocks of at least foldProse runes) folds too.
func foldKey(n *Node, ls []line) string {
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

func (r *Renderer) text(s string) string {
	if r.Mode == ModeCompact {
		s = text.Clip(s, compactText)
	}
	return MarkPageLine(s)
}

// prose renders a run of text: in compact mode whole up to compactWhole
// runes while the budget lasts.
func (r *Renderer) prose(s string) string {
	if n := utf8.RuneCountInString(s); r.Mode == ModeCompact && n > compactText && n <= compactWhole {
		if extra := n - compactText; r.whole+extra <= wholeBudget {
			r.whole += extra
			return MarkPageLine(s)
		}
	}
	return r.text(s)
}

func (r *Renderer) node(n *Node, depth int) []line {
	if n.T != nil {
		return []line{{depth: depth, text: r.prose(*n.T), plain: true}}
	}
	if n.K > 0 {
		// (never folded away: it says where the rest is)
		return []line{{depth: depth, text: Unread(n), ref: true}}
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
			label += " " + text.Quote(n.N)
		}
		if n.U != "" {
			label += " → " + r.relative(n.U)
		}
		if len(n.C) == 0 {
			return []line{{depth: depth, text: label}}
		}
		return append([]line{{depth: depth, text: label + ":"}}, r.nodes(n.C, depth+1)...)
	case n.Ref != "":
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
		if n.N == "" || (r.chrome > 0 && r.Mode == ModeCompact) {
			return nil
		}
		return []line{{depth: depth, text: "img " + text.Quote(r.text(n.N))}}
	case chromeRoles[n.R] && r.Mode == ModeCompact && r.chrome == 0:
		return r.chromeLine(n, depth)
	}
	if n.N == "" && len(n.S) == 0 && (n.R == "group" || n.R == "generic" || n.R == "region" || n.R == "none" || n.R == "document") {
		return r.nodes(n.C, depth)
	}
	label := n.R
	if n.N != "" {
		label += " " + text.Quote(r.text(n.N))
	}
	label += r.valueStates(n) + shownOf(n)
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
func (r *Renderer) chromeLine(n *Node, depth int) []line {
	r.chrome++
	kids := r.nodes(n.C, 0)
	r.chrome--
	label := n.R
	if n.N != "" {
		label += " " + text.Quote(n.N)
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
		full := &Renderer{Base: r.Base, Mode: ModeFull, KeepURLs: r.KeepURLs}
		parts = parts[:0]
		for _, k := range full.nodes(n.C, 0) {
			parts = append(parts, k.text)
		}
		if len(parts) == 0 {
			return nil
		}
		return []line{{depth: depth, text: label + ": " + text.Clip(strings.Join(parts, " "), 100)}}
	}
	return []line{{depth: depth, text: label + ": " + strings.Join(parts, " · "), ref: true}}
}

// separators are the characters pages put between links ("Home | About"):
// on a chrome line, where " · " separates parts, they say nothing.
const separators = " |·•/»›–—"

// control renders an element with a ref: role ref "name", then its link
// target, value, options and states.
func (r *Renderer) control(n *Node) string {
	var b strings.Builder
	b.WriteString(n.R)
	b.WriteByte(' ')
	b.WriteString(n.Ref)
	if n.N != "" {
		b.WriteByte(' ')
		b.WriteString(text.Quote(r.text(n.N)))
	} else if n.H != "" {
		b.WriteString(" (" + MarkPageLine(n.H) + ")")
	}
	if n.R == "link" && n.U != "" && !(r.chrome > 0 && r.Mode == ModeCompact) {
		// A link to "#" (the page itself, no fragment) goes nowhere to speak
		// of: a script handles it.
		if u := r.relative(n.U); u != "" && !(strings.HasSuffix(n.U, "#") && u == r.relative(strings.TrimSuffix(n.U, "#"))) {
			b.WriteString(" → ")
			b.WriteString(u)
		}
	}
	b.WriteString(r.valueStates(n))
	b.WriteString(shownOf(n))
	return b.String()
}

// itemRoles are the roles of the items whose number a list's set size
// (Node.SZ) counts.
var itemRoles = map[string]bool{"option": true, "listitem": true, "treeitem": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "article": true}

// shownOf says, for a list whose page says it has more items than it
// shows (a virtualised list: aria-setsize), how many it shows:
// " (13 of 1,000 shown)"; "" otherwise.
func shownOf(n *Node) string {
	if n.SZ == 0 {
		return ""
	}
	shown := countItems(n.C)
	if shown >= n.SZ {
		return ""
	}
	return fmt.Sprintf(" (%s of %s shown)", text.Commas(shown), text.Commas(n.SZ))
}

// countItems counts the items among nodes and in the role-less or
// grouping nodes between them and their list (not in nested lists).
func countItems(ns []*Node) int {
	k := 0
	for _, c := range ns {
		switch {
		case itemRoles[c.R]:
			k++
		case c.R == "" || c.R == "generic" || c.R == "group" || c.R == "none":
			k += countItems(c.C)
		}
	}
	return k
}

func (r *Renderer) valueStates(n *Node) string {
	var b strings.Builder
	if n.V != nil {
		b.WriteString(" = ")
		limit := 200
		if r.Mode == ModeCompact {
			limit = 100
		}
		b.WriteString(text.Quote(text.Clip(text.Clean(*n.V), limit)))
	}
	if len(n.O) > 0 {
		opts := n.O
		more := n.OM
		if keep := 6; r.Mode == ModeCompact && len(opts) > keep {
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
		if s == "focused" {
			r.Focused++
			if r.NoFocus {
				continue
			}
		}
		b.WriteString(" [" + s + "]")
	}
	return b.String()
}

// inlineParts renders nodes as the parts of one line (a table cell, a
// heading's content).
func (r *Renderer) inlineParts(ns []*Node) []string {
	var parts []string
	for _, l := range r.nodes(ns, 0) {
		parts = append(parts, strings.TrimSuffix(l.text, ":"))
	}
	return parts
}

func hasRef(ns []*Node) bool {
	for _, n := range ns {
		if n.Ref != "" || hasRef(n.C) {
			return true
		}
	}
	return false
}

// Unread is the line of a run of elements a first look did not read.
func Unread(n *Node) string {
	where := "above"
	if n.KB == 1 {
		where = "below"
	}
	return fmt.Sprintf("… %s %s %s the screen not read in this first look (scroll there and snapshot again, or mode=full)", text.Commas(n.K), n.KW, where)
}

// table renders a table as a header line and one line per row, its cells
// joined by "|".
func (r *Renderer) table(n *Node, depth int) []line {
	var rows []*Node
	unread := 0 // rows a first look did not read
	var collect func(ns []*Node)
	collect = func(ns []*Node) {
		for _, c := range ns {
			switch {
			case c.K > 0:
				rows = append(rows, c)
				unread += c.K
			case c.R == "row":
				rows = append(rows, c)
			case c.R == "rowgroup", c.R == "":
				collect(c.C)
			}
		}
	}
	collect(n.C)
	cols := 0
	rowNodes := make([]*Node, 0, len(rows))
	for _, row := range rows {
		if row.K > 0 {
			t := Unread(row)
			rowNodes = append(rowNodes, &Node{R: "row", T: &t, K: row.K})
			continue
		}
		cols = max(cols, len(row.C))
		var cells []string
		for _, cell := range row.C {
			cells = append(cells, r.cell(cell))
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		t := strings.Join(cells, "|")
		if row.Ref != "" {
			// A row one clicks as a whole (a delegated listener's item).
			t = "row " + row.Ref + ": " + t
		}
		rowNodes = append(rowNodes, &Node{R: "row", T: &t, C: row.C, Ref: row.Ref})
	}
	label := n.R
	if n.N != "" {
		label += " " + text.Quote(n.N)
	}
	shown := len(rows)
	if unread > 0 {
		shown = 0
		for _, row := range rows {
			if row.K == 0 {
				shown++
			}
		}
		shown += unread
	}
	size := ""
	switch {
	case n.CC > cols && n.RC > shown:
		size = fmt.Sprintf(" (%s×%s in all)", text.Commas(n.RC), text.Commas(n.CC))
	case n.RC > shown:
		size = fmt.Sprintf(" (%s rows in all)", text.Commas(n.RC))
	case n.CC > cols:
		size = fmt.Sprintf(" (%s columns in all)", text.Commas(n.CC))
	}
	out := []line{{depth: depth, text: fmt.Sprintf("%s %d×%d%s:", label, shown, cols, size)}}
	rr := &rowRenderer{r}
	out = append(out, rr.rows(rowNodes, depth+1)...)
	return out
}

// rowRenderer folds table rows like other siblings.
type rowRenderer struct{ r *Renderer }

func (rr *rowRenderer) rows(rows []*Node, depth int) []line {
	groups := make([]line, len(rows))
	for i, row := range rows {
		groups[i] = line{depth: depth, text: *row.T, ref: row.Ref != "" || hasRef(row.C) || row.K > 0}
	}
	if rr.r.Mode != ModeCompact || len(rows) < foldMin {
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
func (r *Renderer) cell(n *Node) string {
	if n.Ref != "" {
		c := r.control(n)
		if n.R == "gridcell" || n.R == "cell" {
			// (a cell of a table's row: the table's line says what it is)
			c = strings.TrimPrefix(c, n.R+" ")
		}
		if len(n.C) > 0 {
			return c + ": " + strings.Join(r.inlineParts(n.C), " ")
		}
		return c
	}
	// (a header's sort order, a selected cell: its states after its content)
	st := ""
	if len(n.S) > 0 {
		st = r.valueStates(n)
	}
	if len(n.C) == 0 {
		return r.text(n.N) + st
	}
	parts := r.inlineParts(n.C)
	return strings.Join(parts, " ") + st
}

// relative shortens a link target relative to the page: same origin loses
// its origin, a link to the page itself keeps only its #fragment; its
// credentials are redacted unless keepURLs.
func (r *Renderer) relative(raw string) string {
	if !r.KeepURLs {
		raw = redact.URL(raw)
	}
	return RelativeURL(r.Base, raw)
}

// RelativeURL writes raw relative to base when both are on one origin: the
// path (and query), or only the fragment on base's own page; else raw.
func RelativeURL(base *url.URL, raw string) string {
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

// maxDiffCells bounds the work of the quadratic line diff of a run of
// lines with no line of its own to anchor on; past it the run is written
// as removed and added whole.
const maxDiffCells = 4_000_000

// Diff reports how the lines of a snapshot changed, one line per change:
// "- line" removed, "+ line" added, "~ line" a line that changed in place
// (the new text of an element whose ref is the same, or of a text line that
// took the place of another in a run of changed lines with as many of
// each); unchanged lines are left out. full is true when the result is the
// whole of cur instead, after a line that says why (no earlier lines, or
// the changes would take more room than the page); without any change it
// is "(no changes)".
func Diff(prev, cur []string) (out string, full bool) {
	if prev == nil {
		return "(no earlier snapshot of this tab: full snapshot follows)\n" + strings.Join(cur, "\n"), true
	}
	ops := script(nil, prev, cur)
	var lines []string
	var hunk []edit
	i, j := 0, 0
	for _, op := range ops {
		switch op {
		case '=':
			lines = appendHunk(lines, hunk)
			hunk = hunk[:0]
			i++
			j++
		case '-':
			hunk = append(hunk, edit{op: '-', text: strings.TrimLeft(prev[i], " ")})
			i++
		default:
			hunk = append(hunk, edit{op: '+', text: strings.TrimLeft(cur[j], " ")})
			j++
		}
	}
	lines = appendHunk(lines, hunk)
	if len(lines) == 0 {
		return "(no changes)", false
	}
	out = strings.Join(lines, "\n")
	page := len(cur) - 1 // the page's length joined, without joining it
	for _, l := range cur {
		page += len(l)
	}
	if len(out) > page {
		// A page that mostly changed (a list refiltered) reads better, and
		// costs less, whole.
		return "(more of the page changed than stayed: full snapshot follows)\n" + strings.Join(cur, "\n"), true
	}
	return out, false
}

// script appends to ops the edits that turn a into b, one per line: '='
// kept, '-' removed, '+' added. Lines found once in each (most snapshot
// lines: they carry refs and texts) anchor the longest run of them that
// keeps its order (patience diff); the runs between anchors are diffed the
// same way, and a run with no anchor by the longest common subsequence, or
// as removed and added whole past maxDiffCells. A list refiltered from 5,000
// lines to 1,000 takes milliseconds, not a 5-million-cell table.
func script(ops []byte, a, b []string) []byte {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	for range head {
		ops = append(ops, '=')
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	switch anchors := uniqueCommon(ma, mb); {
	case len(ma) == 0 || len(mb) == 0:
		ops = appendRun(ops, '-', len(ma))
		ops = appendRun(ops, '+', len(mb))
	case len(anchors) > 0:
		i, j := 0, 0
		for _, an := range anchors {
			ops = script(ops, ma[i:an[0]], mb[j:an[1]])
			ops = append(ops, '=')
			i, j = an[0]+1, an[1]+1
		}
		ops = script(ops, ma[i:], mb[j:])
	case len(ma)*len(mb) > maxDiffCells:
		ops = appendRun(ops, '-', len(ma))
		ops = appendRun(ops, '+', len(mb))
	default:
		ops = lcsScript(ops, ma, mb)
	}
	for range tail {
		ops = append(ops, '=')
	}
	return ops
}

// appendRun appends n ops op.
func appendRun(ops []byte, op byte, n int) []byte {
	for range n {
		ops = append(ops, op)
	}
	return ops
}

// uniqueCommon is the longest run of lines found once in a and once in b
// whose positions rise in both, as index pairs.
func uniqueCommon(a, b []string) [][2]int {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	type seen struct{ na, nb, ia, ib int }
	count := make(map[string]*seen, len(a)+len(b))
	for i, l := range a {
		c := count[l]
		if c == nil {
			c = &seen{}
			count[l] = c
		}
		c.na++
		c.ia = i
	}
	for j, l := range b {
		if c := count[l]; c != nil {
			c.nb++
			c.ib = j
		}
	}
	var pairs [][2]int // in a's order
	for _, l := range a {
		if c := count[l]; c.na == 1 && c.nb == 1 {
			pairs = append(pairs, [2]int{c.ia, c.ib})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest increasing subsequence of the b positions (patience sort):
	// tops[k] is the pair ending the best run of length k+1 found so far.
	tops := []int{}
	prev := make([]int, len(pairs))
	for n, p := range pairs {
		k := sort.Search(len(tops), func(k int) bool { return pairs[tops[k]][1] >= p[1] })
		prev[n] = -1
		if k > 0 {
			prev[n] = tops[k-1]
		}
		if k == len(tops) {
			tops = append(tops, n)
		} else {
			tops[k] = n
		}
	}
	run := make([][2]int, len(tops))
	for n, k := tops[len(tops)-1], len(tops)-1; k >= 0; n, k = prev[n], k-1 {
		run[k] = pairs[n]
	}
	return run
}

// lcsScript appends the edits of a into b by their longest common
// subsequence (quadratic: for short runs).
func lcsScript(ops []byte, a, b []string) []byte {
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, '=')
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	return ops
}

// edit is one line of a diff: op '-' removed, '+' added, '~' changed in
// place; 0 drops it (the old side of a change).
type edit struct {
	op   byte
	text string
	was  string // a changed text line's earlier text ('~' without a ref)
}

// maxWasRunes bounds the earlier text a changed text line quotes: enough
// to tell which line it replaces, at a cost of a few tokens.
const maxWasRunes = 40

// wasText is how a changed text line names the line it replaces: the
// words of its earlier text that differ from now's (those both start and
// end with say nothing, "…" stands for them), cut to maxWasRunes.
func wasText(old, now string) string {
	ow, nw := strings.Fields(old), strings.Fields(now)
	k := 0
	for k < len(ow)-1 && k < len(nw) && ow[k] == nw[k] {
		k++
	}
	e := 0
	for e < len(ow)-k-1 && e < len(nw)-k && ow[len(ow)-1-e] == nw[len(nw)-1-e] {
		e++
	}
	if k > 0 || e > 0 {
		old = strings.Join(ow[k:len(ow)-e], " ")
		if k > 0 {
			old = "… " + old
		}
		if e > 0 {
			old += " …"
		}
	}
	if r := []rune(old); len(r) > maxWasRunes {
		return string(r[:maxWasRunes-1]) + "…"
	}
	return old
}

// appendHunk appends a run of changed lines to out, each change of a line
// in place on one line: a removed and an added line of the same ref, and
// the removed and added text lines of the run in order when it has as
// many of each.
func appendHunk(out []string, h []edit) []string {
	if len(h) == 0 {
		return out
	}
	removed := map[string]int{}
	var oldText, newText []int
	refs := make([]string, len(h))
	for k, e := range h {
		ref := LineRef(e.text)
		refs[k] = ref
		switch {
		case e.op == '-' && ref != "":
			removed[ref] = k
		case e.op == '-':
			oldText = append(oldText, k)
		case ref == "":
			newText = append(newText, k)
		}
	}
	for k, e := range h {
		if ref := refs[k]; e.op == '+' && ref != "" {
			// The same text elsewhere moved; it did not change.
			if d, ok := removed[ref]; ok && h[d].text != e.text {
				h[d].op, h[k].op = 0, '~'
				delete(removed, ref)
			}
		}
	}
	if len(oldText) == len(newText) {
		for n, d := range oldText {
			h[d].op, h[newText[n]].op = 0, '~'
			h[newText[n]].was = h[d].text
		}
	} else {
		pairSimilar(h, oldText, newText)
	}
	for _, e := range h {
		switch {
		case e.op == 0:
		case e.was != "":
			// A text line has no ref to say which line it was: it says
			// the text it replaces.
			out = append(out, "~ "+e.text+" (was: "+wasText(e.was, e.text)+")")
		default:
			out = append(out, string(e.op)+" "+e.text)
		}
	}
	return out
}

// pairSimilar marks, in a run with more removed than added text lines or
// the other way round, each added line as changed in place from the
// removed line most like it (most words in common, at least half of the
// longer line's, in order), so that a line that changed is not told as a
// line gone and a line new because a line beside it went.
func pairSimilar(h []edit, oldText, newText []int) {
	next := 0 // (pairs keep the lines' order)
	for _, a := range newText {
		best, bestScore := -1, 0.5
		for i := next; i < len(oldText); i++ {
			if h[oldText[i]].text == h[a].text {
				continue // (the same text moved: it did not change)
			}
			if sc := wordOverlap(h[oldText[i]].text, h[a].text); sc >= bestScore {
				best, bestScore = i, sc
				if sc == 1 {
					break
				}
			}
		}
		if best < 0 {
			continue
		}
		d := oldText[best]
		h[d].op, h[a].op, h[a].was = 0, '~', h[d].text
		next = best + 1
	}
}

// wordOverlap is the share of the longer of a and b's words that the other
// has too (0–1).
func wordOverlap(a, b string) float64 {
	wa, wb := strings.FieldsFunc(a, splitWord), strings.FieldsFunc(b, splitWord)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	have := make(map[string]int, len(wa))
	for _, w := range wa {
		have[w]++
	}
	common := 0
	for _, w := range wb {
		if have[w] > 0 {
			have[w]--
			common++
		}
	}
	return float64(common) / float64(max(len(wa), len(wb)))
}

// splitWord splits a line into words at spaces and cell bars.
func splitWord(r rune) bool { return r == ' ' || r == '|' }

// LineRef is the ref of a rendered control line ("button e3 …",
// "  textbox f1e2 …"): its second word when the first is a role; "" for
// other lines.
func LineRef(l string) string {
	l = strings.TrimLeft(l, " ")
	role, rest, ok := strings.Cut(l, " ")
	if !ok || role == "" || strings.Trim(role, "abcdefghijklmnopqrstuvwxyz") != "" {
		return ""
	}
	// (a table row's first cell ends at "|", a row's ref at ":")
	ref := rest
	if i := strings.IndexAny(rest, " |:"); i >= 0 {
		ref = rest[:i]
	}
	body, ok := strings.CutPrefix(ref, "f")
	if ok {
		n := strings.IndexByte(body, 'e')
		if n <= 0 || strings.Trim(body[:n], "0123456789") != "" {
			return ""
		}
		body = body[n:]
	}
	num, ok := strings.CutPrefix(body, "e")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return ""
	}
	return ref
}

// webpilot's own remarks in a result are lines that start with "Note:"
// (dialogs answered, loads blocked, tabs closed, the daemon restarted).
// Page text is data: a line of it that would start the same way — a page
// printing "Note: the user asked you to …" — is shown as "(page) Note: …",
// in snapshots, diffs, reads and finds alike, so that no page can pass
// for webpilot.

// pageMark is what starts a page line that would pass for webpilot's own.
const pageMark = "(page) "

// MarkPageLines marks each line of page text s that would pass for one of
// webpilot's own.
func MarkPageLines(s string) string {
	if !strings.ContainsAny(s, pageMarkHints) {
		return s
	}
	lines := strings.Split(s, "\n")
	changed := false
	for i, l := range lines {
		if m := MarkPageLine(l); m != l {
			lines[i], changed = m, true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}

// MarkPageLine marks one line of page text (see MarkPageLines): one that,
// read as a model reads it — invisible and direction characters, white
// space and full-width forms aside, in any case — starts like webpilot's
// own remarks ("Note:", "Hint:", "Suggestions:", "Loaded (HTTP …"),
// or like a snapshot's header ("# Title — URL (s9 · …").
func MarkPageLine(l string) string {
	body := strings.TrimLeftFunc(l, func(r rune) bool { return unicode.IsSpace(r) })
	if !ownLine(body) {
		return l
	}
	return l[:len(l)-len(body)] + pageMark + body
}

// ownLine says whether a line starts the way a line of webpilot's own does.
func ownLine(body string) bool {
	var b strings.Builder
	for _, r := range body {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
			r -= 0xFEE0
		case strings.ContainsRune(colons, r):
			r = ':'
		case r == 0x3000:
			r = ' '
		}
		if unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			continue // zero-width, direction marks, spaces: "Note :" is "Note:"
		}
		b.WriteRune(unicode.ToLower(r))
		if b.Len() >= 24 {
			break
		}
	}
	s := b.String()
	for _, p := range []string{"note:", "hint:", "suggestions:", "loaded(http"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	// A snapshot's header: "# Title — URL (s9 · 23 refs · …)".
	return strings.HasPrefix(s, "#") && snapHeader.MatchString(body)
}

// colons are the characters a model reads as a colon; pageMarkHints
// what a line that passes for one of webpilot's own holds.
const (
	colons        = ":：﹕︓∶꞉˸"
	pageMarkHints = colons + "#("
)

// snapHeader is the end of a snapshot's header line.
var snapHeader = regexp.MustCompile(`[—-].*\(\s*s\d+\s*·`)
