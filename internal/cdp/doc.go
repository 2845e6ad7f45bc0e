// Package cdp is a minimal Chrome DevTools Protocol client.
//
// A [Conn] carries JSON messages over a byte [Transport] (the launch pipe, a
// WebSocket, the extension bridge); a [Session] is one attached target and
// satisfies cdproto's session interface (github.com/chromedp/cdproto/cdp,
// imported as cdproto everywhere in webpilot), so generated typed commands
// run on it:
//
//	res, err := cdproto.Call(ctx, sess, page.Navigate, page.NavigateParams{URL: u})
//
// # Concurrency
//
// A Conn is safe for concurrent use. One goroutine reads and dispatches.
// Subscribers get bounded buffers; one that falls behind loses events (counted
// in [Conn.Dropped]) and never blocks the reader.
//
// # Errors
//
// A command the browser refuses is an [*Error] naming the method. Once the
// connection is gone, every pending and later call fails with an error
// matching [ErrClosed]; once a session is detached, its calls fail with an
// error matching [ErrDetached]. CDP has no cancel message: a call whose
// context ends forgets its id and drops the late reply, so its outcome is
// unknown to the caller.
//
// The package knows nothing of tabs, refs, agent sessions or MCP.
package cdp
