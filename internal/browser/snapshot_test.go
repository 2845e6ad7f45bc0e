package browser_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// snapFixtures serves testdata/pages (the snap/ fixtures included).
func (e *env) snapPage(path string) string {
	e.t.Helper()
	e.navigate(path)
	return e.snapshot(browser.ModeFull)
}

// refIn finds the ref of the `role ref "name"` line that follows the line
// containing after, in a snapshot.
func refIn(t *testing.T, snap, after, role, name string) string {
	t.Helper()
	i := strings.Index(snap, after)
	if i < 0 {
		t.Fatalf("no %q in snapshot:\n%s", after, snap)
	}
	return refOf(t, snap[i:], role, name)
}

func TestRelistRefs(t *testing.T) {
	e := newEnv(t, browser.Options{})
	snap := e.snapPage("/snap/relist.html")
	done := refIn(t, snap, "- Pay rent", "button", "Done")
	// Shuffle replaces every item with a new element: the ref is
	// reidentified by its fingerprint (role, name, the item's text), so the
	// click goes to "Pay rent", wherever it now is.
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#shuffle"}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: done}})
	if err != nil {
		t.Fatalf("click %s after the list re-rendered: %v", done, err)
	}
	if res.MatchLevel != "reidentified" {
		t.Errorf("match_level = %q, want reidentified", res.MatchLevel)
	}
	if got := e.eval(`document.querySelector("[role=status]").textContent`); got != "done: Pay rent" {
		t.Errorf("status = %q: the click went to another item", got)
	}
	// Rename changes the item's text: its Done button matches no element
	// uniquely any more, and the ref is STALE_REF, never a click elsewhere.
	snap = e.snapshot(browser.ModeFull)
	third := refIn(t, snap, "- Pay rent", "button", "Done")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#rename"}}); err != nil {
		t.Fatal(err)
	}
	renamed := e.eval(`Array.from(document.querySelectorAll("li")).some(li => li.textContent.includes("Pay rent (renamed)"))`)
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: third}})
	if renamed == "true" {
		be := wantCode(t, err, browser.CodeStaleRef)
		if !strings.Contains(be.Message, "Done") {
			t.Errorf("stale message does not name the element: %s", be.Message)
		}
	} else if err != nil {
		t.Fatalf("click %s: %v", third, err)
	}
	// An element that stays keeps its ref across snapshots.
	add := refOf(t, snap, "button", "Add")
	if again := refOf(t, e.snapshot(browser.ModeFull), "button", "Add"); again != add {
		t.Errorf("ref of Add changed from %s to %s", add, again)
	}
}

