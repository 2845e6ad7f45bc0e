package backend

import "fmt"

// StartError is a browser that was found but did not start. Reason is the
// cause in words, the browser's own when it said one ("Missing X server or
// $DISPLAY"); Hint, when not "", is the way out that fits that cause;
// Output is the end of what the browser printed (its lines that tell,
// about a kilobyte; not in Error, for logs); Err, when not nil, the
// failure under it (a start context's deadline). It matches ErrNoBrowser
// and Err.
type StartError struct {
	Path   string
	Reason string
	Hint   string
	Output string
	Err    error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("the browser %s did not start: %s", e.Path, e.Reason)
}

// Unwrap returns ErrNoBrowser and Err.
func (e *StartError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNoBrowser}
	}
	return []error{ErrNoBrowser, e.Err}
}
