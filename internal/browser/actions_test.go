package browser_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// log reads the fixture page's event log.
func (e *env) log() string {
	e.t.Helper()
	return e.eval(`window.__log.join("|")`)
}

func sel(s string) browser.Locator { return browser.Locator{Selector: s} }

// TestActionKinds runs every action kind on the element kind it is for and
// checks, in the page, that it happened.
func TestActionKinds(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	cases := []struct {
		name    string
		a       browser.Action
		wantLog string // a log entry the action must add
		outcome string
		value   string // ActionResult.Value
	}{
		{"dblclick", browser.Action{Kind: "dblclick", Target: sel("#dbl")}, "dblclick", "dispatched", ""},
		{"right_click", browser.Action{Kind: "right_click", Target: browser.Locator{Text: "Right-click me"}}, "contextmenu", "dispatched", ""},
		{"hover", browser.Action{Kind: "hover", Target: sel("#menu")}, "mouseenter", "dispatched", ""},
		{"focus", browser.Action{Kind: "focus", Target: sel("#focusme")}, "focus", "verified", ""},
		{"check", browser.Action{Kind: "check", Target: browser.Locator{Role: "checkbox", Name: "I agree"}}, "agree:true", "verified", ""},
		{"uncheck", browser.Action{Kind: "uncheck", Target: sel("#agree")}, "agree:false", "verified", ""},
		{"check aria", browser.Action{Kind: "check", Target: browser.Locator{Role: "checkbox", Name: "Custom option"}}, "custom:true", "verified", ""},
		{"check radio", browser.Action{Kind: "check", Target: browser.Locator{Role: "radio", Name: "Medium", Exact: true}}, "size:medium", "verified", ""},
		{"select by label", browser.Action{Kind: "select", Target: browser.Locator{Role: "combobox", Name: "City"}, Values: []string{"Berlin"}}, "city:ber", "verified", "Berlin"},
		{"select multiple", browser.Action{Kind: "select", Target: sel("#langs"), Values: []string{"Go", "py"}}, "langs:go,py", "verified", "Go, Python"},
		{"type contenteditable", browser.Action{Kind: "type", Target: sel("#editor"), Value: "hello"}, "input", "verified", "hello"},
		{"clear", browser.Action{Kind: "clear", Target: browser.Locator{Role: "textbox", Name: "Name", Exact: true}}, "", "verified", ""},
		{"click by text", browser.Action{Kind: "click", Target: browser.Locator{Text: "Save changes"}}, "save", "dispatched", ""},
		{"click within", browser.Action{Kind: "click", Target: browser.Locator{Text: "Delete", Within: "tr:nth-child(2)"}}, "delete 2", "dispatched", ""},
		{"press on target", browser.Action{Kind: "press", Target: sel("#focusme"), Key: "Control+A"}, "", "dispatched", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.log()
			res, err := e.act(c.a)
			if err != nil {
				t.Fatalf("%+v: %v", c.a, err)
			}
			if res.Outcome != c.outcome || res.Value != c.value {
				t.Errorf("outcome %q value %q, want %q %q (%+v)", res.Outcome, res.Value, c.outcome, c.value, res)
			}
			if c.a.Target.Ref == "" && res.Ref == "" {
				t.Errorf("the result names no ref for %s", c.a.Target.Describe())
			}
			if c.wantLog != "" {
				var after string
				for i := 0; i < 20; i++ {
					if after = e.log(); strings.Contains(strings.TrimPrefix(after, before), c.wantLog) {
						return
					}
					time.Sleep(25 * time.Millisecond)
				}
				t.Errorf("log after %s = %q, want a new %q", c.name, after, c.wantLog)
			}
		})
	}
	if v := e.eval(`document.getElementById("name").value`); v != "" {
		t.Errorf("clear left %q", v)
	}
	if res, err := e.act(browser.Action{Kind: "check", Target: sel("#custom")}); err != nil || res.Note == "" {
		t.Errorf("checking a checked box: %+v %v, want a note that nothing was clicked", res, err)
	}
	_, err := e.act(browser.Action{Kind: "uncheck", Target: sel("#medium")})
	wantCode(t, err, browser.CodeInvalidArgument)
	_, err = e.act(browser.Action{Kind: "select", Target: sel("#city"), Values: []string{"Tokyo"}})
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "Paris") {
		t.Errorf("an unknown option does not list the options: %v", be.Message)
	}
	_, err = e.act(browser.Action{Kind: "select", Target: sel("#city"), Values: []string{"Paris", "Rome"}})
	wantCode(t, err, browser.CodeInvalidArgument)
	_, err = e.act(browser.Action{Kind: "check", Target: sel("#save")})
	wantCode(t, err, browser.CodeNotActionable)
}

