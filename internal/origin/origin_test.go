package origin

import (
	"net/url"
	"strings"
	"testing"
)

func TestMatches(t *testing.T) {
	tests := []struct {
		rule, url string
		want      bool
	}{
		{"example.com", "https://example.com/x", true},
		{"example.com", "http://example.com:8080/", true},
		{"example.com", "https://www.example.com/", false},
		{"*.example.com", "https://www.example.com/", true},
		{"*.example.com", "https://example.com/", true},
		{"*.example.com", "https://badexample.com/", false},
		{"https://example.com", "https://example.com/a", true},
		{"https://example.com", "http://example.com/a", false},
		{"https://example.com/", "https://example.com:8443/a", true},
		{"http://localhost:3000", "http://localhost:3000/", true},
		{"http://localhost:3000", "http://localhost:4000/", false},
		{"EXAMPLE.com", "https://example.COM/", true},
		{"example.com.", "https://example.com/", true},
		{"example.com", "https://example.com./", true},
		// host:port, the form that used to match nothing
		{"127.0.0.1:8702", "http://127.0.0.1:8702/", true},
		{"127.0.0.1:8702", "http://127.0.0.1:8701/", false},
		{"example.com:443", "https://example.com/", true},
		{"example.com:80", "https://example.com/", false},
		{"example.com:8080", "https://example.com:08080/", true},
		// the loopback is one host, by any name
		{"localhost", "http://127.0.0.1:9/", true},
		{"127.0.0.1", "http://localhost/", true},
		{"127.0.0.1", "http://LOCALHOST./", true},
		{"127.0.0.1", "http://app.localhost/", true},
		{"127.0.0.1", "http://[::1]/", true},
		{"[::1]", "http://localhost:3000/", true},
		{"::1", "http://127.0.0.1/", true},
		{"localhost:8702", "http://127.0.0.1:8702/", true},
		{"localhost:8702", "http://127.0.0.1:8701/", false},
		{"127.0.0.2", "http://127.0.0.1/", true},
		{"localhost", "http://127.0.0.2/", true},
		{"localhost", "http://0x7f000002/", true},
		{"localhost", "http://[::ffff:127.0.0.2]/", true},
		{"localhost", "http://0.0.0.0:8080/", true},
		{"localhost", "http://[::]:8080/", true},
		{"localhost", "http://10.0.0.1/", false},
		{"localhost:8080", "http://0.0.0.0:8081/", false},
		// numeric forms of an address
		{"127.0.0.1", "http://2130706433/", true},
		{"127.0.0.1", "http://0x7f000001/", true},
		{"127.0.0.1", "http://0177.0.0.1/", true},
		{"127.0.0.1", "http://127.1/", true},
		{"10.0.0.1", "http://10.1/", true},
		{"10.0.0.1", "http://167772161/", true},
		{"10.0.0.1", "http://[::ffff:10.0.0.1]/", true},
		{"10.0.0.1", "http://[::ffff:a00:1]/", true},
		{"192.168.1.1", "http://192.168.1.10/", false},
		{"[2001:db8::1]", "http://[2001:0db8:0:0::1]:80/", true},
		// schemes
		{"file://", "file:///etc/passwd", true},
		{"file://", "https://example.com/", false},
		{"data:", "data:text/html,x", true},
		{"data:", "https://example.com/", false},
		{"example.com", "data:text/html,x", false},
	}
	for _, tc := range tests {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.rule, err)
			continue
		}
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.matches(u); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.rule, tc.url, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{
		"", "   ", "https://example.com/path", "ftp://example.com", "example.com:", "example.com:99999",
		"example.com:port", "exa mple.com", "user@example.com", "https://example.com?x=1", "[::1", "[nothost]:80",
		"*.", "a..b", "example.com/x", "javascript:", "::1:", "http://", "bücher.de",
	} {
		if r, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, r)
		} else if bad != "" && strings.TrimSpace(bad) != "" && !strings.Contains(err.Error(), "example.com") {
			t.Errorf("Parse(%q): error %q shows no example", bad, err)
		}
	}
}

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433": "127.0.0.1", "0x7F.1": "127.0.0.1", "0177.0.0.01": "127.0.0.1", "127.0.0.1.": "127.0.0.1",
		"[::ffff:127.0.0.1]": "127.0.0.1", "::FFFF:7f00:1": "127.0.0.1", "0x": "0.0.0.0", "4294967296": "4294967296",
		"256.1.1.1": "256.1.1.1", "Example.COM.": "example.com", "1.2.3.4.5": "1.2.3.4.5", "08.1.1.1": "08.1.1.1",
	} {
		if got := canonicalHost(in); got != want {
			t.Errorf("canonicalHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFixedRules(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	if !MatchAll("(invalid rule)").Matches(u) || MatchNone("(invalid)").Matches(u) {
		t.Error("MatchAll or MatchNone matches wrongly")
	}
	if MatchAll("(invalid rule)").String() != "(invalid rule)" {
		t.Error("a fixed rule does not show as written")
	}
	for rule, want := range map[string]bool{"file://": true, "file:": true, "example.com": false, "data:": false} {
		r, err := Parse(rule)
		if err != nil || r.IsFile() != want {
			t.Errorf("Parse(%q).IsFile() = %v, %v; want %v", rule, r.IsFile(), err, want)
		}
	}
}
