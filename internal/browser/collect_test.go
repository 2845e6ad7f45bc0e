package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// collect runs browser_collect on the session's current tab.
func (e *env) collect(o browser.CollectOptions) (*browser.Collected, error) {
	var res *browser.Collected
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Collect(ctx, o)
		return err
	})
	return res, err
}

func (e *env) mustCollect(o browser.CollectOptions) *browser.Collected {
	e.t.Helper()
	c, err := e.collect(o)
	if err != nil {
		e.t.Fatalf("collect %+v: %v", o, err)
	}
	return c
}

// itemLines reads the items of a collect result's text: the columns line
// names the keys, each item is a JSON array of values in that order.
func itemLines(t *testing.T, text string) []map[string]string {
	t.Helper()
	var out []map[string]string
	var cols []string
	for _, l := range strings.Split(text, "\n")[1:] {
		if c, ok := strings.CutPrefix(l, "columns "); ok {
			if err := json.Unmarshal([]byte(c), &cols); err != nil {
				t.Fatalf("columns line %q: %v", l, err)
			}
			continue
		}
		if !strings.HasPrefix(l, "[") {
			continue
		}
		var row []string
		if err := json.Unmarshal([]byte(l), &row); err != nil || len(row) != len(cols) {
			t.Fatalf("item line %q is not a JSON array of the %d columns %v: %v", l, len(cols), cols, err)
		}
		m := map[string]string{}
		for i, c := range cols {
			if row[i] != "" {
				m[c] = row[i]
			}
		}
		out = append(out, m)
	}
	return out
}

func values(items []map[string]string, key string) []string {
	var out []string
	for _, it := range items {
		out = append(out, it[key])
	}
	return out
}

var productFields = []browser.CollectField{
	{Name: "title", Selector: ".card__title a"},
	{Name: "url", Selector: ".card__title a", Property: "href"},
	{Name: "price", Selector: ".price"},
	{Name: "image", Selector: "img", Property: "src"},
	{Name: "badge", Selector: ".badge"},
}

