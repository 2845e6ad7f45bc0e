package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// browser_cdp sends one raw CDP command on the current tab's session. What
// it may send is allow-listed: by default the read-mostly page domains
// (DefaultCDPAllow); --cdp-allow replaces the list with domains ("DOM") and
// methods ("Page.printToPDF"). Some domains and methods are never sent,
// whatever the list says (cdpNever): they reach beyond the tab's session
// (other targets, the browser, the machine) or undo what webpilot's own
// guards rely on (Fetch carries the origin policy).

// DefaultCDPAllow are the domains browser_cdp sends to when --cdp-allow
// is not given.
var DefaultCDPAllow = []string{"Accessibility", "Animation", "Audits", "CSS", "CacheStorage", "DOM", "DOMDebugger", "DOMSnapshot",
	"DOMStorage", "Emulation", "IndexedDB", "Input", "LayerTree", "Log", "Media", "Memory", "Network", "Overlay", "Page",
	"Performance", "PerformanceTimeline", "Runtime", "Storage", "WebAudio"}

// cdpNever are the domains and methods browser_cdp never sends, with why.
var cdpNever = map[string]string{
	"Browser":                            "it controls the whole browser, beyond the tab",
	"Target":                             "it reaches other tabs and targets, beyond the tab's session",
	"SystemInfo":                         "it reads the machine, not the page",
	"Tethering":                          "it opens ports on the machine",
	"Fetch":                              "webpilot's origin policy and dialogs run on it",
	"Security":                           "it can switch off certificate checks",
	"IO":                                 "it reads streams of other calls",
	"Extensions":                         "it reaches the browser's extensions",
	"Page.setDownloadBehavior":           "it would write downloads outside the output directory",
	"Network.setRequestInterception":     "webpilot's origin policy intercepts requests itself",
	"Page.setInterceptFileChooserDialog": "webpilot's uploads rely on it",
}

// CheckCDPAllow checks --cdp-allow's entries: a domain ("DOM") or a method
// ("DOM.getDocument"), none that is never sent.
func CheckCDPAllow(list []string) error {
	for _, e := range list {
		domain, method, _ := strings.Cut(e, ".")
		if domain == "" || strings.ContainsAny(e, " /*") || strings.Count(e, ".") > 1 || (strings.Contains(e, ".") && method == "") {
			return fmt.Errorf("--cdp-allow: %q is not a CDP domain (DOM) or method (DOM.getDocument)", e)
		}
		if why, ok := cdpNeverWhy(e); ok {
			return fmt.Errorf("--cdp-allow: %s is never sent: %s", e, why)
		}
	}
	return nil
}

// cdpNeverWhy says why method (or domain) is never sent, if it is not.
func cdpNeverWhy(method string) (string, bool) {
	if why, ok := cdpNever[method]; ok {
		return why, true
	}
	domain, _, _ := strings.Cut(method, ".")
	why, ok := cdpNever[domain]
	return why, ok
}

// cdpAllowed says whether the allow-list (nil: DefaultCDPAllow) lets
// method through.
func cdpAllowed(list []string, method string) bool {
	if list == nil {
		list = DefaultCDPAllow
	}
	domain, _, _ := strings.Cut(method, ".")
	return slices.Contains(list, domain) || slices.Contains(list, method)
}

// CDPResult is what browser_cdp got back: the result as JSON (secrets
// masked), cut to MaxCDPChars; a longer one is saved whole to Path.
type CDPResult struct {
	JSON  string
	Total int // characters of the whole result
	Path  string
	URL   string // the tab's page after the command
}

// MaxCDPChars bounds the result browser_cdp returns inline.
const MaxCDPChars = 20_000

// RawCDP sends method with params (a JSON object, or empty) on the tab's
// session and returns the browser's result.
func (h *Held) RawCDP(ctx context.Context, method string, params json.RawMessage) (*CDPResult, error) {
	t := h.t
	domain, name, ok := strings.Cut(method, ".")
	if !ok || domain == "" || name == "" || strings.ContainsAny(method, " \t\n") {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a CDP method", method), Hint: `name it as Domain.method, e.g. "DOM.getDocument"`}
	}
	allow := h.s.pol.opts.CDPAllow
	if why, never := cdpNeverWhy(method); never {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is never sent through browser_cdp: %s", method, why),
			Hint: "use webpilot's own tools for tabs, downloads and routing (browser_tabs, browser_download)"}
	}
	if !cdpAllowed(allow, method) {
		list := allow
		if list == nil {
			list = DefaultCDPAllow
		}
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is not on the CDP allow-list", method),
			Hint: "allowed: " + strings.Join(list, ", ") + "; the user can change the list with --cdp-allow"}
	}
	var p any
	if len(strings.TrimSpace(string(params))) > 0 && strings.TrimSpace(string(params)) != "null" {
		var obj map[string]any
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, &Error{Code: CodeInvalidArgument, Message: "params must be a JSON object: " + err.Error(), Hint: `e.g. {"depth": 2}`}
		}
		p = obj
	}
	var out json.RawMessage
	if err := t.page.Call(ctx, method, p, &out); err != nil {
		var refused *cdp.Error
		if !errors.As(err, &refused) || ctx.Err() != nil {
			return nil, backendError("send "+method, err)
		}
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the browser refused %s: %v", method, err),
			Hint: "check the method's parameters in the CDP reference (chromedevtools.github.io/devtools-protocol)", Err: err}
	}
	text := string(out)
	if m := t.mask(); m != nil {
		text = m(text)
	}
	res := &CDPResult{JSON: text, Total: len(text)}
	res.URL, _, _ = t.location(ctx)
	if len(text) > MaxCDPChars {
		path, err := h.s.pol.saveOutput("cdp", "json", []byte(text))
		if err != nil {
			return nil, err
		}
		res.Path = path
		cut := MaxCDPChars
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		res.JSON = text[:cut]
	}
	return res, nil
}