func TestScroll(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	res, err := e.act(browser.Action{Kind: "scroll", Target: sel("#box"), Direction: "down"})
	if err != nil || !res.Scrolled || e.eval(`String(document.getElementById("box").scrollTop > 0)`) != "true" {
		t.Fatalf("scroll the container: %+v %v", res, err)
	}
	res, err = e.act(browser.Action{Kind: "scroll", Direction: "bottom"})
	if err != nil || !res.Scrolled || e.eval(`String(scrollY > 0)`) != "true" {
		t.Fatalf("scroll the page: %+v %v", res, err)
	}
	res, err = e.act(browser.Action{Kind: "scroll", Direction: "bottom"})
	if err != nil || res.Scrolled || !strings.Contains(res.Note, "did not move") {
		t.Errorf("scrolling past the end: %+v %v, want did not move", res, err)
	}
	res, err = e.act(browser.Action{Kind: "scroll", Target: browser.Locator{Text: "Double me"}})
	if err != nil || !res.Scrolled || !strings.Contains(res.Note, "into view") {
		t.Errorf("scroll into view: %+v %v", res, err)
	}
	_, err = e.act(browser.Action{Kind: "scroll"})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// Text and role targets are strict: several matches are ambiguous, none is
// not found, both with candidates an agent can use.
func TestLocators(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Delete"}})
	if be := wantCode(t, err, browser.CodeAmbiguousTarget); be != nil {
		if len(be.Suggestions) != 2 || !strings.Contains(be.Suggestions[0], "Invoice 1") || !strings.Contains(be.Suggestions[1], "button e") {
			t.Errorf("candidates = %q, want two buttons with refs and their rows", be.Suggestions)
		}
	}
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Delete everything now"}})
	if be := wantCode(t, err, browser.CodeTargetNotFound); be != nil && (len(be.Suggestions) == 0 || !strings.Contains(strings.Join(be.Suggestions, "\n"), `"Delete"`)) {
		t.Errorf("no near candidates: %q", be.Suggestions)
	}
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "/^Save/"}})
	if err != nil {
		t.Errorf("a regex name: %v", err)
	}
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "/(/"}})
	wantCode(t, err, browser.CodeInvalidArgument)
	for _, tg := range []browser.Locator{
		{Ref: "e1", Selector: "#x"},
		{Name: "Save"},
		{Text: "Save", Role: "button"},
		{Ref: "e1", Within: "#x"},
	} {
		_, err = e.act(browser.Action{Kind: "click", Target: tg})
		wantCode(t, err, browser.CodeInvalidArgument)
	}
	// A target inside a frame.
	e.navigate("/snap/frames.html")
	res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Role: "textbox", Name: "Code", Frame: "#same"}, Value: "XYZ"})
	if err != nil || res.Outcome != "verified" || !strings.HasPrefix(res.Ref, "f") {
		t.Fatalf("fill in a frame: %+v %v", res, err)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Apply", Frame: "#same"}}); err != nil {
		t.Fatal(err)
	}
	if snap := e.snapshot(browser.ModeFull); !strings.Contains(snap, "applied: XYZ") {
		t.Errorf("the frame's button was not clicked:\n%s", snap)
	}
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Apply", Frame: "h1"}})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// Actionability: covered elements are named, late ones waited for.
func TestActionability(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/overlay.html")
	_, err := e.act(browser.Action{Kind: "click", Target: sel("#under"), Timeout: 400 * time.Millisecond})
	if be := wantCode(t, err, browser.CodeNotActionable); be != nil {
		if cover, _ := be.Diagnosis["covered_by"].(string); !strings.Contains(cover, "cookie-banner") {
			t.Errorf("covered_by = %v, want the banner", be.Diagnosis)
		}
	}
	for _, id := range []string{"#late", "#mover", "#accept", "#under"} {
		if _, err := e.act(browser.Action{Kind: "click", Target: sel(id)}); err != nil {
			t.Fatalf("click %s: %v", id, err)
		}
	}
	if got := e.log(); got != "late|mover|accept|under" {
		t.Errorf("log = %q", got)
	}
}

func TestExpect(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#save"), Expect: &browser.Expect{Text: "save", Title: "/./"}})
	if err != nil || !res.ExpectMet || res.Outcome != "verified" {
		t.Errorf("expect met: %+v %v", res, err)
	}
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#save"), Expect: &browser.Expect{Selector: "#nothing-like-this"}, Timeout: 500 * time.Millisecond})
	if err != nil || res.ExpectMet || res.Outcome != "dispatched" || !strings.Contains(res.ExpectFailed, "#nothing-like-this") {
		t.Errorf("expect not met: %+v %v", res, err)
	}
	// url and title are matched as browser_wait matches them: a glob whole,
	// /re/, or a part (issue 28, 1).
	for _, x := range []browser.Expect{{URL: "*/act/kinds*"}, {URL: "*/KINDS.html"}, {URL: `/kinds\.html$/`}, {URL: "act/kinds"}, {Title: "*"}} {
		res, err = e.act(browser.Action{Kind: "click", Target: sel("#save"), Expect: &x})
		if err != nil || !res.ExpectMet {
			t.Errorf("expect %+v not met: %+v %v", x, res, err)
		}
	}
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#save"), Expect: &browser.Expect{URL: "*/orders*"}, Timeout: 500 * time.Millisecond})
	if err != nil || res.ExpectMet || !strings.Contains(res.ExpectFailed, `"*/orders*" read as a glob`) {
		t.Errorf("a glob that does not match: %+v %v", res, err)
	}
	// A lookahead (JavaScript has it, RE2 not) is reported, not taken as a miss.
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#save"), Expect: &browser.Expect{URL: "/kinds(?=\\.html)/"}, Timeout: 500 * time.Millisecond})
	if err != nil || res.ExpectMet || !strings.Contains(res.ExpectFailed, "not a valid regular expression") {
		t.Errorf("a pattern RE2 cannot read: %+v %v", res, err)
	}
}

// A click on a submit button that the browser's own validation stops says
// so and names the fields with their messages (issue 28, 2); a button that
// skips validation submits.
func TestBlockedSubmitIsReported(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/validate")
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Send"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the form did not submit", `textbox "Email": Please fill out this field.`, `spinbutton "Age": Value must be greater than or equal to 18.`} {
		if !strings.Contains(res.Note, want) {
			t.Errorf("note %q lacks %q", res.Note, want)
		}
	}
	if res.Navigated {
		t.Errorf("a blocked submit navigated: %+v", res)
	}
	// A form a script submits and then resets (its required field empty
	// again) did submit.
	res, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Add"}})
	if err != nil || strings.Contains(res.Note, "did not submit") || e.eval("document.title") != "added milk" {
		t.Errorf("a script's submit and reset: %+v %v (title %q)", res, err, e.eval("document.title"))
	}
	res, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Save draft"}})
	if err != nil || !res.Navigated || strings.Contains(res.Note, "did not submit") {
		t.Errorf("formnovalidate: %+v %v", res, err)
	}
}

