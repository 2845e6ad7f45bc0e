package browser

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
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
	Mode     string // compact (default), full, interactive, diff
	MaxChars int    // 0: no cap
	Offset   int    // continue a capped snapshot at this character
}

// Snapshot is a rendered view of a page.
type Snapshot struct {
	ID         string `json:"id"`
	URL        string `json:"url"`
	Title      string `json:"title"`
	Refs       int    `json:"refs"`
	TotalChars int    `json:"total_chars"` // size of the whole body before paging
	Text       string `json:"-"`           // header + (the requested page of) the body
	NextOffset int    `json:"next_offset,omitempty"`
}

// roles that get a ref: what an agent can act on.
var actionRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "combobox": true,
	"listbox": true, "checkbox": true, "radio": true, "switch": true, "slider": true,
	"spinbutton": true, "tab": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "treeitem": true, "option": true, "colorwell": true,
	"scrollbar": true,
}

// editable roles take typed text.
var editable = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "spinbutton": true, "textarea": true}

// roleAlias renames Chrome-internal roles to the ARIA role an agent knows.
var roleAlias = map[string]string{
	"DisclosureTriangle": "button", "ToggleButton": "button", "PopUpButton": "button",
	"textarea": "textbox", "menubutton": "button",
}

// roles shown as a labelled block whose children are indented under it.
var blockRoles = map[string]bool{
	"navigation": true, "main": true, "banner": true, "contentinfo": true,
	"complementary": true, "form": true, "search": true, "region": true,
	"dialog": true, "alertdialog": true, "article": true, "status": true,
	"alert": true, "menu": true, "menubar": true, "tablist": true, "tabpanel": true,
	"tree": true, "radiogroup": true, "toolbar": true, "figure": true, "log": true,
	"list": false, "group": true, "Details": true, "feed": true,
}

// roles whose own line is not shown; their children stand in their place.
var transparentRoles = map[string]bool{
	"generic": true, "none": true, "presentation": true, "paragraph": true,
	"GenericContainer": true, "Section": true, "LayoutTable": true, "LayoutTableRow": true,
	"LayoutTableCell": true, "Pre": true, "Abbr": true, "Mark": true, "Ruby": true,
	"emphasis": true, "strong": true, "code": true, "time": true, "subscript": true,
	"superscript": true, "deletion": true, "insertion": true, "blockquote": true,
	"list": true, "Legend": true, "LabelText": true, "DescriptionList": true,
	"term": true, "definition": true, "caption": true, "Canvas": true, "sectionheader": true,
	"sectionfooter": true, "math": true, "Iframe": true, "IframePresentational": true,
	"document": true, "application": true, "ListMarker": true, "FigureCaption": true,
	"contentdeletion": true, "contentinsertion": true, "note": true, "Summary": true,
}

// roles never shown, with their subtrees.
var skipRoles = map[string]bool{
	"InlineTextBox": true, "LineBreak": true, "separator": true, "MenuListPopup": true,
}

// line is one rendered line before indentation.
type line struct {
	depth int
	text  string
	// inline marks plain text that may join the text next to it.
	inline bool
	// solo keeps a text line (a whole paragraph) from joining its neighbours.
	solo bool
	ref  bool
	head bool
}

type renderer struct {
	nodes map[string]*cdp.AXNode
	refs  *refTable
	base  *url.URL
	mode  string
	count int
}

// Snapshot renders the tab's page. Call within Do.
func (s *Session) Snapshot(ctx context.Context, t *Tab, o SnapshotOptions) (*Snapshot, error) {
	if o.Mode == "" {
		o.Mode = ModeCompact
	}
	// Later pages of a cut snapshot come from the same render, so that the
	// parts join up (and a diff is not taken against itself).
	if c := t.cache; o.Offset > 0 && c != nil && c.mode == o.Mode {
		snap := c.snap
		snap.Text = s.page(&snap, c.body, o)
		return &snap, nil
	}
	body, snap, err := s.render(ctx, t, o.Mode)
	if err != nil {
		return nil, err
	}
	t.cache = &snapCache{mode: o.Mode, body: body, snap: *snap}
	snap.Text = s.page(snap, body, o)
	return snap, nil
}

