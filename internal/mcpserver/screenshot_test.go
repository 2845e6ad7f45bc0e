package mcpserver_test

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A screenshot is text first, then exactly one image block of the asked
// format.
func TestScreenshotResult(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})

	for _, tc := range []struct {
		args   map[string]any
		mime   string
		prefix string
	}{
		{map[string]any{}, "image/jpeg", "Screenshot of the viewport: "},
		{map[string]any{"format": "png"}, "image/png", "Screenshot of the viewport: "},
		{map[string]any{"selector": "#counter", "quality": "80"}, "image/jpeg", `Screenshot of selector "#counter" (e1): `},
		{map[string]any{"full_page": "true"}, "image/jpeg", "Screenshot of the full page: "},
	} {
		res, err := cs.CallTool(ctx, callParams("browser_screenshot", tc.args))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if res.IsError {
			t.Fatalf("%v: isError: %s", tc.args, text(res))
		}
		if len(res.Content) != 2 {
			t.Fatalf("%v: %d content blocks, want text and one image", tc.args, len(res.Content))
		}
		tx, ok := res.Content[0].(*mcp.TextContent)
		if !ok || !strings.HasPrefix(tx.Text, tc.prefix) {
			t.Errorf("%v: first block %#v, want text starting %q", tc.args, res.Content[0], tc.prefix)
		}
		t.Logf("%v: %s", tc.args, text(res))
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok {
			t.Fatalf("%v: second block is %T, want an image", tc.args, res.Content[1])
		}
		if img.MIMEType != tc.mime {
			t.Errorf("%v: image is %s, want %s", tc.args, img.MIMEType, tc.mime)
		}
		if _, format, err := image.DecodeConfig(bytes.NewReader(img.Data)); err != nil || "image/"+format != tc.mime {
			t.Errorf("%v: image data decodes as %q (%v), want %s", tc.args, format, err, tc.mime)
		}
	}
	mustFail(t, ctx, cs, "browser_screenshot", map[string]any{"selector": "#nope"}, "TARGET_NOT_FOUND")
	mustFail(t, ctx, cs, "browser_screenshot", map[string]any{"format": "gif"}, "INVALID_ARGUMENT")
}

// Over the embed limit the result names the saved original and both sizes,
// and still carries one (preview) image. Not parallel: it lowers a global.
func TestScreenshotPreview(t *testing.T) {
	old := browser.EmbedLimit
	browser.EmbedLimit = 8 * 1024
	t.Cleanup(func() { browser.EmbedLimit = old })
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/long.html", "snapshot": "none"})
	res, err := cs.CallTool(ctx, callParams("browser_screenshot", map[string]any{"full_page": true, "format": "png"}))
	if err != nil || res.IsError {
		t.Fatalf("screenshot: %v %s", err, textOf(res))
	}
	out := text(res)
	t.Log(out)
	m := regexp.MustCompile(`saved to (\S+)`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "PNG") || !strings.Contains(out, "preview") {
		t.Fatalf("result does not name the saved original and the preview:\n%s", out)
	}
	t.Cleanup(func() { os.Remove(m[1]) })
	if _, err := os.Stat(m[1]); err != nil {
		t.Fatalf("saved original: %v", err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want 2", len(res.Content))
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/jpeg" || len(img.Data) > browser.EmbedLimit {
		t.Fatalf("preview block %T %s, %d bytes; want a JPEG under %d bytes", res.Content[1], img.MIMEType, len(img.Data), browser.EmbedLimit)
	}
}

// annotate: true labels the refs in the image and lists them in the text;
// the first one on a tab without refs says a snapshot issued them.
func TestScreenshotAnnotated(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/annotate.html", "snapshot": "none"})
	res, err := cs.CallTool(ctx, callParams("browser_screenshot", map[string]any{"annotate": "true", "format": "png"}))
	if err != nil || res.IsError {
		t.Fatalf("annotated screenshot: %v %s", err, textOf(res))
	}
	got := text(res)
	t.Logf("%s", got)
	if !regexp.MustCompile(`^Screenshot of the viewport: \d+×\d+ PNG, \d+ KB\n\(the tab had no refs yet: a compact snapshot issued them; browser_snapshot shows them in context\)\n` +
		`Labels drawn on the image only \(the page is unchanged\), 12 refs:\ne1 link "Home" · e2 link "Docs" · e3 textbox "Email" · .* · e6 button "Save" · .* · f1e1 button "Inside"$`).MatchString(got) {
		t.Errorf("text:\n%s", got)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want text and one image", len(res.Content))
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" {
		t.Errorf("second block %T, want a PNG image", res.Content[1])
	}
	// The refs are the snapshot's.
	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, `button e6 "Save"`) {
		t.Errorf("snapshot after the annotated screenshot:\n%s", snap)
	}
	again := mustCall(t, ctx, cs, "browser_screenshot", map[string]any{"annotate": true})
	if strings.Contains(again, "no refs yet") || !strings.Contains(again, "12 refs:") {
		t.Errorf("second annotated screenshot:\n%s", again)
	}
}
