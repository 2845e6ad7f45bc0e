package browser_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

func (e *env) describe(target browser.Locator) *browser.Candidates {
	e.t.Helper()
	var c *browser.Candidates
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		c, err = h.Heal().Describe(ctx, target)
		return err
	})
	if err != nil {
		e.t.Fatalf("describe %s: %v", target.Describe(), err)
	}
	return c
}

func (e *env) relocate(primary browser.Locator, c *browser.Candidates) (*browser.Relocation, error) {
	var rel *browser.Relocation
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		rel, err = h.Heal().Relocate(ctx, primary, c)
		return err
	})
	return rel, err
}

// probeOf is the data-probe attribute of the one element sel matches now
// ("" when it matches none or several).
func (e *env) probeOf(sel string) string {
	e.t.Helper()
	js, _ := json.Marshal(sel)
	return e.eval(`(() => { const m = document.querySelectorAll(` + string(js) + `); return m.length === 1 ? m[0].dataset.probe || "(no probe)" : m.length + " matches" })()`)
}

// Elements described on the shop's search page are found again on three
// changed versions of it, each time through another kind of candidate,
// and on the unchanged page through the step's own locator.
func TestRelocateHeals(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/recipes/search.html")
	type target struct {
		primary browser.Locator
		probe   string
	}
	targets := map[string]target{
		"submit":    {browser.Locator{Selector: "#search-btn"}, "submit"},
		"submitTxt": {browser.Locator{Text: "Search", Exact: true}, "submit"},
		"clear":     {browser.Locator{Selector: "#clear-btn"}, "clear"},
		"minPrice":  {browser.Locator{Selector: "#min-price"}, "min-price"},
		"query":     {browser.Locator{Selector: "form.search-form input.search-input"}, "query"},
		"add42":     {browser.Locator{Selector: "ul.results > li:nth-child(2) > button.add"}, "add-42"},
		"link42":    {browser.Locator{Role: "link", Name: "Blue Kettle", Exact: true}, "link-42"},
	}
	cands := map[string]*browser.Candidates{}
	for name, tg := range targets {
		cands[name] = e.describe(tg.primary)
	}
	if c := cands["submit"]; c.Fingerprint.Tag != "button" || c.Fingerprint.Role != "button" || c.Fingerprint.Name != "Search" ||
		c.Fingerprint.ID != "search-btn" || c.Fingerprint.TestID != "search-submit" || c.Fingerprint.Type != "submit" || c.Text != "Search" ||
		len(c.CSS) < 2 || c.CSS[0] != (browser.CSSCandidate{Kind: "id", Selector: "#search-btn"}) || c.CSS[1] != (browser.CSSCandidate{Kind: "attr", Selector: `[data-testid="search-submit"]`}) {
		t.Errorf("submit button's candidates: %+v", c)
	}
	if c := cands["add42"]; c.Position == nil || c.Position.Index != 1 || c.Position.Count != 3 || c.Fingerprint.Similar != 2 {
		t.Errorf("second add-to-cart button's candidates: %+v (position %+v)", c, c.Position)
	}
	if c := cands["link42"]; c.Fingerprint.Href != "/recipes/detail.html?id=42" {
		t.Errorf("link's href: %+v", c.Fingerprint)
	}

	cases := []struct {
		page, target string
		level, via   string
	}{
		{"search.html", "submit", "exact", "primary"},
		{"search.html", "add42", "exact", "primary"},
		{"search.html", "link42", "exact", "primary"},
		// ids renamed: the test id, the text, the role and name find them
		{"search-ids.html", "submit", "healed", "attr"},
		{"search-ids.html", "clear", "healed", "text"},
		{"search-ids.html", "minPrice", "healed", "role"},
		// a wrapper added and classes changed: the id, the position
		{"search-wrapped.html", "query", "reidentified", "id"},
		{"search-wrapped.html", "add42", "reidentified", "position"},
		// labels reworded: the step's own selector (only the name
		// changed), the id, the link's target
		{"search-reworded.html", "add42", "stable", "primary"},
		{"search-reworded.html", "submitTxt", "healed", "id"},
		{"search-reworded.html", "link42", "healed", "attr"},
	}
	for _, tc := range cases {
		e.navigate("/recipes/" + tc.page)
		tg := targets[tc.target]
		start := time.Now()
		rel, err := e.relocate(tg.primary, cands[tc.target])
		took := time.Since(start)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.target, tc.page, err)
			continue
		}
		t.Logf("%s on %s: %s via %s, score %.2f, %s, ref %s (%v)", tc.target, tc.page, rel.Level, rel.Via, rel.Score, rel.Locator.Describe(), rel.Ref, took)
		if rel.Level != tc.level || rel.Via != tc.via {
			t.Errorf("%s on %s: %s via %s, want %s via %s", tc.target, tc.page, rel.Level, rel.Via, tc.level, tc.via)
		}
		if rel.Locator.Selector == "" {
			t.Errorf("%s on %s: locator %+v, want a selector", tc.target, tc.page, rel.Locator)
			continue
		}
		if got := e.probeOf(rel.Locator.Selector); got != tg.probe {
			t.Errorf("%s on %s: %s is %q, want %q", tc.target, tc.page, rel.Locator.Selector, got, tg.probe)
		}
		// The locator and the ref both work for actions.
		for _, loc := range []browser.Locator{rel.Locator, {Ref: rel.Ref}} {
			if _, err := e.act(browser.Action{Kind: "focus", Target: loc}); err != nil {
				t.Errorf("%s on %s: focus %s: %v", tc.target, tc.page, loc.Describe(), err)
			}
		}
	}
}

