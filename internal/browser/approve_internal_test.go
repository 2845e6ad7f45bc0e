package browser

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// TestShownURL: the approval reads the main frame's URL from the page's
// events; a read of the page seeds it only when no event came meanwhile,
// and a child frame's navigation is not the tab's.
func TestShownURL(t *testing.T) {
	var u shownURL
	if _, ok := u.get(); ok {
		t.Fatal("a URL is known before any event or read")
	}
	gen := u.generation()
	u.committed(jsonv2.Value(`{"frame":{"id":"F","url":"https://b.example/"}}`))
	u.seed(gen, "https://a.example/") // read before the event: stale
	if got, _ := u.get(); got != "https://b.example/" {
		t.Errorf("a read older than the event replaced it: %q", got)
	}
	u.committed(jsonv2.Value(`{"frame":{"id":"C","parentId":"F","url":"https://ads.example/"}}`))
	if got, _ := u.get(); got != "https://b.example/" {
		t.Errorf("a child frame's navigation counted: %q", got)
	}
	var v shownURL
	v.seed(v.generation(), "https://a.example/")
	if got, ok := v.get(); !ok || got != "https://a.example/" {
		t.Errorf("the seed of a quiet page: %q %v", got, ok)
	}
}
