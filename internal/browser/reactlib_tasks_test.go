package browser_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Every widget family of the three React libraries, done the way an agent
// plans it: a compact snapshot, the ref picked by role and name from its
// text, an action, then the library's own state (window.__state) and the
// snapshot read back for the new value where a person sees it.

// libStep is one step of a widget task.
type libStep struct {
	do     string // click, fill, type, check, select or press
	target string // a regexp on the compact snapshot whose first group is the ref; "" acts on the focus
	nth    int    // which match of target (0: the first)
	role   string // instead of target: a role and name the engine locates (a virtualised list's far option)
	name   string
	value  string        // fill, type, select: the value; press: the key
	state  string        // a key (or expression) of window.__state read after the step
	want   string        // its JSON
	shows  string        // a regexp the compact snapshot comes to match
	gone   string        // a regexp the compact snapshot comes to match no more
	wait   time.Duration // the action's timeout, when not stepTimeout
}

// stepTimeout bounds each action's wait for its element, so that a
// missing or covered one fails fast; seekTimeout leaves the time to
// scroll a virtualised list for its option.
const (
	stepTimeout = 3 * time.Second
	seekTimeout = 15 * time.Second
)

// libRef is the pattern of a ref of role (a regexp: `(?:option|clickable)`)
// with the exact name.
func libRef(role, name string) string {
	if role == "cell" || role == "gridcell" {
		// (a cell with a ref in a table's row is written without its role)
		return `(?:` + role + ` )?(e\d+) "` + regexp.QuoteMeta(name) + `"`
	}
	return role + ` (e\d+) "` + regexp.QuoteMeta(name) + `"`
}

// libLine is the pattern of a line of role and exact name, its ref any,
// followed by rest (a value, states).
func libLine(role, name, rest string) string {
	return role + ` e\d+ "` + regexp.QuoteMeta(name) + `"` + rest
}