// A change that leaves two elements fitting the recorded one equally is
// AMBIGUOUS_TARGET, never one of them; an element that is gone is
// TARGET_NOT_FOUND naming what was tried.
func TestRelocateRefusesAmbiguity(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/recipes/search.html")
	c := e.describe(browser.Locator{Selector: "#search-btn"})
	e.navigate("/recipes/search-twins.html")
	for _, primary := range []browser.Locator{{Selector: "#search-btn"}, {Text: "Search", Exact: true}, {Role: "button", Name: "Search"}} {
		rel, err := e.relocate(primary, c)
		we, _ := browser.AsError(err)
		if we == nil || we.Code != browser.CodeAmbiguousTarget {
			t.Errorf("primary %s: %+v, %v; want AMBIGUOUS_TARGET", primary.Describe(), rel, err)
			continue
		}
		if len(we.Suggestions) < 2 || !strings.Contains(strings.Join(we.Suggestions, "\n"), `"Search"`) {
			t.Errorf("primary %s: suggestions %q, want the two buttons", primary.Describe(), we.Suggestions)
		}
	}

	// The results reordered: the step's selector now lands on another
	// card's "Add to cart", which its context tells apart; the other
	// candidates match all three or the wrong one.
	e.navigate("/recipes/search.html")
	add := browser.Locator{Selector: "ul.results > li:nth-child(2) > button.add"}
	c = e.describe(add)
	e.eval(`(() => { const ul = document.querySelector("ul.results"); ul.append(ul.children[1]); return "ok" })()`)
	rel, err := e.relocate(add, c)
	if we, _ := browser.AsError(err); we == nil || we.Code != browser.CodeAmbiguousTarget {
		t.Errorf("reordered results: %+v, %v; want AMBIGUOUS_TARGET", rel, err)
	}

	// The clear button removed: nothing verifies.
	e.navigate("/recipes/search.html")
	clear := e.describe(browser.Locator{Selector: "#clear-btn"})
	e.eval(`document.getElementById("clear-btn").remove(), "ok"`)
	_, err = e.relocate(browser.Locator{Selector: "#clear-btn"}, clear)
	we, _ := browser.AsError(err)
	if we == nil || we.Code != browser.CodeTargetNotFound || !strings.Contains(we.Hint, "#clear-btn") || !strings.Contains(we.Hint, `text "Clear filters"`) {
		t.Errorf("removed element: %v (hint %q), want TARGET_NOT_FOUND naming what was tried", err, func() string {
			if we != nil {
				return we.Hint
			}
			return ""
		}())
	}
}

// Describe and Relocate on a larger page stay one page call each: their
// times are logged (no threshold).
func TestRelocateTimings(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/recipes/search.html")
	// 400 more results, so that the look-alikes are many.
	e.eval(`(() => { const ul = document.querySelector("ul.results"); for (let i = 0; i < 400; i++) { const li = document.createElement("li"); li.className = "result"; li.innerHTML = '<a class="result-title" href="detail.html?id=' + (100 + i) + '">Item ' + i + '</a> <button class="add">Add to cart</button>'; ul.append(li) } return "ok" })()`)
	primary := browser.Locator{Selector: "ul.results > li:nth-child(2) > button.add"}
	var c *browser.Candidates
	for _, loc := range []browser.Locator{primary, primary, {Selector: "#search-btn"}, {Role: "link", Name: "Item 7", Exact: true}} {
		start := time.Now()
		c = e.describe(loc)
		t.Logf("describe %s: %v", loc.Describe(), time.Since(start))
	}
	c = e.describe(primary)
	start := time.Now()
	for i := 0; i < 3; i++ {
		start = time.Now()
		rel, err := e.relocate(primary, c)
		if err != nil || rel.Level != "exact" {
			t.Fatalf("relocate: %+v, %v", rel, err)
		}
		t.Logf("relocate (primary): %v", time.Since(start))
	}
	// The list renamed and the button wrapped: only its position finds it.
	e.eval(`(() => { document.querySelector("ul.results").className = "items"; const b = document.querySelectorAll("ul.items > li")[1].querySelector("button"); const s = document.createElement("span"); b.replaceWith(s); s.append(b); return "ok" })()`)
	start = time.Now()
	rel, err := e.relocate(primary, c)
	if err != nil || rel.Via != "position" || e.probeOf(rel.Locator.Selector) != "add-42" {
		t.Fatalf("relocate by position: %+v, %v", rel, err)
	}
	t.Logf("relocate (position, past every other candidate): %v", time.Since(start))
}

