package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// HTTP authentication (--http-auth NAME@origin): a server's (or a proxy's)
// challenge from origin is answered with the declared secret NAME, whose
// value is "user:password". The credentials go to the browser in
// Fetch.continueWithAuth and nowhere else: no result, log or trace holds
// them. Challenges from other origins are cancelled (the page gets the
// 401), and a challenge repeated for one request (wrong credentials) is
// not answered twice.

// HTTPAuth is the credentials for one origin's challenges.
type HTTPAuth struct {
	Origin   string // scheme://host[:port]
	Secret   string // the secret's name
	User     string
	Password string
}

// authKey is the policy key's part for rules: origins, names and a hash
// of the credentials (never the credentials).
func authKey(rules []HTTPAuth) string {
	if len(rules) == 0 {
		return ""
	}
	parts := make([]string, len(rules))
	for i, r := range rules {
		h := sha256.Sum256([]byte(r.User + "\x00" + r.Password))
		parts[i] = r.Origin + "=" + r.Secret + ":" + hex.EncodeToString(h[:8])
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// NormalizeOrigin reads an origin as scheme://host[:port] (lowercase, no
// path; the scheme's own port left out).
func NormalizeOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("%q is not an origin: use scheme://host[:port], e.g. https://intranet.example", s)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	if strings.Contains(u.Hostname(), ":") {
		host = "[" + strings.ToLower(u.Hostname()) + "]"
		if port != "" {
			host += ":" + port
		}
	}
	return u.Scheme + "://" + host, nil
}

// authPatterns are the Fetch patterns that pause the requests to the rules'
// origins (a challenge is reported only for a paused request).
func authPatterns(rules []HTTPAuth) []map[string]any {
	var out []map[string]any
	for _, r := range rules {
		out = append(out, map[string]any{"urlPattern": r.Origin + "/*", "requestStage": "Request"})
	}
	return out
}

// authRequired answers a challenge (Fetch.authRequired): the rule's
// credentials for its origin, once per request; else CancelAuth.
func (f *fetchPauses) authRequired(g *loop, raw jsonv2.Value) {
	t := f.t
	var ev struct {
		RequestID     string `json:"requestId"`
		AuthChallenge struct {
			Source string `json:"source"`
			Origin string `json:"origin"`
		} `json:"authChallenge"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil {
		return
	}
	resp := map[string]any{"response": "CancelAuth"}
	origin, err := NormalizeOrigin(ev.AuthChallenge.Origin)
	shown := originOrRaw(origin, ev.AuthChallenge.Origin)
	var rule *HTTPAuth
	rules := t.link.httpAuth
	for i := range rules {
		if err == nil && rules[i].Origin == origin {
			rule = &rules[i]
			break
		}
	}
	f.mu.Lock()
	answered := f.answered[ev.RequestID]
	if rule != nil && !answered {
		resp = map[string]any{"response": "ProvideCredentials", "username": rule.User, "password": rule.Password}
		if f.answered == nil || len(f.answered) > 1000 {
			f.answered = map[string]bool{}
		}
		f.answered[ev.RequestID] = true
	}
	f.mu.Unlock()
	switch {
	case rule == nil:
		t.notes.add(fmt.Sprintf("%s asked for a login and webpilot has none for it, so the page shows what the server sends without one; the user can declare one with --http-auth NAME@%s", shown, shown))
	case answered:
		t.notes.add(fmt.Sprintf("%s refused the login of the secret %s (--http-auth): the page shows what the server sends without one", shown, rule.Secret))
	}
	g.spawn(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, handleTimeout)
		defer cancel()
		_ = g.Call(ctx, "Fetch.continueWithAuth", map[string]any{"requestId": ev.RequestID, "authChallengeResponse": resp}, nil)
	})
}

func originOrRaw(origin, raw string) string {
	if origin != "" {
		return origin
	}
	return raw
}
