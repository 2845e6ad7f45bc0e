// Package redact hides credentials in what webpilot shows an agent: the
// password and token-like parameters of URLs, credential headers and
// token-like keys of JSON bodies, keeping everything else exactly as it
// was written; and those of a browser endpoint's URL in logs, errors and
// status. It is the one place that does, with one placeholder (Redacted).
// It is pure text work: no browser, no I/O.
package redact

import (
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"strings"
)

// Redacted is what webpilot shows in place of a credential, the one
// placeholder: the value of an Authorization, Cookie or Set-Cookie header,
// of a token-like query parameter, or of a browser endpoint's password and
// query (Endpoint).
const Redacted = "<redacted>"

// secretParam reports whether a query (or form) parameter's name looks like
// it carries a credential: token, access_token, api_key, sig, password, …
func secretParam(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "key", "sig", "auth", "authorization", "pwd", "pass", "jwt", "sid", "code_verifier",
		// one-time codes, PINs and card codes
		"otp", "pin", "totp", "hotp", "mfa", "2fa", "cvv", "cvc", "cvc2", "cvv2", "ssn":
		return true
	}
	for _, part := range []string{"token", "secret", "password", "passwd", "apikey", "api_key", "api-key", "signature", "credential", "session", "sessid",
		"passcode", "otp_", "_otp", "otpcode", "mfa_", "_mfa", "one_time", "onetime", "verification_code", "auth_code", "authcode", "security_code", "pincode", "pin_code"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// urlsIn are the URLs in a text: absolute ones, and the relative targets
// of markdown links.
var urlsIn = regexp.MustCompile(`https?://[^\s"'<>()\[\]]+|\]\((/[^)\s]*)\)`)

// URLsIn redacts the credentials of every URL in a text read from a
// page (browser_read), as URL does for one.
func URLsIn(s string) string {
	if !strings.ContainsAny(s, "?#@") {
		return s
	}
	return urlsIn.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "](") {
			return "](" + URL(m[2:len(m)-1]) + ")"
		}
		return URL(m)
	})
}

// OpenedURL is URL for the recent actions and traces, which show the
// URLs an agent opened: OAuth's authorization code is hidden there too
// (network output keeps "code", often a country or promo code there).
func OpenedURL(raw string) string {
	return oauthCode.ReplaceAllString(URL(raw), "${1}"+Redacted)
}

// oauthCode is a code parameter of a query or fragment.
var oauthCode = regexp.MustCompile(`([?&#]code=)[^&#]*`)

// URL hides the credentials of a URL shown to the agent: the password
// of its user info and the values of token-like query parameters (and of
// such parameters in a fragment written as a query, OAuth's
// #access_token=…). The rest of the URL is left exactly as it was, in its
// order and encoding; a URL that does not parse is searched for
// name=value pairs all the same.
func URL(raw string) string { return hideURL(raw, false) }

// Endpoint hides the credentials of a browser endpoint's URL (a farm's
// or a CDP endpoint's, as the user configured it) for logs, errors and
// status: the password of its user info and every query value, whatever
// its name (farms take their tokens as ?token=…, and such a query is
// configuration, not a page's address), besides what URL hides. A URL that
// does not parse is hidden whole but for its scheme.
func Endpoint(raw string) string {
	if _, err := url.Parse(raw); err != nil {
		if i := strings.Index(raw, "://"); i > 0 {
			return raw[:i+3] + Redacted
		}
		return Redacted
	}
	return hideURL(raw, true)
}

