package mcpclient

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResultText(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}},
		&mcp.TextContent{Text: "b"},
	}}
	if got := ResultText(res); got != "ab" {
		t.Errorf("ResultText = %q, want %q", got, "ab")
	}
	if got := ResultText(&mcp.CallToolResult{}); got != "" {
		t.Errorf("ResultText of no content = %q, want empty", got)
	}
}
