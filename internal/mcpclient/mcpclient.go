// Package mcpclient holds what webpilot's own MCP clients share: the
// command line's call, demo and recipe commands, which talk to a webpilot
// server, and the benchmark (cmd/webpilot-bench), which measures one.
package mcpclient

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultText is the text of a tool result: its text parts, joined with
// nothing between them; other parts (images) are left out.
func ResultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