// waitLibSnap takes compact snapshots until one matches pattern at least
// nth+1 times, and gives the snapshot and the nth match's first group.
func (e *env) waitLibSnap(pattern string, nth int) (string, string) {
	e.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		snap := e.snapshot(browser.ModeCompact)
		if m := re.FindAllStringSubmatch(snap, -1); len(m) > nth {
			group := ""
			if len(m[nth]) > 1 {
				group = m[nth][1]
			}
			return snap, group
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the snapshot never showed %s (match %d):\n%s", pattern, nth+1, snap)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitLibGone takes compact snapshots until none matches pattern.
func (e *env) waitLibGone(pattern string) {
	e.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		snap := e.snapshot(browser.ModeCompact)
		if !re.MatchString(snap) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the snapshot still shows %s:\n%s", pattern, snap)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// runLibSteps does a task's steps in order.
func (e *env) runLibSteps(steps []libStep) {
	e.t.Helper()
	for i, s := range steps {
		a := browser.Action{Kind: s.do, Value: s.value, Timeout: stepTimeout}
		if s.wait != 0 {
			a.Timeout = s.wait
		}
		if s.do == "press" {
			a.Key, a.Value = s.value, ""
		}
		if s.do == "select" {
			a.Values, a.Value = []string{s.value}, ""
		}
		what := s.do + " " + s.target
		switch {
		case s.role != "":
			a.Target = browser.Locator{Role: s.role, Name: s.name, Exact: true}
			what = s.do + " " + s.role + " " + s.name
		case s.target != "":
			_, r := e.waitLibSnap(s.target, s.nth)
			a.Target = browser.Locator{Ref: r}
		}
		if s.value != "" {
			what += " " + s.value
		}
		if s.do != "" {
			e.t.Logf("step %d: %s", i+1, what)
			if _, err := e.act(a); err != nil {
				e.t.Fatalf("step %d (%s): %v\n%s", i+1, what, err, e.snapshot(browser.ModeCompact))
			}
		}
		if s.state != "" {
			e.waitEval(libState(s.state), s.want)
		}
		if s.shows != "" {
			e.waitLibSnap(s.shows, 0)
		}
		if s.gone != "" {
			e.waitLibGone(s.gone)
		}
	}
}

// Roles a library gives its picks: a real option, or an element with no
// role that takes clicks (Ant Design's dropdown items, its tree titles).
const (
	anOption   = `(?:option|clickable)`
	aPageLink  = `(?:button|link|clickable|listitem)`
	aTreeTitle = `(?:treeitem|clickable|option)`
)

// libCaret is the pattern of the first control inside the tree item of name
// (its expand caret, or its checkbox), the item collapsed or not as said.
func libCaret(name, state string) string {
	return `treeitem e\d+ "` + regexp.QuoteMeta(name) + `"` + state + `[^\n]*:\n(?:\s+clickable e\d+[^\n"]*:\n)?\s+(?:clickable|button|checkbox) (e\d+)`
}

// libBox is the pattern of the checkbox of the tree item of name.
func libBox(name string) string {
	return `treeitem e\d+ "` + regexp.QuoteMeta(name) + `"[^\n]*:\n(?:\s+clickable e\d+[^\n]*:\n)?\s+checkbox (e\d+)`
}

// libTasks are the tasks per library page (testdata/pages/widgets/LIB/
// PAGE.html; each folder's README.md says what a page holds).
var libTasks = map[string][]libStep{
	"antd5/select": {
		{do: "click", target: libRef("combobox", "Department")},
		{do: "click", target: libRef(anOption, "Marketing"), state: "department", want: `"Marketing"`, shows: libLine("combobox", "Department", ` = "Marketing"`)},
		{do: "click", target: libRef("combobox", "Office locations")},
		{do: "click", target: libRef(anOption, "Lisbon"), state: "offices", want: `["Berlin","Tokyo","Lisbon"]`},
		{do: "press", value: "Escape", shows: libLine("combobox", "Office locations", ` = "Berlin, Tokyo, Lisbon"`)},
		{do: "fill", target: libRef("combobox", "Country"), value: "Ger"},
		{do: "click", target: libRef(anOption, "Germany"), state: "country", want: `"Germany"`, shows: libLine("combobox", "Country", ` = "Germany"`)},
		{do: "type", target: libRef("combobox", "Job title"), value: "Chief Tinkerer"},
		{do: "press", value: "Enter", state: "jobTitle", want: `"Chief Tinkerer"`, shows: libLine("combobox", "Job title", ` = "Chief Tinkerer"`)},
	},
	"mui6/select": {
		{do: "click", target: libRef("combobox", "Department")},
		{do: "click", target: libRef("option", "Marketing"), state: "department", want: `"Marketing"`, shows: libLine("combobox", "Department", ` = "Marketing"`)},
		{do: "click", target: libRef("combobox", "Skills")},
		{do: "click", target: libRef("option", "Python"), state: "skills", want: `["React","Go","Python"]`},
		{do: "press", value: "Escape", shows: libLine("combobox", "Skills", ` = "React, Go, Python"`)},
		{do: "fill", target: libRef("combobox", "Country"), value: "Ger"},
		{do: "click", target: libRef("option", "Germany"), state: "country", want: `"Germany"`, shows: libLine("combobox", "Country", ` = "Germany"`)},
		{do: "type", target: libRef("combobox", "Job title"), value: "Chief Tinkerer"},
		{do: "press", value: "Enter", state: "jobTitle", want: `"Chief Tinkerer"`, shows: libLine("combobox", "Job title", ` = "Chief Tinkerer"`)},
	},
	"mantine7/select": {
		{do: "click", target: libRef(`(?:combobox|textbox)`, "Department")},
		{do: "click", target: libRef("option", "Marketing"), state: "department", want: `"Marketing"`, shows: libLine(`(?:combobox|textbox)`, "Department", ` = "Marketing"`)},
		{do: "click", target: libRef(`(?:combobox|textbox)`, "Team members")},
		{do: "click", target: libRef("option", "Grace Lee"), state: "teamMembers", want: `["Alice Johnson","David Chen","Grace Lee"]`},
		{do: "press", value: "Escape", shows: libLine(`(?:combobox|textbox)`, "Team members", ` = "Alice Johnson, David Chen, Grace Lee"`)},
		{do: "fill", target: libRef(`(?:combobox|textbox)`, "Country"), value: "Nor"},
		{do: "click", target: libRef("option", "Norway"), state: "country", want: `"Norway"`, shows: libLine(`(?:combobox|textbox)`, "Country", ` = "Norway"`)},
		{do: "type", target: libRef(`(?:combobox|textbox)`, "Project"), value: "Zephyr"},
		{do: "click", target: libRef("option", "+ Create Zephyr"), state: "project", want: `"Zephyr"`, shows: libLine(`(?:combobox|textbox)`, "Project", ` = "Zephyr"`)},
	},

	"antd5/tree": {
		// the cascader, one column after another
		{do: "click", target: libRef("combobox", "Shipping region")},
		{do: "click", target: libRef("menuitemcheckbox", "Germany")},
		{do: "click", target: libRef("menuitemcheckbox", "Bavaria")},
		{do: "click", target: libRef("menuitemcheckbox", "Munich"), state: "region", want: `["Germany","Bavaria","Munich"]`,
			shows: libLine("combobox", "Shipping region", ` = "Germany / Bavaria / Munich"`)},
		// the tree select: Company and Engineering opened by their carets
		{do: "click", target: libRef("combobox", "Team")},
		{do: "click", target: libCaret("Company", ` \[collapsed\]`)},
		{do: "click", target: libCaret("Engineering", ` \[collapsed\]`)},
		{do: "click", target: libRef(`(?:clickable|option)`, "Frontend"), state: "team", want: `"frontend"`, shows: libLine("combobox", "Team", ` = "Frontend"`)},
		// the checkable tree: Contracts opened, 2026 checked, Photos selected
		{do: "click", target: libCaret("Contracts", ` \[collapsed\]`), state: "expandedFolders", want: `["docs","docs/contracts"]`,
			shows: `treeitem e\d+ "Contracts" \[expanded\]`},
		{do: "check", target: libRef("checkbox", "Select 2026"), state: "checkedFolders", want: `["docs/contracts/2026"]`,
			shows: `checkbox e\d+ "Select 2026" \[checked\]`},
		{shows: `checkbox e\d+ "Select Contracts" \[mixed\]`},
		{do: "click", target: libRef(`clickable`, "Photos"), state: "folder", want: `"photos"`, shows: `treeitem e\d+ "Photos"[^\n]*\[selected\]`},
	},
	"mui6/tree": {
		// the grouped autocomplete: country, then city
		{do: "click", target: libRef("combobox", "Office location")},
		{do: "click", target: libRef("option", "Germany / Munich"), state: "office", want: `"Germany / Munich"`, shows: libLine("combobox", "Office location", ` = "Germany / Munich"`)},
		// the rich tree: Platform's checkbox, then Sales opened by its row and EMEA checked
		{do: "check", target: libBox("Platform"), state: "teams.slice().sort()", want: `["backend","platform"]`, shows: `treeitem e\d+ "Platform" \[selected\]`},
		{do: "click", target: libRef("treeitem", "Sales"), state: `teamsExpanded.includes("sales")`, want: `true`, shows: `treeitem e\d+ "Sales" \[expanded\]`},
		{do: "check", target: libBox("EMEA"), state: "teams.slice().sort()", want: `["backend","emea","platform"]`, shows: `treeitem e\d+ "EMEA" \[selected\]`},
		// the file tree: src, components, then Menu.jsx
		{do: "click", target: libRef("treeitem", "src"), state: "filesExpanded", want: `["src"]`, shows: `treeitem e\d+ "src" \[expanded\]`},
		{do: "click", target: libRef("treeitem", "components"), state: "filesExpanded.slice().sort()", want: `["components","src"]`, shows: `treeitem e\d+ "components" \[expanded\]`},
		{do: "click", target: libRef("treeitem", "Menu.jsx"), state: "file", want: `"menu-jsx"`, shows: `treeitem e\d+ "Menu.jsx" \[selected\]`},
	},
	"mantine7/tree": {
		// the file tree: a folder's row opens it, a file's row selects it
		{do: "click", target: libRef("treeitem", "components"), state: "filesExpanded", want: `["src","src/components"]`},
		{do: "click", target: libRef(aTreeTitle, "Header.tsx"), state: "fileSelected", want: `["src/components/Header.tsx"]`,
			shows: `treeitem e\d+ "Header.tsx" \[selected\]`},
		// the permissions tree: Backend's checkbox, Sales opened by its name, Europe's checkbox
		{do: "click", target: libCaret("Backend", ""), state: `permissions.includes("backend")`, want: `true`},
		{do: "click", target: libRef("clickable", "Sales"), state: `permissionsExpanded.includes("sales")`, want: `true`, shows: libLine("treeitem", "Europe", "")},
		{do: "click", target: libCaret("Europe", ""), state: `permissions.includes("sales-europe")`, want: `true`},
	},

	"antd5/dates": {
		{do: "click", target: libRef("textbox", "Start date")},
		{do: "click", target: libRef("cell", "2026-03-20"), state: "startDate", want: `"2026-03-20"`, shows: libLine("textbox", "Start date", ` = "2026-03-20"`)},
		{do: "fill", target: libRef("textbox", "Invoice date"), value: "2026-04-02"},
		{do: "press", value: "Enter", state: "invoiceDate", want: `"2026-04-02"`, shows: libLine("textbox", "Invoice date", ` = "2026-04-02"`)},
		{do: "fill", target: libRef("textbox", "Meeting time"), value: "14:30"},
		{do: "press", value: "Enter", state: "meetingTime", want: `"14:30"`, shows: libLine("textbox", "Meeting time", ` = "14:30"`)},
		{do: "click", target: libRef("textbox", "Vacation")},
		{do: "click", target: libRef("cell", "2026-03-27")},
		{do: "click", target: libRef("cell", "2026-04-03"), state: "vacation", want: `["2026-03-27","2026-04-03"]`, shows: libLine("textbox", "To", ` = "2026-04-03"`)},
		{shows: libLine("textbox", "Vacation", ` = "2026-03-27"`)},
	},
	"mui6/dates": {
		{do: "click", target: `button (e\d+) "Choose date, selected date is Mar 15, 2026"`},
		{do: "click", target: `(?:(?:gridcell|button|cell) )?(e\d+) "(?:20|2026-03-20|20 March 2026|Mar 20, 2026)"`, state: "deliveryDate", want: `"2026-03-20"`,
			shows: libLine("textbox", "Delivery date", ` = "03/20/2026"`)},
		{do: "fill", target: libRef("textbox", "From"), value: "04/09/2026", state: "fromDate", want: `"2026-04-09"`, shows: libLine("textbox", "From", ` = "04/09/2026"`)},
		{do: "fill", target: libRef("textbox", "Meeting time"), value: "02:30 PM", state: "meetingTime", want: `"14:30"`, shows: libLine("textbox", "Meeting time", ` = "02:30 PM"`)},
	},
	"mantine7/dates": {
		{do: "click", target: libRef("button", "Start date")},
		{do: "click", target: libRef("button", "20 March 2026"), state: "startDate", want: `"2026-03-20"`, shows: libLine("button", "Start date", ` = "2026-03-20"`)},
		{do: "fill", target: libRef("textbox", "Invoice date"), value: "2026-04-02", state: "invoiceDate", want: `"2026-04-02"`, shows: libLine("textbox", "Invoice date", ` = "2026-04-02"`)},
		{do: "press", value: "Tab", gone: `"1 April 2026"`}, // the field's calendar closes as it loses the focus
		{do: "fill", target: libRef("time", "Meeting time"), value: "14:30", state: "meetingTime", want: `"14:30"`, shows: libLine("time", "Meeting time", ` = "14:30"`)},
		{do: "click", target: libRef("button", "Trip dates")},
		{do: "click", target: libRef("button", "14 March 2026"), state: "tripDates", want: `["2026-03-14",null]`},
		{do: "click", target: libRef("button", "18 March 2026"), state: "tripDates", want: `["2026-03-14","2026-03-18"]`,
			shows: libLine("button", "Trip dates", ` = "2026-03-14 – 2026-03-18"`)},
	},

	"antd5/inputs": {
		{do: "fill", target: libRef("slider", "Volume"), value: "70", state: "volume", want: `70`, shows: libLine("slider", "Volume", ` = "70"`)},
		{do: "fill", target: libRef("spinbutton", "Quantity"), value: "4", state: "quantity", want: `4`, shows: libLine("spinbutton", "Quantity", ` = "4"`)},
		// the fourth of the five stars
		{do: "click", target: `radio (e\d+)`, nth: 3, state: "rating", want: `4`},
		{do: "click", target: libRef("radio", "Monthly"), state: "view", want: `"Monthly"`, shows: libLine("radio", "Monthly", ` \[checked\]`)},
		{do: "click", target: libRef("radio", "Center"), state: "alignment", want: `"center"`, shows: libLine("radio", "Center", ` \[checked\]`)},
		{do: "type", target: libRef("combobox", "Labels"), value: "urgent"},
		{do: "press", value: "Enter", state: "labels", want: `["bug","urgent"]`, shows: libLine("combobox", "Labels", ` = "bug, urgent"`)},
	},
	"mui6/inputs": {
		{do: "fill", target: libRef("slider", "Volume"), value: "70", state: "volume", want: `70`, shows: libLine("slider", "Volume", ` = "70"`)},
		{do: "fill", target: libRef("slider", "Maximum price"), value: "600", state: "priceRange", want: `[200,600]`, shows: `\$200 – \$600`},
		{do: "fill", target: libRef("spinbutton", "Quantity"), value: "5", state: "quantity", want: `5`, shows: libLine("spinbutton", "Quantity", ` = "5"`)},
		{do: "click", target: libRef("radio", "4 Stars"), state: "rating", want: `4`, shows: libLine("radio", "4 Stars", ` \[checked\]`)},
		{do: "click", target: libRef("button", "Board"), state: "view", want: `"board"`, shows: libLine("button", "Board", ` \[pressed\]`)},
		{do: "click", target: libRef("button", "Italic"), state: "formats", want: `["bold","italic"]`, shows: libLine("button", "Italic", ` \[pressed\]`)},
		{do: "type", target: libRef("combobox", "Tags"), value: "frontend"},
		{do: "press", value: "Enter", state: "tags", want: `["urgent","backend","frontend"]`, shows: libLine("button", "frontend", "")},
	},
	"mantine7/inputs": {
		{do: "fill", target: libRef("slider", "Volume"), value: "65", state: "volume", want: `65`, shows: libLine("slider", "Volume", ` = "65"`)},
		{do: "fill", target: libRef("slider", "Minimum price"), value: "30", state: "priceRange", want: `[30,80]`, shows: libLine("slider", "Minimum price", ` = "30"`)},
		{do: "fill", target: libRef(`(?:spinbutton|textbox)`, "Quantity"), value: "7", state: "quantity", want: `7`, shows: libLine(`(?:spinbutton|textbox)`, "Quantity", ` = "7"`)},
		{do: "click", target: libRef("radio", "4"), state: "rating", want: `4`, shows: libLine("radio", "4", ` \[checked\]`)},
		{do: "click", target: libRef("radio", "Board"), state: "view", want: `"board"`, shows: libLine("radio", "Board", ` \[checked\]`)},
		{do: "click", target: libRef("checkbox", "SMS"), state: "notifyBy", want: `["email","sms"]`, shows: libLine("checkbox", "SMS", ` \[checked\]`)},
		{do: "type", target: libRef(`(?:combobox|textbox)`, "Labels"), value: "urgent"},
		{do: "press", value: "Enter", state: "labels", want: `["bug","frontend","urgent"]`, shows: libLine(`(?:combobox|textbox)`, "Labels", ` = "bug, frontend, urgent"`)},
	},

	"antd5/nav": {
		{do: "click", target: libRef("tab", "Activity"), state: "tab", want: `"activity"`, shows: libLine("tab", "Activity", ` \[selected\]`)},
		{do: "click", target: libRef("button", "Actions")},
		{do: "click", target: libRef("menuitem", "Archive"), state: "menu", want: `"archive"`},
		{do: "click", target: libRef("button", "Next"), state: "step", want: `1`, shows: `(?m)button e\d+ "Back"$`},
		{do: "click", target: libRef("tab", "Returns"), state: "accordion", want: `["returns"]`, shows: libLine("tab", "Returns", ` \[expanded\]`)},
		{do: "click", target: libRef(aPageLink, "3"), state: "page", want: `3`},
		{do: "click", target: libRef("button", "Settings"), state: "iconButton", want: `"Settings"`},
	},
	"mui6/nav": {
		{do: "click", target: libRef("tab", "Security"), state: "tab", want: `"security"`, shows: libLine("tab", "Security", ` \[selected\]`)},
		{do: "click", target: libRef("button", "Actions")},
		{do: "click", target: libRef("menuitem", "Duplicate"), state: "menuAction", want: `"duplicate"`},
		{do: "click", target: libRef("button", "Next"), state: "step", want: `1`, shows: `How would you like to pay\?`},
		{do: "click", target: libRef("button", "Can I return an item?"), state: "accordion", want: `"returns"`, shows: libLine("button", "Can I return an item?", ` \[expanded\]`)},
		{do: "click", target: libRef("button", "Go to page 3"), state: "page", want: `3`, shows: libLine("button", "page 3", ` \[current\]`)},
		{shows: `Showing results page 3 of 10`},
		{do: "click", target: libRef("button", "Settings"), state: "iconButton", want: `"settings"`},
		{do: "click", target: libRef("button", "Favourite"), state: "favourite", want: `true`, shows: libLine("button", "Favourite", ` \[pressed\]`)},
	},
	"mantine7/nav": {
		{do: "click", target: libRef("tab", "Settings"), state: "tab", want: `"settings"`, shows: libLine("tab", "Settings", ` \[selected\]`)},
		{do: "click", target: libRef("button", "Actions")},
		{do: "click", target: libRef("menuitem", "Duplicate"), state: "menu", want: `"Duplicate"`},
		{do: "click", target: libRef("button", "Next"), state: "step", want: `1`, shows: `Step 2: enter the shipping address\.`},
		{do: "click", target: libRef("button", "Is there a warranty?"), state: "accordion", want: `"warranty"`, shows: libLine("button", "Is there a warranty?", ` \[expanded\]`)},
		{do: "click", target: libRef("button", "3"), state: "page", want: `3`, shows: libLine("button", "3", ` \[current\]`)},
		{shows: `Showing results page 3 of 10`},
		{do: "click", target: libRef("button", "Refresh"), state: "iconButton", want: `"Refresh"`, shows: `Last toolbar action: Refresh`},
	},

	"antd5/overlays": {
		{do: "click", target: libRef("button", "Delete project"), state: "modal", want: `"opened"`},
		{do: "click", target: `dialog[^\n]*"Delete project\?"(?:.*\n)*?.*` + libRef("button", "Delete"), state: "modal", want: `"confirmed"`, gone: `dialog`},
		{do: "click", target: libRef("button", "Edit profile"), state: "drawer", want: `"opened"`},
		{do: "fill", target: libRef("textbox", "Display name"), value: "Grace Hopper"},
		{do: "click", target: libRef("button", "Save"), state: "drawer", want: `"saved"`, shows: `Display name: Grace Hopper`, gone: `dialog`},
		{do: "click", target: libRef("button", "Export tickets"), state: "notification", want: `"shown"`, shows: `Export finished`},
		{do: "click", target: libRef(`(?:button|clickable)`, "Close"), state: "notification", want: `"closed"`, gone: `Export finished`},
	},
	"mui6/overlays": {
		{do: "click", target: libRef("button", "Delete project"), state: "modal", want: `"opened"`},
		{do: "click", target: `dialog[^\n]*(?:.*\n)*?.*` + libRef("button", "OK"), state: "modal", want: `"confirmed"`, gone: `dialog`},
		{do: "click", target: libRef("button", "Edit profile"), state: "drawer", want: `"opened"`},
		{do: "fill", target: libRef("textbox", "Display name"), value: "Grace Hopper"},
		{do: "click", target: libRef("button", "Save"), state: "drawer", want: `"saved"`, shows: `Display name: Grace Hopper`},
		{do: "click", target: libRef("button", "Save changes"), state: "toast", want: `"shown"`, shows: `alert(?:[^\n]*\n\s+)?[^\n]*Your changes were saved\.`},
		{do: "click", target: libRef("button", "Close"), state: "toast", want: `"closed"`, gone: `Your changes were saved\.`},
	},
	"mantine7/overlays": {
		{do: "click", target: libRef("button", "Delete project"), state: "modal", want: `"open"`},
		{do: "click", target: `dialog[^\n]*"Delete project\?"(?:.*\n)*?.*` + libRef("button", "OK"), state: "modal", want: `"confirmed"`, gone: `dialog`},
		{do: "click", target: libRef("button", "Edit profile"), state: "drawer", want: `"open"`},
		{do: "fill", target: libRef("textbox", "Display name"), value: "Grace Hopper"},
		{do: "click", target: libRef("button", "Save"), state: "drawer", want: `"saved"`, gone: `dialog`},
		{do: "click", target: libRef("button", "Export report"), state: "notification", want: `"shown"`, shows: `alert(?:[^\n]*\n\s+)?[^\n]*Export finished`},
		{do: "click", target: libRef("button", "Close notification"), state: "notification", want: `"closed"`, gone: `Export finished`},
	},

	"antd5/grid": {
		{do: "check", target: `checkbox (e\d+)[^|\n]*\|TCK-1003\|`, state: "selected", want: `["TCK-1003"]`, shows: `checkbox e\d+ \[checked\]\|TCK-1003\|`},
		{do: "click", target: libRef("columnheader", "Priority"), state: "sort", want: `{"field":"priority","dir":"asc","order":"ascend"}`,
			shows: libLine("columnheader", "Priority", ` \[sorted ascending\]`)},
		{do: "click", target: libRef(aPageLink, "2"), state: "page", want: `2`},
	},
	"mui6/grid": {
		{do: "check", target: `checkbox (e\d+) "Select row"\|e\d+ "1,001"`, state: "selected", want: `[1001]`,
			shows: `checkbox e\d+ "[^"]*" \[checked\]\|e\d+ "1,001"`},
		{shows: `1 row selected`},
		{do: "click", target: libRef("columnheader", "Priority"), state: "sort", want: `{"field":"priority","dir":"asc"}`,
			shows: libLine("columnheader", "Priority", ` \[sorted ascending\]`)},
		{do: "click", target: libRef("button", "Go to next page"), state: "page", want: `1`, shows: `11–20 of 60`},
	},
	"mantine7/grid": {
		{do: "check", target: libRef("checkbox", "Select TCK-103"), state: "selected", want: `["TCK-103"]`, shows: libLine("checkbox", "Select TCK-103", ` \[checked\]`)},
		{shows: `1 selected · page 1 of 6`},
		{do: "click", target: libRef("button", "Priority"), state: "sort", want: `{"field":"priority","dir":"asc"}`, shows: `"Priority" \[sorted ascending\]`},
		{do: "click", target: libRef("button", "2"), state: "page", want: `2`, shows: libLine("button", "2", ` \[current\]`)},
		{shows: `1 selected · page 2 of 6`},
	},

	"antd5/lists": {
		{do: "click", target: libRef(`(?:clickable|listitem|option|checkbox)`, "Alice Johnson")},
		{do: "click", target: libRef("button", "right"), state: `members.includes("p1")`, want: `true`, shows: `(?s)Members.*"Alice Johnson"`},
		{do: "click", target: libRef("combobox", "Product")},
		{do: "click", role: "option", name: "SKU-0750 Travel Monitor Arm Orange", wait: seekTimeout, state: "product", want: `"SKU-0750"`,
			shows: libLine("combobox", "Product", ` = "SKU-0750 Travel Monitor Arm Orange"`)},
		{do: "click", role: "button", name: "Omar Novak", wait: seekTimeout, state: "contact", want: `"Omar Novak"`},
	},
	"mui6/lists": {
		{do: "check", target: libRef("checkbox", "Ben Fischer")},
		{do: "click", target: libRef("button", "move selected right"), state: "transferLeft", want: `["Ada Costa","Chen Ito","Dana Weber"]`,
			shows: `(?s)Assigned reviewers.*"Ben Fischer"`},
		{do: "click", target: libRef("combobox", "Customer")},
		{do: "click", role: "option", name: "Yusuf Young", wait: seekTimeout, state: "customer", want: `"Yusuf Young"`, shows: libLine("combobox", "Customer", ` = "Yusuf Young"`)},
	},
	"mantine7/lists": {
		{do: "click", target: libRef("option", "Bob Martin")},
		{do: "click", target: libRef("button", "Move selected to Assigned"), state: "assigned", want: `["Hiro Tanaka","Ines Moreau","Jonas Berg","Bob Martin"]`,
			shows: `(?s)"Assigned":.*option e\d+ "Bob Martin"`},
		{do: "type", target: libRef(`(?:combobox|textbox)`, "Employee"), value: "Hiro Ward"},
		{do: "click", target: libRef("option", "Hiro Ward (E0958)"), state: "employee", want: `"E0958"`, shows: libLine(`(?:combobox|textbox)`, "Employee", ` = "Hiro Ward \(E0958\)"`)},
		{do: "click", target: libRef(`(?:combobox|textbox)`, "Warehouse bin")},
		{do: "click", role: "option", name: "Bin J-100", wait: seekTimeout, state: "bin", want: `"Bin J-100"`, shows: libLine(`(?:combobox|textbox)`, "Warehouse bin", ` = "Bin J-100"`)},
	},
}

// libPages are the library pages, in the order the tests go through them.
func libPages() []string {
	var out []string
	for _, lib := range []string{"antd5", "mui6", "mantine7"} {
		for _, fam := range []string{"select", "tree", "dates", "inputs", "nav", "overlays", "grid", "lists"} {
			out = append(out, lib+"/"+fam)
		}
	}
	return out
}

// Each family's main tasks on each library, through refs alone, checked
// against the library's own state and against what the snapshot shows.
func TestReactLibraryTasks(t *testing.T) {
	for _, page := range libPages() {
		steps := libTasks[page]
		if len(steps) == 0 {
			t.Fatalf("no task for %s", page)
		}
		t.Run(page, func(t *testing.T) {
			e := newEnv(t, browser.Options{})
			openLib(e, page)
			e.snapshot(browser.ModeCompact)
			e.runLibSteps(steps)
		})
	}
}

// libPopups opens, per page, its main popup for a second look against
// Chrome: a trigger, and what shows the popup is open. A trigger's name is
// checked by the task test, so that this one looks at the popup whatever
// the trigger is called.
var libPopups = map[string]struct{ trigger, open string }{
	"antd5/select":      {libRef("combobox", "Department"), `"Marketing"`},
	"antd5/tree":        {libRef("combobox", "Team"), `"Company"`},
	"antd5/dates":       {libRef("textbox", "Start date"), `"2026-03-20"|"20"`},
	"antd5/nav":         {`button (e\d+) "Actions(?: down)?"`, `menuitem e\d+`}, // (its name is the task test's)
	"antd5/overlays":    {libRef("button", "Delete project"), `dialog`},
	"mui6/select":       {libRef("combobox", "Department"), `option e\d+`},
	"mui6/dates":        {`button (e\d+) "Choose date, selected date is Mar 15, 2026"`, `dialog`},
	"mui6/nav":          {libRef("button", "Actions"), `menuitem e\d+`},
	"mui6/overlays":     {libRef("button", "Delete project"), `dialog`},
	"mantine7/select":   {libRef(`(?:combobox|textbox)`, "Department"), `option e\d+`},
	"mantine7/dates":    {`button (e\d+) "(?:Start date|Pick a date)"`, `dialog`},
	"mantine7/nav":      {libRef("button", "Actions"), `menuitem e\d+`},
	"mantine7/overlays": {libRef("button", "Delete project"), `dialog`},
}

// Every library page's refs have Chrome's roles, names and states, as
// loaded and with its main popup open; every element a person can click
// has a ref.
func TestReactLibraryPagesMatchChrome(t *testing.T) {
	for _, page := range libPages() {
		t.Run(page, func(t *testing.T) {
			e := newEnv(t, browser.Options{})
			openLib(e, page)
			e.snapshot(browser.ModeCompact)
			checkRolesAgainstChrome(t, e, page)
			p, ok := libPopups[page]
			if !ok {
				return
			}
			_, r := e.waitLibSnap(p.trigger, 0)
			if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: r}, Timeout: stepTimeout}); err != nil {
				t.Fatalf("open the popup: %v", err)
			}
			e.waitLibSnap(p.open, 0)
			checkRolesAgainstChrome(t, e, page+" (popup open)")
		})
	}
}