// EndpointIn hides the credentials of the endpoint URL raw wherever they
// occur in s (an error's text): the whole URL as given, its password and
// its query values (those of 4 characters or more, shorter ones being too
// likely to stand for something else).
func EndpointIn(s, raw string) string {
	if raw == "" {
		return s
	}
	s = strings.ReplaceAll(s, raw, Endpoint(raw))
	u, err := url.Parse(raw)
	if err != nil {
		return s
	}
	var secrets []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			secrets = append(secrets, v, url.QueryEscape(v))
		}
	}
	for _, sec := range secrets {
		if len(sec) >= 4 && sec != Redacted {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}

// hideURL is URL, and Endpoint when every query value is hidden (all).
func hideURL(raw string, all bool) string {
	base, frag, hasFrag := strings.Cut(raw, "#")
	path, query, hasQuery := strings.Cut(base, "?")
	if i := strings.Index(path, "://"); i > 0 {
		// user:password@host
		rest := path[i+3:]
		hostEnd := strings.IndexAny(rest, "/")
		if hostEnd < 0 {
			hostEnd = len(rest)
		}
		if at := strings.LastIndex(rest[:hostEnd], "@"); at >= 0 {
			if user, _, ok := strings.Cut(rest[:at], ":"); ok {
				path = path[:i+3] + user + ":" + Redacted + rest[at:]
			}
		}
	}
	out := path
	if hasQuery {
		out += "?" + pairs(query, all)
	}
	if hasFrag {
		if strings.Contains(frag, "=") {
			frag = Pairs(frag)
		}
		out += "#" + frag
	}
	return out
}

// Pairs hides the values of token-like names in a&b=c pairs
// (a query, a fragment, a urlencoded form), keeping everything else as it
// was written.
func Pairs(s string) string { return pairs(s, false) }

// pairs is Pairs, hiding every value when all is set.
func pairs(s string, all bool) string {
	parts := strings.Split(s, "&")
	changed := false
	names := make([]string, len(parts))
	oauth := false // an OAuth answer: its code is a credential
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
		names[i] = strings.ToLower(name)
		switch names[i] {
		case "state", "client_id", "redirect_uri", "code_challenge", "session_state", "scope":
			oauth = true
		}
	}
	for i, p := range parts {
		if !strings.Contains(p, "=") {
			continue
		}
		if all || secretParam(names[i]) || oauth && names[i] == "code" {
			parts[i] = p[:strings.Index(p, "=")+1] + Redacted
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(parts, "&")
}

// secretHeader reports whether a header's value is a credential:
// Authorization, Proxy-Authorization, and token- or key-named headers
// (X-Api-Key, X-Auth-Token, X-CSRF-Token). Cookie and Set-Cookie are handled
// apart (their names are kept).
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization":
		return true
	}
	for _, part := range []string{"token", "secret", "api-key", "apikey", "password", "session"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// Header returns a header's value as network output shows it:
// credentials hidden (an Authorization's scheme kept: "Bearer <redacted>";
// cookies' names kept: "sid=<redacted>; theme=<redacted>"), URLs in
// Referer and Location redacted as URLs.
func Header(name, value string) string {
	n := strings.ToLower(name)
	switch {
	case n == "cookie":
		pairs := strings.Split(value, ";")
		for i, p := range pairs {
			if k, _, ok := strings.Cut(p, "="); ok {
				pairs[i] = k + "=" + Redacted
			}
		}
		return strings.Join(pairs, ";")
	case n == "set-cookie":
		// name=value; Path=/; HttpOnly: the attributes stay.
		first, attrs, _ := strings.Cut(value, ";")
		if k, _, ok := strings.Cut(first, "="); ok {
			first = k + "=" + Redacted
		} else {
			first = Redacted
		}
		if attrs != "" {
			return first + ";" + attrs
		}
		return first
	case n == "authorization" || n == "proxy-authorization":
		if scheme, _, ok := strings.Cut(strings.TrimSpace(value), " "); ok && scheme != "" && !strings.ContainsAny(scheme, "=:") {
			return scheme + " " + Redacted
		}
		return Redacted
	case secretHeader(n):
		return Redacted
	case n == "referer" || n == "location" || n == "content-location":
		return URL(value)
	}
	return value
}

// JSON hides the values of token-like keys in a JSON body
// ({"password": "…", "auth": {"token": "…"}}), at any depth (an object or
// array under such a key is hidden whole); the rest keeps its order and
// spacing, as it was written. A body that is not JSON is returned as is.
func JSON(body string) string {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var b strings.Builder
	last := 0 // how much of body is copied
	// For each open container: an object, and whether its next string is
	// a key.
	type level struct{ object, wantKey bool }
	var stack []level
	secretNext := false
	hideFrom, hideDepth := -1, 0 // a container hidden whole: where it starts
	for {
		prev := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				break
			}
			return body // not JSON: as it is
		}
		off := int(dec.InputOffset())
		start := off - len(strings.TrimLeft(body[prev:off], " \t\r\n:,"))
		top := len(stack) - 1
		isKey := false
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if secretNext && hideFrom < 0 {
					hideFrom, hideDepth = start, len(stack)
				}
				stack = append(stack, level{object: t == '{', wantKey: t == '{'})
				secretNext = false
				continue
			case '}', ']':
				stack = stack[:top]
				if hideFrom >= 0 && len(stack) == hideDepth {
					if hideFrom >= last {
						b.WriteString(body[last:hideFrom])
						b.WriteString(`"` + Redacted + `"`)
						last = off
					}
					hideFrom = -1
				}
			}
		case string:
			if top >= 0 && stack[top].object && stack[top].wantKey {
				stack[top].wantKey = false
				secretNext = secretParam(t)
				isKey = true
			}
		}
		if !isKey {
			if _, delim := tok.(json.Delim); !delim && secretNext && hideFrom < 0 && start >= last {
				b.WriteString(body[last:start])
				b.WriteString(`"` + Redacted + `"`)
				last = off
			}
			secretNext = false
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
		}
	}
	b.WriteString(body[last:])
	return b.String()
}

