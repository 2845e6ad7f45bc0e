package browser_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// The widgets of the big React libraries (Ant Design 5, MUI 6 with MUI X,
// Mantine 7: testdata/pages/widgets), each driven the way an agent does:
// snapshot, refs by role and name, act, read the value back; what the
// agent sees and what the library's own state says are both checked
// (window.__state, set from the widgets' own callbacks).

// openLib navigates to a library page and waits for its first render.
func openLib(e *env, page string) {
	e.t.Helper()
	e.navigate("/widgets/" + page + ".html")
	e.waitEval(`String(window.__ready === true)`, "true")
}

// libState is the JSON of the page's state key.
func libState(key string) string { return `JSON.stringify(window.__state.` + key + `)` }

// refLike finds the ref of the line matching pattern (a regexp whose first
// group is the ref) in snap.
func refLike(t *testing.T, snap, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no line like %s in the snapshot:\n%s", pattern, snap)
	}
	return m[1]
}

// A field's shown choice is its value, on all three libraries; a select is
// opened by a click on its combobox (which its own shown choice covers) and
// a pick is read back from the field and from the library.
func TestReactLibrarySelects(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, c := range []struct {
		page  string
		lines []string
	}{
		{"antd5/select", []string{`combobox e\d+ "Department" = "Engineering"`, `combobox e\d+ "Office locations" = "Berlin, Tokyo"`}},
		{"mui6/select", []string{`combobox e\d+ "Department" = "Engineering"`, `combobox e\d+ "Skills" = "React, Go"`}},
		{"mantine7/select", []string{`textbox e\d+ "Department" = "Engineering"`, `textbox e\d+ "Team members" = "Alice Johnson, David Chen"`}},
	} {
		t.Run(c.page, func(t *testing.T) {
			e.t = t
			openLib(e, c.page)
			snap := e.snapshot(browser.ModeCompact)
			for _, l := range c.lines {
				if !regexp.MustCompile(l).MatchString(snap) {
					t.Errorf("no line like %s:\n%s", l, snap)
				}
			}
			if strings.Contains(snap, "\nEngineering") || strings.Contains(snap, " Engineering\n") {
				t.Errorf("the shown choice is repeated as text:\n%s", snap)
			}
		})
	}
	// Text beside a search field that is no choice stays the page's text,
	// and the field stays empty.
	t.Run("not choices", func(t *testing.T) {
		e.t = t
		e.navigate("/notchoices")
		snap := e.snapshot(browser.ModeCompact)
		for _, l := range []string{`combobox e\d+ "Search products" = ""`, `combobox e\d+ "Assignee" = ""`, `combobox e\d+ "Reviewer" = ""`,
			`Free shipping over \$50`, `This field is required`, `Reviewers get an email.`} {
			if !regexp.MustCompile(l).MatchString(snap) {
				t.Errorf("no line like %s:\n%s", l, snap)
			}
		}
	})
	t.Run("pick", func(t *testing.T) {
		for _, c := range []struct{ page, field string }{
			{"antd5/select", `combobox (e\d+) "Department"`},
			{"mui6/select", `combobox (e\d+) "Department"`},
			{"mantine7/select", `textbox (e\d+) "Department"`},
		} {
			e.t = t
			openLib(e, c.page)
			field := refLike(t, e.snapshot(browser.ModeCompact), c.field)
			if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: field}, Timeout: 3 * time.Second}); err != nil {
				t.Fatalf("%s: open the select: %v", c.page, err)
			}
			snap := e.waitSnap(`"Marketing"`)
			opt := refLike(t, snap, `(?:option|clickable) (e\d+) "Marketing"`)
			if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: opt}}); err != nil {
				t.Fatalf("%s: pick Marketing: %v", c.page, err)
			}
			e.waitEval(libState("department"), `"Marketing"`)
			e.waitSnap(`"Department" = "Marketing"`)
		}
	})
}

// A click on an Ant Design button sets off its wave (an empty element
// that takes no pointer input, fading out for about a second): the action
// does not wait for it, and says nothing of it.
func TestAntdWaveIsNoWait(t *testing.T) {
	e := newEnv(t, browser.Options{})
	openLib(e, "antd5/nav")
	snap := e.snapshot(browser.ModeCompact)
	next := refLike(t, snap, `button (e\d+) "Next"`)
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: next}, SnapshotNext: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != "" || strings.Contains(res.Note, "ant-wave") {
		t.Errorf("the click waited on the wave: busy %q, note %q", res.Busy, res.Note)
	}
	e.waitEval(libState("step"), "1")
}

