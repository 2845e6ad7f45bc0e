package browser

import "testing"

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
		if got := markPageLines(tc.in); got != tc.want {
			t.Errorf("markPageLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