// "The button in the row that holds A-1002": within takes a role and a
// quoted text (issue 28, 4), strict as every locator.
func TestWithinRowHolding(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/orders")
	details := func(within string) (*browser.ActionResult, error) {
		return e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Details", Within: within}})
	}
	if _, err := details(`row "A-1002"`); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.getElementById("out").textContent`); got != "details A-1002" {
		t.Errorf("clicked %q, want the row of A-1002", got)
	}
	_, err := details(`row "A-100"`)
	if be := wantCode(t, err, browser.CodeAmbiguousTarget); be != nil && (!strings.HasPrefix(be.Message, "within: ") || len(be.Suggestions) != 2 ||
		!strings.Contains(be.Suggestions[0], "A-1001") || !strings.Contains(be.Suggestions[1], "A-1002")) {
		t.Errorf("two rows hold A-100: %s %q", be.Message, be.Suggestions)
	}
	_, err = details(`row "C-3"`)
	wantCode(t, err, browser.CodeTargetNotFound)
	// A pattern works too; and the CSS and ref forms are as before.
	if _, err := details(`row "/^B-\d+/"`); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.getElementById("out").textContent`); got != "details B-2001" {
		t.Errorf("clicked %q, want the row of B-2001", got)
	}
	if _, err := details("#rows tr:first-child"); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.getElementById("out").textContent`); got != "details A-1001" {
		t.Errorf("clicked %q, want the first row", got)
	}
	// browser_find takes the same within.
	if got := e.find(browser.FindOptions{Role: "button", Name: "Details", Within: `row "B-2001"`}); strings.Count(got, "button e") != 1 {
		t.Errorf("find within the row of B-2001:\n%s", got)
	}
	if got := e.find(browser.FindOptions{Role: "button", Name: "Details"}); strings.Count(got, "button e") != 3 {
		t.Errorf("find in the whole table:\n%s", got)
	}
	// A list item inside a list item: the innermost that holds the text.
	e.navigate("/inlineblocks")
	if snap := e.snapshot(browser.ModeCompact); !strings.Contains(snap, "42 items") {
		t.Errorf("the text of a block inside an inline element is lost:\n%s", snap)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Open", Within: `listitem "Display"`}}); err != nil {
		t.Errorf("within the innermost list item: %v", err)
	}
}

// A click that opens a popup reports the new tab, which joins the session.
func TestClickOpensPopup(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/kinds.html")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#popup")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NewTabs) != 1 || !strings.Contains(res.NewTabs[0].URL, "kinds.html") {
		t.Errorf("new tabs = %+v", res.NewTabs)
	}
}

// A popup whose first page is slow to answer does not hold the click up
// beyond the action timeout: the result lists it as loading, on the URL it
// loads, and selecting it waits for its page, then works on it.
func TestPopupStillLoading(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	held := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			w.Write([]byte(`<title>Opener</title><button id="open" onclick="window.open('/held?q=1')">Open</button><button id="count" onclick="this.textContent = 'Counted ' + (++window.__n || (window.__n = 1))">Count</button>`))
			return
		}
		if r.URL.Path != "/held" {
			http.NotFound(w, r)
			return
		}
		select { // the popup's page answers only once the test has its result
		case <-r.Context().Done():
		case <-release:
		}
		w.Write([]byte(`<title>Held</title><p>loaded at last</p>`))
	}))
	defer held.Close()
	defer free()
	e := newEnv(t, browser.Options{ActionTimeout: 2 * time.Second})
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Navigate(ctx, held.URL+"/", 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#open")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NewTabs) != 1 || res.NewTabs[0].URL != held.URL+"/held?q=1" || !res.NewTabs[0].Loading {
		t.Fatalf("new tabs = %+v, want the popup on %s/held?q=1, loading", res.NewTabs, held.URL)
	}
	id := res.NewTabs[0].ID
	// The opener stays in front and works while the popup loads: a click
	// on it, and what it changed, are seen at once.
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#count")}); err != nil {
		t.Fatalf("a click on the opener while the popup loads: %v", err)
	}
	if got := e.eval(`document.getElementById("count").textContent + " " + document.visibilityState`); got != "Counted 1 visible" {
		t.Errorf("the opener while the popup loads: %q", got)
	}
	free()
	err = e.do(func(ctx context.Context, h *browser.Held) error {
		if _, err := h.Tabs().Select(ctx, id); err != nil {
			return err
		}
		snap, err := h.Snapshot(ctx, browser.SnapshotOptions{})
		if err != nil {
			return err
		}
		if !strings.Contains(snap.Text, "loaded at last") {
			t.Errorf("the selected popup's snapshot:\n%s", snap.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("select %s: %v", id, err)
	}
}

func TestUpload(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"a.txt", "b.txt"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("content of "+n), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	e := newEnv(t, browser.Options{UploadRoots: []string{dir}})
	e.navigate("/act/upload.html")
	res, err := e.act(browser.Action{Kind: "upload", Target: browser.Locator{Role: "file", Name: "Files"}, Files: files})
	if err != nil || res.Outcome != "verified" || res.Value != "a.txt, b.txt" {
		t.Fatalf("upload two files: %+v %v", res, err)
	}
	// A button that opens the chooser of a hidden input.
	res, err = e.act(browser.Action{Kind: "upload", Target: browser.Locator{Text: "Choose a photo"}, Files: files[:1]})
	if err != nil || res.Outcome != "verified" || res.Value != "a.txt" {
		t.Fatalf("upload through a file chooser: %+v %v", res, err)
	}
	if got := e.log(); got != "files:a.txt,b.txt|chosen:a.txt" {
		t.Errorf("log = %q", got)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		files []string
		why   string
	}{
		{[]string{outside}, "outside the directories"},
		{[]string{link}, "outside the directories"},
		{[]string{filepath.Join(dir, "missing.txt")}, "no file"},
		{[]string{dir}, "not a regular file"},
		{nil, "needs files"},
	} {
		_, err := e.act(browser.Action{Kind: "upload", Target: sel("#files"), Files: c.files})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, c.why) {
			t.Errorf("upload %v: %q, want %q", c.files, be.Message, c.why)
		}
	}
	_, err = e.act(browser.Action{Kind: "upload", Target: sel("#chooser"), Files: files})
	wantCode(t, err, browser.CodeInvalidArgument) // one file only
	_, err = e.act(browser.Action{Kind: "upload", Target: browser.Locator{Role: "heading", Name: "Upload"}, Files: files[:1]})
	wantCode(t, err, browser.CodeNotActionable) // opens no chooser
}

func TestDrag(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/drag.html")
	if _, err := e.act(browser.Action{Kind: "drag", Target: sel("#task1"), To: sel("#done")}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#done #task1") ? "yes" : "no"`); got != "yes" {
		t.Errorf("HTML5 drag did not move the task: log %q", e.log())
	}
	if _, err := e.act(browser.Action{Kind: "drag", Target: sel("#s1"), To: sel("#s3")}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`Array.from(document.querySelectorAll("#sortable li")).map(x => x.id).join(",")`); got != "s2,s3,s1" && got != "s2,s1,s3" {
		t.Errorf("the pointer sortable did not move One: order %s, log %q", got, e.log())
	}
	_, err := e.act(browser.Action{Kind: "drag", Target: sel("#task2")})
	wantCode(t, err, browser.CodeInvalidArgument)
	// By refs: the snapshot gives draggable elements and drop zones refs.
	snap := e.snapshot(browser.ModeCompact)
	src := regexp.MustCompile(`draggable (e\d+) "Task 2"`).FindStringSubmatch(snap)
	dst := regexp.MustCompile(`dropzone (e\d+)`).FindStringSubmatch(snap)
	if src == nil || dst == nil {
		t.Fatalf("no refs for the drag source or the drop zone:\n%s", snap)
	}
	if _, err := e.act(browser.Action{Kind: "drag", Target: browser.Locator{Ref: src[1]}, To: browser.Locator{Ref: dst[1]}}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#done #task2") ? "yes" : "no"`); got != "yes" {
		t.Errorf("drag by refs did not move the task: log %q", e.log())
	}
}

