package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PDFOptions are browser_pdf's settings; zero values take Chromium's print
// defaults (letter, portrait, 0.4in margins, scale 1, every page, no
// background graphics).
type PDFOptions struct {
	Landscape  bool
	Paper      string  // a PaperSizes name
	Margins    string  // a CSS length for all four sides: "0", "1cm", "0.5in", "12mm", "20px"
	Scale      float64 // 0.1–2
	Pages      string  // page ranges: "1-3, 5"
	Background bool    // print background colours and images
}

// PaperSizes are the paper names browser_pdf takes, in inches (width,
// height, portrait).
var PaperSizes = map[string][2]float64{
	"letter":  {8.5, 11},
	"legal":   {8.5, 14},
	"tabloid": {11, 17},
	"ledger":  {17, 11},
	"a3":      {11.69, 16.54},
	"a4":      {8.27, 11.69},
	"a5":      {5.83, 8.27},
}

// PaperNames are PaperSizes' names in the order a hint lists them.
var PaperNames = []string{"letter", "legal", "tabloid", "ledger", "a3", "a4", "a5"}

// PDF is a page printed to a PDF file in the output directory.
type PDF struct {
	Path       string
	Bytes      int
	Pages      int // as the file's page tree counts them
	URL, Title string
	Paper      string
}

// pageRanges is what Page.printToPDF takes: "1-5, 8, 11-13".
var pageRanges = regexp.MustCompile(`^\s*\d+\s*(-\s*\d*\s*)?(,\s*\d+\s*(-\s*\d*\s*)?)*$`)

// PrintPDF prints the tab's page to a PDF (Page.printToPDF) and saves it to
// the output directory. A page that shows a declared secret in a field or
// its text is not printed: a PDF, unlike a screenshot, cannot be painted
// over (a password field, printed as dots, does not count).
func (x Capture) PrintPDF(ctx context.Context, o PDFOptions) (*PDF, error) {
	h := x.h
	t := h.t
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	params, paper, err := o.params()
	if err != nil {
		return nil, err
	}
	boxes, err := t.view.secretBoxes(ctx)
	if err != nil {
		return nil, backendError("look for shown secrets", err)
	}
	// (a password field prints as dots)
	// (and a canvas is painted only beside another box)
	boxes = slices.DeleteFunc(boxes, func(b secretBox) bool { return b.dots || b.canvas })
	if len(boxes) > 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the page shows a declared secret in %d place(s); a PDF of it would hold the secret", len(boxes)),
			Hint: "clear or leave the field that holds it first; browser_screenshot captures the page with secrets painted over"}
	}
	if name, err := t.view.printedSecret(ctx); err != nil {
		return nil, backendError("look for shown secrets", err)
	} else if name != "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the page shows part of the declared secret %s (in its text, a field, generated content or a frame); a PDF of it would hold it", name),
			Hint: "clear or leave what shows it first; browser_screenshot captures the page with secrets painted over"}
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := t.page.Call(ctx, "Page.printToPDF", params, &res); err != nil {
		if ctx.Err() == nil && strings.Contains(err.Error(), "Page range") {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("pages %q: %v", o.Pages, err),
				Hint: "give pages that exist, e.g. \"1-3\" (omit pages for all of them)", Err: err}
		}
		return nil, pdfError(err)
	}
	data, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return nil, fmt.Errorf("print to PDF: %w", err)
	}
	n, err := pdfPageCount(data)
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "the browser's PDF does not read as one: " + err.Error(), Err: err}
	}
	url, title, _ := t.location(ctx)
	path, err := h.s.pol.saveOutput(h.s.link.clientID(), "page", "pdf", data)
	if err != nil {
		return nil, err
	}
	return &PDF{Path: path, Bytes: len(data), Pages: n, URL: h.s.ShowURL(url), Title: title, Paper: paper}, nil
}

// pdfError is a print the browser refused or failed.
func pdfError(err error) error {
	if _, ok := AsError(err); ok {
		return err
	}
	msg := err.Error()
	if strings.Contains(msg, "not implemented") || strings.Contains(msg, "not allowed") || strings.Contains(msg, "wasn't found") {
		return &Error{Code: CodeNotActionable, Message: "this browser does not print to PDF for webpilot: " + msg,
			Hint: "print with the Chromium webpilot launches (--backend launch) or a CDP endpoint; through the extension, Chrome may refuse it", Err: err}
	}
	return backendError("print the page to PDF", err)
}

