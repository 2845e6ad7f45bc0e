package browser

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// A policy built from rules that do not parse fails closed.
func TestInvalidRulesFailClosed(t *testing.T) {
	blocked := NewManager(Options{Backend: nopBackend{}, BlockedOrigins: []string{"https://x.test/path"}})
	if _, err := blocked.NormalizeURL("https://example.com/"); err == nil {
		t.Error("an invalid blocked rule let a URL through")
	}
	allowed := NewManager(Options{Backend: nopBackend{}, AllowedOrigins: []string{"https://x.test/path"}})
	if _, err := allowed.NormalizeURL("https://x.test/"); err == nil {
		t.Error("an invalid allowed rule allowed its host")
	}
}

func TestDataURLsUnderAllowedOrigins(t *testing.T) {
	only := NewManager(Options{Backend: nopBackend{}, AllowedOrigins: []string{"example.com"}})
	if _, err := only.NormalizeURL("data:text/html,<script>alert(1)</script>"); err == nil {
		t.Error("a data: URL passed --allowed-origins example.com")
	} else if be, ok := AsError(err); !ok || be.Code != CodeOriginBlocked || !strings.Contains(be.Hint, "data:") {
		t.Errorf("data: refusal = %v", err)
	}
	withData := NewManager(Options{Backend: nopBackend{}, AllowedOrigins: []string{"example.com", "data:"}})
	if _, err := withData.NormalizeURL("data:text/html,x"); err != nil {
		t.Errorf("data: with a data: rule: %v", err)
	}
	none := NewManager(Options{Backend: nopBackend{}})
	if _, err := none.NormalizeURL("data:text/html,x"); err != nil {
		t.Errorf("data: with no policy: %v", err)
	}
	blockedData := NewManager(Options{Backend: nopBackend{}, BlockedOrigins: []string{"data:"}})
	if _, err := blockedData.NormalizeURL("data:text/html,x"); err == nil {
		t.Error("data: passed --blocked-origins data:")
	}
	// blob: URLs are judged by the origin inside them.
	bl := NewManager(Options{Backend: nopBackend{}, BlockedOrigins: []string{"evil.test"}})
	u, _ := url.Parse("blob:https://evil.test/1234-5678")
	if bl.policy.originPolicy(u) == nil {
		t.Error("a blob: URL of a blocked origin passed")
	}
}

// A timeout's hint names only arguments the tools have.
func TestTimeoutHint(t *testing.T) {
	be, ok := AsError(backendError("walk the page", context.DeadlineExceeded))
	if !ok || be.Code != CodeTimeout || !strings.Contains(be.Hint, "--timeout") || !strings.Contains(be.Hint, "timeout_ms on browser_navigate and browser_action") {
		t.Errorf("timeout error = %+v", be)
	}
}
