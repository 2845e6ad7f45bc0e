package browser

import (
	"strings"
	"testing"
)

func TestPageMatcher(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"*/done*", "http://a.test/done?x=1", true},
		{"*/done*", "http://a.test/step1", false},
		{"*/DONE", "http://a.test/done", true},
		{"http://a.test/*/edit", "http://a.test/items/3/edit", true},
		{"http://a.test/*/edit", "http://a.test/items/3/edit/more", false},
		{"search?q=a", "http://a.test/search?q=a&page=2", true}, // ? is plain: a part
		{"Step", "step 2", true},
		{`/done\?step=2$/`, "http://a.test/done?step=2", true},
		{`/done\?step=2$/`, "http://a.test/done?step=21", false},
		{"/^step 2$/i", "Step 2", true},
		{"/^step 2$/", "Step 2", false},
		{"a.b*", "axb", false}, // . is literal in a glob
	} {
		m, err := pageMatcher(0, "url", c.pat)
		if err != nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if got := m(c.s); got != c.want {
			t.Errorf("%s on %s = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
	if _, err := pageMatcher(2, "title", "/(/"); err == nil || !strings.Contains(err.Error(), "conditions[2]") {
		t.Errorf("bad regex: %v", err)
	}
}

func TestCheckWait(t *testing.T) {
	for _, c := range []struct {
		name string
		o    WaitOptions
		say  string // "" for valid
	}{
		{"empty", WaitOptions{}, "conditions is empty"},
		{"nothing", WaitOptions{Conditions: []WaitCondition{{Tier: 2}}}, "conditions[0]: nothing to wait for"},
		{"two kinds", WaitOptions{Conditions: []WaitCondition{{URL: "x"}, {NetworkIdle: true, Download: true}}}, "conditions[1]: give one thing"},
		{"role attached", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Role: "button"}, State: StateAttached}}}, "role target"},
		{"name without role", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Name: "Save"}}}}, "conditions[0]: name goes with role"},
		{"two targets", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Text: "a", Selector: "b"}}}}, "conditions[0]: give only one"},
		{"within alone", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Within: "#x"}}}}, "conditions[0]"},
		{"state on time", WaitOptions{Conditions: []WaitCondition{{Time: 5, State: StateHidden}}}, "state goes with a target"},
		{"negative tier", WaitOptions{Conditions: []WaitCondition{{URL: "x", Tier: -1}}}, "tier"},
		{"valid", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Text: "a"}, State: StateHidden}, {URL: "*/x"}, {Download: true}}}, ""},
	} {
		conds, err := checkWait(c.o)
		switch {
		case c.say == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.say != "" && (err == nil || !strings.Contains(err.Error(), c.say)):
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.say)
		case c.say != "":
			if be, ok := AsError(err); !ok || be.Code != CodeInvalidArgument {
				t.Errorf("%s: %v is not INVALID_ARGUMENT", c.name, err)
			}
		case conds[0].State != StateHidden || !conds[0].every || conds[1].kind != "url":
			t.Errorf("%s: compiled %+v %+v", c.name, conds[0], conds[1])
		}
	}
}