// A product grid: fields with absolute URLs, a sponsored card excluded,
// repeated products deduplicated, the limit, and the counts in the header.
func TestCollectProducts(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/products.html")

	all := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields})
	items := itemLines(t, all.Text)
	if len(items) != 15 || all.Matched != 15 {
		t.Fatalf("want the 15 cards, got %d items (matched %d):\n%s", len(items), all.Matched, all.Text)
	}
	if !strings.HasPrefix(all.Text, "15 items from "+e.base+"/collect/products.html (15 matched)") {
		t.Errorf("header: %q", strings.SplitN(all.Text, "\n", 2)[0])
	}
	first := items[0]
	want := map[string]string{"title": "Blue mug", "url": "/p/blue-mug.html", "price": "$12.00", "image": "/img/blue-mug.jpg"}
	if fmt.Sprint(first) != fmt.Sprint(want) {
		t.Errorf("first item = %v, want %v", first, want)
	}
	// The keys once, in the fields' order; URLs on the page's origin from
	// their path.
	if !strings.Contains(all.Text, "\n"+`columns ["title","url","price","image","badge"]`+"\n"+`["Blue mug","/p/blue-mug.html","$12.00","/img/blue-mug.jpg",""]`) {
		t.Errorf("item lines do not keep the fields' order:\n%s", all.Text)
	}
	if items[4]["badge"] != "Sponsored" {
		t.Errorf("the fifth card is the sponsored one: %v", items[4])
	}

	f := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields,
		Exclude: map[string]string{"badge": "(?i)sponsored"}, DeduplicateBy: "url"})
	items = itemLines(t, f.Text)
	titles := values(items, "title")
	if len(items) != 12 || f.Deduplicated != 2 || f.Excluded["badge"] != 1 {
		t.Fatalf("want 12 items, 2 deduplicated, 1 excluded; got %d, %d, %v:\n%s", len(items), f.Deduplicated, f.Excluded, f.Text)
	}
	if slices.Contains(titles, "Pepper grinder (promoted)") {
		t.Errorf("the sponsored card was not excluded: %v", titles)
	}
	if head := strings.SplitN(f.Text, "\n", 2)[0]; !strings.Contains(head, "deduplicated 2") || !strings.Contains(head, "excluded 1 (badge 1)") {
		t.Errorf("header does not count the dropped items: %q", head)
	}

	l := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields,
		Exclude: map[string]string{"badge": "/sponsored/i"}, DeduplicateBy: "url", Limit: 5})
	if got := values(itemLines(t, l.Text), "title"); !slices.Equal(got, []string{"Blue mug", "Red cup", "Green teapot", "Steel kettle", "Oak tray"}) {
		t.Errorf("limit 5 with the sponsored card excluded: %v\n%s", got, l.Text)
	}
	if !strings.Contains(l.Text, "limit 5 reached") {
		t.Errorf("the header does not say the limit was reached:\n%s", l.Text)
	}

	// Without fields: each item's text.
	plain := itemLines(t, e.mustCollect(browser.CollectOptions{Selector: ".price", Limit: 3}).Text)
	if fmt.Sprint(plain) != "[map[text:$12.00] map[text:$9.00] map[text:$34.50]]" {
		t.Errorf("items without fields: %v", plain)
	}

	// Items whose fields are all empty are dropped, or kept as their text.
	b := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: []browser.CollectField{{Name: "badge", Selector: ".badge"}}})
	if got := itemLines(t, b.Text); len(got) != 1 || got[0]["badge"] != "Sponsored" || b.Empty != 14 {
		t.Errorf("without fallback_text: %v, empty %d:\n%s", got, b.Empty, b.Text)
	}
	b = e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: []browser.CollectField{{Name: "badge", Selector: ".badge"}}, FallbackText: true})
	got := itemLines(t, b.Text)
	if len(got) != 15 || got[4]["badge"] != "Sponsored" || !strings.HasPrefix(got[0]["text"], "Blue mug $12.00") {
		t.Errorf("with fallback_text: %v", got)
	}

	// Other properties.
	p := itemLines(t, e.mustCollect(browser.CollectOptions{Selector: ".card", Limit: 1, Fields: []browser.CollectField{
		{Name: "cls", Property: "attr:class"}, {Name: "h", Selector: ".price", Property: "html"}, {Name: "link", Property: "href"}}}).Text)
	if fmt.Sprint(p) != "[map[cls:card h:$12.00 link:/p/blue-mug.html]]" {
		t.Errorf("attr, html and the href of an item: %v", p)
	}

	// Paging: a cut at a line, the continuation names the offset, and the
	// next page continues the same result.
	cut := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields, MaxChars: 600})
	m := regexp.MustCompile(`browser_collect with the same arguments and offset=(\d+) continues`).FindStringSubmatch(cut.Text)
	if m == nil || cut.NextOffset == 0 {
		t.Fatalf("no continuation line:\n%s", cut.Text)
	}
	var off int
	fmt.Sscan(m[1], &off)
	next := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields, MaxChars: 100_000, Offset: off})
	joined := append(itemLines(t, cut.Text), itemLines(t, next.Text)...)
	if len(joined) != 15 || joined[len(joined)-1]["title"] != "Green teapot" {
		t.Errorf("the two pages do not make the 15 items: %d\n%s\n---\n%s", len(joined), cut.Text, next.Text)
	}
}

var resultFields = []browser.CollectField{
	{Name: "title", Selector: "h3 a"},
	{Name: "url", Selector: "h3 a", Property: "href"},
	{Name: "snippet", Selector: ".snippet"},
}

// Search results: ads, the nav and the pager are not results; a spam
// result excluded by its URL; a repeated URL deduplicated.
func TestCollectSearchResults(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/search.html")
	c := e.mustCollect(browser.CollectOptions{Selector: ".result", Fields: resultFields,
		Exclude: map[string]string{"url": `spam\.example`}, DeduplicateBy: "url"})
	items := itemLines(t, c.Text)
	if len(items) != 8 || c.Excluded["url"] != 1 || c.Deduplicated != 1 {
		t.Fatalf("want 8 results (1 excluded, 1 deduplicated): %d\n%s", len(items), c.Text)
	}
	for _, it := range items {
		if strings.Contains(it["url"], "ads.example") || strings.Contains(it["url"], "spam.example") || it["snippet"] == "" {
			t.Errorf("unwanted or incomplete result: %v", it)
		}
	}
	if items[0]["title"] != "Effective Go - The Go Programming Language" || items[0]["url"] != "https://go.dev/doc/effective_go" {
		t.Errorf("first result: %v", items[0])
	}
	l := e.mustCollect(browser.CollectOptions{Selector: ".result", Fields: resultFields, Limit: 3})
	if got := values(itemLines(t, l.Text), "title"); len(got) != 3 || got[2] != "Go by Example" {
		t.Errorf("limit 3: %v", got)
	}
	// within and frame.
	w := e.mustCollect(browser.CollectOptions{Selector: "a", Within: "#tads"})
	if got := values(itemLines(t, w.Text), "text"); len(got) != 3 || got[1] != "Fast Go hosting from $1" {
		t.Errorf("links within #tads: %v", got)
	}
	e.navigate("/collect/framed.html")
	fr := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields, Frame: "#shop"})
	if items := itemLines(t, fr.Text); len(items) != 15 || !strings.Contains(fr.Text, "/collect/products.html") {
		t.Errorf("cards in the frame: %d\n%s", len(items), fr.Text)
	}
}

