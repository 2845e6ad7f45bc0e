package snapshot

import (
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur []string
		want      string
	}{
		{"first", nil, []string{"a"}, "(no earlier snapshot of this tab: full snapshot follows)\na"},
		{"same", []string{"a", "b"}, []string{"a", "b"}, "(no changes; 2 lines)"},
		{"changed", []string{"a", "  b", "c"}, []string{"a", "  B", "c"}, "- b\n+ B\n(2 unchanged lines not shown)"},
		{"added", []string{"a", "c"}, []string{"a", "b", "c"}, "+ b\n(2 unchanged lines not shown)"},
		{"removed", []string{"a", "b", "c"}, []string{"a", "c"}, "- b\n(2 unchanged lines not shown)"},
		{"moved", []string{"x", "a", "b", "y"}, []string{"x", "b", "a", "y"}, "- a\n+ a\n(3 unchanged lines not shown)"},
	}
	for _, tc := range tests {
		if got := Diff(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: diffLines =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
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
	} {
		if got := MarkPageLines(tc.in); got != tc.want {
			t.Errorf("MarkPageLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