func TestFillForm(t *testing.T) {
	dir := t.TempDir()
	avatar := filepath.Join(dir, "me.png")
	if err := os.WriteFile(avatar, []byte("png"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, browser.Options{UploadRoots: []string{dir}})
	fields := []browser.FormField{
		{Target: browser.Locator{Role: "textbox", Name: "Email"}, Value: "ada@example.com"},
		{Target: sel("#pw"), Value: "s3cret"},
		{Target: sel("#bday"), Value: "1990-12-10"},
		{Target: browser.Locator{Role: "checkbox", Name: "Newsletter"}, Value: "true"},
		{Target: browser.Locator{Role: "radio", Name: "Pro"}, Value: "true"},
		{Target: sel("#country"), Value: "Germany"},
		{Target: sel("#avatar"), Value: avatar},
		{Target: browser.Locator{Role: "textbox", Name: "Bio"}, Value: "Mathematician"},
	}
	fill := func(f browser.FormFill) (*browser.FormResult, error) {
		var res *browser.FormResult
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			var err error
			res, err = h.FillForm(ctx, f)
			return err
		})
		return res, err
	}
	for _, submit := range []string{browser.SubmitForm, browser.SubmitEvent, browser.SubmitBoth} {
		t.Run(submit, func(t *testing.T) {
			e.navigate("/act/form.html")
			res, err := fill(browser.FormFill{Fields: fields, Submit: submit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Completed) != len(fields) || !res.SubmitVerified || !res.Navigated || !strings.Contains(res.URLAfter, "/act/done.html?email=ada%40example.com") {
				t.Fatalf("fill and submit %s: %+v", submit, res)
			}
			for _, want := range []string{"news=on", "plan=pro", "country=de", "bday=1990-12-10", "avatar=me.png"} {
				if !strings.Contains(res.URLAfter, want) {
					t.Errorf("submitted %s, want %s in it", res.URLAfter, want)
				}
			}
		})
	}
	// A form whose page handles the submit event itself.
	e.navigate("/act/form.html")
	res, err := fill(browser.FormFill{Fields: []browser.FormField{{Target: browser.Locator{Role: "textbox", Name: "Search"}, Value: "night trains"}}, Submit: browser.SubmitEvent})
	if err != nil || !res.SubmitVerified || res.Navigated || !strings.Contains(e.log(), "submit:") {
		t.Errorf("a script-handled form: %+v %v, log %q", res, err, e.log())
	}
	// Invalid: the required email is empty.
	e.navigate("/act/form.html")
	_, err = fill(browser.FormFill{Fields: fields[1:3], Submit: browser.SubmitForm})
	if be := wantCode(t, err, browser.CodeNotActionable); be != nil && !strings.Contains(be.Message, "Email") {
		t.Errorf("invalid form: %v", be.Message)
	}
	// The first failure stops the fill and says what was done.
	bad := append(append([]browser.FormField{}, fields[:2]...), browser.FormField{Target: sel("#country"), Value: "Atlantis"}, fields[3])
	_, err = fill(browser.FormFill{Fields: bad})
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil {
		done, _ := be.Diagnosis["completed"].([]browser.FieldDone)
		skipped, _ := be.Diagnosis["skipped"].([]string)
		if len(done) != 2 || len(skipped) != 1 || !strings.Contains(be.Message, "field 3 of 4") {
			t.Errorf("failure report: %v %+v", be.Message, be.Diagnosis)
		}
	}
	_, err = fill(browser.FormFill{Fields: fields[:1], Submit: "later"})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// input_mode: dom sends DOM events (past a cover, too); auto falls back to
// them only for an element the pointer cannot see; cdp never does.
func TestInputModes(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/styled-check")
	// A control nothing shows: cdp fails, auto sends DOM events.
	e.eval(`(document.querySelector("label").insertAdjacentHTML("afterend", '<input type="checkbox" id="bare" aria-label="Bare" style="opacity:0;width:0;height:0;margin:0;border:0;padding:0">'), "")`)
	_, err := e.act(browser.Action{Kind: "check", Target: sel("#bare"), InputMode: browser.InputCDP, Timeout: 300 * time.Millisecond})
	if be := wantCode(t, err, browser.CodeNotActionable); be != nil && be.Diagnosis["failed_check"] != "visible" {
		t.Errorf("cdp on a hidden checkbox: %+v", be.Diagnosis)
	}
	res, err := e.act(browser.Action{Kind: "check", Target: sel("#bare"), Timeout: 300 * time.Millisecond})
	if err != nil || res.InputMode != browser.InputDOM || res.Outcome != "verified" || !strings.Contains(res.Note, "DOM events") {
		t.Errorf("auto on a hidden checkbox: %+v %v", res, err)
	}
	// The default timeout: this one succeeds, and a loaded machine may take
	// longer than a short bound to confirm the pointer's move.
	res, err = e.act(browser.Action{Kind: "check", Target: browser.Locator{Role: "checkbox", Name: "Remember me"}})
	if err != nil || res.InputMode != browser.InputCDP || res.Outcome != "verified" || !strings.Contains(res.Note, "clicked the label") {
		t.Errorf("a checkbox drawn over by its label: %+v %v", res, err)
	}
	if snap := e.snapshot(browser.ModeFull); !regexp.MustCompile(`checkbox e\d+ "Remember me" \[checked\]`).MatchString(snap) {
		t.Errorf("the styled checkbox is not in the snapshot:\n%s", snap)
	}
	e.navigate("/act/overlay.html")
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#under"), InputMode: browser.InputAuto, Timeout: 300 * time.Millisecond})
	wantCode(t, err, browser.CodeNotActionable) // covered: auto does not click through
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#under"), InputMode: browser.InputDOM})
	if err != nil || res.InputMode != browser.InputDOM || e.log() != "under" {
		t.Errorf("dom click past the cover: %+v %v, log %q", res, err, e.log())
	}
	e.navigate("/act/kinds.html")
	res, err = e.act(browser.Action{Kind: "fill", Target: sel("#name"), Value: "Grace", InputMode: browser.InputDOM})
	if err != nil || res.InputMode != browser.InputDOM || res.Outcome != "verified" || res.Value != "Grace" {
		t.Errorf("dom fill: %+v %v", res, err)
	}
	if _, err := e.act(browser.Action{Kind: "dblclick", Target: sel("#dbl"), InputMode: browser.InputDOM}); err != nil || !strings.Contains(e.log(), "dblclick") {
		t.Errorf("dom dblclick: %v, log %q", err, e.log())
	}
	e.navigate("/act/drag.html")
	if _, err := e.act(browser.Action{Kind: "drag", Target: sel("#task2"), To: sel("#done"), InputMode: browser.InputDOM}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#done #task2") ? "yes" : "no"`); got != "yes" {
		t.Errorf("dom drag did not move the task: log %q", e.log())
	}
	_, err = e.act(browser.Action{Kind: "click", Target: sel("#s1"), InputMode: "telepathy"})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// A click whose navigation does not load in time is OUTCOME_UNKNOWN, and it
// is not repeated.
func TestNavigationTimeoutIsOutcomeUnknown(t *testing.T) {
	var hits atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<title>Start</title><a id="go" href="/slow">slow page</a>`))
			return
		}
		if r.URL.Path != "/slow" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer slow.Close()
	e := newEnv(t, browser.Options{NavTimeout: 700 * time.Millisecond})
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, slow.URL+"/", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.act(browser.Action{Kind: "click", Target: sel("#go")})
	if be := wantCode(t, err, browser.CodeOutcomeUnknown); be != nil && !strings.Contains(be.Hint, "never repeats") {
		t.Errorf("hint: %q", be.Hint)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the slow page was requested %d times, want once", n)
	}
}

// An action reports the console errors and exceptions it caused.
func TestActionReportsConsoleErrors(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/errors")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#boom")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.ConsoleErrors {
		got = append(got, c.String())
	}
	joined := strings.Join(got, "\n")
	if res.ConsoleErrorCount != 2 || !strings.Contains(joined, "error: bad thing 42") || !strings.Contains(joined, "exception:") || !strings.Contains(joined, "TypeError") || strings.Contains(joined, "fine") {
		t.Errorf("console errors = %d %q", res.ConsoleErrorCount, got)
	}
	res, err = e.act(browser.Action{Kind: "hover", Target: sel("#boom")})
	if err != nil || res.ConsoleErrorCount != 0 {
		t.Errorf("a quiet action reports errors: %+v %v", res, err)
	}
}

// A click that downloads a file reports it, saved into a fresh folder of
// the output directory per call, with its size and type: moved there when
// the browser runs here (launch, endpoint on loopback), copied there from
// the user's download folder over the bridge (which keeps its file).
func TestActionReportsDownload(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	e.navigate("/links")
	folders := map[string]bool{}
	for i := range 2 {
		res, err := e.act(browser.Action{Kind: "click", Target: sel("#dl")})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Downloads) != 1 {
			t.Fatalf("downloads = %+v", res.Downloads)
		}
		d := res.Downloads[0]
		t.Logf("click %d: %s", i, d)
		if d.Name != "x.bin" || d.State != "completed" || d.Bytes != 4 || d.Refused != "" {
			t.Fatalf("download %d = %+v", i, d)
		}
		folder := filepath.Dir(d.Path)
		if filepath.Base(d.Path) != "x.bin" || filepath.Dir(folder) != out || !strings.HasPrefix(filepath.Base(folder), "downloads-") {
			t.Errorf("saved to %q, want %s/downloads-…/x.bin", d.Path, out)
		}
		if folders[folder] {
			t.Errorf("the second click's file went into the first one's folder %s", folder)
		}
		folders[folder] = true
		if b, err := os.ReadFile(d.Path); err != nil || string(b) != "data" {
			t.Errorf("saved file: %q %v", b, err)
		}
		if d.MIMEType != "application/octet-stream" || !strings.Contains(d.String(), "4 bytes, application/octet-stream) saved to "+d.Path) {
			t.Errorf("mime %q, says %q", d.MIMEType, d.String())
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(out, ".incoming")); len(entries) != 0 {
		t.Errorf("files left in the staging folder: %v", entries)
	}
	if u, ok := backendtest.Shared(t).(interface{ DownloadDir() string }); ok {
		// The bridge copied: the user's own file stays where Chrome put it
		// (the test browser's folder setting overwrites same-named files).
		if b, err := os.ReadFile(filepath.Join(u.DownloadDir(), "x.bin")); err != nil || string(b) != "data" {
			t.Errorf("the user's download: %q %v", b, err)
		}
	}
}

// A form fill reports, like an action, the console errors its fills and
// its submit caused and the file its submit downloaded.
func TestFillFormReportsConsoleErrorsAndDownload(t *testing.T) {
	e := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	e.navigate("/formdownload")
	var res *browser.FormResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		var err error
		res, err = h.FillForm(ctx, browser.FormFill{Submit: browser.SubmitForm, Fields: []browser.FormField{{Target: sel("#q"), Value: "report"}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.ConsoleErrors {
		got = append(got, c.String())
	}
	joined := strings.Join(got, "\n")
	if res.ConsoleErrorCount != 2 || !strings.Contains(joined, "field said no") || !strings.Contains(joined, "form went wrong") {
		t.Errorf("console errors = %d %q", res.ConsoleErrorCount, got)
	}
	if len(res.Downloads) != 1 || res.Downloads[0].Name != "x.bin" || res.Downloads[0].State != "completed" {
		t.Errorf("downloads = %+v", res.Downloads)
	}
	if !res.Submitted || len(res.Completed) != 1 {
		t.Errorf("fill and submit: %+v", res)
	}
}

// An action's result (and the diff after it) includes what the requests it
// started brought in; a page that never stops changing still returns.
func TestActionWaitsForWhatItStarted(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/lazy")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Text: "Load more"}}); err != nil {
		t.Fatal(err)
	}
	if snap := e.snapshot(browser.ModeFull); !strings.Contains(snap, "loaded: 42") {
		t.Errorf("the click's request had not landed when it returned:\n%s", snap)
	}
	e.navigate("/ticker")
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#b")}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.getElementById("b").textContent`); got != "clicked" {
		t.Errorf("button = %q", got)
	}
}

// A download into the output directory stops as soon as it passes the
// directory's budget, and says why: an endless stream never fills the disk.
// (The bridge saves into the user's own download folder, not this one.)
func TestDownloadPastTheBudgetIsCancelled(t *testing.T) {
	if backendtest.Kind() == "bridge" {
		t.Skip("the bridge saves downloads in the user's folder, outside the output directory's budget")
	}
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out, OutputMaxBytes: 1 << 20})
	e.navigate("/endlesslink")
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#dl")}); err != nil {
		t.Fatal(err)
	}
	var d browser.Download
	deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
	for {
		_ = e.do(func(ctx context.Context, h *browser.Held) error {
			tab := h.Tab()

			if ds := browser.DownloadsNow(tab); len(ds) > 0 {
				d = ds[len(ds)-1]
			}
			return nil
		})
		if d.State == "canceled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the endless download was not cancelled: %+v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(d.String(), "budget") || d.Bytes >= 256<<20 { // stopped before the stream ended
		t.Errorf("the cancelled download says %q after %d bytes", d.String(), d.Bytes)
	}
	var size int64
	_ = filepath.WalkDir(out, func(_ string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			if fi, err := de.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	if size > 64<<20 {
		var files []string
		_ = filepath.WalkDir(out, func(p string, de fs.DirEntry, err error) error {
			if err == nil && !de.IsDir() {
				fi, _ := de.Info()
				files = append(files, fmt.Sprintf("%s %d", p, fi.Size()))
			}
			return nil
		})
		t.Errorf("the output directory holds %d bytes after the cancel: %v (download %+v)", size, files, d)
	}
}

// A click whose press lands on another element than the one it was aimed
// at (the element moved at that moment) is not reported done.
func TestClickThatMissesIsNotDone(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/runaway")
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#run"}})
	be, ok := browser.AsError(err)
	if !ok || be.Code != browser.CodeNotActionable || !strings.Contains(be.Message, "landed on div#under") {
		t.Fatalf("a click whose press hit the element below: %v, want NOT_ACTIONABLE naming div#under", err)
	}
	if hits := e.eval("String(window.__hits)"); hits != "under" {
		t.Fatalf("the page saw %q", hits)
	}
	// The button where it now stays is clicked, and that is done.
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#run"}}); err != nil {
		t.Fatalf("a click on the button at rest: %v", err)
	}
	if hits := e.eval("String(window.__hits)"); hits != "under,button" {
		t.Fatalf("the page saw %q, want the button clicked", hits)
	}
}

