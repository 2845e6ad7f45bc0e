package backend_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/webpilot-mcp/webpilot"

// TestArrows keeps the dependency arrows of DESIGN.md true, indirect imports
// included: every arrow points down, tools never speak CDP, browser never
// knows MCP, backends never know agent sessions. TestDeps states each
// package's direct imports.
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

// depRule is what one package of the module may import: the packages of
// ours (module-relative paths), and whether it may speak CDP (cdproto) or
// MCP (go-sdk) itself. The rule is exact: an import it does not list fails
// TestDeps, and so does a listed one the package no longer has, so the table
// stays the map of the code as built.
type depRule struct {
	ours        []string
	cdproto     bool // may import github.com/chromedp/cdproto/... (its JSON layer, cdp/jsonv2, anyone may)
	mcp         bool // may import github.com/modelcontextprotocol/go-sdk/...
	testSupport bool // test support: may import testing
	why         string
}

// depRules has a rule for every package of the module (production imports
// only; tests may import what they need). A new package needs a rule here.
//
// Wishes, not enforced yet: internal/secrets and internal/flow should not
// import internal/browser (they use its Error, Code and OriginRule; those
// are to move to a package of their own), which would leave flow and
// secrets below browser.
var depRules = map[string]depRule{
	"cmd/webpilot": {ours: []string{"extension", "internal/backend", "internal/backend/bridge", "internal/backend/endpoint", "internal/backend/launch", "internal/clientconf",
		"internal/browser", "internal/cdp", "internal/daemon", "internal/filelock", "internal/logfile", "internal/mcpclient", "internal/mcpproxy", "internal/mcpserver",
		"internal/opencli", "internal/recipes", "internal/redact", "internal/secrets", "internal/text", "internal/tools", "internal/trace", "skills"}, mcp: true,
		why: "the binary wires everything; the only place that picks a concrete backend (cdp: the command count browser_status reports)"},
	"cmd/webpilot-bench": {ours: []string{"internal/backend/launch", "internal/mcpclient", "internal/opencli"}, mcp: true,
		why: "the benchmark measures a built webpilot binary as an MCP client does (launch: the bare browser's floor); not part of the product binary"},
	"internal/mcpclient":                 {mcp: true, why: "a leaf: what an MCP client reads of a tool result, shared by the CLI and the benchmark"},
	"extension":                          {why: "the embedded extension's files; no logic in Go"},
	"skills":                             {why: "the embedded agent skill; no logic in Go"},
	"scripts/fixtureserver":              {why: "serves testdata/pages for the conformance script"},
	"scripts/release":                    {ours: []string{"extension", "internal/clientconf"}, why: "make release: builds and packs webpilot and the store zip of the extension (its manifest edited as setup edits a client's); its test speaks MCP to the npm launcher"},
	"internal/archdoc":                   {why: "reads and rewrites ARCHITECTURE.md's generated numbers: pure text"},
	"internal/cdp":                       {cdproto: true, why: "the CDP client knows nothing of tabs, sessions or MCP"},
	"internal/cdp/cdptest":               {ours: []string{"internal/cdp"}, cdproto: true, why: "a scripted cdp session for unit tests"},
	"internal/backend":                   {ours: []string{"internal/cdp"}, why: "the Backend interface depends on nothing concrete"},
	"internal/backend/targets":           {ours: []string{"internal/backend", "internal/cdp"}, cdproto: true, why: "the Target domain as tabs, shared by launch and endpoint"},
	"internal/backend/launch":            {ours: []string{"internal/backend", "internal/backend/targets", "internal/cdp", "internal/filelock"}, cdproto: true, why: "a backend only manages tabs and produces CDP sessions"},
	"internal/backend/endpoint":          {ours: []string{"internal/backend", "internal/backend/targets", "internal/cdp", "internal/redact"}, cdproto: true, why: "a backend only manages tabs and produces CDP sessions"},
	"internal/backend/bridge":            {ours: []string{"internal/backend", "internal/cdp"}, why: "a backend only manages tabs and produces CDP sessions; the extension speaks for it"},
	"internal/backend/backendtest":       {ours: []string{"extension", "internal/backend", "internal/backend/bridge", "internal/backend/endpoint", "internal/backend/launch", "internal/cdp", "internal/cdp/cdptest"}, cdproto: true, testSupport: true, why: "the Backend contract suite and the real backends for browser tests"},
	"internal/backend/endpoint/farmtest": {ours: []string{"internal/backend/backendtest", "internal/backend/launch"}, testSupport: true, why: "the real browserless on loopback, for the farm tests"},
	"internal/filelock":                  {why: "an advisory file lock: the system only"},
	"internal/logfile":                   {why: "a rotated log file: the system only"},
	"internal/outdir":                    {ours: []string{"internal/filelock"}, why: "the output directory knows files, not browsers"},
	"internal/daemon":                    {ours: []string{"internal/filelock"}, why: "the daemon's state and locks know neither browsers nor MCP"},
	"internal/mcpproxy":                  {why: "a JSON-RPC relay: it reads messages, not tools"},
	"internal/trace":                     {ours: []string{"internal/text"}, why: "session traces are HTML and JSON of what a tool was given and gave back"},
	"internal/text":                      {why: "a leaf: cutting text without splitting a character, edit distance"},
	"internal/vars":                      {why: "a leaf: the $variable lexer of flows and recipes"},
	"internal/origin":                    {why: "a leaf: origin rules (--allow-origins, secrets' origins)"},
	"internal/clientconf":                {why: "a leaf: MCP clients' config files (webpilot setup)"},
	"internal/opencli":                   {ours: []string{"internal/redact"}, why: "finds OpenCLI and runs it as a process tree of its own (its error output redacted); it knows neither MCP nor the browser"},
	"internal/redact":                    {why: "a leaf: credentials hidden in URLs, headers and JSON bodies shown to an agent"},
	"internal/snapshot":                  {ours: []string{"internal/redact", "internal/text"}, why: "the walker's nodes rendered as snapshot text, and diffs: pure text work, no browser"},
	"internal/toolerr":                   {ours: []string{"internal/text"}, why: "a leaf: the agent-facing error and its codes"},
	"internal/browser":                   {ours: []string{"internal/backend", "internal/cdp", "internal/origin", "internal/outdir", "internal/redact", "internal/snapshot", "internal/text", "internal/toolerr"}, cdproto: true, why: "browser knows neither MCP nor a concrete backend"},
	"internal/secrets":                   {ours: []string{"internal/origin", "internal/toolerr"}, why: "secrets know values and origins, not the engine"},
	"internal/flow":                      {ours: []string{"internal/text", "internal/toolerr", "internal/vars"}, why: "the step language runs steps through an executor; it knows neither the engine, the table, MCP nor CDP"},
	"internal/recipes":                   {ours: []string{"internal/filelock", "internal/flow", "internal/origin", "internal/text", "internal/toolerr", "internal/vars"}, why: "recipe files and the site gate build on the step language"},
	"internal/tools":                     {ours: []string{"internal/backend", "internal/browser", "internal/flow", "internal/opencli", "internal/recipes", "internal/redact", "internal/secrets", "internal/text", "internal/trace"}, why: "tools call package browser; they never speak CDP or MCP, or pick a backend"},
	"internal/mcpserver":                 {ours: []string{"internal/browser", "internal/daemon", "internal/flow", "internal/redact", "internal/text", "internal/tools", "internal/trace"}, mcp: true, why: "the MCP layer registers the table; it never touches CDP or picks a backend"},
}

