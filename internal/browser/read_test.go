package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// read runs browser_read's read on the current tab.
func (e *env) read(o browser.ReadOptions) (*browser.ReadResult, error) {
	var res *browser.ReadResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Read(ctx, o)
		return err
	})
	return res, err
}

func (e *env) mustRead(o browser.ReadOptions) *browser.ReadResult {
	e.t.Helper()
	res, err := e.read(o)
	if err != nil {
		e.t.Fatalf("read %+v: %v", o, err)
	}
	return res
}

// body is a read's content without its first line.
func body(res *browser.ReadResult) string {
	_, rest, _ := strings.Cut(res.Text, "\n")
	return rest
}

// main on an article page: the article's headings, nested list, table,
// links (absolute), code block, quote and image alt, and nothing of the
// nav, sidebar, ads, share buttons, related posts, comments, cookie banner,
// newsletter box, footer or hidden text.
func TestReadMainArticle(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/article.html")
	res := e.mustRead(browser.ReadOptions{What: browser.ReadMain, MaxChars: 20000})
	md := body(res)
	first, _, _ := strings.Cut(res.Text, "\n")
	if want := fmt.Sprintf("main of %s/read/article.html (", e.base); !strings.HasPrefix(first, want) || !strings.HasSuffix(first, " chars):") {
		t.Errorf("first line %q, want it to start %q and give the length", first, want)
	}
	for _, want := range []string{
		"# Life in the tide pools",
		"## What lives there",
		"## Best times to visit",
		"- Anemones\n  - Green anemone\n  - Aggregating anemone\n- Sea stars\n- Hermit crabs",
		"| Month | Low tide |\n| --- | --- |\n| June | -1.2 ft |\n| December | -1.8 ft |",
		"[tide guide](" + e.base + "/guides/tides)",
		"[Ana Reyes](" + e.base + "/people/ana)",
		"**ocean**", "*surprising*",
		"```python\ncounts = {}\nfor name in sightings:\n    counts[name] = counts.get(name, 0) + 1\n```",
		"> Look, but leave everything where it lives.",
		"![A green anemone in a pool](" + e.base + "/read/anemone.png)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("main lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"Navlink", "Coast Notes Home", "Sidebarlink", "Sponsored", "Advertisement", "SuperSnorkel",
		"Share on Social", "Relatedlink", "Related posts", "Post comment", "Comments", "cookies", "newsletter", "Footer",
		"Hidden paragraph", "Screen reader only"} {
		if strings.Contains(md, bad) {
			t.Errorf("main holds %q, which is not the article's content:\n%s", bad, md)
		}
	}
	if res.TotalChars != len([]rune(md)) {
		t.Errorf("TotalChars %d, content %d chars", res.TotalChars, len([]rune(md)))
	}

	// markdown keeps the whole page (the nav too); text is the visible text.
	all := body(e.mustRead(browser.ReadOptions{What: browser.ReadMarkdown}))
	for _, want := range []string{"[Navlink News](" + e.base + "/news)", "# Life in the tide pools", "Footer text"} {
		if !strings.Contains(all, want) {
			t.Errorf("markdown of the page lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "Hidden paragraph") {
		t.Errorf("markdown holds a display:none paragraph:\n%s", all)
	}
	text := body(e.mustRead(browser.ReadOptions{What: browser.ReadText}))
	if !strings.Contains(text, "Navlink News") || !strings.Contains(text, "Hermit crabs") || strings.Contains(text, "Hidden paragraph") {
		t.Errorf("text of the page:\n%s", text)
	}
}

// Each simple kind on a small page.
func TestReadKinds(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/simple.html")
	url := e.base + "/read/simple.html"
	for _, tc := range []struct {
		name  string
		o     browser.ReadOptions
		first string // the first line
		want  string // the content
	}{
		{"text", browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#intro"}}, `text of selector "#intro" (e*) at ` + url + " (22 chars):", "Hello reader, welcome."},
		{"markdown", browser.ReadOptions{What: "markdown", Target: browser.Locator{Selector: "#intro"}}, "", "Hello **reader**, welcome."},
		{"html", browser.ReadOptions{What: "html", Target: browser.Locator{Selector: "#box"}}, "", "<span>inner</span>"},
		{"outer_html", browser.ReadOptions{What: "outer_html", Target: browser.Locator{Selector: "#box"}}, "", `<div id="box"><span>inner</span></div>`},
		{"attribute", browser.ReadOptions{What: "attribute", Attribute: "href", Target: browser.Locator{Text: "Next page"}}, "", "/read/next.html"},
		{"attribute data", browser.ReadOptions{What: "attribute", Attribute: "data-kind", Target: browser.Locator{Selector: "#next"}}, "", "pager"},
		{"value input", browser.ReadOptions{What: "value", Target: browser.Locator{Role: "textbox", Name: "Email"}}, "", "ana@example.com"},
		{"value checkbox", browser.ReadOptions{What: "value", Target: browser.Locator{Selector: "#agree"}}, "", "checked"},
		{"value select", browser.ReadOptions{What: "value", Target: browser.Locator{Selector: "#size"}}, "", "m"},
		{"value textarea", browser.ReadOptions{What: "value", Target: browser.Locator{Selector: "#notes"}}, "", "line one\nline two"},
		{"title", browser.ReadOptions{What: "title"}, "title of " + url + " (11 chars):", "Read basics"},
		{"url", browser.ReadOptions{What: "url"}, "", url},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.mustRead(tc.o)
			first, got, _ := strings.Cut(res.Text, "\n")
			if got != tc.want {
				t.Errorf("got %q, want %q (whole result:\n%s)", got, tc.want, res.Text)
			}
			if tc.first != "" && !regexp.MustCompile("^"+strings.ReplaceAll(regexp.QuoteMeta(tc.first), `e\*`, `e\d+`)+"$").MatchString(first) {
				t.Errorf("first line %q, want %q", first, tc.first)
			}
		})
	}
	// The page's html is the document's.
	if html := body(e.mustRead(browser.ReadOptions{What: "html", MaxChars: 100000})); !strings.HasPrefix(html, "<!DOCTYPE html>\n<html lang=\"en\">") || !strings.Contains(html, `<p id="intro">Hello <b>reader</b>, welcome.</p>`) {
		t.Errorf("html of the page:\n%.300s", html)
	}
	// A read element gets a ref, named in the first line.
	if res := e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Text: "Next page"}}); res.Ref == "" || !strings.Contains(res.Text, "("+res.Ref+")") {
		t.Errorf("no ref named: %q (ref %q)", res.Text, res.Ref)
	}

	// Empty results carry a hint; bad arguments are refused.
	res := e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#empty"}, ScrollRetry: true})
	if !strings.Contains(res.Text, "has no visible text; try what=html") || res.Hint == "" {
		t.Errorf("empty text without a hint:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "scrolled the page down") || !strings.Contains(res.Text, "still empty") {
		t.Errorf("empty text: the scroll retry is not reported:\n%s", res.Text)
	}
	res = e.mustRead(browser.ReadOptions{What: "attribute", Attribute: "rel", Target: browser.Locator{Selector: "#next"}})
	if !strings.Contains(res.Hint, `no attribute "rel"`) || !strings.Contains(res.Hint, "data-kind") {
		t.Errorf("missing attribute: hint %q", res.Hint)
	}
	for _, o := range []browser.ReadOptions{
		{What: "attribute", Target: browser.Locator{Selector: "#next"}},
		{What: "words"},
		{What: "value"},
		{What: "value", Target: browser.Locator{Selector: "#intro"}},
		{What: "title", Target: browser.Locator{Selector: "#intro"}},
		{What: "text", Attribute: "href"},
		{What: "text", Target: browser.Locator{Selector: "#intro", Text: "Hello"}},
	} {
		_, err := e.read(o)
		wantCode(t, err, browser.CodeInvalidArgument)
	}
}