// A click's navigation is waited for when the page starts it later than
// the input: in the next frame, or from a timer while the DOM change the
// click made settles. A click that navigates nowhere stays.
func TestClickWaitsForLaterNavigation(t *testing.T) {
	e := newEnv(t, browser.Options{})
	for _, c := range []struct{ button, via string }{{"#frame", "frame"}, {"#timer", "timer"}, {"#stay", ""}} {
		t.Run(c.button, func(t *testing.T) {
			e.navigate("/act/later.html")
			res, err := e.act(browser.Action{Kind: "click", Target: sel(c.button)})
			if err != nil {
				t.Fatal(err)
			}
			if c.via == "" {
				if res.Navigated || !strings.HasSuffix(res.URL, "/act/later.html") {
					t.Errorf("navigated %v to %s, want to stay", res.Navigated, res.URL)
				}
				if got := e.eval(`document.getElementById("status").textContent`); got != "stayed" {
					t.Errorf("status %q, want stayed", got)
				}
				return
			}
			if !res.Navigated || !strings.HasSuffix(res.URL, "/slowdone?via="+c.via) || res.Title != "Done" {
				t.Errorf("navigated %v to %s (%q), want /slowdone?via=%s loaded", res.Navigated, res.URL, res.Title, c.via)
			}
			// the new page has loaded: its script ran
			if got := e.eval(`document.getElementById("q").textContent`); got != "?via="+c.via {
				t.Errorf("done page shows %q", got)
			}
		})
	}
}

