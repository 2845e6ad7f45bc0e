package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
)

// `webpilot recipe record NAME --url U` for a user without an agent, through
// the per-user daemon: it records until the user presses Stop in the page
// (a browser reached over CDP, where the banner shows it), saves the
// recipe and prints its steps; `webpilot recipe run` then replays it with
// another value while an agent's client holds the same daemon.
func TestRecipeRecordCLI(t *testing.T) {
	home := daemonHome(t)
	ctx := backendtest.Context(t, 180*time.Second)
	remote, err := backendtest.StartDebugBrowser(ctx)
	if err != nil {
		t.Fatalf("start a browser with a debugging port: %v", err)
	}
	defer remote.Close()
	base := fixtures(t)
	dir := t.TempDir()
	flags := []string{"--isolated", "--headless=true", "--cdp-endpoint", remote.HTTPURL(), "--recipes", dir}
	// The debug browser is headless: the daemon the agent's proxy starts
	// lets it record only because the test rig says so.
	rig := []string{envRecordHeadless + "=1"}
	agent := connectProxyArgs(t, ctx, home, new(syncBuffer), rig, "--cdp-endpoint", remote.HTTPURL())
	if out := callText(t, ctx, agent, "browser_navigate", map[string]any{"url": base + "/basic.html?agent=1"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("agent navigate: %s", out)
	}

	var errb, outb syncBuffer
	page := base + "/recipes/search.html"
	cmd := proxyCmd(t, home, &errb, rig, append(append([]string{"recipe", "record"}, flags...), "--url", page, "cli-search")...)
	cmd.Stdout = &outb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(backendtest.Timeout(60 * time.Second)); !strings.Contains(outb.String(), "press Stop in the browser"); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("webpilot recipe record ended before the user did anything: %v\n%s\n%s", err, outb.String(), errb.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the recording did not start:\n%s\n%s", outb.String(), errb.String())
		}
	}
	u, err := backendtest.NewUser(ctx, remote.Launch(), page)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.Type(ctx, "#q", "kettle"); err != nil {
		t.Fatal(err)
	}
	if err := u.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	// Stop, in the banner webpilot shows at the top right of the page.
	if err := u.PressBannerStop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("webpilot recipe record: %v\n%s\n%s", err, outb.String(), errb.String())
		}
	case <-time.After(backendtest.Timeout(30 * time.Second)):
		_ = cmd.Process.Kill()
		t.Fatalf("webpilot recipe record did not end after Stop:\n%s\n%s", outb.String(), errb.String())
	}
	out := outb.String()
	t.Logf("recipe record:\n%s", out)
	for _, want := range []string{"the user pressed Stop", `2 fill searchbox "Search products" = $search_products ("kettle")`, `3 press Enter in searchbox "Search products"`, "Saved recipe cli-search",
		// For the person at the terminal: how to stop, where it goes, how to run it.
		"or press Ctrl-C here. It stops by itself after 10m.", "Then the recipe is saved to " + recipes.ShortPath(filepath.Join(dir, "cli-search.json")), "Run it: webpilot recipe run cli-search [search_products=…]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	// Not the agent's tool calls.
	for _, agentText := range []string{"recipe_record {", "recipe_run {", "The user does the task"} {
		if strings.Contains(out, agentText) {
			t.Errorf("the output tells the person at the terminal %q", agentText)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cli-search.json")); err != nil {
		t.Fatal(err)
	}
	// The same name again, without --overwrite: refused before the user
	// shows anything.
	if code, out, errs := cliAt(t, ctx, home, "", append(append([]string{"recipe", "record"}, flags...), "--url", page, "cli-search")...); code != 2 || !strings.Contains(errs, "--overwrite") || strings.Contains(out, "Recording") {
		t.Errorf("recipe record of an existing name: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := cliAt(t, ctx, home, "", append(append([]string{"recipe", "run"}, flags...), "cli-search", "search_products=mug")...)
	if code != 0 || !strings.Contains(out, "done: 3 step(s)") {
		t.Errorf("webpilot recipe run: exit %d\n%s%s", code, out, errs)
	}
	if tabs := tabURLs(t, ctx, agent); !strings.Contains(tabs, "agent=1") {
		t.Errorf("the agent's tabs changed:\n%s", tabs)
	}
}