// render builds the snapshot body of the tab in the mode, and keeps the
// compact rendering as the baseline of the next diff.
func (s *Session) render(ctx context.Context, t *Tab, mode string) (string, *Snapshot, error) {
	var fr frame
	var nodes []cdp.AXNode
	for attempt := 0; ; attempt++ {
		var err error
		fr, err = t.mainFrame(ctx)
		if err != nil {
			return "", nil, backendError("read the page", err)
		}
		nodes, err = cdp.GetFullAXTree(ctx, t.t, "")
		if err != nil {
			return "", nil, backendError("read the accessibility tree", err)
		}
		// A navigation between the two reads would file the new document's
		// nodes under the old one's refs: read again.
		after, err := t.mainFrame(ctx)
		if err != nil {
			return "", nil, backendError("read the page", err)
		}
		if after.LoaderID == fr.LoaderID || attempt == 2 {
			fr = after
			break
		}
	}
	t.refs.document(fr.LoaderID)
	r := &renderer{nodes: make(map[string]*cdp.AXNode, len(nodes)), refs: t.refs, mode: mode}
	r.base, _ = url.Parse(fr.URL)
	var root *cdp.AXNode
	for i := range nodes {
		n := &nodes[i]
		r.nodes[n.NodeID] = n
		if root == nil && n.ParentID == "" {
			root = n
		}
	}
	snap := &Snapshot{ID: s.nextSnapshotID(), URL: fr.URL}
	var lines []line
	if root != nil {
		snap.Title = root.Name.String()
		lines = r.children(root, 0)
	}
	lines = dropLabels(mergeInline(lines))
	compact := make([]string, 0, len(lines))
	var out []string
	for _, l := range lines {
		indent := strings.Repeat("  ", l.depth)
		text := l.text
		if l.inline {
			text = shorten(text, 300)
		}
		compact = append(compact, indent+text)
		switch mode {
		case ModeInteractive:
			if l.ref || l.head {
				out = append(out, l.text)
			}
		case ModeFull:
			out = append(out, indent+l.text)
		}
	}
	prev := t.lastSnap
	t.lastSnap = compact
	snap.Refs = r.count
	switch mode {
	case ModeDiff:
		return diffLines(prev, compact), snap, nil
	case ModeCompact:
		out = compact
	}
	return strings.Join(out, "\n"), snap, nil
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
	title := snap.Title
	if title == "" {
		title = "(untitled)"
	}
	header := fmt.Sprintf("# %s — %s   (%s · %d refs · %s chars)", title, snap.URL, snap.ID, snap.Refs, commas(snap.TotalChars))
	if o.Mode == ModeDiff {
		header += " diff"
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

func (r *renderer) children(n *cdp.AXNode, depth int) []line {
	var out []line
	for _, id := range n.ChildIDs {
		c := r.nodes[id]
		if c == nil {
			continue
		}
		out = append(out, r.node(c, depth)...)
	}
	return out
}

func (r *renderer) node(n *cdp.AXNode, depth int) []line {
	role := n.Role.String()
	if n.Ignored {
		return r.children(n, depth)
	}
	if skipRoles[role] {
		return nil
	}
	if alias, ok := roleAlias[role]; ok {
		role = alias
	}
	name := clean(n.Name.String())
	switch {
	case role == "StaticText":
		if name == "" {
			return nil
		}
		return []line{{depth: depth, text: name, inline: true}}
	case role == "heading":
		level := prop(n, "level")
		if level == "" {
			level = "2"
		}
		return []line{{depth: depth, text: "heading[" + level + "] " + quote(name), head: true}}
	case actionRoles[role] && n.BackendDOMNodeID != 0:
		return []line{{depth: depth, text: r.control(n, role, name), ref: true}}
	case role == "image" || role == "img":
		if name == "" {
			return nil
		}
		return []line{{depth: depth, text: "img " + quote(name)}}
	case role == "table" || role == "grid" || role == "treegrid":
		return r.table(n, role, name, depth)
	case role == "listitem":
		kids := mergeInline(r.children(n, depth))
		if len(kids) == 0 {
			return nil
		}
		kids[0].text = "- " + kids[0].text
		kids[0].inline = false
		for i := 1; i < len(kids); i++ {
			if kids[i].depth == depth {
				kids[i].depth = depth + 1
			}
		}
		return kids
	case blockRoles[role] && (name != "" || role != "group"):
		label := role
		if name != "" {
			label += " " + quote(name)
		}
		kids := mergeInline(r.children(n, depth+1))
		if len(kids) == 0 {
			if name == "" {
				return nil
			}
			return []line{{depth: depth, text: label}}
		}
		if len(kids) == 1 && kids[0].inline {
			// A block holding one line of text reads best on one line.
			return []line{{depth: depth, text: label + ": " + kids[0].text}}
		}
		return append([]line{{depth: depth, text: label + ":"}}, kids...)
	case transparentRoles[role]:
		kids := r.children(n, depth)
		if role == "paragraph" || role == "blockquote" {
			// A paragraph is a text boundary: merge inside, not across.
			kids = mergeInline(kids)
			for i := range kids {
				kids[i].solo = true
			}
		}
		return kids
	default:
		// Unknown or minor roles: show a named node's role, else its content.
		kids := r.children(n, depth)
		if len(kids) == 0 && name != "" && role != "" {
			return []line{{depth: depth, text: role + " " + quote(name)}}
		}
		return kids
	}
}

// control renders an element an agent can act on, with its ref.
func (r *renderer) control(n *cdp.AXNode, role, name string) string {
	ref := r.refs.refFor(n.BackendDOMNodeID, role, name)
	r.count++
	var b strings.Builder
	b.WriteString(role)
	b.WriteByte(' ')
	b.WriteString(ref)
	if name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(name))
	}
	switch role {
	case "link":
		if u := prop(n, "url"); u != "" {
			b.WriteString(" → ")
			b.WriteString(r.relative(u))
		}
	case "textbox", "searchbox", "combobox", "spinbutton", "slider", "textarea":
		v := clean(n.Value.String())
		b.WriteString(" = ")
		b.WriteString(quote(shorten(v, 200)))
		if role == "combobox" {
			if opts := r.options(n); opts != "" {
				b.WriteString(" {" + opts + "}")
			}
		}
	}
	b.WriteString(states(n))
	return b.String()
}