// Credentials in free text (a program's error output).
var (
	// bearerIn is an Authorization scheme and its credential.
	bearerIn = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// cookieLine is a Cookie or Set-Cookie header to the end of its line.
	cookieLine = regexp.MustCompile(`(?i)\b((?:set-)?cookie)("?\s*[:=]\s*)[^\r\n]*`)
	// pairIn is name=value, name: value or "name": "value" with a
	// token-like name.
	pairIn = regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:token|secret|password|passwd|api[_-]?key|apikey|authorization|auth|session|sessid|csrf|credential|sid|jwt)[A-Za-z0-9_.-]*)("?\s*[:=]\s*)("[^"\r\n]*"|'[^'\r\n]*'|(?:bearer|basic|digest|token)\s+[^\s,;&"'}\]]+|[^\s,;&"'}\]]+)`)
)

// Text hides credentials in free text such as a program's error output:
// the value of a Cookie or Set-Cookie header line, an Authorization's
// credential (its scheme kept), the values of token-like names in
// name=value, name: value and "name": "value", and those of URLs (as URLsIn
// does). The rest is kept as it was written.
func Text(s string) string {
	s = URLsIn(s)
	s = cookieLine.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = pairIn.ReplaceAllStringFunc(s, func(m string) string {
		sub := pairIn.FindStringSubmatch(m)
		name, sep, val := sub[1], sub[2], sub[3]
		if !secretParam(name) && !secretHeader(name) {
			return m
		}
		if strings.EqualFold(name, "authorization") || strings.EqualFold(name, "proxy-authorization") {
			if scheme, _, ok := strings.Cut(strings.Trim(val, `"'`), " "); ok && !strings.ContainsAny(scheme, "=:") {
				return name + sep + scheme + " " + Redacted
			}
		}
		if strings.HasPrefix(val, `"`) {
			return name + sep + `"` + Redacted + `"`
		}
		return name + sep + Redacted
	})
	return bearerIn.ReplaceAllString(s, "${1} "+Redacted)
}

// Lines hides the values of token-like names in a body of name=value
// lines (a form sent as text/plain), keeping the rest as it was written.
func Lines(body string) string {
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		name, _, ok := strings.Cut(l, "=")
		if !ok || !secretParam(name) {
			continue
		}
		end := strings.TrimRight(l, "\r\n")
		lines[i] = name + "=" + Redacted + l[len(end):]
	}
	return strings.Join(lines, "")
}

// partName is the field name of a multipart part's Content-Disposition.
var partName = regexp.MustCompile(`(?i)content-disposition:[^\r\n]*\bname="([^"]*)"`)

// Multipart hides the content of the token-like fields of a
// multipart/form-data body (its parts' headers and every other part
// kept as written). A body whose boundary is not found is returned as is.
func Multipart(body, contentType string) string {
	_, params, ok := strings.Cut(contentType, "boundary=")
	if !ok {
		return body
	}
	boundary := strings.Trim(strings.TrimSpace(strings.Split(params, ";")[0]), `"`)
	if boundary == "" {
		return body
	}
	sep := "--" + boundary
	parts := strings.Split(body, sep)
	for i, p := range parts {
		head, content, ok := strings.Cut(p, "\r\n\r\n")
		nl := "\r\n"
		if !ok {
			if head, content, ok = strings.Cut(p, "\n\n"); !ok {
				continue
			}
			nl = "\n"
		}
		m := partName.FindStringSubmatch(head)
		if m == nil || !secretParam(m[1]) {
			continue
		}
		tail := content[len(strings.TrimRight(content, "\r\n")):]
		parts[i] = head + nl + nl + Redacted + tail
	}
	return strings.Join(parts, sep)
}
