package tools_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// The exact tools of each profile and caps combination, in table order.
func TestSelect(t *testing.T) {
	all := []string{"browser_status", "browser_navigate", "browser_snapshot", "browser_find", "browser_action",
		"browser_fill_form", "browser_wait", "browser_read", "browser_collect", "browser_eval", "browser_frames", "browser_flow", "browser_tabs", "browser_screenshot", "browser_dialog", "browser_close"}
	core := []string{"browser_status", "browser_navigate", "browser_snapshot", "browser_find", "browser_action", "browser_frames", "browser_close"}
	notCore := []string{"browser_fill_form", "browser_wait", "browser_read", "browser_collect", "browser_eval", "browser_flow", "browser_tabs", "browser_screenshot", "browser_dialog"}
	without := func(names ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(n string) bool { return slices.Contains(names, n) })
	}
	// The full profile adds the groups the core one leaves out, in table
	// order: network, downloads, console, handoff (before browser_close),
	// recipes (after it).
	extra := []string{"browser_network", "browser_download", "browser_console", "browser_handoff"}
	recipeTools := []string{"recipe_list", "recipe_run", "recipe_record", "recipe_save"}
	// (and pdf, cdp after the recipes)
	fullOnly := []string{"browser_pdf", "browser_cdp", "browser_mouse", "browser_emulate", "browser_screencast", "browser_storage", "browser_route"}
	full := append(append(slices.Insert(slices.Clone(all), len(all)-1, extra...), recipeTools...), fullOnly...)
	fullWithout := func(names ...string) []string {
		return slices.DeleteFunc(slices.Clone(full), func(n string) bool { return slices.Contains(names, n) })
	}
	with := func(name string) []string { return slices.Insert(slices.Clone(all), len(all)-1, name) }
	for _, tc := range []struct {
		profile, caps string
		want          []string
		wantCaps      string
	}{
		// The core profile (the default) holds every tool built so far but
		// those of the groups left out of it (network, downloads, console,
		// handoff); full adds them.
		{"", "", all, ""},
		{"core", "", all, ""},
		{"full", "", full, ""},
		{"core", "+downloads", with("browser_download"), "+downloads"},
		{"core", "+network", with("browser_network"), "+network"},
		{"core", "+console", with("browser_console"), "+console"},
		{"core", "+handoff", with("browser_handoff"), "+handoff"},
		{"core", "+network,+downloads", fullWithout(append(append([]string{"browser_console", "browser_handoff"}, recipeTools...), fullOnly...)...), "+network,+downloads"},
		{"core", "+network,+downloads,+console,+handoff,+recipes", fullWithout(fullOnly...), "+network,+downloads,+console,+handoff,+recipes"},
		{"core", "+network,+downloads,+console,+handoff,+recipes,+pdf,+cdp,+mouse,+emulate,+screencast,+storage,+route", full, "+network,+downloads,+console,+handoff,+recipes,+pdf,+cdp,+mouse,+emulate,+screencast,+storage,+route"},
		{"core", "+recipes", append(slices.Clone(all), recipeTools...), "+recipes"},
		{"CORE", " ", all, ""},
		{"core", "-screenshot", without("browser_screenshot"), "-screenshot"},
		{"core", "-screenshot,-dialogs", without("browser_screenshot", "browser_dialog"), "-screenshot,-dialogs"},
		{"core", "-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs", core, "-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs"},
		{"core", "-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs,+tabs", without(slices.DeleteFunc(slices.Clone(notCore), func(n string) bool { return n == "browser_tabs" })...), "-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs,+tabs"},
		{"core", "-eval", without("browser_eval"), "-eval"},
		{"core", "+tabs,-tabs", without("browser_tabs"), "+tabs,-tabs"},
		{"full", "-tabs", fullWithout("browser_tabs"), "-tabs"},
		{"full", "+tabs", full, "+tabs"},
		{"full", "-network", fullWithout("browser_network"), "-network"},
		{"full", "-downloads", fullWithout("browser_download"), "-downloads"},
		{"full", "-console", fullWithout("browser_console"), "-console"},
		{"full", "-handoff", fullWithout("browser_handoff"), "-handoff"},
		{"full", "-network,-downloads,-console,-handoff,-recipes", append(slices.Clone(all), fullOnly...), "-network,-downloads,-console,-handoff,-recipes"},
		{"full", "-network,-downloads,-console,-handoff,-recipes,-pdf,-cdp,-mouse,-emulate,-screencast,-storage,-route", all, "-network,-downloads,-console,-handoff,-recipes,-pdf,-cdp,-mouse,-emulate,-screencast,-storage,-route"},
		{"full", "-cdp", fullWithout("browser_cdp"), "-cdp"},
		{"core", "+pdf", append(slices.Clone(all), "browser_pdf"), "+pdf"},
		{"core", "+cdp", append(slices.Clone(all), "browser_cdp"), "+cdp"},
		{"core", "tabs", all, "+tabs"},
		{"core", "-core", notCore, "-core"},
		{"full", "-core,-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs", append(append(slices.Clone(extra), recipeTools...), fullOnly...), "-core,-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs"},
		{"full", "-core,-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs,-network,-downloads,-console,-handoff,-recipes,-pdf,-cdp,-mouse,-emulate,-screencast,-storage,-route", nil, "-core,-forms,-wait,-read,-eval,-flow,-tabs,-screenshot,-dialogs,-network,-downloads,-console,-handoff,-recipes,-pdf,-cdp,-mouse,-emulate,-screencast,-storage,-route"},
	} {
		sel, err := tools.Select(tc.profile, tc.caps)
		if err != nil {
			t.Errorf("Select(%q, %q): %v", tc.profile, tc.caps, err)
			continue
		}
		if got := sel.Names(); !slices.Equal(got, tc.want) {
			t.Errorf("Select(%q, %q) = %v\nwant %v", tc.profile, tc.caps, got, tc.want)
		}
		if got := sel.Caps.String(); got != tc.wantCaps {
			t.Errorf("Select(%q, %q).Caps = %q, want %q", tc.profile, tc.caps, got, tc.wantCaps)
		}
		if want := strings.ToLower(strings.TrimSpace(tc.profile)); want != "" && sel.Profile != want || want == "" && sel.Profile != tools.DefaultProfile {
			t.Errorf("Select(%q, %q).Profile = %q", tc.profile, tc.caps, sel.Profile)
		}
	}
}