// TestDeps checks every package of the module against its rule in
// depRules, and that no production package imports testing.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		seen[pkg] = true
		for _, p := range depProblems(pkg, f[1:]) {
			t.Error(p)
		}
	}
	for pkg := range depRules {
		if !seen[pkg] {
			t.Errorf("depRules has a rule for %s, which is no package of the module: remove it", pkg)
		}
	}
}

// depProblems compares one package's imports with its rule.
func depProblems(pkg string, imports []string) []string {
	r, ok := depRules[pkg]
	if !ok {
		return []string{fmt.Sprintf("%s has no import rule: add a rule for %s to depRules (internal/backend/arrows_test.go)", pkg, pkg)}
	}
	var probs []string
	var cdproto, jsonOnly, mcp bool
	ours := map[string]bool{}
	for _, imp := range imports {
		switch {
		case imp == "testing" && !r.testSupport:
			probs = append(probs, fmt.Sprintf("%s imports testing: no production package does", pkg))
		case imp == "github.com/chromedp/cdproto/cdp/jsonv2":
			// (cdproto's JSON layer: a codec, no word of CDP, which any
			// package may use; the bridge passes frames on with it)
			jsonOnly = true
		case strings.HasPrefix(imp, "github.com/chromedp/cdproto"):
			cdproto = true
		case strings.HasPrefix(imp, "github.com/modelcontextprotocol/go-sdk"):
			mcp = true
		case strings.HasPrefix(imp, mod+"/"):
			o := strings.TrimPrefix(imp, mod+"/")
			ours[o] = true
			if !slices.Contains(r.ours, o) {
				probs = append(probs, fmt.Sprintf("%s imports %s, which its rule does not allow (%s); change the code, or the rule in depRules with its reason", pkg, o, r.why))
			}
		}
	}
	for _, o := range r.ours {
		if !ours[o] {
			probs = append(probs, fmt.Sprintf("%s no longer imports %s: remove it from its rule in depRules (and from ARCHITECTURE.md's rooms)", pkg, o))
		}
	}
	for _, c := range []struct {
		name        string
		has, allows bool
	}{{"cdproto", cdproto, r.cdproto}, {"go-sdk", mcp, r.mcp}} {
		switch {
		case c.has && !c.allows:
			probs = append(probs, fmt.Sprintf("%s imports %s, which its rule does not allow (%s)", pkg, c.name, r.why))
		case !c.has && c.allows && !(c.name == "cdproto" && jsonOnly):
			probs = append(probs, fmt.Sprintf("%s no longer imports %s: set it false in its rule in depRules", pkg, c.name))
		}
	}
	return probs
}