// A date field kept in parts (MUI X's) takes a whole date by fill; keys
// that change nothing there are said to have changed nothing.
func TestMUIDateField(t *testing.T) {
	e := newEnv(t, browser.Options{})
	openLib(e, "mui6/dates")
	snap := e.snapshot(browser.ModeCompact)
	to := refLike(t, snap, `textbox (e\d+) "To"`)
	res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Ref: to}, Value: "04/09/2026"})
	if err != nil || res.Outcome != "verified" {
		t.Fatalf("fill the To date: %+v %v", res, err)
	}
	e.waitEval(libState("toDate"), `"2026-04-09"`)
	res, err = e.act(browser.Action{Kind: "type", Target: browser.Locator{Ref: to}, Value: "zz"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome == "verified" || !strings.Contains(res.Note, "value did not change") {
		t.Errorf("keys that changed nothing: %+v", res)
	}
}

// Picking from a virtualised list (MUI's Autocomplete over 1,000
// customers, rendered with react-window: only the rows in view exist)
// scrolls the list to the option, as a person does.
func TestPickFromVirtualisedList(t *testing.T) {
	e := newEnv(t, browser.Options{})
	openLib(e, "mui6/lists")
	snap := e.snapshot(browser.ModeCompact)
	field := refLike(t, snap, `combobox (e\d+) "Customer`)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: field}}); err != nil {
		t.Fatal(err)
	}
	e.waitSnap(`option e`)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "option", Name: "Marco Xu"}}); err != nil {
		t.Fatalf("pick an option far down the list: %v", err)
	}
	e.waitEval(libState("customer"), `"Marco Xu"`)
	// Ant Design's List on rc-virtual-list: a contact far down, by its text.
	openLib(e, "antd5/lists")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Omar Novak", Exact: true}}); err != nil {
		t.Fatalf("click a contact far down the virtual list: %v", err)
	}
	e.waitEval(libState("contact"), `"Omar Novak"`)
}

// The diff after an action in a data grid says every change: the row's
// checkbox, and the footer's count.
func TestDataGridDiffs(t *testing.T) {
	e := newEnv(t, browser.Options{})
	openLib(e, "mui6/grid")
	snap := e.snapshot(browser.ModeCompact)
	boxes := regexp.MustCompile(`checkbox (e\d+) "Select row"`).FindAllStringSubmatch(snap, -1)
	if len(boxes) < 2 {
		t.Fatalf("no row checkboxes:\n%s", snap)
	}
	for i, want := range []string{"1 row selected", "2 rows selected"} {
		if _, err := e.act(browser.Action{Kind: "check", Target: browser.Locator{Ref: boxes[i][1]}, SnapshotNext: true}); err != nil {
			t.Fatal(err)
		}
		diff := e.snapshot(browser.ModeDiff)
		if !strings.Contains(diff, want) || !strings.Contains(diff, boxes[i][1]) {
			t.Errorf("check row %d: the diff misses %q or the checkbox:\n%s", i+1, want, diff)
		}
	}
}

// Checking a row of Ant Design's table tells the row as changed in place
// (checked), beside the header's select-all that turned mixed.
func TestTableRowCheckDiff(t *testing.T) {
	e := newEnv(t, browser.Options{})
	openLib(e, "antd5/grid")
	e.snapshot(browser.ModeCompact)
	if _, err := e.act(browser.Action{Kind: "check", Target: browser.Locator{Role: "checkbox", Within: `row "TCK-1003"`}, SnapshotNext: true}); err != nil {
		t.Fatal(err)
	}
	diff := e.snapshot(browser.ModeDiff)
	if !regexp.MustCompile(`(?m)^~ checkbox e\d+ \[checked\]\|TCK-1003\|`).MatchString(diff) || regexp.MustCompile(`(?m)^[-+] checkbox e\d+.*TCK-1003`).MatchString(diff) {
		t.Errorf("the checked row is not one changed line:\n%s", diff)
	}
	e.waitEval(libState("selected"), `["TCK-1003"]`)
}
