package mcpserver_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// The same elements are saved with the same locators whether the agent
// took the steps by ref (browser_flow, then recipe_save) or the user took
// them while recipe_record watched: one locator policy (recipes.Locate).
func TestSaveAndRecordLocateAlike(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, store, m, _ := recordClient(t)
	ctx := backendtest.Context(t, 120*time.Second)
	page := base + "/widgets/bs5-widgets.html"

	// The user clicks Actions, closes its menu, and clicks Change plan.
	mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "by-user", "url": page})
	u, err := backendtest.NewUser(ctx, m.Backend(), page)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.Click(ctx, ".dropdown-toggle", 1); err != nil {
		t.Fatal(err)
	}
	if err := u.WaitFor(ctx, `document.querySelector(".dropdown-menu.show")`); err != nil {
		t.Fatal(err)
	}
	if err := u.Press(ctx, "Escape"); err != nil {
		t.Fatal(err)
	}
	if err := u.WaitFor(ctx, `!document.querySelector(".dropdown-menu.show")`); err != nil {
		t.Fatal(err)
	}
	if err := u.Click(ctx, `[data-bs-target="#confirm"]`, 1); err != nil {
		t.Fatal(err)
	}
	if err := u.WaitFor(ctx, `document.getElementById("confirm").classList.contains("show")`); err != nil {
		t.Fatal(err)
	}
	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop", "save": true})
	if !strings.Contains(out, "Saved recipe by-user") {
		t.Fatalf("recipe_record: %s", out)
	}

	// The agent clicks the same two by ref, in a session of its own.
	snap := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page, "session": "agent"})
	refOf := func(pattern string) string {
		mm := regexp.MustCompile(pattern).FindStringSubmatch(snap)
		if mm == nil {
			t.Fatalf("no %s in:\n%s", pattern, snap)
		}
		return mm[1]
	}
	actions, change := refOf(`button (e\d+) "Actions"`), refOf(`button (e\d+) "Change plan"`)
	mustCall(t, ctx, cs, "browser_flow", map[string]any{"session": "agent", "steps": []any{
		map[string]any{"do": "action", "action": "click", "ref": actions, "snapshot": "none"},
		map[string]any{"do": "action", "action": "press", "key": "Escape", "snapshot": "none"},
		map[string]any{"do": "action", "action": "click", "ref": change, "snapshot": "none"},
	}})
	if out := mustCall(t, ctx, cs, "recipe_save", map[string]any{"name": "by-agent", "site": "127.0.0.1", "session": "agent"}); !strings.Contains(out, "2 with recorded elements") {
		t.Fatalf("recipe_save: %s", out)
	}

	locators := func(name string) []map[string]any {
		r, err := store.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, st := range r.Steps {
			if st.Fields["action"] != "click" {
				continue
			}
			loc := map[string]any{}
			for _, k := range []string{"ref", "selector", "text", "role", "name", "exact", "frame"} {
				if v, ok := st.Fields[k]; ok {
					loc[k] = v
				}
			}
			out = append(out, loc)
		}
		return out
	}
	user, agent := locators("by-user"), locators("by-agent")
	t.Logf("recipe_record: %v; recipe_save: %v", user, agent)
	if len(user) != 2 || !reflect.DeepEqual(user, agent) {
		t.Errorf("the same elements saved differently: recipe_record %v, recipe_save %v", user, agent)
	}
}
