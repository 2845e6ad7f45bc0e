// Package mcpserver is webpilot's MCP layer: it builds the go-sdk server,
// registers the tools of package tools, and owns what sits between the
// protocol and the tools: argument coercion and validation, the per-call
// ceiling, panic recovery, the rendering of results and error bodies, and
// the stdio lifecycle (in-flight calls finish before an EOF on stdin ends the
// session), and the HTTP transport (Streamable HTTP at /mcp and /health,
// behind Host, Origin, token, content-type and size checks). It never
// touches CDP.
//
// A tool call goes through Server.middleware (the ceiling, cancellation,
// masking) and Server.handler (call.go: checkArgs, Tool.Decode, the hold
// in holdOnce, Tool.Run, notes and the inline snapshot, then render and
// observe). Over HTTP each MCP session's browser sessions are its own
// (scope.go); the per-user daemon serves clients whose settings come with
// each request (client.go). docs/daemon.md describes both.
package mcpserver
