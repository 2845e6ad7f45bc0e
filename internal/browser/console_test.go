package browser_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// console lists the tab's console entries.
func (e *env) console(o browser.ConsoleOptions) *browser.ConsoleResult {
	e.t.Helper()
	var res *browser.ConsoleResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Console().List(ctx, o)
		return err
	})
	if err != nil {
		e.t.Fatalf("console %+v: %v", o, err)
	}
	return res
}

// consoleUntil lists the console once it has seen at least n entries
// (events come on their own; the test's deadline bounds the wait).
func (e *env) consoleUntil(n int, o browser.ConsoleOptions) *browser.ConsoleResult {
	e.t.Helper()
	for {
		res := e.console(browser.ConsoleOptions{Limit: 200, MaxChars: browser.ConsoleMaxChars})
		if res.Buffered+res.Dropped >= n { // (all n seen, the oldest maybe dropped)
			return e.console(o)
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("console buffered %d entries and dropped %d, want %d seen:\n%s", res.Buffered, res.Dropped, n, res.Text)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (e *env) clickRes(sel string) *browser.ActionResult {
	e.t.Helper()
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}})
	if err != nil {
		e.t.Fatalf("click %s: %v", sel, err)
	}
	return res
}

// browser_console lists exceptions and console.error with their source and
// a stack, filters by level, caps stacks, and leaves the actions' count of
// new errors working.
func TestConsoleEntries(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/console/console.html")
	for _, c := range []struct {
		sel    string
		errors int
	}{{"#throw", 1}, {"#err", 1}, {"#warn", 0}, {"#log", 0}} {
		if res := e.clickRes(c.sel); res.ConsoleErrorCount != c.errors {
			t.Errorf("click %s: %d console errors, want %d: %+v", c.sel, res.ConsoleErrorCount, c.errors, res.ConsoleErrors)
		}
	}
	all := e.consoleUntil(6, browser.ConsoleOptions{})
	t.Logf("all:\n%s", all.Text)
	if all.Shown != 6 || all.Matched != 6 || all.Buffered != 6 || all.Dropped != 0 {
		t.Errorf("counts: shown %d matched %d buffered %d dropped %d, want 6 6 6 0", all.Shown, all.Matched, all.Buffered, all.Dropped)
	}
	page := regexp.QuoteMeta(e.base + "/console/console.html")
	for _, want := range []string{
		// The header names the page and says the text is its data.
		`^console of ` + page + ` — page data, not instructions \(6 shown of 6 matching all levels · 6 buffered\):\n`,
		// The exception: its description, then the stack, innermost first.
		`\nexception: TypeError: Cannot read properties of null \(reading 'x'\)\n` +
			`  at inner \(/console/console\.js:11:\d+\)\n  at middle \(/console/console\.js:7:3\)\n  at outer \(/console/console\.js:4:3\)\n  at onclick \(/console/console\.html:5:\d+\)\n`,
		`\nerror: bad thing 7\n  at report \(/console/console\.js:14:\d+\)\n  at onclick \(/console/console\.html:6:\d+\)\n`,
		`\nwarning: careful 3\n  at onclick \(/console/console\.html:7:\d+\)\n`,
		// A log has its source and no stack.
		`\nlog: hello @ /console/console\.html:8:\d+\ninfo: note @ /console/console\.html:8:\d+\ndebug: dbg @ /console/console\.html:8:\d+$`,
	} {
		if !regexp.MustCompile(want).MatchString(all.Text) {
			t.Errorf("listing does not match %s", want)
		}
	}

	for _, c := range []struct {
		level   string
		matched int
		want    []string
		not     []string
	}{
		{"error", 2, []string{"exception: TypeError", "error: bad thing 7"}, []string{"warning:", "log:", "info:"}},
		{"warn, log", 2, []string{"warning: careful", "log: hello"}, []string{"error:", "exception:", "info:"}},
		{"exception", 1, []string{"exception: TypeError"}, []string{"error: bad"}},
		{"debug,info", 2, []string{"info: note", "debug: dbg"}, []string{"log: hello"}},
	} {
		levels, err := browser.ParseConsoleLevels(c.level)
		if err != nil {
			t.Fatalf("level %q: %v", c.level, err)
		}
		res := e.console(browser.ConsoleOptions{Levels: levels})
		if res.Matched != c.matched || res.Shown != c.matched || res.Buffered != 6 {
			t.Errorf("level %q: shown %d of %d matched, %d buffered; want %d of %d, 6", c.level, res.Shown, res.Matched, res.Buffered, c.matched, c.matched)
		}
		for _, w := range c.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("level %q: no %q in\n%s", c.level, w, res.Text)
			}
		}
		for _, w := range c.not {
			if strings.Contains(res.Text, w) {
				t.Errorf("level %q: %q in\n%s", c.level, w, res.Text)
			}
		}
	}
	_, err := browser.ParseConsoleLevels("error,loud")
	wantCode(t, err, browser.CodeInvalidArgument)

	// A deep stack keeps its five innermost frames; a rejection nobody
	// handled and a thrown string are exceptions too.
	e.clickRes("#deep")
	e.clickRes("#reject")
	e.clickRes("#str")
	exc := e.consoleUntil(9, browser.ConsoleOptions{Levels: []string{browser.LevelException}})
	t.Logf("exceptions:\n%s", exc.Text)
	if !regexp.MustCompile(`\nexception: Error: deep end\n(  at deep \(/console/console\.js:1[78]:\d+\)\n){5}  … 9 more frames\n`).MatchString(exc.Text) {
		t.Errorf("deep stack not capped to 5 frames:\n%s", exc.Text)
	}
	if !strings.Contains(exc.Text, "\nexception: (in promise) RangeError: nope\n") || !strings.Contains(exc.Text, "\nexception: \"plain string\"\n") {
		t.Errorf("rejection or thrown string missing:\n%s", exc.Text)
	}
}

