package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

var update = flag.Bool("update", false, "rewrite testdata/toolslist.golden")

// toolsListBudget is the ceiling of the core profile's tools/list: below
// DESIGN.md's 3,000, a little above what it costs, so that growth is a
// decision (ARCHITECTURE.md, "tools/list tokens").
const toolsListBudget = 2400

// wantTools are the tools of this slice with their required arguments.
var wantTools = map[string][]string{
	"browser_status":     nil,
	"browser_navigate":   nil,
	"browser_snapshot":   nil,
	"browser_find":       nil,
	"browser_action":     {"action"},
	"browser_tabs":       {},
	"browser_close":      nil,
	"browser_screenshot": nil,
	"browser_dialog":     {"action"},
	"browser_fill_form":  {"fields"},
	"browser_wait":       {"conditions"},
	"browser_read":       nil,
	"browser_eval":       nil,
	"browser_frames":     nil,
	"browser_collect":    nil,
	"browser_flow":       {"steps"},
	"browser_network":    nil,                  // full profile
	"browser_download":   nil,                  // full profile
	"browser_console":    nil,                  // full profile
	"browser_handoff":    {"message"},          // full profile
	"recipe_list":        nil,                  // full profile
	"recipe_run":         {"name"},             // full profile
	"recipe_save":        {"name"},             // full profile
	"recipe_record":      {"action"},           // full profile
	"browser_pdf":        nil,                  // full profile
	"browser_cdp":        {"method"},           // full profile
	"browser_mouse":      {"action", "x", "y"}, // full profile
	"browser_emulate":    nil,                  // full profile
	"browser_screencast": {"action"},           // full profile
	"browser_storage":    {"action"},           // full profile
	"browser_route":      {"action"},           // full profile
}

// fullOnly are the tools of the full profile that the core one leaves out.
var fullOnly = []string{"browser_network", "browser_download", "browser_console", "browser_handoff", "recipe_list", "recipe_run", "recipe_record", "recipe_save", "browser_pdf", "browser_cdp", "browser_mouse", "browser_emulate", "browser_screencast", "browser_storage", "browser_route"}

// Instructions name every shared argument.
func TestInstructionsDescribeSharedArgs(t *testing.T) {
	for _, a := range tools.SharedArgs {
		if !regexp.MustCompile(`\b` + a + `\b`).MatchString(mcpserver.Instructions) {
			t.Errorf("Instructions do not describe %s", a)
		}
	}
}

// TestToolsList checks the listed tools and their schemas, and pins the
// o200k token count of the tools array in testdata/toolslist.golden (go
// test -run TestToolsList -update rewrites it). No browser is started: the
// manager's backend is never used.
func TestToolsList(t *testing.T) {
	m := browser.NewManager(browser.Options{Backend: launch.New(launch.Options{})})
	cs := connect(t, &tools.Deps{Manager: m})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}

	full := connectFull(t, &tools.Deps{Manager: m})
	fullRes, err := full.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list (full profile): %v", err)
	}
	names := checkTools(t, fullRes)
	for name := range wantTools {
		if !slices.Contains(names, name) {
			t.Errorf("tool %s is not listed in the full profile (got %v)", name, names)
		}
	}
	names = checkTools(t, res)
	for name := range wantTools {
		if slices.Contains(names, name) == slices.Contains(fullOnly, name) {
			t.Errorf("tool %s: listed in the core profile %v, want %v", name, !slices.Contains(fullOnly, name), slices.Contains(names, name))
		}
	}
	props := func(tool string) map[string]any {
		for _, tl := range res.Tools {
			if tl.Name == tool {
				b, _ := json.Marshal(tl.InputSchema)
				var s struct {
					Properties map[string]any `json:"properties"`
				}
				_ = json.Unmarshal(b, &s)
				return s.Properties
			}
		}
		return nil
	}
	// Spot checks of the advertised types: coercion must not loosen them.
	for _, c := range []struct{ tool, prop, typ string }{
		{"browser_snapshot", "max_chars", "integer"},
		{"browser_snapshot", "offset", "integer"},
		{"browser_navigate", "url", "string"},
		{"browser_navigate", "timeout_ms", "integer"},
		{"browser_action", "action", "string"},
	} {
		p, _ := props(c.tool)[c.prop].(map[string]any)
		if p["type"] != c.typ {
			t.Errorf("%s.%s: type %v, want %s", c.tool, c.prop, p["type"], c.typ)
		}
	}
	const kinds = "[click dblclick right_click hover focus check uncheck type fill clear select press scroll upload drag]"
	if p, _ := props("browser_action")["action"].(map[string]any); fmt.Sprint(p["enum"]) != kinds {
		t.Errorf("browser_action.action enum = %v, want %s", p["enum"], kinds)
	}
	// The shared target fields are flat properties of the action.
	for _, f := range []string{"ref", "selector", "text", "role", "name", "exact", "within", "frame", "values", "expect", "direction"} {
		if _, ok := props("browser_action")[f]; !ok {
			t.Errorf("browser_action has no %q property", f)
		}
	}

	got := toolsListReport(t, res) + fullOnlyReport(t, fullRes)
	golden := filepath.Join("testdata", "toolslist.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/mcpserver -run TestToolsList -update)", err)
	}
	if got != string(want) {
		t.Errorf("tools/list changed; review the token cost and run with -update.\n--- want\n%s--- got\n%s", want, got)
	}
	if m.Backend().Info().Running {
		t.Error("tools/list started the browser")
	}
}

