package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// ScreenshotIn is browser_screenshot's input.
type ScreenshotIn struct {
	FullPage bool   `json:"full_page,omitempty" jsonschema:"whole page"`
	Ref      string `json:"ref,omitempty"`
	Selector string `json:"selector,omitempty"`
	Format   string `json:"format,omitempty" jsonschema:"default jpeg" enum:"jpeg,png"`
	Quality  int    `json:"quality,omitempty" jsonschema:"JPEG quality (60)" minimum:"1" maximum:"100"`
	Session  string `json:"session,omitempty"`
	Tab      string `json:"tab,omitempty"`
}

var screenshotTool = Def(Tool{
	Name:        "browser_screenshot",
	Description: "An image of the viewport, the full page or one element. To read the page, prefer browser_snapshot.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupScreenshot,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in ScreenshotIn) (*Result, error) {
	shot, err := h.Screenshot(ctx, browser.ShotOptions{FullPage: in.FullPage,
		Target: browser.Locator{Ref: in.Ref, Selector: in.Selector}, Format: in.Format, Quality: in.Quality})
	if err != nil {
		return nil, err
	}
	return &Result{Text: describeShot(shot), Image: &Image{Data: shot.Data, MIMEType: shot.MIMEType}}, nil
})

func describeShot(s *browser.Shot) string {
	kind := func(mime string) string { return strings.ToUpper(strings.TrimPrefix(mime, "image/")) }
	if s.Saved == nil {
		return fmt.Sprintf("Screenshot of %s: %d×%d %s, %s", s.Of, s.Width, s.Height, kind(s.MIMEType), kb(len(s.Data)))
	}
	o := s.Saved
	return fmt.Sprintf("Screenshot of %s: %d×%d %s, %s, over the %s embed limit; saved to %s\n"+
		"Returned a preview: %d×%d %s, %s.",
		s.Of, o.Width, o.Height, kind(o.MIMEType), kb(o.Bytes), kb(browser.EmbedLimit), o.Path,
		s.Width, s.Height, kind(s.MIMEType), kb(len(s.Data)))
}

func kb(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+512)/1024)
}
