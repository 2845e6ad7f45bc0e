package tools

import (
	"context"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// PDFIn is browser_pdf's input.
type PDFIn struct {
	Landscape  bool    `json:"landscape,omitempty" jsonschema:"paper turned sideways"`
	Paper      string  `json:"paper,omitempty" default:"\"letter\"" enum:"letter,legal,tabloid,ledger,a3,a4,a5"`
	Margins    string  `json:"margins,omitempty" jsonschema:"CSS length for all sides, e.g. 0, 1cm, 0.5in"`
	Scale      float64 `json:"scale,omitempty" default:"1" minimum:"0.1" maximum:"2"`
	Pages      string  `json:"pages,omitempty" jsonschema:"page ranges, e.g. 1-3,5"`
	Background bool    `json:"background,omitempty" jsonschema:"print background colours and images"`
	Session    string  `json:"session,omitempty"`
	Tab        string  `json:"tab,omitempty"`
}

var pdfTool = Def(Tool{
	Name:        "browser_pdf",
	Description: "Print the page to a PDF file in the output directory (path, size, pages).",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupPDF,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in PDFIn) (*Result, error) {
	pdf, err := h.Capture().PrintPDF(ctx, browser.PDFOptions{Landscape: in.Landscape, Paper: in.Paper, Margins: in.Margins, Scale: in.Scale, Pages: in.Pages, Background: in.Background})
	if err != nil {
		return nil, err
	}
	orient := "portrait"
	if in.Landscape {
		orient = "landscape"
	}
	text := fmt.Sprintf("PDF of %q (%s): %s, %s, %s %s\nSaved to %s", pdf.Title, pdf.URL, pageCount(pdf.Pages), kb(pdf.Bytes), pdf.Paper, orient, pdf.Path)
	return &Result{Text: text}, nil
})

func pageCount(n int) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", n)
}