// checkTools checks each listed tool's description and schema, and returns
// their names.
func checkTools(t *testing.T, res *mcp.ListToolsResult) []string {
	t.Helper()
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		req, known := wantTools[tool.Name]
		if !known {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatalf("%s: schema: %v", tool.Name, err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: schema does not decode: %v\n%s", tool.Name, err, b)
		}
		if s.Type != "object" {
			t.Errorf("%s: schema type %q, want object", tool.Name, s.Type)
		}
		// Unknown arguments are refused by the server's check (TestArgumentRanges),
		// not by words in tools/list.
		if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
			t.Errorf("%s: tools/list spends tokens on additionalProperties: false: %s", tool.Name, b)
		}
		if !slices.Equal(s.Required, req) {
			t.Errorf("%s: required %v, want %v", tool.Name, s.Required, req)
		}
		for name, p := range s.Properties {
			// An enum's values are words enough (action: click, fill, …).
			if p.Description == "" && p.Default == nil && len(p.Enum) == 0 && !slices.Contains(tools.SharedArgs, name) {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			// Bounds keep values the Go type cannot hold (1e300, -1 for an
			// offset) from reaching the decoder.
			// The shared ones' bounds are said once, in Instructions.
			if p.Type == "integer" && (p.Minimum == nil || p.Maximum == nil) != tools.SharedBounds[name] {
				t.Errorf("%s.%s: an integer with bounds %v–%v: want them in the schema unless it is a shared argument (tools.SharedBounds)", tool.Name, name, p.Minimum, p.Maximum)
			}
		}
	}
	return names
}

// toolsListReport prints the o200k token count of the tools array as the
// client received it, and each tool's description length. It fails the test
// when the count is over budget.
func toolsListReport(t *testing.T, res *mcp.ListToolsResult) string {
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := countTokens(t, res.Tools)
	if n >= toolsListBudget {
		t.Errorf("tools/list is %d o200k tokens, over the budget of %d (ARCHITECTURE.md)", n, toolsListBudget)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "tools/list: %d tools, %d o200k tokens, %d JSON bytes (budget %d tokens)\n", len(res.Tools), n, len(b), toolsListBudget)
	for _, tool := range res.Tools {
		tb, _ := json.Marshal(tool)
		tn, _ := enc.Count(string(tb))
		fmt.Fprintf(&out, "%-18s %4d tokens, description %3d chars\n", tool.Name, tn, len(tool.Description))
	}
	return out.String()
}

// fullOnlyReport prints the token count of each tool the full profile adds
// to the core one.
func fullOnlyReport(t *testing.T, res *mcp.ListToolsResult) string {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("full profile adds:\n")
	for _, tool := range res.Tools {
		if !slices.Contains(fullOnly, tool.Name) {
			continue
		}
		tb, _ := json.Marshal(tool)
		tn, _ := enc.Count(string(tb))
		fmt.Fprintf(&out, "%-18s %4d tokens, description %3d chars\n", tool.Name, tn, len(tool.Description))
	}
	return out.String()
}
