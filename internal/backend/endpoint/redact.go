package endpoint

import (
	"net/url"
	"strings"
)

// redacted replaces a secret in a URL.
const redacted = "xxxxx"

// Redact returns the URL with its credentials hidden: the password of the
// user info, and every query value (farms take tokens as ?token=…). A URL
// that does not parse is hidden whole but for its scheme.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.Index(raw, "://"); i > 0 {
			return raw[:i+3] + redacted
		}
		return redacted
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			for i := range vs {
				vs[i] = redacted
			}
			q[k] = vs
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactErr hides the endpoint's credentials in err's text and keeps err in
// the chain.
func (b *Backend) redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := redactIn(msg, b.opts.URL)
	if out == msg {
		return err
	}
	return &redactedError{msg: out, err: err}
}

// redactIn replaces the URL's secrets wherever they occur in s: the whole
// URL as given, its password, and its query values.
func redactIn(s, raw string) string {
	if raw == "" {
		return s
	}
	s = strings.ReplaceAll(s, raw, Redact(raw))
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
		if len(sec) >= 4 && sec != redacted {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