// max_chars cuts at a line, the last line names the offset that
// continues, and the parts join up to the whole.
func TestReadPaging(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/simple.html")
	tg := browser.Locator{Selector: "#long"}
	whole := e.mustRead(browser.ReadOptions{What: "text", Target: tg})
	if whole.NextOffset != 0 || !strings.Contains(whole.Text, "Line 300 of the long section.") {
		t.Fatalf("the whole read is cut or short: %d, %.200s", whole.NextOffset, whole.Text)
	}
	all := []rune(body(whole))
	next := regexp.MustCompile(`\n… cut at char ([\d,]+) of ([\d,]+); browser_read with offset=(\d+) continues$`)
	offset, parts := 0, 0
	for ; parts < 30; parts++ {
		res := e.mustRead(browser.ReadOptions{What: "text", Target: tg, MaxChars: 1000, Offset: offset})
		content := body(res)
		m := next.FindStringSubmatch(res.Text)
		if res.NextOffset == 0 {
			if m != nil {
				t.Fatalf("last part names an offset:\n%s", res.Text)
			}
			content, _, _ = strings.Cut(content, "\n(end; chars ")
			if got, want := content, string(all[offset:]); got != want {
				t.Errorf("the last part at %d: %q, want %q", offset, got, want)
			}
			break
		}
		if m == nil || m[3] != strconv.Itoa(res.NextOffset) || res.NextOffset <= offset {
			t.Fatalf("part at %d: no continuation line for offset %d:\n%s", offset, res.NextOffset, res.Text)
		}
		content = strings.TrimSuffix(content, m[0])
		if n := len([]rune(content)); n > 1000 {
			t.Fatalf("part at %d has %d chars, over max_chars 1000", offset, n)
		}
		if want := strings.TrimRight(string(all[offset:res.NextOffset]), "\n"); content != want {
			t.Fatalf("part at %d is not the whole's chars %d–%d", offset, offset, res.NextOffset)
		}
		if !strings.HasSuffix(content, "section.") {
			t.Errorf("part at %d is not cut at a line end: …%q", offset, content[max(0, len(content)-30):])
		}
		offset = res.NextOffset
	}
	if parts < 5 {
		t.Errorf("only %d parts", parts)
	}
}

