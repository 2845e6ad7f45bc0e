package tools

import "testing"

// A navigation counts as sent to a sign-in page only when it ended on
// another page whose address reads as one.
func TestRedirected(t *testing.T) {
	for _, c := range []struct {
		asked, got string
		want       bool
	}{
		{"http://127.0.0.1:1/members", "http://127.0.0.1:1/human/signin.html?next=/members", true},
		{"https://shop.example/orders", "https://accounts.example.com/ServiceLogin?continue=x", true},
		{"https://app.example/", "https://app.example/auth/sso", true},
		{"https://example.com", "https://www.example.com/", false},                 // www and a slash
		{"http://example.com/", "https://example.com:443/", false},                 // the scheme and its port
		{"https://example.com/", "https://example.com/en-us/", false},              // a locale, no sign-in
		{"https://example.com/login", "https://example.com/login", false},          // asked for it
		{"https://example.com/login?next=/", "https://example.com/login/", false},  // the same page
		{"example.com", "https://example.com/login", false},                        // no host asked
		{"https://blog.example/posts", "https://blog.example/posts/latest", false}, // elsewhere, not a sign-in
	} {
		if got := redirected(c.asked, c.got); got != c.want {
			t.Errorf("redirected(%q, %q) = %v, want %v", c.asked, c.got, got, c.want)
		}
	}
}
