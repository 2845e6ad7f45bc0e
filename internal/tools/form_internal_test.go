package tools

import (
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A form fill's reply tells what its input set off in the words an
// action's reply uses: downloads, console errors, the note, new tabs.
func TestFormReplyReportsWhatAnActionDoes(t *testing.T) {
	dl := []browser.Download{{Name: "x.bin", State: "completed", Bytes: 4, Path: "/o/downloads-1/x.bin"}}
	errs := []browser.ConsoleEntry{{Level: browser.LevelError, Text: "form went wrong"}}
	tabs := []browser.TabView{{ID: "t2", URL: "https://a.test/pop", Title: "Pop"}}
	form := describeForm(&browser.FormResult{Submit: browser.SubmitForm, Submitted: true, SubmitVerified: true,
		Completed: []browser.FieldDone{{Ref: "e1", Field: "e1", Value: "x"}},
		Downloads: dl, ConsoleErrors: errs, ConsoleErrorCount: 3, Note: "a note", NewTabs: tabs})
	act := describeAction(ActionIn{Action: "click"}, &browser.ActionResult{Action: "click", Ref: "e3", Outcome: "verified",
		Downloads: dl, ConsoleErrors: errs, ConsoleErrorCount: 3, Note: "a note", NewTabs: tabs})
	_, actTail, _ := strings.Cut(act.String(), "\n")
	if !strings.HasSuffix(form.String(), "\n"+actTail) || !strings.Contains(actTail, "Download: x.bin") || !strings.Contains(actTail, "Console errors (3):\n- error: form went wrong\n- … 2 more") {
		t.Errorf("the form's reply:\n%s\nan action's:\n%s", form.String(), act.String())
	}
	if strings.Join(form.notes, "\n") != strings.Join(act.notes, "\n") {
		t.Errorf("notes: form %q, action %q", form.notes, act.notes)
	}
}
