package browser

import (
	"slices"
	"testing"
)

// Short tab ids are numbered in joining order, stable, never reused; the
// backend's own ids still resolve.
func TestTabIDs(t *testing.T) {
	var m tabIDs
	const a, b, c = "AAAA0000AAAA0000AAAA0000AAAA0000", "BBBB", "tab-17"
	for _, step := range []struct {
		backend, want string
	}{
		{a, "t1"}, {b, "t2"}, {a, "t1"}, {c, "t3"}, {b, "t2"},
	} {
		if got := m.assign(step.backend); got != step.want {
			t.Errorf("assign(%s) = %s, want %s", step.backend, got, step.want)
		}
	}
	for _, r := range []struct{ in, want string }{
		{"t1", a}, {"T2", b}, {" t3 ", c}, {a, a}, {"t4", "t4"}, {"nope", "nope"}, {"", ""},
	} {
		if got := m.resolve(r.in); got != r.want {
			t.Errorf("resolve(%q) = %q, want %q", r.in, got, r.want)
		}
	}
	if got := m.shortOf(c); got != "t3" {
		t.Errorf("shortOf(%s) = %q", c, got)
	}
	if got := m.shortOf("unknown"); got != "" {
		t.Errorf("shortOf(unknown) = %q, want empty", got)
	}
	// A tab that joins after others closed gets a new number.
	if got := m.assign("DDDD"); got != "t4" {
		t.Errorf("a later tab = %s, want t4", got)
	}
	ids := []string{"t10", "t2", "t1", "t9"}
	sortTabIDs(ids)
	if want := []string{"t1", "t2", "t9", "t10"}; !slices.Equal(ids, want) {
		t.Errorf("sortTabIDs = %v, want %v", ids, want)
	}
}

func TestMatchTabs(t *testing.T) {
	tabs := []TabView{
		{ID: "t1", Title: "Shop — Cart", URL: "https://shop.example/cart"},
		{ID: "t2", Title: "Docs: Getting started", URL: "https://docs.example/start"},
		{ID: "t3", Title: "Shop — Checkout", URL: "https://shop.example/checkout?step=2"},
	}
	for _, c := range []struct {
		match, want string
		code        Code
		suggestions int
	}{
		{match: "docs.example", want: "t2"},
		{match: "getting STARTED", want: "t2"}, // title, case-insensitive
		{match: "/checkout\\?step=\\d/", want: "t3"},
		{match: "/^shop — c/i", code: CodeAmbiguousTarget, suggestions: 2},
		{match: "shop.example", code: CodeAmbiguousTarget, suggestions: 2},
		{match: "nowhere", code: CodeTabNotFound, suggestions: 3},
		{match: "/(/", code: CodeInvalidArgument},
		{match: "  ", code: CodeInvalidArgument},
	} {
		got, err := matchTabs(tabs, c.match)
		if c.code == "" {
			if err != nil || got.ID != c.want {
				t.Errorf("match %q = %s, %v; want %s", c.match, got.ID, err, c.want)
			}
			continue
		}
		e, ok := AsError(err)
		if !ok || e.Code != c.code {
			t.Errorf("match %q: err %v, want %s", c.match, err, c.code)
			continue
		}
		if len(e.Suggestions) != c.suggestions {
			t.Errorf("match %q: suggestions %q, want %d", c.match, e.Suggestions, c.suggestions)
		}
	}
	// Candidates are named by short id, title and URL.
	_, err := matchTabs(tabs, "shop")
	if e, _ := AsError(err); e == nil || len(e.Suggestions) != 2 || e.Suggestions[0] != `t1 "Shop — Cart" https://shop.example/cart` {
		t.Errorf("ambiguous suggestions: %v", err)
	}
}