func TestModalSnapshot(t *testing.T) {
	e := newEnv(t, browser.Options{})
	snap := e.snapPage("/snap/modal.html")
	open := refOf(t, snap, "button", "Open dialog")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: open}}); err != nil {
		t.Fatal(err)
	}
	snap = e.snapshot(browser.ModeCompact)
	if !strings.Contains(snap, "a modal dialog is open") || !strings.Contains(snap, "Confirm order") {
		t.Fatalf("modal not shown first:\n%s", snap)
	}
	if strings.Contains(snap, `"Edit cart"`) {
		t.Errorf("the inert page behind the modal is listed:\n%s", snap)
	}
	confirm := refOf(t, snap, "button", "Confirm")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: confirm}}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("[role=status]").textContent`); !strings.Contains(got, "confirmed") {
		t.Errorf("status after Confirm = %q", got)
	}
}

func TestHiddenContentLeftOut(t *testing.T) {
	e := newEnv(t, browser.Options{})
	snap := e.snapPage("/snap/hidden.html")
	for _, secret := range regexp.MustCompile(`SECRET-[A-Z-]+`).FindAllString(e.eval(`document.body.innerHTML`), -1) {
		if secret == "SECRET-OPACITY-ZERO" {
			continue // transparent but there: it takes clicks
		}
		if strings.Contains(snap, secret) {
			t.Errorf("hidden %s is in the snapshot", secret)
		}
	}
	if !regexp.MustCompile(`refs · \d+ hidden ·`).MatchString(snap) {
		t.Errorf("header does not count the hidden elements:\n%s", snap)
	}
	// Shown after a click: the snapshot follows the page.
	more := refOf(t, snap, "button", "Show more")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: more}}); err != nil {
		t.Fatal(err)
	}
	if after := e.snapshot(browser.ModeFull); after == snap {
		t.Errorf("snapshot unchanged after Show more")
	}
}

func TestFindAndScope(t *testing.T) {
	e := newEnv(t, browser.Options{})
	snap := e.snapPage("/snap/heavy.html")
	var found string
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		found, err = h.Find(ctx, browser.FindOptions{Role: "link", Name: "/^portable coffee grinder 42$/i"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(found, "# 1 match(es)") || !strings.Contains(found, "(in main") {
		t.Fatalf("find:\n%s", found)
	}
	m := regexp.MustCompile(`link (e\d+) "([^"]+)"`).FindStringSubmatch(found)
	if m == nil || refOf(t, snap, "link", m[2]) != m[1] {
		t.Fatalf("find's ref is not the snapshot's: %q", found)
	}
	// Text search, a limit, and a bad regex.
	err = e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		found, err = h.Find(ctx, browser.FindOptions{Text: "add to cart", Limit: 3})
		if err != nil {
			return err
		}
		if !strings.Contains(found, "first 3 shown") || strings.Count(found, "\n") != 3 {
			t.Errorf("limited find:\n%s", found)
		}
		_, err = h.Find(ctx, browser.FindOptions{Name: "/(/"})
		wantCode(t, err, browser.CodeInvalidArgument)
		_, err = h.Find(ctx, browser.FindOptions{})
		wantCode(t, err, browser.CodeInvalidArgument)
		// A scoped snapshot shows one card, with the page's refs.
		sc, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull, Scope: browser.Locator{Selector: ".card:nth-of-type(2)"}})
		if err != nil {
			return err
		}
		if strings.Count(sc.Text, "Add to cart") != 1 || sc.Refs < 3 || sc.Refs > 6 {
			t.Errorf("scoped snapshot:\n%s", sc.Text)
		}
		for _, r := range regexp.MustCompile(`button (e\d+) "Add to cart"`).FindAllStringSubmatch(sc.Text, -1) {
			if !strings.Contains(snap, "button "+r[1]+` "Add to cart"`) {
				t.Errorf("scoped ref %s is not the page snapshot's", r[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFrameRefsAct(t *testing.T) {
	e := newEnv(t, browser.Options{})
	snap := e.snapPage("/snap/frames.html")
	code := regexp.MustCompile(`textbox (f\d+e\d+) "Code"`).FindStringSubmatch(snap)
	apply := regexp.MustCompile(`button (f\d+e\d+) "Apply"`).FindStringSubmatch(snap)
	if code == nil || apply == nil {
		t.Fatalf("no frame refs:\n%s", snap)
	}
	if _, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Ref: code[1]}, Value: "XYZ"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: apply[1]}}); err != nil {
		t.Fatal(err)
	}
	if after := e.snapshot(browser.ModeFull); !strings.Contains(after, "applied: XYZ") {
		t.Errorf("the frame's status did not change:\n%s", after)
	}
}

// role=none/presentation is ignored on a focusable element or one with a
// global ARIA attribute, as the browser's own accessibility tree does
// (jQuery UI tabs put it on each tab's link).
func TestPresentationalRoleConflicts(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/presentational")
	snap := e.snapshot(browser.ModeFull)
	for _, want := range []string{`link e`, `"Tab #1"`, `button e`, `"Plain button"`, `## Kept heading`} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, snap)
		}
	}
	if strings.Contains(snap, "row") || strings.Contains(snap, "cell \"") || strings.Contains(snap, "table ") {
		t.Errorf("a presentational layout table is shown as a table:\n%s", snap)
	}
	if !strings.Contains(snap, `link e2 "Tab #1"`) {
		t.Errorf("the tab's link is not a link:\n%s", snap)
	}
	// An <li> is a list item only in a list: in a menu Chrome says none.
	e.navigate("/ariamix")
	snap = e.snapshot(browser.ModeCompact)
	if !regexp.MustCompile(`(?m)^ Plain item$`).MatchString(snap) {
		t.Errorf("an <li> of a menu is shown as a list item:\n%s", snap)
	}
}

