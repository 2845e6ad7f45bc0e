package cdp

import (
	"errors"
	"strings"
)

// Fault is what a command the browser refused says went wrong, read from
// its [*Error]. CDP errors carry a generic code (-32000) and a message in
// Chromium's words; [Classify] is the one place that reads those words, so
// callers branch on a Fault instead of matching messages.
type Fault int

// Faults, from the most specific.
const (
	// FaultNone: the error is not a refused command (or is nil).
	FaultNone Fault = iota
	// FaultOther: a refused command that none of the faults below names.
	FaultOther
	// FaultUnsupported: the backend cannot run this command (the bridge
	// refuses Page.navigate to a data: URL); see [CodeUnsupported].
	FaultUnsupported
	// FaultNoTarget: the target (tab) id names no target.
	FaultNoTarget
	// FaultNoDialog: no JavaScript dialog is showing.
	FaultNoDialog
	// FaultTargetGone: the inspected target navigated or closed.
	FaultTargetGone
	// FaultObjectGone: the remote object id is no longer valid.
	FaultObjectGone
	// FaultContextGone: the execution context or frame went away (a new
	// document, a removed frame).
	FaultContextGone
	// FaultNodeGone: the DOM node id is no longer valid.
	FaultNodeGone
	// FaultInvalid: the browser refused the parameters (an invalid URL).
	FaultInvalid
)

// CodeUnsupported is the CDP error code a backend answers with when it
// cannot run a command at all (JSON-RPC's implementation-defined range;
// Chromium uses -32000 and the standard codes). [Classify] reads it as
// [FaultUnsupported].
const CodeUnsupported int64 = -32090

// faultWords are the message fragments of each fault, checked in order: the
// first that matches wins. With fold, case is ignored.
var faultWords = []struct {
	fault Fault
	fold  bool
	words []string
}{
	{FaultNoTarget, true, []string{"no target"}},
	{FaultNoDialog, false, []string{"No dialog"}},
	{FaultTargetGone, false, []string{"navigated or closed"}},
	{FaultObjectGone, false, []string{"Could not find object"}},
	// "Cannot find context with specified id", "Execution context was
	// destroyed", "No frame for given id found", "uniqueContextId not
	// found" (a call by the context's unique id after it went away).
	{FaultContextGone, false, []string{"context", "frame", "uniqueContextId"}},
	{FaultNodeGone, false, []string{"No node", "not found", "Could not find"}},
	{FaultInvalid, true, []string{"invalid"}},
}

// Classify says what a refused command's error means; FaultNone when err
// holds no [*Error].
func Classify(err error) Fault {
	var ce *Error
	if !errors.As(err, &ce) {
		return FaultNone
	}
	if ce.Code == CodeUnsupported {
		return FaultUnsupported
	}
	lower := strings.ToLower(ce.Message)
	for _, fw := range faultWords {
		for _, w := range fw.words {
			if fw.fold && strings.Contains(lower, w) || !fw.fold && strings.Contains(ce.Message, w) {
				return fw.fault
			}
		}
	}
	return FaultOther
}

// String names the fault, for logs and tests.
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return "none"
	case FaultUnsupported:
		return "unsupported"
	case FaultNoTarget:
		return "no target"
	case FaultNoDialog:
		return "no dialog"
	case FaultTargetGone:
		return "target gone"
	case FaultObjectGone:
		return "object gone"
	case FaultContextGone:
		return "context gone"
	case FaultNodeGone:
		return "node gone"
	case FaultInvalid:
		return "invalid"
	}
	return "other"
}