// A section filled only when it scrolls into view: the read finds it
// through the scroll retry and says so; without the retry it is not found.
func TestReadLazyContent(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/lazy.html")
	tg := browser.Locator{Selector: "#review-list"}
	_, err := e.read(browser.ReadOptions{What: "text", Target: tg})
	be := wantCode(t, err, browser.CodeTargetNotFound)
	if !strings.Contains(be.Hint, "auto_scroll_retry") {
		t.Errorf("no word of the scroll retry in the hint: %q", be.Hint)
	}
	if e.eval("String(scrollY)") != "0" {
		t.Fatal("the page scrolled without the retry")
	}

	res := e.mustRead(browser.ReadOptions{What: "text", Target: tg, ScrollRetry: true})
	if got := body(res); !strings.Contains(got, "Five stars: the lazy review arrived\nFour stars: worth the scroll") {
		t.Errorf("the lazy reviews were not read:\n%s", res.Text)
	}
	if !strings.Contains(res.Scrolled, "then found it") || !strings.Contains(res.Text, "(scrolled the page down ") || !strings.Contains(res.Text, "(the bottom)") {
		t.Errorf("the result does not say it scrolled to find it:\n%s", res.Text)
	}
	if e.eval("String(scrollY > 0)") != "true" {
		t.Error("the page was scrolled back")
	}

	// An empty section fills the same way.
	e.navigate("/read/lazy.html")
	res = e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#reviews"}, ScrollRetry: true})
	if !strings.Contains(res.Text, "Four stars") || !strings.Contains(res.Scrolled, "then found it") {
		t.Errorf("the empty section after the retry:\n%s", res.Text)
	}
	e.navigate("/read/lazy.html")
	res = e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#reviews"}})
	if res.Hint == "" || strings.Contains(res.Text, "Four stars") {
		t.Errorf("the empty section without the retry has no hint or was filled:\n%s", res.Text)
	}

	// A target that never comes is TARGET_NOT_FOUND after the retry, and
	// says where it scrolled.
	_, err = e.read(browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#never"}, ScrollRetry: true})
	be = wantCode(t, err, browser.CodeTargetNotFound)
	if !strings.Contains(be.Message, "after scrolling") || !strings.Contains(be.Hint, "scrolled the page down") {
		t.Errorf("not-found after the retry: %q / %q", be.Message, be.Hint)
	}
}

// Open shadow roots are read in place; a ref inside one works.
func TestReadShadowRoot(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/shadow.html")
	text := body(e.mustRead(browser.ReadOptions{What: "text"}))
	for _, want := range []string{"Light text before.", "Shadow heading", "Shadow paragraph with a shadow link.", "Slotted note from the light DOM"} {
		if !strings.Contains(text, want) {
			t.Errorf("text of the page lacks %q:\n%s", want, text)
		}
	}
	md := body(e.mustRead(browser.ReadOptions{What: "markdown"}))
	for _, want := range []string{"## Shadow heading", "[a shadow link](" + e.base + "/read/who.html)", "Slotted note from the light DOM"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown of the page lacks %q:\n%s", want, md)
		}
	}
	if main := body(e.mustRead(browser.ReadOptions{What: "main"})); !strings.Contains(main, "## Shadow heading") {
		t.Errorf("main lacks the shadow heading:\n%s", main)
	}
	// An element inside the shadow root, by its text, then by ref.
	res := e.mustRead(browser.ReadOptions{What: "markdown", Target: browser.Locator{Text: "Shadow paragraph"}})
	if got := body(res); got != "Shadow paragraph with [a shadow link]("+e.base+"/read/who.html)." {
		t.Errorf("markdown of the shadow paragraph: %q", got)
	}
	if res.Ref == "" {
		t.Fatal("the shadow paragraph got no ref")
	}
	if got := body(e.mustRead(browser.ReadOptions{What: "outer_html", Target: browser.Locator{Ref: res.Ref}})); !strings.HasPrefix(got, `<p id="bio">`) {
		t.Errorf("outer_html by ref %s: %q", res.Ref, got)
	}
}