// Token-like URL parameters are redacted in what a snapshot prints (its
// header, link targets) as in browser_network, unless NoRedact (issue 28, 5).
func TestSnapshotRedactsURLs(t *testing.T) {
	for _, keep := range []bool{false, true} {
		e := newEnv(t, browser.Options{NoRedact: keep})
		e.navigate("/tokens?session_id=SECRETSESSION2&page=3")
		snap := e.snapshot(browser.ModeCompact)
		shown := strings.Contains(snap, "SECRETTOKEN1") || strings.Contains(snap, "SECRETSESSION2")
		if shown != keep {
			t.Errorf("NoRedact %v: credentials shown %v:\n%s", keep, shown, snap)
		}
		if !keep && (!strings.Contains(snap, "session_id=<redacted>&page=3") || !strings.Contains(snap, "access_token=<redacted>&x=1")) {
			t.Errorf("the redacted URLs are not kept whole otherwise:\n%s", snap)
		}
		// read (markdown, the page's URL) and the console's locations too
		var read, console string
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			r, err := h.Read(ctx, browser.ReadOptions{What: browser.ReadMarkdown})
			if err != nil {
				return err
			}
			read = r.Text
			if r, err = h.Read(ctx, browser.ReadOptions{What: browser.ReadURL}); err != nil {
				return err
			}
			read += "\n" + r.Text
			c, err := h.Console().List(ctx, browser.ConsoleOptions{})
			if err != nil {
				return err
			}
			console = c.Text
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// collect, find, PDF and raw CDP name the page too.
		var collect, find, pdf, cdp string
		err = e.do(func(ctx context.Context, h *browser.Held) error {
			c, err := h.Collect(ctx, browser.CollectOptions{Selector: "a"})
			if err != nil {
				return err
			}
			collect = c.Text
			if find, err = h.Find(ctx, browser.FindOptions{Text: "Account"}); err != nil {
				return err
			}
			p, err := h.Capture().PrintPDF(ctx, browser.PDFOptions{})
			if err != nil {
				return err
			}
			pdf = p.URL
			r, err := h.RawCDP(ctx, "Runtime.evaluate", json.RawMessage(`{"expression":"1"}`), nil)
			if err != nil {
				return err
			}
			cdp = r.URL
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for what, out := range map[string]string{"read": read, "console": console, "collect": collect, "find": find, "pdf": pdf, "cdp": cdp} {
			shown := strings.Contains(out, "SECRETTOKEN1") || strings.Contains(out, "SECRETSESSION2")
			if shown != keep || !strings.Contains(out, "/tokens") {
				t.Errorf("NoRedact %v: %s shows credentials %v:\n%s", keep, what, shown, out)
			}
		}
	}
}

// A walk after a change takes over what did not change from the walk
// before it and says exactly what a whole walk says (the browser tests
// check every walk against a whole one: WEBPILOT_WALK_VERIFY): the style
// of 300 cards changed, one card changed, and changes that no DOM change
// reports (a rule added to a style sheet, hover, focus, a field's value).
// A small document is walked whole each time: keeping its walk costs
// more than walking it. A big one keeps it. (Checked walks keep on every
// page, so that the suite's small pages check the keeping too: this test
// turns the checks off.)
func TestSmallPagesKeepNoWalk(t *testing.T) {
	t.Setenv("WEBPILOT_WALK_VERIFY", "")
	e := newEnv(t, browser.Options{})
	reused := func() int {
		var n int
		if err := e.do(func(ctx context.Context, h *browser.Held) error { n = browser.LastReused(h.Tab()); return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		page string
		keep bool
	}{{"/act/kinds.html", false}, {"/snap/cards300.html", true}} {
		e.navigate(c.page)
		first := e.snapshot(browser.ModeCompact)
		second := e.snapshot(browser.ModeCompact)
		if _, b1, _ := strings.Cut(first, "\n"); !strings.HasSuffix(second, b1) {
			t.Errorf("%s: a second snapshot of an unchanged page differs:\n%s\n---\n%s", c.page, first, second)
		}
		if n := reused(); (n > 0) != c.keep {
			t.Errorf("%s: the second walk took over %d elements; want some: %t", c.page, n, c.keep)
		}
	}
}

func TestWalkTakesOverWhatDidNotChange(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/snap/cards300.html")
	e.snapshot(browser.ModeCompact)
	reused := func() int {
		var n int
		if err := e.do(func(ctx context.Context, h *browser.Held) error { n = browser.LastReused(h.Tab()); return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	act := func(a browser.Action) {
		t.Helper()
		if _, err := e.act(a); err != nil {
			t.Fatalf("%s: %v", a.Kind, err)
		}
	}
	count := func(s, pattern string) int { return len(regexp.MustCompile(pattern).FindAllString(s, -1)) }

	// The style of every card changes: an old price shows, a badge goes.
	act(browser.Action{Kind: "click", Target: sel("#sale")})
	d := e.snapshot(browser.ModeDiff)
	if n := count(d, `was \$\d+`); n != 300 {
		t.Errorf("the diff shows %d old prices, want 300:\n%s", n, shorten(d))
	}
	if s := e.snapshot(browser.ModeCompact); count(s, `\bnew\b`) != 0 || count(s, `was \$\d+`) != 300 {
		t.Errorf("after the sale, badges %d (want 0), old prices %d (want 300)", count(s, `\bnew\b`), count(s, `was \$\d+`))
	}

	// One card changes: the rest is taken over.
	act(browser.Action{Kind: "click", Target: sel("#c7 .add")})
	d = e.snapshot(browser.ModeDiff)
	if !strings.Contains(d, "Added 7") || !strings.Contains(d, "1 in cart") || strings.Count(d, "\n") > 4 {
		t.Errorf("the diff after one card changed:\n%s", d)
	}
	if n := reused(); n < 250 {
		t.Errorf("the walk after one card changed took over %d elements, want the other cards' (≥ 250)", n)
	}

	// A card that shrinks to a line stays one when its neighbour changes
	// next (what was kept of it before goes).
	e.eval(`document.getElementById("c20").innerHTML = "<b>sold out</b>"; "ok"`)
	e.snapshot(browser.ModeCompact)
	e.eval(`document.querySelector("#c21 h3").textContent = "Item 21 (last one)"; "ok"`)
	if s := e.snapshot(browser.ModeCompact); !strings.Contains(s, "sold out") || count(s, `\bItem 20\b`) != 0 {
		t.Errorf("card 20 sold out: the second snapshot after shows sold out %v, Item 20 ×%d", strings.Contains(s, "sold out"), count(s, `\bItem 20\b`))
	}
	// A card that changes while hidden shows the change when shown again.
	e.eval(`document.getElementById("c30").style.display = "none"; "ok"`)
	e.snapshot(browser.ModeCompact)
	e.eval(`document.querySelector("#c30 h3").textContent = "Item 30 (renamed)"; "ok"`)
	e.snapshot(browser.ModeCompact)
	e.eval(`document.getElementById("c30").style.display = ""; "ok"`)
	if s := e.snapshot(browser.ModeCompact); !strings.Contains(s, "Item 30 (renamed)") {
		t.Errorf("card 30 renamed while hidden: the snapshot after it shows again misses the new name:\n%s", shorten(s))
	}
	// A rule added to a style sheet changes no DOM.
	e.eval(`document.styleSheets[0].insertRule("#c5 h3 { display: none }", 0); "ok"`)
	if s := e.snapshot(browser.ModeCompact); count(s, `\bItem 5\b`) != 0 || count(s, `\bItem 6\b`) != 1 {
		t.Errorf("after a rule hid card 5's heading: Item 5 ×%d (want 0), Item 6 ×%d (want 1)", count(s, `\bItem 5\b`), count(s, `\bItem 6\b`))
	}
	// Hover shows a card's hint.
	act(browser.Action{Kind: "hover", Target: sel("#c9 h3")})
	if s := e.snapshot(browser.ModeCompact); count(s, `\bhint 9\b`) != 1 || count(s, `\bhint \d+`) != 1 {
		t.Errorf("hovering card 9: hint 9 ×%d (want 1), hints ×%d (want 1)", count(s, `\bhint 9\b`), count(s, `\bhint \d+`))
	}
	// Focus in a card shows its tip.
	act(browser.Action{Kind: "focus", Target: sel("#c11 .note")})
	if s := e.snapshot(browser.ModeCompact); count(s, `\btip 11\b`) != 1 || count(s, `\btip \d+`) != 1 {
		t.Errorf("focus in card 11: tip 11 ×%d (want 1), tips ×%d (want 1)", count(s, `\btip 11\b`), count(s, `\btip \d+`))
	}
	// A value a script sets.
	e.eval(`document.getElementById("free").value = "set by a script"; "ok"`)
	if s := e.snapshot(browser.ModeCompact); !strings.Contains(s, `"Free text" = "set by a script"`) {
		t.Errorf("a value a script set is not in the snapshot:\n%s", shorten(s))
	}
	// A value hides the placeholder's "empty".
	act(browser.Action{Kind: "fill", Target: sel("#c12 .note"), Value: "x"})
	if s := e.snapshot(browser.ModeCompact); count(s, `\bempty 12\b`) != 0 || count(s, `\bempty \d+`) != 298 {
		t.Errorf("a value in card 12's note: empty 12 ×%d (want 0), empties ×%d (want 298, card 20 sold out)", count(s, `\bempty 12\b`), count(s, `\bempty \d+`))
	}
}

// A table re-sorted by a click moves its rows and changes none: the walk
// after it takes over what the rows gave before (their boxes moved, their
// size did not) and shows the new order, as a whole walk does (the browser
// tests check every walk against one: WEBPILOT_WALK_VERIFY).
func TestWalkTakesOverMovedRows(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/bench/table-filter.html")
	e.snapshot(browser.ModeFull)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Price", Exact: true}}); err != nil {
		t.Fatal(err)
	}
	s := e.snapshot(browser.ModeFull)
	var n int
	if err := e.do(func(ctx context.Context, h *browser.Held) error { n = browser.LastReused(h.Tab()); return nil }); err != nil {
		t.Fatal(err)
	}
	if n < 400 {
		t.Errorf("the walk after the rows were sorted took over %d of them, want most of the 500", n)
	}
	prices := regexp.MustCompile(`\|\$(\d+)\.00\|`).FindAllStringSubmatch(s, -1)
	if len(prices) != 500 {
		t.Fatalf("the snapshot after the sort shows %d prices, want 500:\n%s", len(prices), shorten(s))
	}
	for i := 1; i < len(prices); i++ {
		a, _ := strconv.Atoi(prices[i-1][1])
		b, _ := strconv.Atoi(prices[i][1])
		if a > b {
			t.Fatalf("row %d: $%d after $%d: the snapshot does not show the rows sorted by price", i, b, a)
		}
	}
}

// shorten is the start of a long snapshot, for a failure message.
func shorten(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "\n…"
	}
	return s
}

// A page string holding a lone surrogate (text cut inside an emoji) is
// read, with U+FFFD in its place, instead of leaving the call waiting until
// its deadline (Chrome writes such a frame as JSON that does not decode).
func TestLoneSurrogate(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	e.eval(`(document.body.insertAdjacentHTML("beforeend", "<p id=cut></p>"), document.getElementById("cut").textContent = "cut here \ud83d", "")`)
	if snap := e.snapshot(browser.ModeCompact); !strings.Contains(snap, "cut here \uFFFD") {
		t.Errorf("the text with a lone surrogate:\n%s", snap)
	}
	if got := e.eval(`"a\ud83d"`); got != "a\uFFFD" {
		t.Errorf("eval of a lone surrogate: %q", got)
	}
}
