package browser

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/origin"
)

// An OriginRule is one entry of --allowed-origins or --blocked-origins: an
// origin.Rule (the rules live in internal/origin, a leaf package, so that
// the secrets need not import the engine).
type OriginRule = origin.Rule

// ParseOriginRule parses one --allowed-origins or --blocked-origins entry,
// or says why it is not one (origin.Parse).
func ParseOriginRule(s string) (OriginRule, error) { return origin.Parse(s) }

// ParseOriginRules parses a list of rules; the error names every bad one
// (origin.ParseList).
func ParseOriginRules(list []string) ([]OriginRule, error) { return origin.ParseList(list) }

// policyURL is the URL whose origin a policy judges: a blob: URL's inner
// URL, else u.
func policyURL(u *url.URL) *url.URL {
	if strings.EqualFold(u.Scheme, "blob") {
		if inner, err := url.Parse(u.Opaque); err == nil && inner.Scheme != "" {
			return inner
		}
	}
	return u
}

// cookieAllowed holds a cookie about to be set (browser_storage, a state
// load, raw CDP) to the origin rules: its domain (a leading dot is the
// domain and its subdomains) or, without one, its URL's host must be an
// origin the session may open, over http or https. A cookie with neither
// is left to the browser, which sets it for the page's own site.
func (p *Policy) cookieAllowed(domain, rawURL string) *Error {
	if !p.policySet() {
		return nil
	}
	var us []*url.URL
	switch {
	case domain != "":
		host := strings.TrimPrefix(strings.TrimSpace(domain), ".")
		us = []*url.URL{{Scheme: "https", Host: host}, {Scheme: "http", Host: host}}
	case rawURL != "":
		u, err := url.Parse(rawURL)
		if err != nil {
			return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the cookie's url %q is not a URL", Echo(rawURL))}
		}
		us = []*url.URL{u}
	}
	for _, u := range us {
		if e := p.originPolicy(u); e != nil {
			return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("a cookie for %s: %s", u.Host, e.Message),
				Hint: "cookies may be set only for origins this configuration opens (--allowed-origins / --blocked-origins)", Suggestions: e.Suggestions}
		}
	}
	return nil
}
