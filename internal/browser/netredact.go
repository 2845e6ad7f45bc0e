package browser

import "github.com/webpilot-mcp/webpilot/internal/redact"

// ShowURL is a URL as webpilot prints it to the agent (navigate results,
// snapshot headers): its credentials redacted (redact.URL) unless
// Options.NoRedact.
func (s *Session) ShowURL(u string) string {
	if s.pol.opts.NoRedact {
		return u
	}
	return redact.URL(u)
}
