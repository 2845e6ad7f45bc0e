package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// browser_read through a client: the article's main content as markdown
// with its origin on the first line, paging, the scroll retry for lazy
// content, and refusals.
func TestRead(t *testing.T) {
	// (not parallel: on the bridge, another test's tab in front hides this
	// one, and a hidden tab loads no lazy content on scrolling)
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 90*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/read/article.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_read", map[string]any{"what": "main"})
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "main of "+base+"/read/article.html (") {
		t.Errorf("first line %q does not name what and where from", first)
	}
	for _, want := range []string{"# Life in the tide pools", "| June | -1.2 ft |", "[tide guide](" + base + "/guides/tides)"} {
		if !strings.Contains(out, want) {
			t.Errorf("main lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"Navlink", "Sidebarlink", "Advertisement", "Footer"} {
		if strings.Contains(out, bad) {
			t.Errorf("main holds %q:\n%s", bad, out)
		}
	}
	// Paging: a string max_chars (coerced), and the line that continues.
	out = mustCall(t, ctx, cs, "browser_read", map[string]any{"what": "text", "max_chars": "200"})
	if !strings.Contains(out, "; browser_read with offset=") {
		t.Errorf("a cut read has no continuation line:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "browser_read", map[string]any{"what": "attribute", "attribute": "href", "text": "tide guide"})
	if !strings.HasSuffix(out, "\n/guides/tides") {
		t.Errorf("attribute href:\n%s", out)
	}
	mustFail(t, ctx, cs, "browser_read", map[string]any{"what": "attribute", "selector": "h1"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_read", map[string]any{"what": "words"}, "INVALID_ARGUMENT")

	// Lazy content: not there without the retry, found with it (default).
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/read/lazy.html", "snapshot": "none"})
	mustFail(t, ctx, cs, "browser_read", map[string]any{"selector": "#review-list", "auto_scroll_retry": "false"}, "TARGET_NOT_FOUND")
	out = mustCall(t, ctx, cs, "browser_read", map[string]any{"selector": "#review-list"})
	if !strings.Contains(out, "to load lazy content, then found it") || !strings.Contains(out, "Five stars: the lazy review arrived") {
		t.Errorf("the lazy list through the retry:\n%s", out)
	}
}