// params are Page.printToPDF's parameters for o, with the paper's name.
func (o PDFOptions) params() (map[string]any, string, error) {
	p := map[string]any{"printBackground": o.Background, "landscape": o.Landscape, "generateDocumentOutline": true}
	paper := strings.ToLower(strings.TrimSpace(o.Paper))
	if paper == "" {
		paper = "letter"
	}
	size, ok := PaperSizes[paper]
	if !ok {
		return nil, "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown paper %q", o.Paper), Hint: "use one of " + strings.Join(PaperNames, ", ")}
	}
	p["paperWidth"], p["paperHeight"] = size[0], size[1]
	if o.Scale != 0 {
		if o.Scale < 0.1 || o.Scale > 2 {
			return nil, "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("scale %g is out of range", o.Scale), Hint: "use 0.1 to 2 (1 is the page's own size)"}
		}
		p["scale"] = o.Scale
	}
	if strings.TrimSpace(o.Margins) != "" {
		in, err := inches(o.Margins)
		if err != nil {
			return nil, "", err
		}
		for _, side := range []string{"marginTop", "marginBottom", "marginLeft", "marginRight"} {
			p[side] = in
		}
	}
	if strings.TrimSpace(o.Pages) != "" {
		if !pageRanges.MatchString(o.Pages) {
			return nil, "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("pages %q is not a list of page ranges", o.Pages), Hint: `use page numbers and ranges from 1, e.g. "1-3, 5"`}
		}
		p["pageRanges"] = strings.ReplaceAll(o.Pages, " ", "")
	}
	return p, paper, nil
}

// inches reads a CSS length (a number with in, cm, mm, px or pt; a bare 0)
// as inches.
func inches(s string) (float64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	bad := &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("margins %q is not a length", s), Hint: `use a number with a unit: "0", "1cm", "12mm", "0.5in", "20px" or "10pt"`}
	per := map[string]float64{"in": 1, "cm": 1 / 2.54, "mm": 1 / 25.4, "px": 1.0 / 96, "pt": 1.0 / 72}
	for unit, f := range per {
		if num, ok := strings.CutSuffix(s, unit); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || v < 0 || v*f > 5 {
				return 0, bad
			}
			return v * f, nil
		}
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && v == 0 {
		return 0, nil
	}
	return 0, bad
}

// pdfCount finds a page tree node's /Count.
var pdfCount = regexp.MustCompile(`/Count\s+(\d+)`)

// pdfPageCount reads a PDF's page count: the largest /Count of its page
// tree nodes (/Type /Pages), which the root holds. Chromium writes them
// uncompressed.
func pdfPageCount(data []byte) (int, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return 0, fmt.Errorf("no %%PDF header")
	}
	if !bytes.Contains(data[max(0, len(data)-1024):], []byte("%%EOF")) {
		return 0, fmt.Errorf("no %%%%EOF at its end")
	}
	best := -1
	for rest := data; ; {
		i := bytes.Index(rest, []byte("/Type /Pages"))
		if i < 0 {
			i = bytes.Index(rest, []byte("/Type/Pages"))
		}
		if i < 0 {
			break
		}
		// the node's dictionary: from its "<<" to its ">>"
		start := bytes.LastIndex(rest[:i], []byte("<<"))
		end := bytes.Index(rest[i:], []byte(">>"))
		if start >= 0 && end >= 0 {
			if m := pdfCount.FindSubmatch(rest[start : i+end]); m != nil {
				if n, err := strconv.Atoi(string(m[1])); err == nil && n > best {
					best = n
				}
			}
		}
		rest = rest[i+len("/Type/Pages"):]
	}
	if best < 0 {
		return 0, fmt.Errorf("no page tree")
	}
	return best, nil
}

// printedTextJS is the text a print of the document may hold: its text
// nodes, field values (not a password field's, printed as dots), selected
// options, generated content (::before, ::after) and same-origin frames'
// documents, through open shadow roots, in document order, bounded.
const printedTextJS = `(() => {
  const parts = [];
  let chars = 0;
  const push = (s) => { if (s && chars < MAXC) { parts.push(s); chars += s.length; } };
  const pseudo = (el) => {
    for (const p of ["::before", "::after"]) {
      const c = getComputedStyle(el, p).content;
      if (c && c !== "none" && c !== "normal") push(c);
    }
  };
  const visit = (doc, root) => {
    const w = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.currentNode; n && chars < MAXC; n = w.nextNode()) {
      if (n.nodeType === 3) {
        const p = n.parentElement;
        if (p && !/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(p.tagName)) push(n.data);
        continue;
      }
      if (n.nodeType !== 1) continue;
      if (n.shadowRoot) visit(doc, n.shadowRoot);
      pseudo(n);
      const t = n.tagName;
      if ((t === "INPUT" && n.type !== "password") || t === "TEXTAREA") push(n.value);
      else if (t === "SELECT") push(Array.from(n.selectedOptions, (o) => o.text).join(" "));
      else if (t === "IFRAME" || t === "FRAME") {
        let d = null;
        try { d = n.contentDocument; } catch (e) {}
        if (d && d.documentElement) visit(d, d.documentElement);
      }
    }
  };
  visit(document, document.documentElement);
  return parts.join("\n");
})()`

// printedSecret names a declared secret of the caller's that a print of
// the page would show, whole or split across elements (Caller.Fragment);
// "" when none does or the caller declared none.
func (v *pageView) printedSecret(ctx context.Context) (string, error) {
	t := v.t
	if t.link.caller.Fragment == nil {
		return "", nil
	}
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return "", err
	}
	var text string
	js := strings.ReplaceAll(printedTextJS, "MAXC", strconv.Itoa(maxSecretChars))
	if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(ctx, js, &text); err != nil {
		return "", err
	}
	return t.link.caller.Fragment(text), nil
}
