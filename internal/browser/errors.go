package browser

import (
	"errors"
	"fmt"
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
	CodeInternal         Code = "INTERNAL"
	// Bridge (the user's Chrome through the extension).
	CodeBridgeDisconnected    Code = "BRIDGE_DISCONNECTED"
	CodeBridgeDetached        Code = "BRIDGE_DETACHED"
	CodeBridgeVersionMismatch Code = "BRIDGE_VERSION_MISMATCH"
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

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with a formatted message.
func Errorf(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func (e *Error) with(sugg ...string) *Error {
	e.Suggestions = append(e.Suggestions, sugg...)
	return e
}
