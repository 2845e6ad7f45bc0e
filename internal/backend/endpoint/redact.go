package endpoint

import "github.com/webpilot-mcp/webpilot/internal/redact"

// redactErr hides the endpoint's credentials in err's text and keeps err in
// the chain.
func (b *Backend) redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	out := redact.EndpointIn(msg, b.opts.URL)
	if out == msg {
		return err
	}
	return &redactedError{msg: out, err: err}
}

// redactedError is an error whose text has the endpoint's credentials
// hidden; the original stays in the chain.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
