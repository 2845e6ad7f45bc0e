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
	"strconv"
	"strings"
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
	chrome   int // inside page chrome (banner, navigation, contentinfo, complementary)
	whole    int // runes compact mode added by showing texts whole (see prose)
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
	return b.String()
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

// table renders a table as a header line and one line per row, its cells
// joined by "|".
func (r *Renderer) table(n *Node, depth int) []line {
	var rows []*Node
	var collect func(ns []*Node)
	collect = func(ns []*Node) {
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
	rowNodes := make([]*Node, 0, len(rows))
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
	out := []line{{depth: depth, text: fmt.Sprintf("%s %d×%d:", label, len(rows), cols)}}
	rr := &rowRenderer{r}
	out = append(out, rr.rows(rowNodes, depth+1)...)
	return out
}

// rowRenderer folds table rows like other siblings.
type rowRenderer struct{ r *Renderer }

func (rr *rowRenderer) rows(rows []*Node, depth int) []line {
	groups := make([]line, len(rows))
	for i, row := range rows {
		groups[i] = line{depth: depth, text: *row.T, ref: row.Ref != "" || hasRef(row.C)}
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

// maxDiffCells bounds the work of a line diff; past it the diff falls back to
// listing the whole new snapshot.
const maxDiffCells = 4_000_000

// Diff reports how the lines of a snapshot changed: "+ line" for added,
// "- line" for removed, with unchanged lines left out and counted.
func Diff(prev, cur []string) string {
	if prev == nil {
		return "(no earlier snapshot of this tab: full snapshot follows)\n" + strings.Join(cur, "\n")
	}
	// Trim the common head and tail first: most changes are local.
	head := 0
	for head < len(prev) && head < len(cur) && prev[head] == cur[head] {
		head++
	}
	tail := 0
	for tail < len(prev)-head && tail < len(cur)-head && prev[len(prev)-1-tail] == cur[len(cur)-1-tail] {
		tail++
	}
	a, b := prev[head:len(prev)-tail], cur[head:len(cur)-tail]
	if len(a) == 0 && len(b) == 0 {
		return fmt.Sprintf("(no changes; %d lines)", len(cur))
	}
	if len(a)*len(b) > maxDiffCells {
		return "(too many changes to diff: full snapshot follows)\n" + strings.Join(cur, "\n")
	}
	// Longest common subsequence table, from the end.
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
	var out []string
	same := head + tail
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			same++
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			out = append(out, "- "+strings.TrimLeft(a[i], " "))
			i++
		default:
			out = append(out, "+ "+strings.TrimLeft(b[j], " "))
			j++
		}
	}
	return strings.Join(out, "\n") + fmt.Sprintf("\n(%d unchanged lines not shown)", same)
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
	if !strings.Contains(s, ":") {
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

// MarkPageLine marks one line of page text (see MarkPageLines).
func MarkPageLine(l string) string {
	body := strings.TrimLeft(l, " \t\u00a0")
	if len(body) >= 5 && strings.EqualFold(body[:5], "note:") {
		return l[:len(l)-len(body)] + pageMark + body
	}
	return l
}