// TestDepProblems pins what TestDeps says for each kind of drift.
func TestDepProblems(t *testing.T) {
	tests := []struct {
		name    string
		pkg     string
		imports []string
		want    string // a part of the one problem; "" for none
	}{
		{"as stated", "internal/outdir", []string{"os", mod + "/internal/filelock"}, ""},
		{"no rule", "internal/newroom", nil, "add a rule for internal/newroom"},
		{"an import the rule does not allow", "internal/outdir", []string{mod + "/internal/filelock", mod + "/internal/browser"}, "imports internal/browser, which its rule does not allow"},
		{"an allowed import gone", "internal/outdir", nil, "no longer imports internal/filelock"},
		{"testing in production", "internal/logfile", []string{"testing"}, "imports testing"},
		{"testing in test support", "internal/backend/backendtest", append([]string{"testing", "github.com/chromedp/cdproto/cdp"}, prefixed(depRules["internal/backend/backendtest"].ours)...), ""},
		{"CDP where it is not spoken", "internal/tools", append([]string{"github.com/chromedp/cdproto/cdp"}, prefixed(depRules["internal/tools"].ours)...), "imports cdproto"},
		{"MCP no longer spoken", "internal/mcpserver", prefixed(depRules["internal/mcpserver"].ours), "no longer imports go-sdk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := depProblems(tt.pkg, tt.imports)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("problems %q, want one with %q", got, tt.want)
			}
		})
	}
}

func prefixed(ours []string) []string {
	out := make([]string, len(ours))
	for i, o := range ours {
		out[i] = mod + "/" + o
	}
	return out
}
