package text

import (
	"slices"
	"testing"
)

func TestHead(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		head string
		more int
	}{
		{"", 3, "", 0},
		{"abc", 3, "abc", 0},
		{"abcdef", 3, "abc", 3},
		{"héllo", 2, "hé", 3},
		{"日本語テキスト", 3, "日本語", 4},
		{"abc", 0, "", 3},
		{"abc", -1, "", 3},
	} {
		head, more := Head(c.s, c.n)
		if head != c.head || more != c.more {
			t.Errorf("Head(%q, %d) = %q, %d; want %q, %d", c.s, c.n, head, more, c.head, c.more)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"ééééééé", 4, "ééé…"},
		{"日本語テキスト", 3, "日本…"},
		{"🙂🙂🙂🙂", 2, "🙂…"},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q; want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijkl", 9, "abcdef…(+6 chars)"},
		{"ééééééééé", 6, "éééé…(+5 chars)"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q; want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"navigate", "navigate", 0},
		{"navgate", "navigate", 1},
		{"flaw", "lawn", 2},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d; want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestWindow(t *testing.T) {
	body := "line one\nline two\nline three\nend"
	part, next := Window(body, 0, 20)
	if part != "line one\nline two" || next != 18 {
		t.Errorf("Window(0,20) = %q, %d", part, next)
	}
	part, next = Window(body, next, 100)
	if part != "line three\nend" || next != 0 {
		t.Errorf("Window(18,100) = %q, %d", part, next)
	}
	if part, next = Window(body, 1000, 10); part != "" || next != 0 {
		t.Errorf("window past the end = %q, %d", part, next)
	}
	// Multi-byte text is cut in runes, never inside a character.
	part, next = Window("日本語のテキスト", 0, 3)
	if part != "日本語" || next != 3 {
		t.Errorf("window in runes = %q, %d", part, next)
	}
}

// Nearest is the one "did you mean" ranker: names holding s (or held by
// it) and names a few edits away, letter case aside, nearest first, ties
// by name, at most n.
func TestNearest(t *testing.T) {
	for _, c := range []struct {
		s     string
		names []string
		n     int
		want  []string
	}{
		{"clik", []string{"click", "dblclick", "hover", "fill"}, 0, []string{"click"}},
		{"interactiv", []string{"full", "compact", "interactive"}, 0, []string{"interactive"}},
		{"max_char", []string{"max_chars", "mode", "offset"}, 0, []string{"max_chars"}},
		{"txt", []string{"text", "url", "selector", "title"}, 0, []string{"text"}},
		{"Selectr", []string{"selector", "select"}, 0, []string{"select", "selector"}}, // both one away: by name
		{"qurey", []string{"query", "quota", "details"}, 0, []string{"query"}},
		{"zhihu", []string{"zhihu-daily", "bilibili", "zhihu"}, 0, []string{"zhihu", "zhihu-daily"}},
		{"hakernews", []string{"hackernews", "reddit"}, 0, []string{"hackernews"}},
		{"a", []string{"ab", "b", "cde"}, 1, []string{"ab"}},
		{"zzzz", []string{"click", "fill"}, 0, []string{}},
		{"", []string{"click"}, 0, nil},
		{"internationalisation", []string{"internationalization", "international"}, 2, []string{"international", "internationalization"}},
	} {
		got := Nearest(c.s, c.names, c.n)
		if len(got) != len(c.want) || (len(got) > 0 && !slices.Equal(got, c.want)) {
			t.Errorf("Nearest(%q, %q, %d) = %q, want %q", c.s, c.names, c.n, got, c.want)
		}
	}
}
