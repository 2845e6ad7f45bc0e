package browser_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// wantLines checks that snap holds every pattern of want (regular
// expressions, whole lines up to their indentation) and none of not.
func wantLines(t *testing.T, snap string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !regexp.MustCompile(`(?m)^ *` + w + `$`).MatchString(snap) {
			t.Errorf("no line %s in the snapshot:\n%s", w, snap)
		}
	}
	for _, n := range not {
		if strings.Contains(snap, n) {
			t.Errorf("the snapshot holds %q:\n%s", n, snap)
		}
	}
}

// clickName clicks the element a role and exact name locate.
func (e *env) clickName(role, name string) {
	e.t.Helper()
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: role, Name: name, Exact: true}}); err != nil {
		e.t.Fatalf("click %s %q: %v", role, name, err)
	}
}

// Names and states of the hand-made page: icons are no part of a name
// beside text, an icon-only control takes a title, a tree item leaves out
// its controls and nested items, a button labelled elsewhere shows its
// text as its value, calendar days are named by their dates, and every
// name shown locates its element.
func TestNamesIconsDaysStates(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/names")
	snap := e.snapshot(browser.ModeFull)
	wantLines(t, snap, []string{
		`button e\d+ "Actions"`,
		`button e\d+ "Settings"`,
		`button e\d+ "Previous Page"`,
		`button e\d+ "right"`,
		`tree \[multiselectable\]:`,
		`treeitem e\d+ "Company" \[expanded\]:`,
		`treeitem e\d+ "Engineering" \[selected\]`,
		`treeitem e\d+ "Sales" \[selected\]`,
		`button e\d+ "Start date" = ""`,
		`e\d+ "2026-02-28" \[outside\]\|e\d+ "2026-03-01"\|e\d+ "2026-03-27"`,
		`columnheader e\d+ "ID" \[sorted ascending\]\|columnheader e\d+ "Title" \[sorted descending\]\|Owner`,
		`link e\d+ "1" → #p1 \[current\]`,
		`listbox e\d+ "People" \[multiselectable\]:`,
		`option e\d+ "Ada" \[selected\]`,
		`option e\d+ "Bob"`,
	}, []string{`img "`, "Pick a date", "col-resize", "clickable"})
	checkRolesAgainstChrome(t, e, "/names")
	for _, c := range []struct{ role, name, log string }{
		{"button", "Actions", "actions"},
		{"button", "Settings", "settings"},
		{"button", "Previous Page", "prev"},
		{"button", "right", "right"},
		{"cell", "2026-03-27", "2026-03-27"},
	} {
		e.clickName(c.role, c.name)
		e.waitEval(`__log[__log.length-1]`, c.log)
	}
	// the picker's button shows its date as its value, named by its label
	e.clickName("button", "Start date")
	wantLines(t, e.snapshot(browser.ModeFull), []string{`button e\d+ "Start date" = "2026-03-20"`}, nil)

	// A mask over the whole page is no target; the dialog on it is.
	e.navigate("/mask")
	snap = e.snapshot(browser.ModeFull)
	wantLines(t, snap, []string{`dialog "Edit":`, `button e\d+ "Save"`}, []string{"clickable"})
}

// The same on the libraries' own widgets.
func TestLibraryNames(t *testing.T) {
	e := newEnv(t, browser.Options{})
	state := func(k string) string { return `JSON.stringify(window.__state.` + k + `)` }
	open := func(page string) string {
		e.t.Helper()
		e.navigate(page)
		e.waitEval(`String(window.__ready)`, "true")
		return e.snapshot(browser.ModeFull)
	}

	t.Run("AntdIcons", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/antd5/nav.html")
		wantLines(t, snap, []string{
			`button e\d+ "Actions"`,
			`tab e\d+ "Shipping policy" \[expanded\]`,
			`tab e\d+ "Returns" \[collapsed\]`,
			`button e\d+ "Previous Page" \[disabled\]`,
			`button e\d+ "Next Page"`,
			`clickable e\d+ "Next 5 Pages"`,
			`button e\d+ "Settings"`,
			`button e\d+ "Delete"`,
		}, []string{`img "`, `"setting"`, `"left"`})
		checkRolesAgainstChrome(t, e, "antd nav")
		e.clickName("button", "Settings")
		e.waitEval(state("iconButton"), `"Settings"`)
		e.clickName("button", "Next Page")
		e.waitEval(state("page"), `2`)
	})

	t.Run("AntdTransferIconButton", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/antd5/lists.html")
		wantLines(t, snap, []string{`button e\d+ "right" \[disabled\]`, `button e\d+ "left" \[disabled\]`}, nil)
		e.clickRef(snap, "clickable", "Alice Johnson")
		e.waitSnap(`button e`)
		// the name shown locates it
		e.clickName("button", "right")
		e.waitEval(state("members.includes('p1')"), `true`)
	})

	t.Run("AntdTree", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/antd5/tree.html")
		wantLines(t, snap, []string{
			`treeitem e\d+ "Documents" \[expanded\]:`,
			`clickable e\d+ "caret-down"`,
			`treeitem e\d+ "Read me.txt":`,
		}, []string{`"Select Documents Documents"`})
		checkRolesAgainstChrome(t, e, "antd tree")
		e.clickRef(snap, "clickable", "Read me.txt")
		e.waitEval(state("folder"), `"docs/readme"`)
		e.waitSnap(`treeitem e`, `"Read me.txt" [selected]`)
	})

	t.Run("AntdRangeDays", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/antd5/dates.html")
		e.clickRef(snap, "textbox", "Vacation")
		snap = e.waitSnap(`"2026-03-27"`)
		wantLines(t, snap, []string{`.*e\d+ "2026-04-01" \[outside\].*`, `.*e\d+ "2026-04-27"\|.*`}, []string{`"27"|`, "\"27\"\n"})
		checkRolesAgainstChrome(t, e, "antd range picker")
		e.clickName("cell", "2026-03-27")
		e.waitSnap(`"2026-04-03"`)
		e.clickName("cell", "2026-04-03")
		e.waitEval(state("vacation"), `["2026-03-27","2026-04-03"]`)
	})

	t.Run("MuiTree", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/mui6/tree.html")
		wantLines(t, snap, []string{`treeitem e\d+ "Company" \[expanded\]:`, `treeitem e\d+ "Engineering" \[expanded\]:`, `tree "Teams with access" \[multiselectable\]:`}, nil)
		// one treeitem per name: a nested item's name locates it alone
		e.clickName("treeitem", "Frontend")
	})

	t.Run("MantineDateButton", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/mantine7/dates.html")
		wantLines(t, snap, []string{`button e\d+ "Start date" = "" \[collapsed\]`, `button e\d+ "Trip dates" = "" \[collapsed\]`}, []string{"Pick a date"})
		checkRolesAgainstChrome(t, e, "mantine dates")
		e.clickName("button", "Start date")
		snap = e.waitSnap(`button e`, `"20 March 2026"`)
		e.clickRef(snap, "button", "20 March 2026")
		e.waitEval(state("startDate"), `"2026-03-20"`)
		e.waitSnap(`"Start date" = "2026-03-20"`)
	})

	t.Run("Sort", func(t *testing.T) {
		e.t = t
		snap := open("/widgets/mantine7/grid.html")
		e.clickRef(snap, "button", "Title")
		e.waitSnap(`button e`, `"Title" [sorted ascending]`)
	})
}
