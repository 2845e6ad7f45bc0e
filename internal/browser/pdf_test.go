package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A page prints to a PDF in the output directory, with the page count its
// page tree holds; the options change what is printed, and bad ones are
// refused before anything is printed.
func TestPrintPDF(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.navigate("/pdf/three.html")
	print := func(o browser.PDFOptions) (*browser.PDF, error) {
		var pdf *browser.PDF
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			pdf, err = h.Capture().PrintPDF(ctx, o)
			return err
		})
		return pdf, err
	}
	pdf, err := print(browser.PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdf.Pages != 3 || pdf.Title != "Three pages" || pdf.Paper != "letter" || filepath.Dir(pdf.Path) != out {
		t.Errorf("PDF = %+v, want 3 pages of \"Three pages\" on letter in %s", pdf, out)
	}
	data, err := os.ReadFile(pdf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != pdf.Bytes || !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Errorf("the file holds %d bytes (reported %d), starting %q", len(data), pdf.Bytes, data[:min(8, len(data))])
	}
	if fi, err := os.Stat(pdf.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the PDF's mode: %v %v", fi, err)
	}
	// Page ranges, landscape A4 with no margins and a background: a page
	// turned sideways is wider than tall in its media box.
	one, err := print(browser.PDFOptions{Pages: "2", Landscape: true, Paper: "A4", Margins: "0", Background: true, Scale: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if one.Pages != 1 || one.Paper != "a4" {
		t.Errorf("pages 2 on A4 = %+v, want one page on a4", one)
	}
	if b, _ := os.ReadFile(one.Path); !landscapeBox(b) {
		t.Errorf("the landscape PDF's media box is not wider than tall")
	}
	two, err := print(browser.PDFOptions{Pages: "1, 3"})
	if err != nil || two.Pages != 2 {
		t.Errorf("pages \"1, 3\" = %+v, %v; want 2 pages", two, err)
	}
	for _, c := range []struct {
		o    browser.PDFOptions
		want string
	}{
		{browser.PDFOptions{Paper: "napkin"}, "unknown paper"},
		{browser.PDFOptions{Margins: "wide"}, "not a length"},
		{browser.PDFOptions{Margins: "-1cm"}, "not a length"},
		{browser.PDFOptions{Scale: 5}, "out of range"},
		{browser.PDFOptions{Pages: "first"}, "page ranges"},
		{browser.PDFOptions{Pages: "7-9"}, "pages"},
	} {
		_, err := print(c.o)
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.o, be.Message, c.want)
		}
	}
}

// landscapeBox says whether a PDF's first /MediaBox is wider than tall.
func landscapeBox(b []byte) bool {
	i := bytes.Index(b, []byte("/MediaBox"))
	if i < 0 {
		return false
	}
	rest := string(b[i+len("/MediaBox"):])
	open, end := strings.Index(rest, "["), strings.Index(rest, "]")
	if open < 0 || end < open {
		return false
	}
	var box []float64
	if json.Unmarshal([]byte("["+strings.Join(strings.Fields(rest[open+1:end]), ",")+"]"), &box) != nil || len(box) != 4 {
		return false
	}
	return box[2]-box[0] > box[3]-box[1]
}

