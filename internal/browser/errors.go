package browser

import "github.com/webpilot-mcp/webpilot/internal/toolerr"

// The agent-facing error lives in internal/toolerr, a leaf package, so that
// packages needing only the error do not import the engine; these names
// keep the engine's code as it was.

// Code is an agent-facing error code: a toolerr.Code.
type Code = toolerr.Code

// Error codes an agent can branch on: those of toolerr.
const (
	CodeInvalidArgument       = toolerr.CodeInvalidArgument
	CodeNoBrowser             = toolerr.CodeNoBrowser
	CodeTabNotFound           = toolerr.CodeTabNotFound
	CodeTargetNotFound        = toolerr.CodeTargetNotFound
	CodeAmbiguousTarget       = toolerr.CodeAmbiguousTarget
	CodeStaleRef              = toolerr.CodeStaleRef
	CodeNotActionable         = toolerr.CodeNotActionable
	CodeTimeout               = toolerr.CodeTimeout
	CodeNavigationFailed      = toolerr.CodeNavigationFailed
	CodeDialogOpen            = toolerr.CodeDialogOpen
	CodeOriginBlocked         = toolerr.CodeOriginBlocked
	CodeOutcomeUnknown        = toolerr.CodeOutcomeUnknown
	CodeLimitExceeded         = toolerr.CodeLimitExceeded
	CodeSiteBusy              = toolerr.CodeSiteBusy
	CodePageCrashed           = toolerr.CodePageCrashed
	CodeFarmFull              = toolerr.CodeFarmFull
	CodeHumanRequired         = toolerr.CodeHumanRequired
	CodeUserDenied            = toolerr.CodeUserDenied
	CodeStoppedByUser         = toolerr.CodeStoppedByUser
	CodeCommandFailed         = toolerr.CodeCommandFailed
	CodeInternal              = toolerr.CodeInternal
	CodeBridgeDisconnected    = toolerr.CodeBridgeDisconnected
	CodeBridgeDetached        = toolerr.CodeBridgeDetached
	CodeBridgeVersionMismatch = toolerr.CodeBridgeVersionMismatch
)

// Error is a failure an agent caused or must react to: a toolerr.Error.
type Error = toolerr.Error

// MaxEcho bounds a value a result repeats back (a filled value, a URL).
const MaxEcho = toolerr.MaxEcho

// Errorf makes an *Error with a formatted message (toolerr.Errorf).
func Errorf(code Code, hint, format string, args ...any) *Error {
	return toolerr.Errorf(code, hint, format, args...)
}

// AsError returns the *Error in err's chain, if any (toolerr.As).
func AsError(err error) (*Error, bool) { return toolerr.As(err) }

// Echo is s as a result repeats it back: at most MaxEcho characters, the
// rest counted (toolerr.Echo).
func Echo(s string) string { return toolerr.Echo(s) }