// focusedProbe focuses the element loc names and reads the data-probe of
// the focused element (through open shadow roots).
func (e *env) focusedProbe(loc browser.Locator) string {
	e.t.Helper()
	if _, err := e.act(browser.Action{Kind: "focus", Target: loc}); err != nil {
		e.t.Errorf("focus %s: %v", loc.Describe(), err)
		return ""
	}
	return e.eval(`(() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return (a && a.dataset.probe) || "(none)" })()`)
}

// The fields of a product page, one of them in a shadow root, found again
// after their names, labels and wrappers changed.
func TestRelocateFields(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/recipes/detail.html")
	targets := map[string]struct {
		primary browser.Locator
		probe   string
	}{
		"qty":    {browser.Locator{Selector: "input[name=qty]"}, "qty"},
		"note":   {browser.Locator{Role: "textbox", Name: "Gift note"}, "note"},
		"buy":    {browser.Locator{Selector: "form.buy button"}, "buy"},
		"review": {browser.Locator{Role: "button", Name: "Write a review"}, "review"},
	}
	cands := map[string]*browser.Candidates{}
	for name, tg := range targets {
		cands[name] = e.describe(tg.primary)
	}
	if c := cands["review"]; len(c.CSS) == 0 || c.CSS[0].Selector != "#review-btn" {
		t.Errorf("the button in a shadow root: candidates %+v", c)
	}
	for _, tc := range []struct {
		page, target string
		level, via   string
		ref          bool // the locator is a ref (no selector reaches the element)
	}{
		{"detail.html", "qty", "exact", "primary", false},
		{"detail.html", "review", "exact", "primary", true},
		{"detail-changed.html", "qty", "healed", "role", false},
		{"detail-changed.html", "note", "healed", "attr", false},
		{"detail-changed.html", "buy", "reidentified", "text", false},
		{"detail-changed.html", "review", "healed", "id", true},
	} {
		e.navigate("/recipes/" + tc.page)
		tg := targets[tc.target]
		rel, err := e.relocate(tg.primary, cands[tc.target])
		if err != nil {
			t.Errorf("%s on %s: %v", tc.target, tc.page, err)
			continue
		}
		t.Logf("%s on %s: %s via %s, score %.2f, %s", tc.target, tc.page, rel.Level, rel.Via, rel.Score, rel.Locator.Describe())
		if rel.Level != tc.level || rel.Via != tc.via {
			t.Errorf("%s on %s: %s via %s, want %s via %s", tc.target, tc.page, rel.Level, rel.Via, tc.level, tc.via)
		}
		if (rel.Locator.Ref != "") != tc.ref {
			t.Errorf("%s on %s: locator %+v", tc.target, tc.page, rel.Locator)
		}
		if got := e.focusedProbe(rel.Locator); got != tg.probe {
			t.Errorf("%s on %s: %s is %q, want %q", tc.target, tc.page, rel.Locator.Describe(), got, tg.probe)
		}
	}
}

// An element described in a frame (the locator's frame argument) is
// looked for in that frame again, and its new locator keeps the frame.
func TestRelocateInFrame(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/frame-buttons.html")
	c := e.describe(browser.Locator{Text: "Pay here", Frame: "#same"})
	if c.Frame != "#same" || c.Fingerprint.ID != "pay" {
		t.Fatalf("candidates %+v", c)
	}
	rel, err := e.relocate(browser.Locator{Text: "Pay now", Frame: "#same"}, c)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Level != "reidentified" || rel.Via != "id" || rel.Locator.Selector != "#pay" || rel.Locator.Frame != "#same" {
		t.Errorf("relocation %+v", rel)
	}
	// Found by its text alone (in the frame): the frame is named by a
	// selector of its iframe.
	if c2 := e.describe(browser.Locator{Text: "Pay here"}); c2.Frame != "#same" || c2.Fingerprint != c.Fingerprint {
		t.Errorf("described without a frame: %+v, want frame #same and %+v", c2, c.Fingerprint)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: rel.Locator}); err != nil {
		t.Fatalf("click %s: %v", rel.Locator.Describe(), err)
	}
	if got := e.eval(`document.getElementById("same").contentDocument.getElementById("status").textContent`); got != "paid: Pay here" {
		t.Errorf("the frame's status %q after the click", got)
	}
}

