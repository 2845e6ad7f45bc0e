package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
	// What would write or show a declared secret where it is not masked:
	// the safe tools paint or refuse it.
	"Page.captureScreenshot":   "its image is not painted where a declared secret shows; use browser_screenshot",
	"Page.captureSnapshot":     "its MHTML holds the page's text and fields unmasked; use browser_read or browser_snapshot",
	"Page.printToPDF":          "it prints declared secrets the page shows; use browser_pdf",
	"Page.startScreencast":     "its frames are not painted where a declared secret shows; use browser_screencast",
	"LayerTree.replaySnapshot": "its image is not painted where a declared secret shows; use browser_screenshot",
	"HeadlessExperimental":     "it captures the screen without painting declared secrets; use browser_screenshot",
	// What webpilot cannot check, or what it needs to keep working.
	"Page.addScriptToEvaluateOnNewDocument": "a script run on every later page of the tab is beyond the origin rules' reach; run code on the page you are on with browser_eval",
	"Page.crash":                            "it kills the tab's page; close the tab with browser_tabs",
	"Page.close":                            "close the tab with browser_tabs",
	"Page.setWebLifecycleState":             "a frozen page answers no later call",
	"Page.setLifecycleEventsEnabled":        "webpilot's navigation waits rely on the lifecycle events",
	"Page.disable":                          "webpilot's navigation, dialogs and downloads rely on the Page domain",
	"Runtime.disable":                       "webpilot's page scripts and console rely on the Runtime domain",
	"Network.disable":                       "webpilot's navigation waits and network log rely on the Network domain",
	"DOM.disable":                           "webpilot's targets rely on the DOM domain",
	"Inspector":                             "webpilot follows the tab's crashes and detaches itself",
}

// cdpPathKeys are the parameters that name local files: only uploads do
// (DOM.setFileInputFiles' files, checked against the upload roots);
// any other method that takes one is refused.
var cdpPathKeys = map[string]bool{"files": true, "path": true, "filePath": true, "downloadPath": true, "outputPath": true}

// cdpCookieMethods set cookies: each cookie's domain or URL is held to the
// origin rules (Policy.cookieAllowed).
var cdpCookieMethods = map[string]bool{"Network.setCookie": true, "Network.setCookies": true, "Storage.setCookies": true}

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
// session and returns the browser's result. Its parameters obey the rules
// the other tools keep (checkCDPParams): roots are the calling client's,
// where an upload may come from besides webpilot's own.
func (h *Held) RawCDP(ctx context.Context, method string, params json.RawMessage, roots []string) (*CDPResult, error) {
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
		if err := h.s.checkCDPParams(method, obj, roots); err != nil {
			return nil, err
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
	res.URL = h.s.ShowURL(res.URL)
	if len(text) > MaxCDPChars {
		path, err := h.s.pol.saveOutput(h.s.link.clientID(), "cdp", "json", []byte(text))
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

// checkCDPParams holds a raw command's parameters to the rules every tool
// keeps: each string that is a URL to the origin rules and the file: and
// script: refusals (as browser_navigate's), each cookie's domain to the
// origin rules, the files of DOM.setFileInputFiles to the upload roots
// (as an upload's, whose resolved paths replace them), and no other
// parameter may name a local file.
func (s *Session) checkCDPParams(method string, params map[string]any, roots []string) error {
	if method == "DOM.setFileInputFiles" {
		var files []string
		list, _ := params["files"].([]any)
		for _, f := range list {
			str, ok := f.(string)
			if !ok {
				return &Error{Code: CodeInvalidArgument, Message: "files must be a list of paths"}
			}
			files = append(files, str)
		}
		real, err := s.localFiles(files, false, roots)
		if err != nil {
			return err
		}
		params["files"] = real
	}
	if cdpCookieMethods[method] {
		cookies := []any{params}
		if list, ok := params["cookies"].([]any); ok {
			cookies = list
		}
		for _, c := range cookies {
			m, _ := c.(map[string]any)
			domain, _ := m["domain"].(string)
			u, _ := m["url"].(string)
			if err := s.pol.cookieAllowed(domain, u); err != nil {
				return err
			}
		}
	}
	var walk func(key string, v any) error
	walk = func(key string, v any) error {
		switch x := v.(type) {
		case string:
			if cdpPathKeys[key] && method != "DOM.setFileInputFiles" {
				return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s names a local file (%s), which browser_cdp does not send", method, key),
					Hint: "upload files with browser_action upload; webpilot writes its own files to the output directory"}
			}
			return s.pol.checkCDPURL(method, x)
		case []any:
			for _, e := range x {
				if err := walk(key, e); err != nil {
					return err
				}
			}
		case map[string]any:
			for k, e := range x {
				if err := walk(k, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for k, v := range params {
		if k == "files" && method == "DOM.setFileInputFiles" {
			continue
		}
		if err := walk(k, v); err != nil {
			return err
		}
	}
	return nil
}

// browserURL is v as the browser's URL parser reads it: C0 controls and
// spaces trimmed at both ends, tabs and line breaks taken out anywhere,
// backslashes as slashes ("fi\tle:///etc" is file:///etc).
func browserURL(v string) string {
	v = strings.TrimFunc(v, func(r rune) bool { return r <= ' ' })
	v = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v)
	if m := cdpScheme.FindStringSubmatch(v); m != nil {
		v = m[0] + strings.ReplaceAll(v[len(m[0]):], "\\", "/")
	}
	return v
}

// cdpScheme is a URL's scheme at the start of a raw parameter.
var cdpScheme = regexp.MustCompile(`^(?i)([a-z][a-z0-9+.-]*):`)

// checkCDPURL holds a raw command's string parameter that is a URL to the
// rules browser_navigate keeps: the origin rules for web, data: and blob:
// URLs, file: only when local files are allowed, and no javascript:,
// browser-internal or extension URL. A string that is no URL passes.
func (p *Policy) checkCDPURL(method, v string) error {
	v = browserURL(v)
	m := cdpScheme.FindStringSubmatch(v)
	if m == nil {
		return nil
	}
	scheme := strings.ToLower(m[1])
	switch scheme {
	case "http", "https", "ws", "wss", "data", "blob", "file":
		if rest := v[len(m[0]):]; (scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss") && !strings.HasPrefix(rest, "//") {
			// "https:evil.example" and "https:/evil.example" are
			// https://evil.example/ to the browser.
			v = m[0] + "//" + strings.TrimLeft(rest, "/")
		}
		u, err := url.Parse(v)
		if err != nil {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: %q is not a valid URL", method, Echo(v))}
		}
		if scheme == "file" && !p.fileAllowed() {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: file: URLs are refused", method),
				Hint: `serve the file over http, or start webpilot with --allowed-origins "file://" to allow local files`}
		}
		switch scheme {
		case "ws":
			u.Scheme = "http"
		case "wss":
			u.Scheme = "https"
		}
		if e := p.originPolicy(u); e != nil {
			e.Message = method + ": " + e.Message
			return e
		}
	case "javascript", "chrome", "chrome-extension", "chrome-untrusted", "chrome-search", "devtools", "view-source", "filesystem", "edge", "brave", "opera":
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: %s: URLs are refused", method, scheme),
			Hint: "webpilot opens http, https, about and data URLs; run code in the page with browser_eval"}
	}
	return nil
}
