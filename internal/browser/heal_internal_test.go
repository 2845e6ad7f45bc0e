package browser

import (
	"math"
	"strings"
	"testing"
)

var searchBtn = Fingerprint{Tag: "button", Role: "button", Name: "Search", ID: "search-btn", TestID: "search-submit", Type: "submit",
	Context: "Search products Min price Search Clear filters"}

var addBtn = Fingerprint{Tag: "button", Role: "button", Name: "Add to cart", Type: "submit", Context: "Blue Kettle €25 Add to cart", Similar: 2}

func TestSimilarity(t *testing.T) {
	with := func(f func(*Fingerprint)) Fingerprint {
		fp := searchBtn
		f(&fp)
		return fp
	}
	for _, c := range []struct {
		name     string
		a, b     Fingerprint
		min, max float64 // the score's range
		verifies bool
	}{
		{"same", searchBtn, searchBtn, 1, 1, true},
		{"context moved", searchBtn, with(func(f *Fingerprint) { f.Context = "something else entirely" }), 0.85, 0.9, true},
		{"id renamed", searchBtn, with(func(f *Fingerprint) { f.ID = "submit-button" }), 0.83, 0.85, true},
		{"ids and test id dropped", searchBtn, with(func(f *Fingerprint) { f.ID, f.TestID = "", "" }), 0.67, 0.69, true},
		{"reworded", searchBtn, with(func(f *Fingerprint) { f.Name, f.Context = "Find", "Search products Min price Find Reset" }), 0.6, 0.75, true},
		{"reworded, ids gone", searchBtn, with(func(f *Fingerprint) { f.Name, f.ID, f.TestID = "Find", "", "" }), 0.4, 0.5, false},
		{"another button", searchBtn, Fingerprint{Tag: "button", Role: "button", Name: "Clear filters", ID: "clear-btn", Type: "button", Context: searchBtn.Context}, 0.3, 0.4, false},
		{"link named alike", searchBtn, Fingerprint{Tag: "a", Role: "link", Name: "Search", Href: "/search"}, 0, 0, false},
		{"div turned button", Fingerprint{Tag: "div", Role: "button", Name: "Go"}, Fingerprint{Tag: "button", Role: "button", Name: "Go"}, 0.88, 0.9, true},
		{"the same button of another card", addBtn, func() Fingerprint { f := addBtn; f.Context = "Red Mug €8 Add to cart"; return f }(), 0.85, 0.9, false},
		{"the card reworded a little", addBtn, func() Fingerprint { f := addBtn; f.Context = "Blue Kettle (large) €25 Add to cart"; return f }(), 0.9, 0.99, true},
		{"a link whose target stays", Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle", Href: "/d?id=42"}, Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle (large)", Href: "/d?id=42"}, 0.89, 0.91, true},
		{"a link whose target changed", Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle", Href: "/d?id=42"}, Fingerprint{Tag: "a", Role: "link", Name: "Blue Kettle", Href: "/d?id=43"}, 0.84, 0.86, true},
	} {
		got := Similarity(c.a, c.b)
		if got < c.min-1e-9 || got > c.max+1e-9 || math.IsNaN(got) {
			t.Errorf("%s: similarity %.3f, want %.2f..%.2f", c.name, got, c.min, c.max)
		}
		if v := verifies(c.a, c.b, got); v != c.verifies {
			t.Errorf("%s: verifies %v (similarity %.3f), want %v", c.name, v, got, c.verifies)
		}
	}
}

func TestWordSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"Add to cart", "Add to cart", 1},
		{"Add to cart", "add to CART!", 1},
		{"Add to cart", "Add to basket", 0.5},
		{"Search", "", 0},
		{"Search", "Find", 0},
	} {
		if got := wordSimilarity(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("wordSimilarity(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// decide on answers as the relocation script gives them.
func TestDecide(t *testing.T) {
	el := func(k int, fp Fingerprint) relocEl { return relocEl{K: k, FP: fp, Sel: "#e" + string(rune('0'+k))} }
	renamed := searchBtn
	renamed.ID = "submit-button"
	reworded := searchBtn
	reworded.Name = "Find"
	twin := Fingerprint{Tag: "button", Role: "button", Name: "Search", Type: "submit", Context: searchBtn.Context}
	other := addBtn
	other.Context = "Red Mug €8 Add to cart"
	third := addBtn
	third.Context = "Green Teapot €19 Add to cart"
	for _, c := range []struct {
		name   string
		stored Fingerprint
		a      relocAnswer
		level  string // or the error code
		via    string
		k      int
		pos    bool // the primary locator picks by place
	}{
		{"positional primary finds another item of the same shape", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, Fingerprint{Tag: "button", Role: "button", Name: "Remove", Type: "submit", Context: "Steel Kettle €31"})}}, LevelStable, "primary", 1, true},
		{"the same item by a primary that does not pick by place", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", What: "selector .card button", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, Fingerprint{Tag: "button", Role: "button", Name: "Remove", Type: "submit", Context: "Steel Kettle €31"})}}, string(CodeTargetNotFound), "", 0, false},
		{"positional primary gone, the structural candidate finds the item in its place", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 0}, {Via: "text", N: 0}, {Via: "structural", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, Fingerprint{Tag: "button", Role: "button", Name: "Remove", Type: "submit", Context: "Steel Kettle €31"})}}, LevelHealed, "structural", 1, true},
		{"positional primary finds another kind of element", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", What: "selector li:first-child > *", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, Fingerprint{Tag: "a", Role: "link", Name: "Steel Kettle"})}}, string(CodeTargetNotFound), "", 0, true},
		{"primary, same", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, searchBtn)}}, LevelExact, "primary", 1, false},
		{"primary, reworded", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, reworded)}}, LevelStable, "primary", 1, false},
		{"primary finds another id: the test id decides", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}, {Via: "id", N: 0}, {Via: "attr", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, renamed)}}, LevelHealed, "attr", 1, false},
		{"primary verifies but differs, nothing else finds it", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}, {Via: "id", N: 0}},
			Els:   []relocEl{el(1, renamed)}}, LevelHealed, "primary", 1, false},
		{"id, same fingerprint", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 0}, {Via: "id", N: 1, Ks: []int{2}}},
			Els:   []relocEl{el(1, twin), el(2, searchBtn)}}, LevelReidentified, "id", 2, false},
		{"a candidate matching two is skipped", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "text", N: 2, Ks: []int{1, 2}}, {Via: "attr", N: 1, Ks: []int{2}}},
			Els:   []relocEl{el(1, twin), el(2, renamed)}}, LevelHealed, "attr", 2, false},
		{"twins: ambiguous", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 0}, {Via: "id", N: 0}, {Via: "text", N: 2, Ks: []int{1, 2}}, {Via: "structural", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, twin), el(2, twin)}}, string(CodeAmbiguousTarget), "", 0, false},
		{"a unique match with a look-alike as similar: ambiguous", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "structural", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, twin), el(2, twin)}}, string(CodeAmbiguousTarget), "", 0, false},
		{"position among cards, told apart by context", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "text", N: 3, Ks: []int{1, 2, 3}}, {Via: "position", N: 1, Ks: []int{2}}},
			Els:   []relocEl{el(1, other), el(2, addBtn), el(3, third)}}, LevelReidentified, "position", 2, false},
		{"position lands on another card", addBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", N: 1, Ks: []int{1}}, {Via: "text", N: 2, Ks: []int{1, 3}}, {Via: "position", N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, other), el(3, third)}}, string(CodeAmbiguousTarget), "", 0, false},
		{"nothing verifies", searchBtn, relocAnswer{
			Tries: []relocTry{{Via: "primary", What: "selector #search-btn", N: 0}, {Via: "role", What: `role button "Search"`, N: 1, Ks: []int{1}}},
			Els:   []relocEl{el(1, Fingerprint{Tag: "button", Role: "button", Name: "Search the web", Type: "button"})}}, string(CodeTargetNotFound), "", 0, false},
		{"nothing at all", searchBtn, relocAnswer{}, string(CodeTargetNotFound), "", 0, false},
	} {
		d, err := decide(c.stored, c.a, c.pos)
		switch {
		case err != nil:
			if string(err.Code) != c.level {
				t.Errorf("%s: %v, want %s via %s", c.name, err, c.level, c.via)
			}
			if err.Code == CodeTargetNotFound && len(c.a.Tries) > 0 && !strings.Contains(err.Hint, c.a.Tries[0].What) {
				t.Errorf("%s: hint %q does not say what was tried", c.name, err.Hint)
			}
		case d.level != c.level || d.via != c.via || d.el.K != c.k:
			t.Errorf("%s: element %d %s via %s, want %d %s via %s", c.name, d.el.K, d.level, d.via, c.k, c.level, c.via)
		}
	}
}