// An action followed by a snapshot walks the page while its DOM changes
// settle; the snapshot is the page as it is after the action all the same:
// the same lines as a walk of its own when nothing changed since, the
// later changes when something did.
func TestSnapshotAfterActionWalkedWhileSettling(t *testing.T) {
	e := newEnv(t, browser.Options{})
	prewalked := func() bool {
		var got bool
		if err := e.do(func(ctx context.Context, h *browser.Held) error { got = browser.Prewalked(h.Tab()); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	body := func(s string) string { _, b, _ := strings.Cut(s, "\n"); return b }
	fill := func(value string) {
		t.Helper()
		if _, err := e.act(browser.Action{Kind: "fill", Target: sel("#q"), Value: value, SnapshotNext: true}); err != nil {
			t.Fatal(err)
		}
	}
	// A change the page makes later, while the DOM settles, is in the
	// snapshot, whether the walk came before it or after.
	for _, late := range []int{0, 8, 16, 22} {
		e.navigate("/act/settle.html")
		e.eval(fmt.Sprintf(`document.getElementById("q").dataset.late = "%d"`, late))
		e.snapshot(browser.ModeCompact)
		v := fmt.Sprintf("v%d", late)
		fill(v)
		if d := e.snapshot(browser.ModeDiff); !strings.Contains(d, "typed "+v) || !strings.Contains(d, "late "+v) {
			t.Errorf("a change %d ms after the input: the diff misses it:\n%s", late, d)
		}
	}
	// A fill that sets nothing off: the page is walked with the wait's
	// first check, and the snapshot is that walk.
	e.navigate("/act/settle.html")
	e.snapshot(browser.ModeCompact)
	fill("quiet")
	if !prewalked() {
		t.Error("a fill that set nothing off: its wait took no walk")
	}
	if via, own := e.snapshot(browser.ModeCompact), e.snapshot(browser.ModeCompact); body(via) != body(own) || !strings.Contains(via, `= "quiet"`) {
		t.Errorf("the snapshot from the walk taken with the wait:\n%q\nwant as a walk of its own:\n%q", via, own)
	}
	// A field the server's answer fills changes no DOM: the walk taken
	// before the answer does not stand for the page after it.
	e.navigate("/act/settle.html")
	e.eval(`document.getElementById("q").dataset.fetch = "1"`)
	e.snapshot(browser.ModeCompact)
	fill("zip")
	// (the answer comes 300 ms later; on a loaded machine the request's
	// own event may come after the action's wait: the snapshot is taken
	// once the page has the answer)
	e.waitEval(`document.getElementById("city").value`, "city 42")
	if d := e.snapshot(browser.ModeDiff); !strings.Contains(d, `"city 42"`) {
		t.Errorf("the value the server's answer set is not in the diff:\n%s", d)
	}
	// Nothing changed since the walk: the snapshot is the one a walk of its
	// own gives. (The walk is taken only when the DOM is still settling at
	// the wait's first check, which comes after the page's next frame: the
	// page changes in that frame. A few tries: a loaded machine may delay
	// the check.)
	frameChange := func() {
		e.navigate("/act/settle.html")
		e.eval(`document.getElementById("q").dataset.late = "frame"`)
	}
	taken := false
	for i := 0; i < 5 && !taken; i++ {
		frameChange()
		fill(fmt.Sprintf("same%d", i))
		if taken = prewalked(); taken {
			via, own := e.snapshot(browser.ModeCompact), e.snapshot(browser.ModeCompact)
			if body(via) != body(own) || !strings.Contains(via, fmt.Sprintf("typed same%d", i)) {
				t.Errorf("the snapshot from the walk taken while settling:\n%q\nwant as a walk of its own:\n%q", via, own)
			}
		}
	}
	if !taken {
		t.Fatal("no action kept the walk it took while the page settled")
	}
	// A change after the action, before the snapshot: the snapshot walks
	// again.
	for i := 0; i < 5; i++ {
		frameChange()
		fill("changed")
		if !prewalked() {
			continue
		}
		e.eval(`document.getElementById("out").textContent = "changed since"`)
		if s := e.snapshot(browser.ModeCompact); !strings.Contains(s, "changed since") {
			t.Errorf("a change after the action is not in the snapshot:\n%s", s)
		}
		return
	}
	t.Fatal("no action kept the walk it took while the page settled")
}

// The walk taken with the check that ended an action's wait is the page
// as the wait left it: the snapshot in the same call takes it without a
// call to the page, and shows the fill; a snapshot in a later call asks
// the page again and sees what changed in between.
func TestSnapshotTakesTheWaitsLastWalk(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/settle.html")
	e.snapshot(browser.ModeCompact)
	taken := false
	for i := 0; i < 5 && !taken; i++ {
		v := fmt.Sprintf("v%d", i)
		var sent int64
		var snap string
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			if _, err := h.Act(ctx, browser.Action{Kind: "fill", Target: sel("#q"), Value: v, SnapshotNext: true}); err != nil {
				return err
			}
			// (a loaded machine may end the wait with a check that took
			// no walk: then the snapshot asks the page, and another try)
			if taken = browser.Prewalked(h.Tab()); !taken {
				return nil
			}
			n0 := cdp.CommandsSent()
			s, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeCompact})
			sent = cdp.CommandsSent() - n0
			if s != nil {
				snap = s.Text
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !taken {
			continue
		}
		if sent != 0 || !strings.Contains(snap, `"Query" = "`+v+`"`) || !strings.Contains(snap, "typed "+v) {
			t.Errorf("the snapshot in the action's call sent %d CDP commands (want none) and shows:\n%s", sent, snap)
		}
		e.eval(`document.getElementById("out").textContent = "changed since"`)
		if s := e.snapshot(browser.ModeCompact); !strings.Contains(s, "changed since") {
			t.Errorf("a later call's snapshot misses a change made after the action:\n%s", s)
		}
	}
	if !taken {
		t.Fatal("no action kept the walk it took with its last check")
	}
}

// A fill or type into a password field reads the value back as the page
// shows it, as dots (the snapshot's), never the password typed; other
// fields keep their value.
func TestPasswordReadBackAsDots(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/pw")
	for _, tc := range []struct {
		kind, sel, value, want string
	}{
		{"fill", "#pw", "correct-horse", "••••••••"},
		{"type", "#pw", "xyz", "••••••••"}, // appended to the 13 filled
		{"fill", "#user", "ada", "ada"},
	} {
		res, err := e.act(browser.Action{Kind: tc.kind, Target: sel(tc.sel), Value: tc.value})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.kind, tc.sel, err)
		}
		if res.Value != tc.want || res.Outcome != "verified" {
			t.Errorf("%s %s: value %q (%s), want %q verified", tc.kind, tc.sel, res.Value, res.Outcome, tc.want)
		}
	}
	if got := e.eval(`document.getElementById("pw").value`); got != "correct-horsexyz" {
		t.Errorf("the field holds %q, want the password typed", got)
	}
}