// discover ranks the product cards and the search results first, with
// fields that a collect can use as they are.
func TestCollectDiscover(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, c := range []struct {
		page, items string // the items' own selector on the fixture
		n           int
		fields      []string
	}{
		{"/collect/products.html", "ul.grid > li", 15, []string{"title", "url", "price", "image"}},
		{"/collect/search.html", "#search > div", 10, []string{"title", "url", "snippet"}},
		{"/collect/infinite.html", "#feed > li", 20, []string{"title", "url"}},
	} {
		e.navigate(c.page)
		d := e.mustCollect(browser.CollectOptions{Discover: true})
		if len(d.Proposals) < 2 && c.page != "/collect/infinite.html" {
			t.Fatalf("%s: fewer than 2 proposals:\n%s", c.page, d.Text)
		}
		top := d.Proposals[0]
		// The top selector matches exactly the items.
		same := e.eval(fmt.Sprintf(`(() => { const a = [...document.querySelectorAll(%q)], b = [...document.querySelectorAll(%q)];
			return a.length === b.length && a.every((x, i) => x === b[i]) })()`, top.Selector, c.items))
		if same != "true" || top.Count != c.n {
			t.Errorf("%s: top proposal %q (%d items) is not the items %s:\n%s", c.page, top.Selector, top.Count, c.items, d.Text)
		}
		var names []string
		fields := make([]browser.CollectField, len(top.Fields))
		for i, f := range top.Fields {
			names = append(names, f.Name)
			fields[i] = browser.CollectField{Name: f.Name, Selector: f.Selector, Property: f.Property}
		}
		for _, f := range c.fields {
			if !slices.Contains(names, f) {
				t.Errorf("%s: top proposal lacks field %s: %v", c.page, f, names)
			}
		}
		if len(top.Sample) != 3 {
			t.Errorf("%s: sample of %d items", c.page, len(top.Sample))
		}
		if !strings.Contains(d.Text, "1. "+fmt.Sprint(c.n)+" items: {\"selector\":") {
			t.Errorf("%s: the first proposal line is not usable JSON:\n%s", c.page, d.Text)
		}
		// Usable as the next call's arguments.
		got := e.mustCollect(browser.CollectOptions{Selector: top.Selector, Fields: fields})
		items := itemLines(t, got.Text)
		if len(items) != c.n || items[0]["title"] == "" || !regexp.MustCompile(`^(/|https://)`).MatchString(items[0]["url"]) {
			t.Errorf("%s: collecting the top proposal: %d items\n%s", c.page, len(items), got.Text)
		}
		// Menus are never first, and are marked.
		for _, p := range d.Proposals {
			if strings.Contains(p.Selector, "nav") || strings.Contains(p.Selector, "tabs") || strings.Contains(p.Selector, "pagination") {
				if !p.Chrome {
					t.Errorf("%s: %s is not marked as page chrome", c.page, p.Selector)
				}
			}
		}
	}
}

