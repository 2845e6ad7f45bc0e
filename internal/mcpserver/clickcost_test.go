package mcpserver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// maxClickCommands is the most CDP commands one browser_action click by
// ref may send through MCP: the engine's click (browser's
// TestArchitectureNumbers) and nothing the tool or the server adds.
const maxClickCommands = 9

// TestClickByRefCommands counts the CDP commands one browser_action click
// by ref sends, through MCP, the way browser's TestArchitectureNumbers
// counts the engine's: a click on act/kinds.html's "Save changes", its
// listener taken off so that the click changes nothing, after a first
// click (the walker's world is known, as it is for an agent's clicks after
// a snapshot), with the tool's defaults, as an agent clicks: the reply
// has the diff snapshot. The least of three clicks is the count: anything
// else on the connection only adds. Not parallel, for the same reason.
// Measured on the launch backend, which the number is for. (make bench
// counts its clicks the same way, with no snapshot, on a page they
// change: "CDP commands per click by ref (MCP)".)
func TestClickByRefCommands(t *testing.T) {
	if backendtest.Kind() != "launch" {
		t.Skipf("the command count is the launch backend's, not %s's", backendtest.Kind())
	}
	base := fixtures(t)
	cs := connectFull(t, &tools.Deps{Manager: sharedManager(t)})
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/act/kinds.html", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `const b = document.getElementById("save"); b.replaceWith(b.cloneNode(true)); "ok"`})
	ref := refOf(t, mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "interactive"}), "button", "Save changes")
	var sent []string // the methods of the least click
	best := int64(-1)
	click := func() int64 {
		t.Helper()
		n0, by0 := cdp.CommandsSent(), cdp.SentByMethod()
		mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": ref})
		n := cdp.CommandsSent() - n0
		if best < 0 || n < best {
			best, sent = n, nil
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
	best = -1
	least := click()
	for range 2 {
		least = min(least, click())
	}
	t.Logf("a click by ref through MCP sends %d CDP commands: %s", least, strings.Join(sent, ", "))
	if least > maxClickCommands {
		t.Errorf("a click by ref through MCP sends %d CDP commands (%s), want at most %d", least, strings.Join(sent, ", "), maxClickCommands)
	}
}
