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
	Format   string `json:"format,omitempty" default:"\"jpeg\"" enum:"jpeg,png"`
	Quality  int    `json:"quality,omitempty" default:"60" minimum:"1" maximum:"100"`
	Annotate bool   `json:"annotate,omitempty" jsonschema:"label refs on the image"`
	Session  string `json:"session,omitempty"`
	Tab      string `json:"tab,omitempty"`
}

var screenshotTool = Def(Tool{
	Name:        "browser_screenshot",
	Description: "Image of the viewport, page or an element (to read a page, prefer browser_snapshot).",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupScreenshot,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in ScreenshotIn) (*Result, error) {
	shot, err := h.Capture().Screenshot(ctx, browser.ShotOptions{FullPage: in.FullPage,
		Target: browser.Locator{Ref: in.Ref, Selector: in.Selector}, Format: in.Format, Quality: in.Quality, Annotate: in.Annotate})
	if err != nil {
		return nil, err
	}
	text := &resultText{}
	text.printf("%s", describeShot(shot))
	if shot.Cut != "" {
		text.note("Note: %s.", shot.Cut)
	}
	if shot.Blanked > 0 {
		text.note("Note: %d area(s) of the page showing a declared secret are painted grey in the image.", shot.Blanked)
	}
	text.printf("%s", describeLabels(shot))
	return &Result{Text: text.String(), Notes: text.notes, Image: &Image{Data: shot.Data, MIMEType: shot.MIMEType}}, nil
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

// describeLabels lists the refs an annotated screenshot labels, so that
// the model can match the image's labels to refs.
func describeLabels(s *browser.Shot) string {
	if !s.Annotated {
		return ""
	}
	var b strings.Builder
	if s.Snapshotted {
		b.WriteString("\n(the tab had no refs yet: a compact snapshot issued them; browser_snapshot shows them in context)")
	}
	if s.NotAnnotated != "" {
		b.WriteString("\nNo labels: " + s.NotAnnotated + ".")
		return b.String()
	}
	if len(s.Labels) == 0 {
		b.WriteString("\nNo labels: no ref of the tab is visible in the captured area.")
		return b.String()
	}
	fmt.Fprintf(&b, "\nLabels drawn on the image only (the page is unchanged), %d refs:", len(s.Labels))
	parts := make([]string, len(s.Labels))
	for i, l := range s.Labels {
		parts[i] = l.String()
	}
	b.WriteString("\n" + strings.Join(parts, " · "))
	if s.Unlabelled > 0 {
		fmt.Fprintf(&b, "\n(%d more refs in the area are not labelled: at most %d per image; capture a smaller area)", s.Unlabelled, len(s.Labels))
	}
	return b.String()
}

func kb(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+512)/1024)
}
