package browser_test

import (
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// TestTypeShiftedCharacters: typing holds Shift for the characters that need
// it on a US keyboard, and each key carries its real code and key code.
func TestTypeShiftedCharacters(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/keys.html")
	// A second listener, on the field, records what keys.html does not.
	e.eval(`(() => { window.codes = []; document.getElementById("k").addEventListener("keydown", ev => window.codes.push(ev.key + " " + ev.code + " " + ev.keyCode)); return ""; })()`)
	if _, err := e.act(browser.Action{Kind: "type", Target: browser.Locator{Selector: "#k"}, Value: "Ab!"}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#k").value`); got != "Ab!" {
		t.Errorf("field holds %q, want %q", got, "Ab!")
	}
	log := e.eval(`Array.from(document.querySelectorAll("#log li")).map(li => li.textContent).join("|")`)
	var keys []string
	for line := range strings.SplitSeq(log, "|") {
		if !strings.HasPrefix(line, "key=Shift ") {
			keys = append(keys, line)
		}
	}
	want := []string{"key=A ctrl=false shift=true", "key=b ctrl=false shift=false", "key=! ctrl=false shift=true"}
	if strings.Join(keys, "|") != strings.Join(want, "|") {
		t.Errorf("key log (Shift itself left out) = %q, want %q; full log %q", keys, want, log)
	}
	if n := strings.Count(log, "key=Shift "); n != 2 {
		t.Errorf("Shift went down %d times, want 2 (for A and !); log %q", n, log)
	}
	codes := e.eval(`window.codes.join("|")`)
	if want := "Shift ShiftLeft 16|A KeyA 65|b KeyB 66|Shift ShiftLeft 16|! Digit1 49"; codes != want {
		t.Errorf("keydown key/code/keyCode = %q, want %q", codes, want)
	}
}
