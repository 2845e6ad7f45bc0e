package browser_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/archdoc"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// TestArchitectureNumbers keeps ARCHITECTURE.md's count of the CDP commands
// one click by ref sends (<!-- gen:cdp.click.ref -->, package archdoc) true:
// a click on act/kinds.html's "Save changes" by its ref, its listener taken
// off so that the click changes nothing (a click that changes the DOM adds
// a check of the quiet wait while the change settles, as many as the
// timing of the page's frames asks for), after a first click, so the
// walker's world is known, as it is for an agent's clicks after a
// snapshot. The least of three clicks is the count (anything else on the
// connection only adds). Measured on the launch backend, which the
// number is for. go test ./internal/browser -run TestArchitectureNumbers
// -update rewrites the span.
func TestArchitectureNumbers(t *testing.T) {
	if backendtest.Kind() != "launch" {
		t.Skipf("ARCHITECTURE.md's command counts are the launch backend's, not %s's", backendtest.Kind())
	}
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	e.eval(`const b = document.getElementById("save"); b.replaceWith(b.cloneNode(true)); "ok"`)
	ref := refOf(t, e.snapshot(browser.ModeInteractive), "button", "Save changes")
	var sent []string // the methods of the least click
	click := func() int64 {
		t.Helper()
		n0, by0 := cdp.CommandsSent(), cdp.SentByMethod()
		if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}}); err != nil {
			t.Fatal(err)
		}
		n := cdp.CommandsSent() - n0
		if sent == nil || n < int64(len(sent)) {
			sent = sent[:0]
			for m, k := range cdp.SentByMethod() {
				if d := k - by0[m]; d > 0 {
					sent = append(sent, fmt.Sprintf("%s ×%d", m, d))
				}
			}
			slices.Sort(sent)
		}
		return n
	}
	click()
	sent = nil
	least := click()
	for range 2 {
		least = min(least, click())
	}
	t.Logf("the commands: %s", strings.Join(sent, ", "))
	path, err := archdoc.Path()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"cdp.click.ref": archdoc.Int(int(least))}
	if err := archdoc.Check(path, "cdp", got, browser.Update()); err != nil {
		t.Error(err)
	}
	t.Logf("a click by ref sends %d CDP commands", least)
}