// options lists a select's option names (the first 12).
func (r *renderer) options(n *cdp.AXNode) string {
	var names []string
	var walk func(*cdp.AXNode)
	walk = func(x *cdp.AXNode) {
		for _, id := range x.ChildIDs {
			c := r.nodes[id]
			if c == nil {
				continue
			}
			if c.Role.String() == "option" {
				names = append(names, clean(c.Name.String()))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	if len(names) == 0 {
		return ""
	}
	more := ""
	if len(names) > 12 {
		more = fmt.Sprintf(" | …%d more", len(names)-12)
		names = names[:12]
	}
	return strings.Join(names, " | ") + more
}

// table renders a table as compact rows of cells joined by " | ".
func (r *renderer) table(n *cdp.AXNode, role, name string, depth int) []line {
	var rows [][]string
	var rowRefs []bool
	var walk func(x *cdp.AXNode)
	walk = func(x *cdp.AXNode) {
		for _, id := range x.ChildIDs {
			c := r.nodes[id]
			if c == nil {
				continue
			}
			switch c.Role.String() {
			case "row":
				before := r.count
				var cells []string
				for _, cid := range c.ChildIDs {
					cell := r.nodes[cid]
					if cell == nil {
						continue
					}
					var parts []line
					switch cell.Role.String() {
					case "cell", "gridcell", "columnheader", "rowheader":
						parts = mergeInline(r.children(cell, 0))
					default:
						parts = mergeInline(r.node(cell, 0))
					}
					texts := make([]string, 0, len(parts))
					for _, p := range parts {
						t := p.text
						if p.inline {
							t = quote(t)
						}
						texts = append(texts, t)
					}
					cells = append(cells, strings.Join(texts, " "))
				}
				for len(cells) > 0 && cells[len(cells)-1] == "" {
					cells = cells[:len(cells)-1]
				}
				rows = append(rows, cells)
				rowRefs = append(rowRefs, r.count > before)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	label := role
	if name != "" {
		label += " " + quote(name)
	}
	out := []line{{depth: depth, text: fmt.Sprintf("%s %d×%d:", label, len(rows), cols)}}
	for i, row := range rows {
		out = append(out, line{depth: depth + 1, text: strings.Join(row, " | "), ref: rowRefs[i]})
	}
	return out
}

// relative shortens a link target relative to the page.
func (r *renderer) relative(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || r.base == nil {
		return raw
	}
	if u.Scheme == r.base.Scheme && u.Host == r.base.Host {
		s := u.EscapedPath()
		if s == "" {
			s = "/"
		}
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
		if u.Fragment != "" {
			s += "#" + u.EscapedFragment()
		}
		return s
	}
	return raw
}

// dropLabels leaves out a text line that only repeats the name of the
// control right after it (the text of its <label>).
func dropLabels(in []line) []line {
	out := in[:0:0]
	for i, l := range in {
		if l.inline && i+1 < len(in) && in[i+1].ref && in[i+1].depth == l.depth && strings.Contains(in[i+1].text, " "+quote(l.text)) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// mergeInline joins runs of adjacent inline text lines at the same depth.
func mergeInline(in []line) []line {
	out := in[:0:0]
	for _, l := range in {
		if n := len(out); n > 0 && l.inline && out[n-1].inline && out[n-1].depth == l.depth && !l.solo && !out[n-1].solo {
			out[n-1].text = joinText(out[n-1].text, l.text)
			continue
		}
		out = append(out, l)
	}
	return out
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

func states(n *cdp.AXNode) string {
	var b strings.Builder
	for _, p := range n.Properties {
		v := p.Value.String()
		switch p.Name {
		case "focused":
			// Focus matters where typing goes; on other controls it only
			// makes every diff after a click noisier.
			if v == "true" && editable[n.Role.String()] {
				b.WriteString(" [focused]")
			}
		case "disabled", "required", "selected", "modal", "readonly":
			if v == "true" {
				b.WriteString(" [" + p.Name + "]")
			}
		case "checked", "pressed":
			switch v {
			case "true":
				b.WriteString(" [" + p.Name + "]")
			case "mixed":
				b.WriteString(" [mixed]")
			}
		case "expanded":
			if v == "true" {
				b.WriteString(" [expanded]")
			} else if v == "false" {
				b.WriteString(" [collapsed]")
			}
		case "invalid":
			if v != "" && v != "false" {
				b.WriteString(" [invalid]")
			}
		}
	}
	return b.String()
}

func prop(n *cdp.AXNode, name string) string {
	for _, p := range n.Properties {
		if p.Name == name {
			return p.Value.String()
		}
	}
	return ""
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
func shorten(s string, n int) string {
	c := utf8.RuneCountInString(s)
	if c <= n {
		return s
	}
	keep := n * 2 / 3
	rs := []rune(s)
	return string(rs[:keep]) + fmt.Sprintf("…(+%d chars)", c-keep)
}

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
