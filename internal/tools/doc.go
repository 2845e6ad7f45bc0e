// Package tools is webpilot's tool table. Each entry (Tool) declares what
// is advertised — name, description, annotations, the input type its schema
// is inferred from — the capability group that switches it on, what the call
// holds (Hold), and Run, which calls package browser on the held session and
// tab (Held) and renders text for a model. Profiles and caps select from the
// table (Select).
//
// The package does not speak MCP (package mcpserver registers the tools,
// decodes and validates arguments once, takes the hold and renders results,
// notes and inline snapshots) and never speaks CDP. Failures are returned as
// Go errors, usually *browser.Error.
package tools
