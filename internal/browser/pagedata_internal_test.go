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

// URLs in text read from a page lose their credentials, the rest of the
// text as it was.
func TestRedactURLsIn(t *testing.T) {
	for in, want := range map[string]string{
		"see [reset](/reset?token=abc123&x=1) now":            "see [reset](/reset?token=<redacted>&x=1) now",
		"go to https://ex.com/a?api_key=K1&page=2, then back": "go to https://ex.com/a?api_key=<redacted>&page=2, then back",
		`<a href="https://u:pw@ex.com/p?session=S9">x</a>`:    `<a href="https://u:<redacted>@ex.com/p?session=<redacted>">x</a>`,
		"plain text, no links":                                "plain text, no links",
		"https://ex.com/?q=kettle&page=3":                     "https://ex.com/?q=kettle&page=3",
	} {
		if got := redactURLsIn(in); got != want {
			t.Errorf("redactURLsIn(%q) = %q, want %q", in, got, want)
		}
	}
}
