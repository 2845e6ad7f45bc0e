package browser

import (
	"net/url"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// nopBackend satisfies backend.Backend for tests that never reach a browser.
type nopBackend struct{ backend.Backend }

func TestNormalizeURL(t *testing.T) {
	m := NewManager(Options{Backend: nopBackend{}, BlockedOrigins: []string{"*.ads.test"}})
	files := NewManager(Options{Backend: nopBackend{}, AllowedOrigins: []string{"file://", "example.com"}})
	tests := []struct {
		m    *Manager
		in   string
		want string
		code Code
	}{
		{m, "https://example.com/a?b=1#c", "https://example.com/a?b=1#c", ""},
		{m, "example.com", "https://example.com", ""},
		{m, "example.com/path?q=1", "https://example.com/path?q=1", ""},
		{m, "localhost:8080/x", "http://localhost:8080/x", ""},
		{m, "127.0.0.1:3000", "http://127.0.0.1:3000", ""},
		{m, "  https://example.com  ", "https://example.com", ""},
		{m, "about:blank", "about:blank", ""},
		{m, "data:text/html,<p>hi</p>", "data:text/html,<p>hi</p>", ""},
		{m, "", "", CodeInvalidArgument},
		{m, "javascript:alert(1)", "", CodeInvalidArgument},
		{m, "JavaScript:alert(1)", "", CodeInvalidArgument},
		{m, "file:///etc/passwd", "", CodeInvalidArgument},
		{m, "chrome://settings", "", CodeInvalidArgument},
		{m, "not a url at all", "", CodeInvalidArgument},
		{m, "https://tracker.ads.test/x", "", CodeOriginBlocked},
		{m, "https://ads.test/x", "", CodeOriginBlocked},
		{files, "file:///tmp/x.html", "file:///tmp/x.html", ""},
		{files, "https://example.com/", "https://example.com/", ""},
		{files, "https://other.test/", "", CodeOriginBlocked},
	}
	for _, tc := range tests {
		got, err := tc.m.NormalizeURL(tc.in)
		if tc.code != "" {
			be, ok := AsError(err)
			if !ok || be.Code != tc.code || be.Hint == "" {
				t.Errorf("NormalizeURL(%q) = %q, %v; want code %s with a hint", tc.in, got, err, tc.code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestOriginMatches(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		{"example.com", "https://example.com/x", true},
		{"example.com", "http://example.com:8080/", true},
		{"example.com", "https://www.example.com/", false},
		{"*.example.com", "https://www.example.com/", true},
		{"*.example.com", "https://example.com/", true},
		{"*.example.com", "https://badexample.com/", false},
		{"https://example.com", "https://example.com/a", true},
		{"https://example.com", "http://example.com/a", false},
		{"http://localhost:3000", "http://localhost:3000/", true},
		{"http://localhost:3000", "http://localhost:4000/", false},
		{"EXAMPLE.com", "https://example.COM/", true},
	}
	for _, tc := range tests {
		u, _ := url.Parse(tc.url)
		if got := originMatches(tc.pattern, u); got != tc.want {
			t.Errorf("originMatches(%q, %q) = %v, want %v", tc.pattern, tc.url, got, tc.want)
		}
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		in   string
		key  string
		mods int64
		text string
		bad  bool
	}{
		{in: "Enter", key: "Enter", text: "\r"},
		{in: "enter", key: "Enter", text: "\r"},
		{in: "Tab", key: "Tab"},
		{in: "a", key: "a", text: "a"},
		{in: "Control+A", key: "A", mods: modCtrl, text: "A"},
		{in: "Control+Shift+R", key: "R", mods: modCtrl | modShift, text: "R"},
		{in: "Shift+a", key: "A", mods: modShift, text: "A"},
		{in: "Meta+ArrowLeft", key: "ArrowLeft", mods: modMeta},
		{in: "F5", key: "F5"},
		{in: "Control++", key: "+", mods: modCtrl, text: "+"},
		{in: "+", key: "+", text: "+"},
		{in: "Hyper+Q", bad: true},
		{in: "Blorp", bad: true},
		{in: "日", bad: true},
	}
	for _, tc := range tests {
		k, mods, err := parseKey(tc.in)
		if tc.bad {
			if be, ok := AsError(err); !ok || be.Code != CodeInvalidArgument {
				t.Errorf("parseKey(%q) = %+v, %v; want INVALID_ARGUMENT", tc.in, k, err)
			}
			continue
		}
		if err != nil || k.key != tc.key || mods != tc.mods || k.text != tc.text {
			t.Errorf("parseKey(%q) = key %q mods %d text %q, %v; want %q %d %q", tc.in, k.key, mods, k.text, err, tc.key, tc.mods, tc.text)
		}
	}
}

func TestDiffLines(t *testing.T) {
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
		if got := diffLines(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: diffLines =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func TestWindow(t *testing.T) {
	body := "line one\nline two\nline three\nend"
	part, next := window(body, 0, 20)
	if part != "line one\nline two" || next != 18 {
		t.Errorf("window(0,20) = %q, %d", part, next)
	}
	part, next = window(body, next, 100)
	if part != "line three\nend" || next != 0 {
		t.Errorf("window(18,100) = %q, %d", part, next)
	}
	if part, next = window(body, 1000, 10); part != "" || next != 0 {
		t.Errorf("window past the end = %q, %d", part, next)
	}
	// Multi-byte text is cut in runes, never inside a character.
	part, next = window("日本語のテキスト", 0, 3)
	if part != "日本語" || next != 3 {
		t.Errorf("window in runes = %q, %d", part, next)
	}
}

func TestRefTable(t *testing.T) {
	rt := newRefTable()
	rt.document("L1")
	a := rt.refFor(10, "button", "Go")
	b := rt.refFor(11, "link", "Home")
	if a != "e1" || b != "e2" || rt.refFor(10, "button", "Go!") != "e1" {
		t.Fatalf("refs = %s %s", a, b)
	}
	if e, err := rt.lookup("e1"); err != nil || e.backendID != 10 || e.name != "Go!" {
		t.Errorf("lookup e1 = %+v, %v", e, err)
	}
	rt.document("L2") // a new document: old refs are stale, numbers go on
	if _, err := rt.lookup("e1"); !hasCode(err, CodeStaleRef) {
		t.Errorf("old ref after navigation: %v", err)
	}
	if c := rt.refFor(10, "button", "Go"); c != "e3" {
		t.Errorf("new document reuses numbers: %s", c)
	}
	if _, err := rt.lookup("e9"); !hasCode(err, CodeTargetNotFound) {
		t.Errorf("never-issued ref: %v", err)
	}
	for _, bad := range []string{"x1", "e", "e-1", "e0", ""} {
		if _, err := rt.lookup(bad); !hasCode(err, CodeInvalidArgument) {
			t.Errorf("lookup(%q) = %v", bad, err)
		}
	}
}

func hasCode(err error, c Code) bool {
	be, ok := AsError(err)
	return ok && be.Code == c
}

func TestRenderHelpers(t *testing.T) {
	if got := quote(`say "hi" \ bye`); got != `"say \"hi\" \\ bye"` {
		t.Errorf("quote = %s", got)
	}
	if got := clean("  a \n\t b  "); got != "a b" {
		t.Errorf("clean = %q", got)
	}
	if got := shorten(strings.Repeat("x", 400), 300); !strings.HasSuffix(got, "…(+200 chars)") || len([]rune(got)) != 200+len([]rune("…(+200 chars)")) {
		t.Errorf("shorten = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %s", n, got)
		}
	}
	if got := joinText("Hello", ", world"); got != "Hello, world" {
		t.Errorf("joinText = %q", got)
	}
	var nilValue *cdp.AXValue
	if nilValue.String() != "" {
		t.Error("nil AXValue is not empty")
	}
}
