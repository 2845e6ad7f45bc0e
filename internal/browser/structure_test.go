package browser_test

import (
	"context"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// scoped is the compact snapshot of the element sel names.
func (e *env) scoped(sel string) string {
	e.t.Helper()
	var text string
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		s, err := h.Snapshot(ctx, browser.SnapshotOptions{Scope: browser.Locator{Selector: sel}})
		if err == nil {
			text = s.Text
		}
		return err
	})
	if err != nil {
		e.t.Fatalf("snapshot of %s: %v", sel, err)
	}
	return text
}

// refMask writes every ref of a line as "e#".
var refMask = regexp.MustCompile(`\be\d+\b`)

// after says that, refs written e#, a line of snap starts with first and
// the lines right after it start with next, in order.
func after(t *testing.T, snap, first string, next ...string) {
	t.Helper()
	lines := strings.Split(refMask.ReplaceAllString(snap, "e#"), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), first) {
			continue
		}
		for k, want := range next {
			if i+1+k >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1+k]), want) {
				t.Fatalf("line %d after %q is not %q:\n%s", k+1, first, want, snap)
			}
		}
		return
	}
	t.Fatalf("no line %q in:\n%s", first, snap)
}

// A popup that a library renders in a portal at the end of the page is
// shown right after the trigger that opened it, once; refs into it act,
// and it goes with the popup. (The browser tests check every walk that
// takes over parts of the last one against a whole walk.)
func TestPopupAfterTrigger(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, c := range []struct {
		name, page     string
		open           []browser.Action
		trigger        string
		popup          []string
		pick, state    string
		scope, inScope string
	}{
		{name: "antd select", page: "/widgets/antd5/select.html",
			open:    []browser.Action{{Kind: "focus", Target: browser.Locator{Role: "combobox", Name: "Department"}}, {Kind: "press", Key: "ArrowDown"}},
			trigger: `combobox e# "Department"`, popup: []string{`option e# "Engineering"`, `option e# "Marketing"`},
			pick: "Marketing", state: `window.__state.department`, scope: "form", inScope: `"Customer Support"`},
		{name: "MUI autocomplete", page: "/widgets/mui6/select.html",
			open:    []browser.Action{{Kind: "click", Target: browser.Locator{Role: "combobox", Name: "Country"}}},
			trigger: `combobox e# "Country"`, popup: []string{`listbox e# "Country":`, `option e# "Argentina"`, `option e# "Australia"`},
			pick: "Brazil", state: `window.__state.country`},
		{name: "Mantine menu", page: "/widgets/mantine7/nav.html",
			open:    []browser.Action{{Kind: "click", Target: browser.Locator{Role: "button", Name: "Actions"}}},
			trigger: `button e# "Actions" [expanded]`, popup: []string{`menu "Actions":`, `Ticket`, `menuitem e# "Edit"`, `menuitem e# "Duplicate"`},
			pick: "Duplicate", state: `window.__state.menu`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.navigate(c.page)
			before := e.snapshot(browser.ModeCompact)
			for _, a := range c.open {
				if _, err := e.act(a); err != nil {
					t.Fatal(err)
				}
			}
			snap := e.waitSnap(`"` + c.pick + `"`)
			after(t, snap, c.trigger, c.popup...)
			if n := strings.Count(snap, `"`+c.pick+`"`); n != 1 {
				t.Errorf("%q shows %d times:\n%s", c.pick, n, snap)
			}
			if len(strings.Split(snap, "\n")) <= len(strings.Split(before, "\n")) {
				t.Errorf("the open popup added no lines:\n%s", snap)
			}
			if c.scope != "" {
				// the popup belongs to its trigger in a snapshot of the
				// trigger's part of the page too
				sc := e.scoped(c.scope)
				after(t, sc, c.trigger, c.popup[:1]...)
				if !strings.Contains(sc, c.inScope) {
					t.Errorf("the scoped snapshot of %s lacks the popup:\n%s", c.scope, sc)
				}
			}
			m := regexp.MustCompile(`(option|menuitem) (e\d+) "` + regexp.QuoteMeta(c.pick) + `"`).FindStringSubmatch(snap)
			if m == nil {
				t.Fatalf("no %q in the popup:\n%s", c.pick, snap)
			}
			if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: m[2]}}); err != nil {
				t.Fatal(err)
			}
			e.waitEval(c.state, c.pick)
			// (the library fades its popup out: it goes within a moment)
			deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
			for snap = e.snapshot(browser.ModeCompact); strings.Contains(snap, m[2]+" "); snap = e.snapshot(browser.ModeCompact) {
				if time.Now().After(deadline) {
					t.Errorf("the closed popup's %s is still shown:\n%s", m[2], snap)
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// Ant Design's Select keeps a 0×0 listbox of options for assistive
// technology beside the list it draws: the drawn items are the options,
// the hidden copies no locator's candidates.
func TestHiddenListboxTwin(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, loc := range []browser.Locator{{Role: "option", Name: "Germany"}, {Text: "Germany"}} {
		e.navigate("/widgets/antd5/select.html")
		snap := e.snapshot(browser.ModeCompact)
		e.typeRef(snap, "combobox", "Country", "Ger")
		snap = e.waitSnap(`option e`)
		after(t, snap, `combobox e# "Country" = "Ger"`, `option e# "Germany"`)
		if _, err := e.act(browser.Action{Kind: "click", Target: loc}); err != nil {
			t.Fatalf("click %+v: %v", loc, err)
		}
		e.waitEval(`window.__state.country`, "Germany")
		e.waitEval(`document.getElementById("employee_country").value`, "Germany")
	}
}

// A data grid's header cells are targets named by their text (a click
// sorts), with their own buttons after them; a column's resize handle is
// none; the grid says how many rows it has in all.
func TestDataGridHeader(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/widgets/mui6/grid.html")
	snap := e.waitSnap("grid 11×6")
	if !strings.Contains(snap, "grid 11×6 (61 rows in all):") {
		t.Errorf("the grid does not say it has 61 rows:\n%s", snap)
	}
	for _, col := range []string{"ID", "Title", "Status", "Priority", "Assignee"} {
		if !strings.Contains(snap, `columnheader `) || !regexp.MustCompile(`columnheader e\d+ "`+col+`": button e\d+ "`+col+` column menu"`).MatchString(snap) {
			t.Errorf("no header %q with its menu button:\n%s", col, snap)
		}
	}
	if strings.Contains(snap, "columnSeparator") || strings.Contains(snap, "clickable") {
		t.Errorf("a resize handle is a target:\n%s", snap)
	}
	if !regexp.MustCompile(`checkbox e\d+ "Select all rows"\|columnheader`).MatchString(snap) {
		t.Errorf("the select-all header is not its checkbox:\n%s", snap)
	}
	e.clickRef(snap, "columnheader", "Priority")
	e.waitEval(`JSON.stringify(window.__state.sort)`, `{"field":"priority","dir":"asc"}`)
}

// A long list of options folds in compact mode, and an option it leaves
// out is still picked by its role and name.
func TestLongListboxFolds(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/widgets/mantine7/lists.html")
	snap := e.snapshot(browser.ModeCompact)
	e.clickRef(snap, "textbox", "Warehouse bin")
	snap = e.waitSnap("more options")
	if !strings.Contains(snap, `… 980 more options (mode=full shows them; any is found by role and name: {"role":"option","name":…})`) || strings.Contains(snap, `"Bin A-021"`) {
		t.Fatalf("the 1,000 options are not folded to 20:\n%s", snap)
	}
	after(t, snap, `textbox e# "Warehouse bin"`, `listbox e# "Warehouse bin":`)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "option", Name: "Bin A-030", Exact: true}}); err != nil {
		t.Fatal(err)
	}
	e.waitEval(`String(window.__state.bin)`, "Bin A-030")
}