// An unknown profile or group is refused, naming what is valid.
func TestSelectRefuses(t *testing.T) {
	for _, tc := range []struct {
		profile, caps string
		want          []string
	}{
		{"tiny", "", []string{`"tiny"`, "core", "full"}},
		{"core", "+telepathy", []string{`"telepathy"`, "core, forms, wait, read, eval, flow, tabs, screenshot, dialogs, network"}},
		{"core", "-", []string{`""`, "core, forms"}},
		{"core", "+tabs,+bogus", []string{`"bogus"`}},
	} {
		_, err := tools.Select(tc.profile, tc.caps)
		if err == nil {
			t.Errorf("Select(%q, %q) passed", tc.profile, tc.caps)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Select(%q, %q) = %v; want it to name %s", tc.profile, tc.caps, err, w)
			}
		}
	}
}

// Every entry is complete: a name, a description, a group, a schema of type
// object with a description for every property, and bounds on integers.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range tools.Table() {
		if tool.Name == "" || tool.Description == "" || tool.Group == "" {
			t.Errorf("incomplete entry: %+v", tool)
		}
		if seen[tool.Name] {
			t.Errorf("%s listed twice", tool.Name)
		}
		seen[tool.Name] = true
		s, err := tool.InputSchema()
		if err != nil {
			t.Errorf("%s: %v", tool.Name, err)
			continue
		}
		if s.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name, s.Type)
		}
		for name, p := range s.Properties {
			// An enum's values are words enough (action: click, fill, …).
			if p.Description == "" && p.Default == nil && len(p.Enum) == 0 && !slices.Contains(tools.SharedArgs, name) {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			if p.Type == "integer" && (p.Minimum == nil || p.Maximum == nil) {
				t.Errorf("%s.%s: an integer without bounds", tool.Name, name)
			}
		}
	}
}

// Decode reads validated arguments into the input type and runs its own
// checks before anything is held.
func TestDecode(t *testing.T) {
	var nav, tabs tools.Tool
	for _, tool := range tools.Table() {
		switch tool.Name {
		case "browser_navigate":
			nav = tool
		case "browser_tabs":
			tabs = tool
		}
	}
	in, err := nav.Decode([]byte(`{"url":"https://example.com","timeout_ms":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := in.(tools.NavigateIn); !ok || got.URL != "https://example.com" || got.TimeoutMs != 5 {
		t.Errorf("decoded %#v", in)
	}
	for _, c := range []struct {
		tool tools.Tool
		args string
		want string
	}{
		{nav, `{}`, "exactly one of url or go"},
		{nav, `{"url":"x","go":"back"}`, "exactly one of url or go"},
		{tabs, `{"action":"select"}`, "select needs tab"},
		{tabs, `{"action":"list","url":"https://example.com"}`, "url goes with action new"},
	} {
		if _, err := c.tool.Decode([]byte(c.args)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.tool.Name, c.args, err, c.want)
		}
	}
}

// The opencli tools are there only when OpenCLI was found: then in every
// profile (core included) unless --caps takes them off; when it was not,
// never, and caps that ask for them say they are absent.
func TestSelectOptional(t *testing.T) {
	ocTools := []string{"opencli_adapter_list", "opencli_run", "opencli_status"}
	has := func(sel tools.Selection) int {
		n := 0
		for _, name := range ocTools {
			if slices.Contains(sel.Names(), name) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		profile, caps string
		found         bool
		want          int
		absent        bool
	}{
		{"core", "", true, 3, false},
		{"full", "", true, 3, false},
		{"core", "-opencli", true, 0, false},
		{"full", "-opencli,+opencli", true, 3, false},
		{"core", "", false, 0, false},
		{"full", "", false, 0, false},
		{"core", "+opencli", false, 0, true},
		{"full", "+opencli", false, 0, true},
	} {
		var present []tools.Group
		if tc.found {
			present = append(present, tools.GroupOpenCLI)
		}
		sel, err := tools.Select(tc.profile, tc.caps, present...)
		if err != nil {
			t.Fatal(err)
		}
		if got := has(sel); got != tc.want || (len(sel.Absent) > 0) != tc.absent {
			t.Errorf("Select(%q, %q, found %v): %d opencli tools, absent %v; want %d, %v", tc.profile, tc.caps, tc.found, got, sel.Absent, tc.want, tc.absent)
		}
		if slices.Contains(sel.Groups, tools.GroupOpenCLI) != (tc.want > 0) {
			t.Errorf("Select(%q, %q, found %v): groups %v", tc.profile, tc.caps, tc.found, sel.Groups)
		}
	}
}
