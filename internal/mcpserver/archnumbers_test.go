package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/webpilot-mcp/webpilot/internal/archdoc"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// TestArchitectureNumbers keeps ARCHITECTURE.md's numbers of the tool
// table true (the spans <!-- gen:tools.… -->; see package archdoc): tools
// per profile, groups, and the o200k tokens of tools/list as a client gets
// it (of each tool and group too), counted as TestToolsList counts them. go test ./internal/mcpserver -run
// TestArchitectureNumbers -update rewrites the spans.
func TestArchitectureNumbers(t *testing.T) {
	m := browser.NewManager(browser.Options{Backend: launch.New(launch.Options{})})
	list := func(cs *mcp.ClientSession) []*mcp.Tool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		return res.Tools
	}
	core := list(connect(t, &tools.Deps{Manager: m}))
	full := list(connectFull(t, &tools.Deps{Manager: m}))
	coreGroups, err := tools.ProfileGroups(tools.ProfileCore)
	if err != nil {
		t.Fatal(err)
	}
	var fullOnlyGroups []tools.Group
	for _, g := range tools.Groups() {
		if !slices.Contains(coreGroups, g) && !slices.Contains(tools.OptionalGroups(), g) {
			fullOnlyGroups = append(fullOnlyGroups, g)
		}
	}
	var fullOnlyTools []string
	for _, tl := range full {
		if !slices.ContainsFunc(core, func(c *mcp.Tool) bool { return c.Name == tl.Name }) {
			fullOnlyTools = append(fullOnlyTools, tl.Name)
		}
	}
	got := map[string]string{
		"tools.table.count":      archdoc.Int(len(tools.Table())),
		"tools.core.count":       archdoc.Int(len(core)),
		"tools.full.count":       archdoc.Int(len(full)),
		"tools.core.tokens":      archdoc.Int(countTokens(t, core)),
		"tools.full.tokens":      archdoc.Int(countTokens(t, full)),
		"tools.budget":           archdoc.Int(toolsListBudget),
		"tools.core.room":        archdoc.Int(toolsListBudget - countTokens(t, core)),
		"tools.groups":           codeList(tools.Groups()),
		"tools.groups.count":     archdoc.Int(len(tools.Groups())),
		"tools.core.groups":      codeList(coreGroups),
		"tools.full-only.groups": codeList(fullOnlyGroups),
		"tools.full-only":        codeList(fullOnlyTools),
		"tools.full-only.count":  archdoc.Int(len(fullOnlyTools)),
		"tools.optional.groups":  codeList(tools.OptionalGroups()),
	}
	for _, tl := range full {
		got["tools.tokens."+tl.Name] = archdoc.Int(countTokens(t, tl))
	}
	for _, g := range tools.Groups() {
		var names []string
		for _, tl := range tools.Table() {
			if tl.Group == g {
				names = append(names, tl.Name)
			}
		}
		got["tools.group."+string(g)] = codeList(names)
		var groupTools []*mcp.Tool
		for _, tl := range full {
			if slices.Contains(names, tl.Name) {
				groupTools = append(groupTools, tl)
			}
		}
		got["tools.group-tokens."+string(g)] = archdoc.Int(sumTokens(t, groupTools))
	}
	path, err := archdoc.Path()
	if err != nil {
		t.Fatal(err)
	}
	if err := archdoc.Check(path, "tools", got, *update); err != nil {
		t.Error(err)
	}
}

// countTokens is the o200k token count of v as JSON, as TestToolsList
// counts tools/list.
func countTokens(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := enc.Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sumTokens adds up the tokens of each tool, as TestToolsList's golden
// lists them.
func sumTokens(t *testing.T, tls []*mcp.Tool) int {
	n := 0
	for _, tl := range tls {
		n += countTokens(t, tl)
	}
	return n
}

// codeList writes names as ARCHITECTURE.md lists them: `a`, `b`.
func codeList[S ~string](names []S) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + string(n) + "`"
	}
	return strings.Join(q, ", ")
}
