// Package toolerr is the error an agent gets from a tool: an [Error] with a
// [Code] fixed in DESIGN.md (STALE_REF, TIMEOUT, …), a message, a hint of
// what to do next, suggestions and a diagnosis.
//
// It is built where the fact is known (the browser engine, the flow, the
// secrets) and rendered in one place, internal/mcpserver, which finds it
// with [As]; any other error becomes INTERNAL. The package holds no MCP
// types and imports nothing of webpilot's but internal/text, so the packages
// that only need the error (internal/flow, internal/secrets,
// internal/recipes) do not import the browser engine. internal/browser
// re-exports its names (browser.Error, browser.CodeTimeout, …).
package toolerr