// An infinite list is scrolled until the limit, and to its end.
func TestCollectInfiniteScroll(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/infinite.html")
	fields := []browser.CollectField{{Name: "title", Selector: "a"}, {Name: "url", Selector: "a", Property: "href"}}
	c := e.mustCollect(browser.CollectOptions{Selector: ".post", Fields: fields, Limit: 100, Scroll: true})
	items := itemLines(t, c.Text)
	if len(items) != 100 || items[99]["title"] != "Post 100" || c.StopReason != browser.StopLimit || c.Scrolls < 4 {
		t.Fatalf("want 100 posts after ≥4 scrolls, stopped at the limit: %d, %d scrolls, %s\n%s", len(items), c.Scrolls, c.StopReason, c.Text)
	}
	if !strings.Contains(c.Text, fmt.Sprintf("scrolled %d times; stopped: limit reached", c.Scrolls)) {
		t.Errorf("header does not tell the scrolls:\n%s", strings.SplitN(c.Text, "\n", 3)[:2])
	}
	// Past the list's end: all 200, and the end is noticed.
	c = e.mustCollect(browser.CollectOptions{Selector: ".post", Fields: fields, Limit: 300, Scroll: true})
	if items := itemLines(t, c.Text); len(items) != 200 || c.StopReason != browser.StopNoGrowth {
		t.Errorf("want 200 posts, stopped for no growth: %d, %s", len(items), c.StopReason)
	}
	// A list that scrolls inside its own box.
	e.navigate("/collect/infinite-box.html")
	c = e.mustCollect(browser.CollectOptions{Selector: ".post", Fields: fields, Limit: 60, Scroll: true})
	if items := itemLines(t, c.Text); len(items) != 60 || items[59]["title"] != "Post 60" || c.StopReason != browser.StopLimit {
		t.Errorf("the box: %d items, %s", len(items), c.StopReason)
	}
	if top := e.eval(`document.getElementById('box').scrollTop > 0 && document.scrollingElement.scrollTop === 0`); top != "true" {
		t.Errorf("the box was not the one scrolled")
	}
	// Without scroll: what is there.
	e.navigate("/collect/infinite.html")
	if c := e.mustCollect(browser.CollectOptions{Selector: ".post", Limit: 100}); len(c.Items) != 20 {
		t.Errorf("without scroll: %d items", len(c.Items))
	}
}

// Zero items: a selector that matches nothing is TARGET_NOT_FOUND with
// near selectors; matches that are all filtered out are a result of 0
// items that says why.
func TestCollectZeroItems(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/products.html")
	_, err := e.collect(browser.CollectOptions{Selector: ".product-card", Fields: productFields})
	var we *browser.Error
	if !errors.As(err, &we) || we.Code != browser.CodeTargetNotFound {
		t.Fatalf("want TARGET_NOT_FOUND, got %v", err)
	}
	if we.Diagnosis["reason"] != "selector_no_match" {
		t.Errorf("diagnosis %v", we.Diagnosis)
	}
	sugg := strings.Join(we.Suggestions, "\n")
	if !strings.Contains(sugg, ".card (15 elements)") || !strings.Contains(sugg, "discover proposes .card (15 items)") {
		t.Errorf("suggestions lack .card:\n%s", sugg)
	}
	if !strings.Contains(we.Hint, "discover") {
		t.Errorf("hint %q does not mention discover", we.Hint)
	}

	c := e.mustCollect(browser.CollectOptions{Selector: ".card", Fields: productFields,
		Exclude: map[string]string{"price": `^\$`}, DeduplicateBy: "url"})
	if len(c.Items) != 0 || c.Excluded["price"] != 15 {
		t.Fatalf("want 0 items, 15 excluded by price: %d %v", len(c.Items), c.Excluded)
	}
	if !strings.HasPrefix(c.Text, "0 items from ") || !strings.Contains(c.Text, "excluded 15 (price 15)") || !strings.Contains(c.Text, "reason: all_filtered") {
		t.Errorf("an all-filtered result does not say why:\n%s", c.Text)
	}
}

