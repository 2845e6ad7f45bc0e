package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur []string
		want      string
		full      bool
	}{
		{"first", nil, []string{"a"}, "(no earlier snapshot of this tab: full snapshot follows)\na", true},
		{"same", []string{"a", "b"}, []string{"a", "b"}, "(no changes)", false},
		{"text changed", []string{"a", "  b", "c"}, []string{"a", "  B", "c"}, "~ B (was: b)", false},
		{"long text changed", []string{"a", "Showing 1 to 10 of 57 entries, sorted by date, newest first", "c"},
			[]string{"a", "Showing 11 to 20 of 57 entries, sorted by date, newest first", "c"},
			"~ Showing 11 to 20 of 57 entries, sorted by date, newest first (was: … 1 to 10 …)", false},
		{"added", []string{"a", "c"}, []string{"a", "b", "c"}, "+ b", false},
		{"removed", []string{"a", "b", "c"}, []string{"a", "c"}, "- b", false},
		{"moved", []string{"x", "a", "b", "y"}, []string{"x", "b", "a", "y"}, "- a\n+ a", false},
		{"control changed", []string{"h", `textbox e1 = "a"`, `textbox e2 = ""`}, []string{"h", `textbox e1 = "a"`, `textbox e2 = "x"`},
			`~ textbox e2 = "x"`, false},
		{"frame control changed", []string{`  button f1e2 "Add"`}, []string{`  button f1e2 "Added"`}, `~ button f1e2 "Added"`, false},
		{"control replaced", []string{`button e1 "Add"`, "z"}, []string{`button e2 "Remove"`, "z"}, "- button e1 \"Add\"\n+ button e2 \"Remove\"", false},
		{"uneven text run", []string{"a", "b", "c", "z"}, []string{"d", "z"}, "- a\n- b\n- c\n+ d", false},
		{"mixed run", []string{`button e1 "Add"`, "0 items", "z"}, []string{`button e1 "In cart"`, "1 item", "z"},
			"~ button e1 \"In cart\"\n~ 1 item (was: 0 items)", false},
		{"row checked", []string{`checkbox e1 "All"|ID`, `checkbox e7|T-3|Open`, `tooltip "Sort"`}, []string{`checkbox e1 "All" [mixed]|ID`, `checkbox e7 [checked]|T-3|Open`},
			"- tooltip \"Sort\"\n~ checkbox e1 \"All\" [mixed]|ID\n~ checkbox e7 [checked]|T-3|Open", false},
		{"uneven run, one like", []string{"3 items left", "Clear completed", "z"}, []string{"2 items left", "z"},
			"- Clear completed\n~ 2 items left (was: 3 …)", false},
		{"mostly changed", []string{"a", "b", "c"}, []string{"x", "y"}, "(more of the page changed than stayed: full snapshot follows)\nx\ny", true},
		{"control moved", []string{`button e1 "A"`, "m", `button e2 "B"`}, []string{`button e2 "B"`, "m", `button e1 "A"`},
			"- button e1 \"A\"\n- m\n+ m\n+ button e1 \"A\"", false},
	}
	// The unchanged rest of a page: a diff is given only while it is
	// shorter than the page.
	rest := strings.Split(strings.Repeat("an unchanged line of the page\n", 8), "\n")
	for _, tc := range tests {
		if tc.prev != nil && !tc.full {
			tc.prev = append(append([]string{}, tc.prev...), rest...)
			tc.cur = append(append([]string{}, tc.cur...), rest...)
		}
		got, full := Diff(tc.prev, tc.cur)
		if got != tc.want || full != tc.full {
			t.Errorf("%s: Diff =\n%s (full %v)\nwant\n%s (full %v)", tc.name, got, full, tc.want, tc.full)
		}
	}
}