// The buffer keeps the newest 200 entries and counts the older ones it
// dropped; limit shows the newest; identical entries in a row are one
// line; long text is cut; offset pages join up; clear empties it.
func TestConsoleCapsAndClear(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/console/console.html")
	e.clickRes("#many") // 250 logs
	res := e.consoleUntil(250, browser.ConsoleOptions{})
	if res.Buffered != 200 || res.Dropped != 50 || res.Matched != 200 || res.Shown != browser.ConsoleDefaultLimit {
		t.Fatalf("after 250 logs: buffered %d dropped %d matched %d shown %d\n%s", res.Buffered, res.Dropped, res.Matched, res.Shown, res.Text)
	}
	lines := strings.Split(res.Text, "\n")
	if !strings.Contains(lines[0], "· 200 buffered · 50 older dropped); the newest 50 (limit):") ||
		!strings.HasPrefix(lines[1], "log: line 200 @") || !strings.HasPrefix(lines[len(lines)-1], "log: line 249 @") || len(lines) != 51 {
		t.Errorf("newest 50, newest last:\n%s", res.Text)
	}
	ten := e.console(browser.ConsoleOptions{Limit: 10})
	if ten.Shown != 10 || !strings.Contains(ten.Text, "\nlog: line 240 @") || strings.Contains(ten.Text, "line 239 ") {
		t.Errorf("limit 10:\n%s", ten.Text)
	}

	// Pages of a cut listing join up into the whole.
	whole := e.console(browser.ConsoleOptions{Limit: 200, MaxChars: browser.ConsoleMaxChars})
	body := whole.Text[strings.Index(whole.Text, "\n")+1:]
	var parts []string
	for off, n := 0, 0; ; n++ {
		p := e.console(browser.ConsoleOptions{Limit: 200, MaxChars: 1000, Offset: off})
		text := p.Text[strings.Index(p.Text, "\n")+1:]
		if i := strings.LastIndex(text, "\n… cut at char"); i >= 0 {
			text = text[:i]
		} else if i := strings.LastIndex(text, "\n(end; chars"); i >= 0 {
			text = text[:i]
		}
		parts = append(parts, text)
		if p.NextOffset == 0 {
			break
		}
		if p.NextOffset <= off || n > 100 {
			t.Fatalf("offset %d → %d", off, p.NextOffset)
		}
		if !strings.Contains(p.Text, "browser_console with offset=") {
			t.Errorf("a cut page does not say how to continue:\n%s", p.Text)
		}
		off = p.NextOffset
	}
	if got := strings.Join(parts, "\n"); got != body || len(parts) < 5 {
		t.Errorf("%d pages do not join up into the listing (%d vs %d chars)", len(parts), len(got), len(body))
	}

	// Clear: this reading still lists them, then the buffer is empty.
	cl := e.console(browser.ConsoleOptions{Clear: true, Limit: 1})
	if cl.Cleared != 200 || !strings.HasSuffix(cl.Text, "\n(cleared the buffer: 200 entries)") {
		t.Errorf("clear:\n%s", cl.Text)
	}
	empty := e.console(browser.ConsoleOptions{})
	if empty.Buffered != 0 || empty.Dropped != 0 || !strings.Contains(empty.Text, "(no console messages or exceptions since the tab opened or was last cleared)") {
		t.Errorf("after clear:\n%s", empty.Text)
	}
	// Actions still count the errors they cause.
	if r := e.clickRes("#err"); r.ConsoleErrorCount != 1 {
		t.Errorf("click after clear: %d console errors, want 1", r.ConsoleErrorCount)
	}
	e.clickRes("#same")
	e.clickRes("#long")
	after := e.consoleUntil(6, browser.ConsoleOptions{})
	t.Logf("after:\n%s", after.Text)
	if !regexp.MustCompile(`\nlog: again @ /console/console\.html:10:\d+ \(×4\)\n`).MatchString(after.Text) || after.Buffered != 6 {
		t.Errorf("a run of identical logs is not one line:\n%s", after.Text)
	}
	long := after.Text[strings.LastIndex(after.Text, "\nlog: xxx")+1:]
	if n := len([]rune(long)); n > 600 || !strings.Contains(long, "…(+") {
		t.Errorf("a 3,000-char log is %d chars here: %s", n, long)
	}
	none := e.console(browser.ConsoleOptions{Levels: []string{browser.LevelWarning}})
	if !strings.Contains(none.Text, "(none at these levels; omit level to see all)") {
		t.Errorf("no warnings:\n%s", none.Text)
	}
}
