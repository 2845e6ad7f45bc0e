package browser

import (
	"fmt"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// consoleCap is how many console entries a tab keeps.
const consoleCap = 200

// ConsoleEntry is a console message or an uncaught exception of the page.
type ConsoleEntry struct {
	Seq   int    `json:"-"`
	Level string `json:"level"` // error, warning, log, info, debug, exception
	Text  string `json:"text"`
	URL   string `json:"url,omitempty"`
	Line  int    `json:"line,omitempty"`
}

// record keeps an entry in the tab's ring of console entries.
func (t *Tab) recordConsole(e ConsoleEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.consoleSeq++
	e.Seq = t.consoleSeq
	t.console = append(t.console, e)
	if len(t.console) > consoleCap {
		t.console = t.console[len(t.console)-consoleCap:]
	}
}

// consoleMark is the sequence number of the newest console entry.
func (t *Tab) consoleMark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.consoleSeq
}

// errorsSince returns up to max errors and exceptions newer than mark, and
// how many there were.
func (t *Tab) errorsSince(mark, max int) ([]ConsoleEntry, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []ConsoleEntry
	n := 0
	for _, e := range t.console {
		if e.Seq <= mark || (e.Level != "error" && e.Level != "exception") {
			continue
		}
		n++
		if len(out) < max {
			out = append(out, e)
		}
	}
	return out, n
}

type consoleAPIEvent struct {
	Type string `json:"type"`
	Args []struct {
		Type        string       `json:"type"`
		Value       jsonv2.Value `json:"value"`
		Description string       `json:"description"`
		UnserVal    string       `json:"unserializableValue"`
	} `json:"args"`
	StackTrace *struct {
		CallFrames []struct {
			URL        string `json:"url"`
			LineNumber int    `json:"lineNumber"`
		} `json:"callFrames"`
	} `json:"stackTrace"`
}

// onConsole records a Runtime.consoleAPICalled event.
func (t *Tab) onConsole(raw jsonv2.Value) {
	var ev consoleAPIEvent
	if jsonv2.Unmarshal(raw, &ev) != nil {
		return
	}
	level := ev.Type
	switch level {
	case "warning", "error", "info", "debug", "log":
	case "assert":
		level = "error"
	default:
		return // tables, groups, timers: not messages
	}
	var parts []string
	for _, a := range ev.Args {
		switch {
		case a.Type == "string":
			var s string
			_ = jsonv2.Unmarshal(a.Value, &s)
			parts = append(parts, s)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		case a.UnserVal != "":
			parts = append(parts, a.UnserVal)
		default:
			parts = append(parts, a.Description)
		}
	}
	e := ConsoleEntry{Level: level, Text: shorten(clean(strings.Join(parts, " ")), 500)}
	if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
		e.URL, e.Line = ev.StackTrace.CallFrames[0].URL, ev.StackTrace.CallFrames[0].LineNumber+1
	}
	t.recordConsole(e)
}

// onException records a Runtime.exceptionThrown event.
func (t *Tab) onException(raw jsonv2.Value) {
	var ev struct {
		Details struct {
			Text       string `json:"text"`
			URL        string `json:"url"`
			LineNumber int    `json:"lineNumber"`
			Exception  *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil {
		return
	}
	d := ev.Details
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		text = strings.SplitN(d.Exception.Description, "\n", 2)[0]
	}
	t.recordConsole(ConsoleEntry{Level: "exception", Text: shorten(clean(text), 500), URL: d.URL, Line: d.LineNumber + 1})
}

// String renders an entry on one line.
func (e ConsoleEntry) String() string {
	s := e.Level + ": " + e.Text
	if e.URL != "" {
		s += fmt.Sprintf(" (%s:%d)", e.URL, e.Line)
	}
	return s
}
