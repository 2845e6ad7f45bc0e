// Package cdptest provides a scripted fake of [cdp.Caller] for testing code
// that drives a browser over CDP without a browser.
//
// A [Session] answers each command with the handler registered for its
// method, records every call, and lets the test inject events:
//
//	s := cdptest.NewSession()
//	s.Reply("Accessibility.getFullAXTree", recordedJSON)
//	s.Handle("Runtime.evaluate", func(params jsonv2.Value) (any, error) {
//		return nil, &cdp.Error{Code: -32000, Message: "Execution context was destroyed."}
//	})
//	s.Emit("Page.loadEventFired", page.EventLoadEventFired{})
//
// Results go through JSON like the real connection's: a handler's result is
// marshalled with jsonv2 and unmarshalled into the caller's result, so what
// a test hands in is what the browser would have sent (return a
// [jsonv2.Value] to hand in raw JSON). The fake also satisfies cdproto's
// Session interface, so typed cdproto.Call and cdproto.Events work on it.
//
// Errors follow package cdp: a call to a method with no handler fails with
// an error naming the method; calls after [Session.Close] fail with an error
// matching [cdp.ErrClosed]; a handler's [*cdp.Error] reaches the caller with
// its Method filled in.
package cdptest
