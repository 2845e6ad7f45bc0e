package origin

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Site is where a URL (or a bare host) leads: its
// registrable domain (www.shop.example.co.uk → example.co.uk), or the host
// itself for an IP address, localhost or a name without a public suffix;
// "" when there is no host (about:blank, data:). The site gate of
// recipes and the person's approvals (per client and site) go by it.
func Site(raw string) string {
	host := strings.TrimSpace(raw)
	if h, port, err := net.SplitHostPort(host); err == nil && isDigits(port) {
		host = h // host:port
	} else if strings.Contains(host, ":") || strings.HasPrefix(host, "//") {
		u, err := url.Parse(host) // a URL; about:, data: and the like have no host
		if err != nil {
			return ""
		}
		host = u.Hostname()
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return ""
	}
	if net.ParseIP(host) != nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