// A form fill whose submit the browser's validation stops names every
// invalid field, not only the first.
func TestFillFormSubmitNamesEveryInvalidField(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/validate")
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.FillForm(ctx, browser.FormFill{Submit: browser.SubmitForm, Fields: []browser.FormField{{Target: sel(`input[name="age"]`), Value: "12"}}})
		return err
	})
	be, ok := browser.AsError(err)
	if !ok || be.Code != browser.CodeNotActionable {
		t.Fatalf("submit of an invalid form: %v, want NOT_ACTIONABLE", err)
	}
	for _, want := range []string{"the form did not submit", "Email: Please fill out this field.", "Age: Value must be greater than or equal to 18.", "those 2 fields"} {
		if !strings.Contains(be.Message+" "+be.Hint, want) {
			t.Errorf("the error lacks %q: %s (%s)", want, be.Message, be.Hint)
		}
	}
}

// A required radio group left unchosen is one invalid field, in a form
// fill's submit and in a click on the submit button.
func TestRadioGroupCountsOnce(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/radios")
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.FillForm(ctx, browser.FormFill{Submit: browser.SubmitForm, Fields: []browser.FormField{{Target: sel(`input[name="name"]`), Value: "Ada"}}})
		return err
	})
	be, ok := browser.AsError(err)
	if !ok || strings.Count(be.Message, "Please select one of these options.") != 1 || !strings.Contains(be.Hint, "fix that field") {
		t.Errorf("submit with the radio group unchosen: %v", err)
	}
	res, err := e.act(browser.Action{Kind: "click", Target: sel("button")})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(res.Note, "Please select one of these options.") != 1 {
		t.Errorf("the click's note names the group %d times: %s", strings.Count(res.Note, "Please select one of these options."), res.Note)
	}
}

