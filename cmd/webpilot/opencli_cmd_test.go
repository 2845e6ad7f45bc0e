//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// realOpenCLI is the folder holding the real OpenCLI from npm and the
// Node it runs on (scripts/ensure-opencli.sh; `make test` sets
// WEBPILOT_TEST_OPENCLI_DIR). Without it the test fails when
// WEBPILOT_REQUIRE_OPENCLI=1 (make test) and is skipped, saying how to
// run it, otherwise.
func realOpenCLI(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WEBPILOT_TEST_OPENCLI_DIR")
	if dir == "" {
		if os.Getenv("WEBPILOT_REQUIRE_OPENCLI") == "1" {
			t.Fatal("WEBPILOT_REQUIRE_OPENCLI=1 but WEBPILOT_TEST_OPENCLI_DIR is not set: run the tests with make test, or set it to $(bash scripts/ensure-opencli.sh)")
		}
		t.Skip("the real OpenCLI: set WEBPILOT_TEST_OPENCLI_DIR=$(bash scripts/ensure-opencli.sh) to run this test")
	}
	for _, p := range []string{"opencli", "node"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("WEBPILOT_TEST_OPENCLI_DIR=%s: %v", dir, err)
		}
	}
	return dir
}

// The real OpenCLI through the daemon, on the default path (`webpilot
// mcp`): a client whose PATH has opencli gets the opencli tools in the
// core profile, lists the adapters and runs offline ones; a client without
// it, on the same daemon, has none of them. The daemon was started by the
// client without OpenCLI, so the runs must use the PATH of the client
// that found it (npm's opencli finds node on PATH).
func TestOpenCLIRealThroughDaemon(t *testing.T) {
	dir := realOpenCLI(t)
	home := daemonHome(t)
	ctx := backendtest.Context(t, 240*time.Second)
	scratch := t.TempDir() // OpenCLI's HOME: it writes ~/.opencli
	// A PATH without node or opencli for the client that has none (and
	// no npm folder to find one in).
	bare := t.TempDir()
	for _, p := range []string{"sh", "env", "sleep"} {
		if real, err := exec.LookPath(p); err == nil {
			_ = os.Symlink(real, filepath.Join(bare, p))
		}
	}
	common := []string{"HOME=" + scratch, "CI=1", "npm_config_prefix=", "NPM_CONFIG_PREFIX="}
	errB, errA := new(syncBuffer), new(syncBuffer)
	b := connectProxyArgs(t, ctx, home, errB, append(slices.Clone(common), "PATH="+bare))
	a := connectProxyArgs(t, ctx, home, errA, append(slices.Clone(common), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")))

	na, nb := toolNames(t, ctx, a), toolNames(t, ctx, b)
	for _, name := range []string{"opencli_adapter_list", "opencli_run", "opencli_status"} {
		if !slices.Contains(na, name) {
			t.Errorf("the client with OpenCLI lacks %s: %v", name, na)
		}
		if slices.Contains(nb, name) {
			t.Errorf("the client without OpenCLI has %s", name)
		}
	}
	if _, code := callOutcome(t, ctx, b, "opencli_run", map[string]any{"site": "trae-cn", "command": "setup"}); code == "" {
		t.Error("the client without OpenCLI ran an adapter")
	}

	// The catalog: every site with its count, then one site's commands.
	out, code := callOutcome(t, ctx, a, "opencli_adapter_list", nil)
	if code != "" || !strings.Contains(out, "OpenCLI: 1,") || !strings.Contains(out, "mercury ") || !strings.Contains(out, "trae-cn ") {
		t.Fatalf("opencli_adapter_list: %s %s", code, out)
	}
	if len(out) > 6000 {
		t.Errorf("the site list is %d chars: not compact", len(out))
	}
	out, code = callOutcome(t, ctx, a, "opencli_adapter_list", map[string]any{"site": "mercury"})
	if code != "" || !strings.Contains(out, "mercury reimbursement-plan") || !strings.Contains(out, "--receipt!") {
		t.Errorf("mercury's commands: %s %s", code, out)
	}

	// An offline adapter with arguments, as JSON data.
	receipt := filepath.Join(t.TempDir(), "receipt.png")
	if err := os.WriteFile(receipt, []byte("\x89PNG\r\n\x1a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = callOutcome(t, ctx, a, "opencli_run", map[string]any{"site": "mercury", "command": "reimbursement-plan", "args": []any{
		"--receipt", receipt, "--amount", "140.00", "--currency", "CNY", "--date", "2026-06-26", "--merchant", "Example Merchant & Co \"东京\"", "--notes", "Example business purpose."}})
	var r struct {
		ExitCode int              `json:"exit_code"`
		Data     []map[string]any `json:"data"`
	}
	if code != "" || json.Unmarshal([]byte(out), &r) != nil || r.ExitCode != 0 || len(r.Data) != 1 || r.Data[0]["status"] != "ready" {
		t.Errorf("mercury reimbursement-plan: %s %s", code, out)
	} else if !strings.Contains(out, `Example Merchant \u0026 Co \"东京\"`) && !strings.Contains(out, `Example Merchant & Co \"东京\"`) {
		t.Errorf("the merchant did not come back as given: %s", out)
	}
	// Text output.
	out, code = callOutcome(t, ctx, a, "opencli_run", map[string]any{"site": "trae-cn", "command": "setup", "format": "plain"})
	if code != "" || !strings.Contains(out, `"exit_code":0`) || !strings.Contains(out, "OPENCLI_CDP_ENDPOINT") {
		t.Errorf("trae-cn setup: %s %s", code, out)
	}
	// A failure: the CLI's message and exit code.
	out, code = callOutcome(t, ctx, a, "opencli_run", map[string]any{"site": "mercury", "command": "reimbursement-plan"})
	if code != "COMMAND_FAILED" || !strings.Contains(out, "required option") || !strings.Contains(out, "exit_code: 1") {
		t.Errorf("a run without its required option: %s %s", code, out)
	}

	// opencli_status and browser_status say what runs and where it came
	// from.
	out, _ = callOutcome(t, ctx, a, "opencli_status", nil)
	for _, want := range []string{`"version": "1.8.7"`, `"source": "PATH"`, filepath.Join(dir, "opencli"), `"runs_per_site": 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("opencli_status lacks %s:\n%s", want, out)
		}
	}
	out, _ = callOutcome(t, ctx, b, "browser_status", map[string]any{"verbose": true})
	if !strings.Contains(out, `"opencli": {`) || !strings.Contains(out, `"found": false`) {
		t.Errorf("browser_status of the client without OpenCLI:\n%s", out)
	}
}
