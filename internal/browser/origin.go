package browser

import (
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
