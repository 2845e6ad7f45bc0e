// Package mcpserver is webpilot's MCP layer: it builds the go-sdk server,
// registers the tools of package tools, and owns what sits between the
// protocol and the tools: argument coercion and validation, the per-call
// ceiling, panic recovery, the rendering of results and error bodies, and
// the stdio lifecycle (in-flight calls finish before an EOF on stdin ends the
// session), and the HTTP transport (Streamable HTTP at /mcp and /health,
// behind Host, Origin, token, content-type and size checks). It never
// touches CDP.
package mcpserver