// Raw CDP: an allow-listed method runs on the tab's session and returns
// its result; a method outside the list, or one never sent, is refused
// with what is allowed; the browser's own refusal is an invalid argument.
func TestRawCDP(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	send := func(method, params string) (*browser.CDPResult, error) {
		var res *browser.CDPResult
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			res, err = h.RawCDP(ctx, method, json.RawMessage(params), nil)
			return err
		})
		return res, err
	}
	res, err := send("Runtime.evaluate", `{"expression": "document.title + ' ' + (6 * 7)", "returnByValue": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.JSON, `"value":"Basic page 42"`) || !strings.HasSuffix(res.URL, "/basic.html") {
		t.Errorf("Runtime.evaluate = %+v", res)
	}
	if res, err := send("DOM.getDocument", `{"depth": 1}`); err != nil || !strings.Contains(res.JSON, `"nodeName":"#document"`) {
		t.Errorf("DOM.getDocument = %+v, %v", res, err)
	}
	if _, err := send("Page.getLayoutMetrics", ""); err != nil {
		t.Errorf("a method without params: %v", err)
	}
	for _, c := range []struct{ method, want string }{
		{"Target.getTargets", "never sent"},
		{"Browser.close", "never sent"},
		{"Fetch.disable", "origin policy"},
		{"Page.setDownloadBehavior", "outside the output directory"},
		{"Debugger.enable", "not on the CDP allow-list"},
		{"getDocument", "not a CDP method"},
		{"DOM.noSuchMethod", "the browser refused"},
	} {
		_, err := send(c.method, "{}")
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message+be.Hint, c.want) {
			t.Errorf("%s: %q (%s), want it to say %q", c.method, be.Message, be.Hint, c.want)
		}
	}
	if _, err := send("DOM.getDocument", `[1, 2]`); wantCode(t, err, browser.CodeInvalidArgument) == nil {
		t.Error("params that are no object were sent")
	}
	// A list of the user's: only what it names.
	e2 := newEnv(t, browser.Options{CDPAllow: []string{"Debugger", "Page.getLayoutMetrics"}})
	e2.navigate("/basic.html")
	do2 := func(method string) error {
		return e2.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.RawCDP(ctx, method, nil, nil)
			return err
		})
	}
	if err := do2("Page.getLayoutMetrics"); err != nil {
		t.Errorf("a method on the list: %v", err)
	}
	if err := do2("Debugger.disable"); err != nil {
		t.Errorf("a domain on the list: %v", err)
	}
	if be := wantCode(t, do2("Runtime.evaluate"), browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Hint, "Debugger, Page.getLayoutMetrics") {
		t.Errorf("off the list: %+v", be)
	}
	if err := browser.CheckCDPAllow([]string{"DOM", "Target"}); err == nil || !strings.Contains(err.Error(), "Target is never sent") {
		t.Errorf("CheckCDPAllow with Target: %v", err)
	}
}

// Raw CDP obeys the rules the other tools keep (issue 47, 1): no file:
// page, no local file into an input past the upload roots, no unpainted
// image, no script for every later page, no disabling of what webpilot
// needs; under --blocked-origins no URL or cookie of a blocked origin; and
// browser_storage sets no cookie for a blocked origin either (issue 47,
// 11). The tab still navigates afterwards.
func TestRawCDPKeepsTheRules(t *testing.T) {
	e := newEnv(t, browser.Options{BlockedOrigins: []string{"blocked.example"}, UploadRoots: []string{t.TempDir()}})
	e.navigate("/basic.html")
	send := func(method, params string) error {
		return e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.RawCDP(ctx, method, json.RawMessage(params), nil)
			return err
		})
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("not for the page"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, params string
		code           browser.Code
		want           string
	}{
		{"Page.navigate", `{"url": "file:///etc/passwd"}`, browser.CodeInvalidArgument, "file: URLs are refused"},
		{"Page.navigate", `{"url": " FILE:///etc/"}`, browser.CodeInvalidArgument, "file: URLs are refused"},
		{"Page.navigate", `{"url": "chrome://settings"}`, browser.CodeInvalidArgument, "chrome: URLs are refused"},
		{"Page.navigate", `{"url": "fi\tle:///etc/passwd"}`, browser.CodeInvalidArgument, "file: URLs are refused"},
		{"Page.navigate", `{"url": "\u0001file:///etc/passwd"}`, browser.CodeInvalidArgument, "file: URLs are refused"},
		{"Page.navigate", `{"url": "java\nscript:alert(1)"}`, browser.CodeInvalidArgument, "javascript: URLs are refused"},
		{"Page.navigate", `{"url": "https:blocked.example/"}`, browser.CodeOriginBlocked, "blocked.example"},
		{"Page.navigate", `{"url": "https:\\\\blocked.example\\x"}`, browser.CodeOriginBlocked, "blocked.example"},
		{"Page.navigate", `{"url": "https://blocked.example/"}`, browser.CodeOriginBlocked, "blocked.example"},
		{"Network.loadNetworkResource", `{"url": "https://blocked.example/x", "frameId": "x", "options": {"disableCache": true, "includeCredentials": true}}`, browser.CodeOriginBlocked, "blocked.example"},
		{"Network.setCookie", `{"name": "a", "value": "b", "domain": ".blocked.example"}`, browser.CodeOriginBlocked, "cookie"},
		{"Network.setCookies", `{"cookies": [{"name": "a", "value": "b", "url": "https://blocked.example/"}]}`, browser.CodeOriginBlocked, "cookie"},
		{"DOM.setFileInputFiles", `{"files": ["/etc/passwd"], "nodeId": 1}`, browser.CodeInvalidArgument, "outside the directories uploads may come from"},
		{"DOM.setFileInputFiles", `{"files": [` + strconv.Quote(outside) + `], "nodeId": 1}`, browser.CodeInvalidArgument, "outside the directories uploads may come from"},
		{"Page.captureScreenshot", `{}`, browser.CodeInvalidArgument, "browser_screenshot"},
		{"Page.captureSnapshot", `{}`, browser.CodeInvalidArgument, "browser_read"},
		{"Page.printToPDF", `{}`, browser.CodeInvalidArgument, "browser_pdf"},
		{"Page.startScreencast", `{}`, browser.CodeInvalidArgument, "browser_screencast"},
		{"Page.addScriptToEvaluateOnNewDocument", `{"source": "fetch('https://blocked.example/')"}`, browser.CodeInvalidArgument, "browser_eval"},
		{"Page.disable", `{}`, browser.CodeInvalidArgument, "never sent"},
		{"Runtime.disable", `{}`, browser.CodeInvalidArgument, "never sent"},
		{"Network.disable", `{}`, browser.CodeInvalidArgument, "never sent"},
		{"Page.crash", `{}`, browser.CodeInvalidArgument, "never sent"},
		{"Page.setWebLifecycleState", `{"state": "frozen"}`, browser.CodeInvalidArgument, "never sent"},
	} {
		be := wantCode(t, send(c.method, c.params), c.code)
		if be != nil && !strings.Contains(be.Message+" "+be.Hint, c.want) {
			t.Errorf("%s %s: %q (%s), want it to say %q", c.method, c.params, be.Message, be.Hint, c.want)
		}
	}
	// What the rules allow still goes: a page on an allowed origin, a
	// cookie of the page's own, text that merely holds a colon.
	if err := send("Page.navigate", `{"url": "`+e.base+"/form.html"+`"}`); err != nil {
		t.Errorf("an allowed navigate: %v", err)
	}
	if err := send("Network.setCookie", `{"name": "a", "value": "b", "url": "`+e.base+"/"+`"}`); err != nil {
		t.Errorf("a cookie of the page's own: %v", err)
	}
	if err := send("Runtime.evaluate", `{"expression": "'note: http or file: are words here'"}`); err != nil {
		t.Errorf("an expression with a colon: %v", err)
	}
	e.navigate("/basic.html")
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Storage().Run(ctx, browser.StorageOptions{Action: "cookies", Op: "set", Name: "a", Value: "b", Domain: "blocked.example"})
		return err
	})
	wantCode(t, err, browser.CodeOriginBlocked)
}
