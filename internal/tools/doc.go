// Package tools defines webpilot's MCP tools. Each file holds one tool
// family and stays thin: decode the input, call package browser, render text
// for a model. Failures are returned as Go errors (usually *browser.Error);
// the renderer passed to Register, owned by package mcpserver, turns them
// into results. The package never speaks CDP.
package tools
