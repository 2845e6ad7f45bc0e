package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// browser_collect through MCP: discover, then collect with what it
// proposed plus filters (arguments sent as strings, as some clients do);
// the two kinds of zero items; a bad regex.
func TestCollectThroughMCP(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/collect/products.html", "snapshot": "none"})
	d := mustCall(t, ctx, cs, "browser_collect", map[string]any{"discover": true})
	lines := strings.Split(d, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "1. 15 items: {") {
		t.Fatalf("discover:\n%s", d)
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(lines[1][strings.Index(lines[1], "{"):]), &top); err != nil {
		t.Fatalf("the top proposal is not JSON: %v\n%s", err, lines[1])
	}
	if top["selector"] != ".card" {
		t.Errorf("top proposal %v", top)
	}
	args := map[string]any{"selector": top["selector"], "fields": top["fields"], "deduplicate_by": "url", "limit": "4",
		"exclude": `{"title": "(?i)promoted"}`}
	out := mustCall(t, ctx, cs, "browser_collect", args)
	lines = strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "4 items from "+base+"/collect/products.html (15 matched") || len(lines) != 6 || !strings.HasPrefix(lines[1], `columns ["title","url"`) {
		t.Fatalf("collect:\n%s", out)
	}
	for i, want := range []string{"Blue mug", "Red cup", "Green teapot", "Steel kettle"} {
		var row []string
		if err := json.Unmarshal([]byte(lines[i+2]), &row); err != nil || len(row) < 2 || row[0] != want || !strings.HasPrefix(row[1], "/p/") {
			t.Errorf("item %d = %q, want %s", i, lines[i+2], want)
		}
	}

	body := mustFail(t, ctx, cs, "browser_collect", map[string]any{"selector": ".product-tile"}, "TARGET_NOT_FOUND")
	if body.Diagnosis["reason"] != "selector_no_match" || !strings.Contains(strings.Join(body.Error.Suggestions, "\n"), "discover proposes .card") {
		t.Errorf("no match: %+v", body)
	}
	out = mustCall(t, ctx, cs, "browser_collect", map[string]any{"selector": ".card", "fields": []any{map[string]any{"name": "t", "selector": "h3"}},
		"exclude": map[string]any{"t": "."}})
	if !strings.HasPrefix(out, "0 items from ") || !strings.Contains(out, "all_filtered") {
		t.Errorf("all filtered:\n%s", out)
	}
	mustFail(t, ctx, cs, "browser_collect", map[string]any{"selector": ".card", "fields": []any{map[string]any{"name": "t"}},
		"exclude": map[string]any{"t": "(["}}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_collect", map[string]any{"selector": ".card", "limit": 5000}, "INVALID_ARGUMENT")
}
