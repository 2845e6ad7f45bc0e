package origin

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// A Rule is one entry of --allowed-origins or --blocked-origins:
//
//	example.com            the host, any scheme and port
//	*.example.com          the host and every subdomain
//	example.com:8080       the host on that port (http or https)
//	https://example.com    the host over that scheme (any port unless one is given)
//	[::1]:3000, 127.0.0.1  addresses, written as the browser would or not
//	file://                local files
//	data:                  data: URLs
//
// Hosts are compared as the browser canonicalizes them: case and a
// trailing dot do not matter, numeric IPv4 forms (2130706433, 0x7f.1,
// 0177.0.0.1) are the dotted address, IPv4-mapped IPv6 is the IPv4 address,
// and the names of this machine's loopback (localhost, *.localhost,
// and every loopback or unspecified address) are one host.
type Rule struct {
	raw      string
	kind     string // "web", "file", "data", "all" or "none"
	scheme   string // "http" or "https"; "" for either
	host     string // canonical host, without brackets
	wildcard bool   // host and its subdomains
	port     string // "" for any
}

// String is the rule as it was written.
func (r Rule) String() string { return r.raw }

// Matches says whether the rule covers u.
func (r Rule) Matches(u *url.URL) bool { return r.matches(u) }

// IsFile says whether the rule is file://, the one that lets local files
// open.
func (r Rule) IsFile() bool { return r.kind == "file" }

// MatchAll is a rule that covers every URL, shown as raw: a list of
// blocked origins that does not parse blocks everything.
func MatchAll(raw string) Rule { return Rule{raw: raw, kind: "all"} }

// MatchNone is a rule that covers no URL, shown as raw: a list of allowed
// origins that does not parse allows nothing.
func MatchNone(raw string) Rule { return Rule{raw: raw, kind: "none"} }

// Parse parses one --allowed-origins or --blocked-origins entry,
// or says why it is not one.
func Parse(s string) (Rule, error) {
	raw := strings.TrimSpace(s)
	r := Rule{raw: raw, kind: "web"}
	p := strings.ToLower(raw)
	if p == "" {
		return r, errors.New("empty origin rule")
	}
	switch p {
	case "file:", "file://", "file:///":
		r.kind = "file"
		return r, nil
	case "data:", "data://":
		r.kind = "data"
		return r, nil
	}
	bad := func(why string) (Rule, error) {
		return r, fmt.Errorf("%q is not an origin or host (%s): write example.com, example.com:8080, *.example.com, https://example.com, file:// or data:", raw, why)
	}
	if i := strings.Index(p, "://"); i >= 0 {
		r.scheme = p[:i]
		if r.scheme != "http" && r.scheme != "https" {
			return bad("only http, https, file and data schemes")
		}
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			if p[j:] != "/" {
				return bad("an origin has no path")
			}
			p = p[:j]
		}
	}
	if strings.ContainsAny(p, "/?#@ \t\\") {
		return bad("unexpected character")
	}
	host := p
	if strings.Count(p, ":") > 1 && !strings.HasPrefix(p, "[") {
		// A bare IPv6 address: no port can follow it.
		if _, err := netip.ParseAddr(p); err != nil {
			return bad("write an IPv6 address in brackets: [::1]:8080")
		}
		r.host = canonicalHost(p)
		return r, nil
	}
	if strings.HasPrefix(p, "[") {
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return bad("unclosed [")
		}
		host, p = p[1:end], p[end+1:]
		if p != "" && !strings.HasPrefix(p, ":") {
			return bad("text after ]")
		}
		if p != "" {
			r.port = p[1:]
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return bad("not an IPv6 address in brackets")
		}
	} else if i := strings.LastIndexByte(p, ':'); i >= 0 {
		host, r.port = p[:i], p[i+1:]
	}
	if strings.HasSuffix(p, ":") {
		return bad("empty port")
	}
	if r.port != "" {
		n, err := strconv.Atoi(r.port)
		if err != nil || n < 1 || n > 65535 {
			return bad("port must be 1-65535")
		}
		r.port = strconv.Itoa(n)
	}
	if strings.HasPrefix(host, "*.") {
		r.wildcard = true
		host = host[2:]
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return bad("no host")
	}
	if !strings.Contains(host, ":") { // IPv6 checked above
		for _, label := range strings.Split(host, ".") {
			if label == "" {
				return bad("empty label")
			}
			for _, c := range label {
				if c >= 0x80 {
					// The browser asks for the ASCII (xn--) form of an
					// international name; a rule in another form would
					// never match it.
					return bad("write an international host in its ASCII form, xn--…")
				}
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
					return bad(fmt.Sprintf("%q in the host", c))
				}
			}
		}
	}
	r.host = canonicalHost(host)
	return r, nil
}

// ParseList parses a list of rules; the error names every bad one.
func ParseList(list []string) ([]Rule, error) {
	var out []Rule
	var errs []error
	for _, s := range list {
		r, err := Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// canonicalHost is a host (without brackets) as the browser writes it.
func canonicalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String()
	}
	if v4, ok := parseIPv4(h); ok {
		return v4
	}
	return h
}

// parseIPv4 reads the WHATWG URL forms of an IPv4 address: one to four
// parts, each decimal, 0x hex or 0-prefixed octal, the last filling the
// bytes left.
func parseIPv4(h string) (string, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return "", false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return "", false
		}
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			base, p = 16, p[2:]
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return "", false
		}
		nums[i] = n
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return "", false
		}
	}
	if nums[last] >= 1<<(8*(5-len(nums))) {
		return "", false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v += n << (8 * (3 - i))
	}
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255), true
}

// loopbackName says a canonical host reaches this machine the way the
// browser resolves it: localhost and its subdomains, every loopback address
// (127.0.0.0/8, ::1) and the unspecified addresses (0.0.0.0, ::), which
// connect to this machine too.
func loopbackName(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && (a.Unmap().IsLoopback() || a.Unmap().IsUnspecified())
}

// effectivePort is a URL's port, the scheme's default when none is written.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return strings.TrimLeft(p, "0")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}

// matches says the rule covers u, an http(s), file or data URL.
func (r Rule) matches(u *url.URL) bool {
	scheme := strings.ToLower(u.Scheme)
	switch r.kind {
	case "file":
		return scheme == "file"
	case "data":
		return scheme == "data"
	case "all":
		return true
	case "none":
		return false
	}
	if scheme != "http" && scheme != "https" {
		return false
	}
	if r.scheme != "" && r.scheme != scheme {
		return false
	}
	if r.port != "" && r.port != effectivePort(u) {
		return false
	}
	host := canonicalHost(u.Hostname())
	switch {
	case host == r.host:
		return true
	case r.wildcard && strings.HasSuffix(host, "."+r.host):
		return true
	case loopbackName(r.host) && loopbackName(host):
		return true
	}
	return false
}