// A step's element that is plainly gone (its own locator, id and
// attributes match nothing in the document) is healed through the other
// candidates at once; one that is there but not shown yet (a modal fading
// in) is waited for, and a shown look-alike is not taken meanwhile. The
// time of each relocation is logged (no threshold): before healing only
// took a look-alike after the 1.5 s not-found wait.
func TestRelocateWaitsOnlyForPending(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/recipes/search.html")
	targets := []struct {
		name    string
		primary browser.Locator
		level   string
		via     string
	}{
		{"submit", browser.Locator{Selector: "#search-btn"}, "healed", "attr"},
		{"clear", browser.Locator{Selector: "#clear-btn"}, "healed", "text"},
		{"minPrice", browser.Locator{Selector: "#min-price"}, "healed", "role"},
	}
	cands := map[string]*browser.Candidates{}
	for _, tg := range targets {
		cands[tg.name] = e.describe(tg.primary)
	}
	e.navigate("/recipes/search-ids.html")
	const rounds = 5
	for _, tg := range targets {
		var total, worst time.Duration
		for range rounds {
			start := time.Now()
			rel, err := e.relocate(tg.primary, cands[tg.name])
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
			if rel.Level != tg.level || rel.Via != tg.via {
				t.Fatalf("%s: %s via %s, want %s via %s", tg.name, rel.Level, rel.Via, tg.level, tg.via)
			}
			total += took
			worst = max(worst, took)
		}
		t.Logf("heal %s (%s gone): mean %v, worst %v over %d", tg.name, tg.primary.Describe(), (total / rounds).Round(time.Millisecond), worst.Round(time.Millisecond), rounds)
	}

	// The very element hidden, a look-alike (same test id, text and type)
	// shown beside it, the element shown 300 ms later: the element, not
	// its look-alike, by its own selector and by its text.
	for _, primary := range []browser.Locator{{Selector: "#search-btn"}, {Text: "Search", Exact: true}} {
		e.navigate("/recipes/search.html")
		c := e.describe(primary)
		e.eval(`(() => { const b = document.getElementById("search-btn"); b.style.display = "none";
			const l = b.cloneNode(true); l.id = "search-go"; l.dataset.probe = "lookalike"; document.querySelector("header").append(l);
			setTimeout(() => { b.style.display = "" }, 300); return "ok" })()`)
		start := time.Now()
		rel, err := e.relocate(primary, c)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("pending %s: %v", primary.Describe(), err)
		}
		t.Logf("pending %s: %s via %s after %v", primary.Describe(), rel.Level, rel.Via, took.Round(time.Millisecond))
		if got := e.probeOf(rel.Locator.Selector); got != "submit" || rel.Level != browser.LevelExact {
			t.Errorf("pending %s: %s via %s, %s is %q; want the element itself (exact), not its look-alike", primary.Describe(), rel.Level, rel.Via, rel.Locator.Selector, got)
		}
	}

	// A page still rendering its next view (a single-page app after a
	// click): the very element not in the document yet, a look-alike
	// shown, the document changing (a spinner) until the element comes
	// 300 ms later: the element, not its look-alike.
	e.navigate("/recipes/search.html")
	c := e.describe(browser.Locator{Selector: "#search-btn"})
	e.eval(`(() => { const b = document.getElementById("search-btn"); const at = b.parentNode, next = b.nextSibling; b.remove();
		const l = b.cloneNode(true); l.id = "search-go"; l.dataset.probe = "lookalike"; document.querySelector("header").append(l);
		const spin = document.createElement("span"); document.body.append(spin); let n = 0;
		const tick = setInterval(() => { spin.textContent = "loading" + ".".repeat(++n % 4) }, 40);
		setTimeout(() => { clearInterval(tick); spin.remove(); at.insertBefore(b, next) }, 300); return "ok" })()`)
	rel, err := e.relocate(browser.Locator{Selector: "#search-btn"}, c)
	if err != nil {
		t.Fatalf("rendering: %v", err)
	}
	if got := e.probeOf(rel.Locator.Selector); got != "submit" || rel.Level != browser.LevelExact {
		t.Errorf("rendering: %s via %s, %s is %q; want the element itself (exact), not its look-alike", rel.Level, rel.Via, rel.Locator.Selector, got)
	}
}