// With frame, a read is of that frame's document: in the same process and
// out of process (another site).
func TestReadFrame(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/frame.html")
	frameURL := e.base + "/read/frame-child.html"
	res := e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Frame: "#inner"}})
	if got := body(res); got != "Inside the frame\nFrame paragraph text." && got != "Inside the frame\n\nFrame paragraph text." {
		t.Errorf("text of the frame: %q", got)
	}
	if !strings.HasPrefix(res.Text, "text of "+frameURL+" (") {
		t.Errorf("the first line does not name the frame's document: %q", res.Text)
	}
	if got := body(e.mustRead(browser.ReadOptions{What: "title", Target: browser.Locator{Frame: "#inner"}})); got != "Inner frame" {
		t.Errorf("title of the frame: %q", got)
	}
	res = e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Selector: "#msg", Frame: "#inner"}})
	if got := body(res); got != "Frame paragraph text." {
		t.Errorf("an element of the frame: %q", got)
	}
	if page := body(e.mustRead(browser.ReadOptions{What: "text"})); strings.Contains(page, "Frame paragraph") || !strings.Contains(page, "Outer text.") {
		t.Errorf("the page's own text:\n%s", page)
	}

	// Out of process: a page on another site (localhost) framing this one.
	other := serveLocalhost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Other</title><p>Other outer</p><iframe id="inner" src="%s/read/frame-child.html"></iframe>`, e.base)
	}))
	if err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, other+"/", 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	res = e.mustRead(browser.ReadOptions{What: "markdown", Target: browser.Locator{Frame: "#inner"}})
	if got := body(res); got != "## Inside the frame\n\nFrame paragraph text." {
		t.Errorf("markdown of the cross-site frame: %q", got)
	}
	if !strings.HasPrefix(res.Text, "markdown of "+frameURL+" (") {
		t.Errorf("the first line does not name the cross-site frame: %q", res.Text)
	}
}

// A frame whose document moves to another site (a new process) is read in
// its new document, not through what was known of the old one.
func TestReadFrameMovesToAnotherSite(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/read/frame.html")
	if res := e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Frame: "#inner"}}); !strings.Contains(res.Text, "Frame paragraph text.") {
		t.Fatalf("before: %q", res.Text)
	}
	other := serveLocalhost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Other</title><p>Other site frame</p>`)
	}))
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		return tab.Target().Call(ctx, "Runtime.evaluate", map[string]any{"expression": `new Promise(r => { const f = document.getElementById("inner"); f.onload = r; f.src = "` + other + `/x" })`, "awaitPromise": true}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	res := e.mustRead(browser.ReadOptions{What: "text", Target: browser.Locator{Frame: "#inner"}})
	if !strings.HasPrefix(res.Text, "text of "+other+"/x (") || body(res) != "Other site frame" {
		t.Errorf("after the frame moved to %s: %q", other, res.Text)
	}
}
