package cdp_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Chromium's messages, as browsers answer them, each read as one fault.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want cdp.Fault
	}{
		{nil, cdp.FaultNone},
		{errors.New("no target"), cdp.FaultNone}, // not a refused command
		{&cdp.Error{Message: "No target with given id found"}, cdp.FaultNoTarget},
		{&cdp.Error{Message: "No dialog is showing"}, cdp.FaultNoDialog},
		{&cdp.Error{Message: "Inspected target navigated or closed"}, cdp.FaultTargetGone},
		{&cdp.Error{Message: "Could not find object with given id"}, cdp.FaultObjectGone},
		{&cdp.Error{Message: "Cannot find context with specified id"}, cdp.FaultContextGone},
		{&cdp.Error{Message: "uniqueContextId not found", Code: -32602}, cdp.FaultContextGone},
		{&cdp.Error{Message: "Execution context was destroyed."}, cdp.FaultContextGone},
		{&cdp.Error{Message: "No frame for given id found"}, cdp.FaultContextGone},
		{&cdp.Error{Message: "No node with given id found"}, cdp.FaultNodeGone},
		{&cdp.Error{Message: "Could not find node with given id"}, cdp.FaultNodeGone},
		{&cdp.Error{Message: "Frame with the given id was not found."}, cdp.FaultNodeGone},
		{&cdp.Error{Message: "Cannot navigate to invalid URL"}, cdp.FaultInvalid},
		{&cdp.Error{Message: "Invalid parameters"}, cdp.FaultInvalid},
		{&cdp.Error{Message: "Internal error"}, cdp.FaultOther},
		{&cdp.Error{Code: cdp.CodeUnsupported, Message: "invalid URL for this backend"}, cdp.FaultUnsupported},
		{fmt.Errorf("wrapped: %w", &cdp.Error{Message: "No dialog is showing"}), cdp.FaultNoDialog},
	} {
		if got := cdp.Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
