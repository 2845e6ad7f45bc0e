package backend_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/webpilot-mcp/webpilot"

// TestArrows keeps the dependency arrows of DESIGN.md true: every arrow
// points down, tools never speak CDP, browser never knows MCP, backends never
// know agent sessions, and no production package imports testing.
func TestArrows(t *testing.T) {
	rules := []struct {
		pkg    string
		direct bool // only direct imports (the package itself must not speak it)
		banned []string
		why    string
	}{
		{mod + "/internal/tools", true, []string{mod + "/internal/cdp", "github.com/chromedp/cdproto", mod + "/internal/backend/launch", mod + "/internal/backend/bridge", mod + "/internal/mcpserver"},
			"tools are thin: they call package browser and never speak CDP or pick a backend"},
		{mod + "/internal/tools", false, []string{"github.com/modelcontextprotocol/go-sdk", mod + "/internal/mcpserver"},
			"the tool table does not speak MCP: package mcpserver registers it"},
		{mod + "/internal/browser", false, []string{"github.com/modelcontextprotocol/go-sdk", mod + "/internal/mcpserver", mod + "/internal/tools", mod + "/internal/backend/launch", mod + "/internal/backend/bridge"},
			"browser knows neither MCP nor a concrete backend"},
		{mod + "/internal/backend/launch", false, []string{mod + "/internal/browser", mod + "/internal/tools", mod + "/internal/mcpserver", "github.com/modelcontextprotocol/go-sdk"},
			"a backend only manages tabs and produces CDP sessions"},
		{mod + "/internal/backend/bridge", false, []string{mod + "/internal/browser", mod + "/internal/tools", mod + "/internal/mcpserver", mod + "/internal/backend/launch", "github.com/modelcontextprotocol/go-sdk"},
			"a backend only manages tabs and produces CDP sessions"},
		{mod + "/internal/backend/endpoint", false, []string{mod + "/internal/browser", mod + "/internal/tools", mod + "/internal/mcpserver", mod + "/internal/backend/launch", "github.com/modelcontextprotocol/go-sdk"},
			"a backend only manages tabs and produces CDP sessions"},
		{mod + "/internal/backend/targets", false, []string{mod + "/internal/browser", mod + "/internal/tools", mod + "/internal/mcpserver", mod + "/internal/backend/launch", mod + "/internal/backend/endpoint", "github.com/modelcontextprotocol/go-sdk"},
			"shared Target-domain code knows no concrete backend and no agent sessions"},
		{mod + "/internal/backend", false, []string{mod + "/internal/browser", mod + "/internal/backend/launch", mod + "/internal/backend/bridge"},
			"the Backend interface depends on nothing concrete"},
		{mod + "/internal/cdp", false, []string{mod + "/internal/backend", mod + "/internal/browser", "github.com/modelcontextprotocol/go-sdk"},
			"the CDP client knows nothing of tabs, sessions or MCP"},
		{mod + "/internal/flow", false, []string{mod + "/internal/tools", mod + "/internal/mcpserver", "github.com/modelcontextprotocol/go-sdk"},
			"the step language is shared by browser_flow and recipes: it runs steps through an executor and knows neither the table nor MCP"},
		{mod + "/internal/flow", true, []string{mod + "/internal/cdp", "github.com/chromedp/cdproto"},
			"the step language never speaks CDP"},
		{mod + "/internal/flow", false, []string{mod + "/internal/browser"},
			"the step language needs the tool error (internal/toolerr), not the engine"},
		{mod + "/internal/secrets", false, []string{mod + "/internal/browser"},
			"the secrets need the tool error and the origin rules (internal/toolerr, internal/origin), not the engine"},
		{mod + "/internal/recipes", false, []string{mod + "/internal/browser"},
			"recipe files and the site gate need the tool error, not the engine"},
		{mod + "/internal/mcpserver", true, []string{mod + "/internal/cdp", "github.com/chromedp/cdproto", mod + "/internal/backend/launch"},
			"the MCP layer never touches CDP or picks a backend"},
	}
	for _, r := range rules {
		deps := goListDeps(t, r.pkg, r.direct)
		for _, d := range deps {
			for _, b := range r.banned {
				if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s imports %s: %s", r.pkg, d, r.why)
				}
			}
		}
	}
	// Leaves: pure packages any layer may use import nothing of ours but
	// the packages listed.
	leaves := map[string][]string{
		mod + "/internal/text":    nil,
		mod + "/internal/origin":  nil,
		mod + "/internal/vars":    nil,
		mod + "/internal/toolerr": {mod + "/internal/text"},
	}
	for leaf, allowed := range leaves {
		for _, d := range goListDeps(t, leaf, false) {
			if d != leaf && strings.HasPrefix(d, mod+"/") && !slices.Contains(allowed, d) {
				t.Errorf("%s imports %s: it is a leaf any layer may use, so it imports nothing of ours but %v", leaf, d, allowed)
			}
		}
	}
	// No production package imports testing.
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasSuffix(f[0], "test") {
			continue // backendtest, cdptest: test support by name
		}
		for _, imp := range f[1:] {
			if imp == "testing" {
				t.Errorf("%s imports testing", f[0])
			}
		}
	}
}

func goListDeps(t *testing.T, pkg string, direct bool) []string {
	t.Helper()
	args := []string{"list", "-deps", pkg}
	if direct {
		args = []string{"list", "-f", `{{join .Imports " "}}`, pkg}
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