// A tab in the background draws no frames, so a pointer event there waits
// for one and a transition there never ends: in the person's Chrome another
// session's tab in the agent window hides this one. Each input brings the
// tab to the front first: a click on an element a transition moves goes
// through once it has stopped, and so do type, hover, a double click and
// a key press.
func TestActionsOnAHiddenTab(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/overlay.html")
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#mover")}); err != nil { // (the load's own slide is over)
		t.Fatal(err)
	}
	other := e.m.Session(t.Name() + "/other")
	defer other.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	// hide has the other session open a tab, which on the bridge hides
	// this session's, and says whether it did.
	hide := func(then string) string {
		t.Helper()
		if err := other.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
			tab, err := h.Tabs().New(ctx)
			if err != nil {
				return err
			}
			_, err = h.On(tab).Navigate(ctx, e.base+"/basic.html", 0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		vis := e.eval(`(() => { ` + then + `; return document.visibilityState; })()`)
		if backendtest.Kind() == "bridge" && vis != "hidden" {
			t.Fatalf("on the bridge another session's new tab should hide this one; it is %s", vis)
		}
		return vis
	}
	// The slide back starts in a tab that may be hidden.
	vis := hide(`const m = document.getElementById("mover"); m.classList.remove("moved"); m.getBoundingClientRect()`)
	if _, err := e.act(browser.Action{Kind: "click", Target: sel("#mover")}); err != nil {
		t.Fatalf("a click on a moving element of a %s tab: %v", vis, err)
	}
	if got := e.log(); got != "mover|mover" {
		t.Errorf("log = %q", got)
	}

	e.navigate("/act/kinds.html")
	for _, a := range []browser.Action{
		{Kind: "type", Target: sel("#focusme"), Value: "hi"},
		{Kind: "press", Key: "End"},
		{Kind: "hover", Target: sel("#menu")},
		{Kind: "dblclick", Target: sel("#dbl")},
	} {
		vis := hide("")
		if _, err := e.act(a); err != nil {
			t.Fatalf("%s in a %s tab: %v", a.Kind, vis, err)
		}
	}
	if got := e.log(); !strings.Contains(got, "focus") || !strings.Contains(got, "mouseenter") || !strings.Contains(got, "dblclick") {
		t.Errorf("log = %q", got)
	}
	if got := e.eval(`document.getElementById("focusme").value`); got != "hi" {
		t.Errorf("typed %q", got)
	}
}