// Bad arguments are INVALID_ARGUMENT before the page is read.
func TestCollectBadArguments(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/products.html")
	for _, c := range []struct {
		name string
		o    browser.CollectOptions
		msg  string
	}{
		{"bad regex", browser.CollectOptions{Selector: ".card", Fields: productFields, Exclude: map[string]string{"title": "(unclosed"}}, "not a valid regular expression"},
		{"exclude unknown field", browser.CollectOptions{Selector: ".card", Fields: productFields, Exclude: map[string]string{"nope": "x"}}, "not one of the fields"},
		{"dedupe unknown field", browser.CollectOptions{Selector: ".card", DeduplicateBy: "url"}, "not one of the fields"},
		{"bad selector", browser.CollectOptions{Selector: "##"}, "not a valid CSS selector"},
		{"bad field selector", browser.CollectOptions{Selector: ".card", Fields: []browser.CollectField{{Name: "x", Selector: "a[["}}}, "fields[0].selector"},
		{"no selector", browser.CollectOptions{}, "selector is empty"},
		{"discover and selector", browser.CollectOptions{Discover: true, Selector: ".card"}, "discover takes no selector"},
		{"property", browser.CollectOptions{Selector: ".card", Fields: []browser.CollectField{{Name: "x", Property: "colour"}}}, "property"},
		{"duplicate names", browser.CollectOptions{Selector: ".card", Fields: []browser.CollectField{{Name: "x"}, {Name: "x"}}}, "two fields"},
	} {
		_, err := e.collect(c.o)
		var we *browser.Error
		if !errors.As(err, &we) || we.Code != browser.CodeInvalidArgument || !strings.Contains(we.Message, c.msg) {
			t.Errorf("%s: want INVALID_ARGUMENT with %q, got %v", c.name, c.msg, err)
		}
	}
}

// collectWithin runs browser_collect on the current tab with the call
// bounded by the scaled d.
func (e *env) collectWithin(d time.Duration, o browser.CollectOptions) (*browser.Collected, error) {
	ctx, cancel := context.WithTimeout(e.ctx, backendtest.Timeout(d))
	defer cancel()
	var res *browser.Collected
	err := e.s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		res, err = h.On(tab).Collect(ctx, o)
		return err
	})
	return res, err
}

// discover on a page of 10,000 rows of 3 spans (10,001 groups) ranks the
// rows first within a bounded call, and so does a selector that matches
// nothing (its suggestions run discover too). The bound is generous: it
// only catches a discover that grows with the square of the groups.
func TestCollectDiscoverManyGroups(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/many.html")
	d, err := e.collectWithin(16*time.Second, browser.CollectOptions{Discover: true})
	if err != nil {
		t.Fatalf("discover on 10,000 rows: %v", err)
	}
	if len(d.Proposals) == 0 {
		t.Fatalf("no proposals:\n%s", d.Text)
	}
	top := d.Proposals[0]
	same := e.eval(fmt.Sprintf(`(() => { const a = [...document.querySelectorAll(%q)], b = [...document.querySelectorAll('#rows > .row')];
		return a.length === b.length && a.every((x, i) => x === b[i]) })()`, top.Selector))
	if same != "true" || top.Count != 10000 {
		t.Errorf("top proposal %q (%d items) is not the rows:\n%s", top.Selector, top.Count, d.Text)
	}

	_, err = e.collectWithin(16*time.Second, browser.CollectOptions{Selector: ".rowz"})
	var we *browser.Error
	if !errors.As(err, &we) || we.Code != browser.CodeTargetNotFound {
		t.Fatalf("want TARGET_NOT_FOUND for .rowz, got %v", err)
	}
	if sugg := strings.Join(we.Suggestions, "\n"); !strings.Contains(sugg, "(10000 items)") {
		t.Errorf("the suggestions do not propose the rows:\n%s", sugg)
	}
}

// offset continues a result only in the document it was read from: after
// the tab went to another page, the same arguments with offset read the
// new page.
func TestCollectOffsetNewPage(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/collect/page-a.html")
	o := browser.CollectOptions{Selector: ".it", MaxChars: 60}
	cut := e.mustCollect(o)
	if cut.NextOffset == 0 || !strings.HasPrefix(cut.Text, "6 items from "+e.base+"/collect/page-a.html") {
		t.Fatalf("page A is not cut:\n%s", cut.Text)
	}
	// The same document: the next page of the same result.
	o.Offset = cut.NextOffset
	next := e.mustCollect(o)
	if !strings.HasPrefix(next.Text, "6 items from "+e.base+"/collect/page-a.html") || !strings.Contains(next.Text, "Alpha") {
		t.Fatalf("offset on page A does not continue its result:\n%s", next.Text)
	}

	e.navigate("/collect/page-b.html")
	b := e.mustCollect(o)
	if !strings.HasPrefix(b.Text, "3 items from "+e.base+"/collect/page-b.html") || strings.Contains(b.Text, "Alpha") {
		t.Errorf("offset after navigating to page B answers page A's result:\n%s", b.Text)
	}
	o.Offset = 0
	if first := e.mustCollect(o); !strings.Contains(first.Text, `["Bravo one of page B"]`) {
		t.Errorf("page B's first page:\n%s", first.Text)
	}
}