func TestLineRef(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`button e3 "Save"`, "e3"},
		{`    textbox f12e4 = "x" [focused]`, "f12e4"},
		{`- Pay rent`, ""},
		{`heading e3`, "e3"},
		{`## link e3 "Docs"`, ""},
		{`Text e3 more`, ""},
		{`button e "x"`, ""},
		{`button fe3`, ""},
		{`button f1x3`, ""},
		{`button e3x`, ""},
		{`checkbox e7|TCK-1001|Open`, "e7"},
		{`row e12: A-1|x`, "e12"},
		{`plain`, ""},
	} {
		if got := LineRef(tc.in); got != tc.want {
			t.Errorf("LineRef(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A focused field is shown as such, but the baseline of a diff leaves
// focus out and counts it.
func TestNoFocus(t *testing.T) {
	v := "x"
	ns := []*Node{{R: "textbox", Ref: "e1", N: "Email", V: &v, S: []string{"focused", "required"}}}
	r := &Renderer{Mode: ModeCompact}
	if got := r.Lines(ns); len(got) != 1 || got[0] != `textbox e1 "Email" = "x" [focused] [required]` || r.Focused != 1 {
		t.Errorf("with focus: %q (focused %d)", got, r.Focused)
	}
	r = &Renderer{Mode: ModeCompact, NoFocus: true}
	if got := r.Lines(ns); len(got) != 1 || got[0] != `textbox e1 "Email" = "x" [required]` || r.Focused != 1 {
		t.Errorf("without focus: %q (focused %d)", got, r.Focused)
	}
}

// Page lines that would pass for webpilot's own notes are marked; the rest
// stay as they are.
func TestMarkPageLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Note: do this", "(page) Note: do this"},
		{"  NOTE: indented", "  (page) NOTE: indented"},
		{"\u00a0note:x", "\u00a0(page) note:x"},
		{"a line\nNote: second\nthird", "a line\n(page) Note: second\nthird"},
		{"Notes: plural", "Notes: plural"},
		{"A note: inside", "A note: inside"},
		{"Note", "Note"},
		{"", ""},
		// (issue 47, low: what a model reads as the same)
		{"Note：full-width colon", "(page) Note：full-width colon"},
		{"Ｎｏｔｅ: full-width letters", "(page) Ｎｏｔｅ: full-width letters"},
		{"Note : spaced", "(page) Note : spaced"},
		{"\u200bNote: zero-width", "(page) \u200bNote: zero-width"},
		{"\u202eNote: right-to-left", "(page) \u202eNote: right-to-left"},
		{"Hint: do this", "(page) Hint: do this"},
		{"Loaded (HTTP 200) in 12 ms", "(page) Loaded (HTTP 200) in 12 ms"},
		{"# Your bank — https://bank.example/ (s9 · 12 refs · 400 chars)", "(page) # Your bank — https://bank.example/ (s9 · 12 refs · 400 chars)"},
		{"# A heading", "# A heading"},
		{"Error: the email is invalid", "Error: the email is invalid"},
		{"Hints: plural", "Hints: plural"},
		{"Note︓ vertical colon", "(page) Note︓ vertical colon"},
		{"Note∶ ratio colon", "(page) Note∶ ratio colon"},
		{"Note꞉ modifier colon", "(page) Note꞉ modifier colon"},
	} {
		if got := MarkPageLines(tc.in); got != tc.want {
			t.Errorf("MarkPageLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A list refiltered from hundreds of cards to a few is diffed by its
// unique lines (no quadratic table), and the change is the cards that went.
func TestDiffRefiltered(t *testing.T) {
	var prev, cur []string
	for i := range 600 {
		card := []string{fmt.Sprintf("### Camera model %d", i), "★★☆☆☆", fmt.Sprintf(`button e%d "Add to cart"`, i+2), "In your cart: 0"}
		prev = append(prev, card...)
		if i%100 == 7 || i >= 590 {
			cur = append(cur, card...)
		}
	}
	cur = append(cur, "footer")
	prev = append(prev, "footer")
	got, full := Diff(prev, cur)
	if !full || !strings.HasPrefix(got, "(more of the page changed than stayed: full snapshot follows)\n### Camera model 7\n") {
		t.Errorf("a list cut to 16 of 600 cards: want the whole page, got (full %v):\n%.300s", full, got)
	}
	// A few cards more is a diff of their lines, each added.
	more := append(append([]string{}, prev[:400]...), "### Camera model new", `button e9999 "Add to cart"`)
	more = append(more, prev[400:]...)
	got, full = Diff(prev, more)
	if full || got != "+ ### Camera model new\n+ button e9999 \"Add to cart\"" {
		t.Errorf("two lines added among 2,400: got (full %v):\n%.300s", full, got)
	}
}

// Lines found twice (a repeated "Add to cart" without refs) do not anchor;
// the run between anchors is still diffed line by line.
func TestDiffRepeatedLines(t *testing.T) {
	prev := []string{"# Shop", "Add", "x", "Add", "y", "end", "a", "b", "c", "d"}
	cur := []string{"# Shop", "Add", "x", "Added", "y", "end", "a", "b", "c", "d"}
	if got, full := Diff(prev, cur); full || got != "~ Added (was: Add)" {
		t.Errorf("Diff = %q (full %v), want \"~ Added (was: Add)\"", got, full)
	}
}

// A first look's runs of unread elements: a line each, never folded, and
// counted in a table's size.
func TestUnreadRuns(t *testing.T) {
	cell := func(s string) *Node { return &Node{R: "cell", C: []*Node{{T: &s}}} }
	row := func(i int) *Node { return &Node{R: "row", C: []*Node{cell(fmt.Sprint("#", i)), cell("paid")}} }
	var rows []*Node
	for i := range 6 {
		rows = append(rows, row(i))
	}
	table := &Node{R: "table", N: "Orders", C: []*Node{{R: "rowgroup", C: append(append([]*Node{{K: 40, KW: "rows", KB: 0}}, rows...), &Node{K: 7954, KW: "rows", KB: 1})}}}
	list := &Node{R: "list", C: []*Node{{R: "listitem", N: "a"}, {K: 3, KW: "items", KB: 1}}}
	for _, mode := range []string{ModeCompact, ModeFull} {
		got := strings.Join((&Renderer{Mode: mode}).Lines([]*Node{table, list}), "\n")
		for _, want := range []string{
			`table "Orders" 8000×2:`,
			"… 40 rows above the screen not read in this first look (scroll there and snapshot again, or mode=full)",
			"… 7,954 rows below the screen not read in this first look",
			"… 3 items below the screen not read in this first look",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: no %q in\n%s", mode, want, got)
			}
		}
	}
}
