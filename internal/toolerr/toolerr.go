package toolerr

import (
	"errors"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Code is an agent-facing error code, fixed in DESIGN.md.
type Code string

// Error codes an agent can branch on.
const (
	CodeInvalidArgument  Code = "INVALID_ARGUMENT"
	CodeNoBrowser        Code = "NO_BROWSER"
	CodeTabNotFound      Code = "TAB_NOT_FOUND"
	CodeTargetNotFound   Code = "TARGET_NOT_FOUND"
	CodeAmbiguousTarget  Code = "AMBIGUOUS_TARGET"
	CodeStaleRef         Code = "STALE_REF"
	CodeNotActionable    Code = "NOT_ACTIONABLE"
	CodeTimeout          Code = "TIMEOUT"
	CodeNavigationFailed Code = "NAVIGATION_FAILED"
	CodeDialogOpen       Code = "DIALOG_OPEN"
	CodeOriginBlocked    Code = "ORIGIN_BLOCKED"
	CodeOutcomeUnknown   Code = "OUTCOME_UNKNOWN"
	CodeLimitExceeded    Code = "LIMIT_EXCEEDED"
	CodeSiteBusy         Code = "SITE_BUSY"
	// CodePageCrashed: the tab's page crashed (its renderer is gone); the
	// next navigate loads a page in a new one.
	CodePageCrashed Code = "PAGE_CRASHED"
	// CodeFarmFull: the browser farm (--cdp-endpoint) is at capacity; the
	// session keeps its place in the farm's queue and a retry resumes it.
	CodeFarmFull Code = "FARM_FULL"
	// CodeHumanRequired: the page waits for a person (a CAPTCHA, a
	// one-time code, a sign-in after a redirect) in a browser nobody
	// sees (headless, a farm).
	CodeHumanRequired Code = "HUMAN_REQUIRED"
	// CodeUserDenied: the person at their own browser denied the client
	// the site (or their tab) when webpilot asked (--approve ask).
	CodeUserDenied Code = "USER_DENIED"
	// CodeStoppedByUser: the person pressed Stop for the client in the
	// extension's live view; its tabs are closed.
	CodeStoppedByUser Code = "STOPPED_BY_USER"
	CodeInternal      Code = "INTERNAL"
	// Bridge (the user's Chrome through the extension).
	CodeBridgeDisconnected    Code = "BRIDGE_DISCONNECTED"
	CodeBridgeDetached        Code = "BRIDGE_DETACHED"
	CodeBridgeVersionMismatch Code = "BRIDGE_VERSION_MISMATCH"

	// CodeCommandFailed: a program webpilot runs for the agent (an
	// OpenCLI adapter) failed: it exited with an error, or could not be
	// run.
	CodeCommandFailed Code = "COMMAND_FAILED"
)

// Error is a failure an agent caused or must react to. It carries the code,
// a message, a hint of what to do next, suggestions and optional diagnosis
// fields. Only the MCP layer renders it.
type Error struct {
	Code        Code
	Message     string
	Hint        string
	Suggestions []string
	Diagnosis   map[string]any
	Err         error // underlying cause, for logs; never shown to the agent
}

// Error is the code and message, then the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap is the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with a formatted message.
func Errorf(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Bounds on what an error may echo back: an agent's 5 MB value or URL must
// not come back as a 10 MB error.
const (
	maxMessage     = 1000
	maxHint        = 500
	maxSuggestion  = 300
	maxSuggestions = 20
	maxDiagnosis   = 1000 // per string in the diagnosis
	// MaxEcho bounds a value a result repeats back (a filled value, a URL).
	MaxEcho = 500
)

// Echo is s as a result repeats it back: at most MaxEcho characters, the
// rest counted.
func Echo(s string) string { return text.Clip(s, MaxEcho) }

// Bounded returns e with every text it carries shortened to its bound
// (message, hint, suggestions, the strings of the diagnosis).
func (e *Error) Bounded() *Error {
	b := *e
	b.Message = text.Clip(e.Message, maxMessage)
	b.Hint = text.Clip(e.Hint, maxHint)
	if e.Suggestions != nil {
		n := min(len(e.Suggestions), maxSuggestions)
		b.Suggestions = make([]string, n)
		for i, s := range e.Suggestions[:n] {
			b.Suggestions[i] = text.Clip(s, maxSuggestion)
		}
	}
	if e.Diagnosis != nil {
		b.Diagnosis = boundValue(e.Diagnosis, 0).(map[string]any)
	}
	return &b
}

// boundValue shortens the strings in a diagnosis value, and its lists.
func boundValue(v any, depth int) any {
	switch x := v.(type) {
	case string:
		return text.Clip(x, maxDiagnosis)
	case []string:
		out := make([]string, 0, min(len(x), maxSuggestions))
		for _, s := range x[:min(len(x), maxSuggestions)] {
			out = append(out, text.Clip(s, maxSuggestion))
		}
		return out
	case []any:
		if depth > 4 {
			return []any{}
		}
		out := make([]any, 0, min(len(x), maxSuggestions))
		for _, e := range x[:min(len(x), maxSuggestions)] {
			out = append(out, boundValue(e, depth+1))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if depth > 4 {
				break
			}
			out[k] = boundValue(e, depth+1)
		}
		return out
	}
	return v
}
