package browser

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// consoleCap is how many console entries a tab keeps.
const consoleCap = 200

// Bounds of what an entry keeps: its text, its stack (frames, and the
// characters of a frame's function name and URL).
const (
	consoleTextMax  = 500
	consoleFrames   = 5
	consoleFnMax    = 80
	consoleURLMax   = 300
	consoleDescMax  = 300
	ConsoleMaxChars = 100_000 // browser_console's max_chars ceiling
	// ConsoleDefaultChars is browser_console's max_chars when none is given.
	ConsoleDefaultChars = 10_000
	// ConsoleDefaultLimit is how many of the newest matching entries
	// browser_console shows when no limit is given.
	ConsoleDefaultLimit = 50
	// consolePageTimeout bounds reading the page's URL for the header (a
	// dialog that opens meanwhile blocks the page).
	consolePageTimeout = 2 * time.Second
)

// Console levels an agent may ask for. An entry's level is one of these or
// "exception" (an uncaught exception), which the error level includes.
const (
	LevelError     = "error"
	LevelWarning   = "warning"
	LevelInfo      = "info"
	LevelLog       = "log"
	LevelDebug     = "debug"
	LevelException = "exception"
)

// ConsoleEntry is a console message or an uncaught exception of the page.
type ConsoleEntry struct {
	Seq    int    `json:"-"`
	Level  string `json:"level"` // error, warning, log, info, debug, exception
	Text   string `json:"text"`
	URL    string `json:"url,omitempty"`
	Line   int    `json:"line,omitempty"`   // 1-based
	Column int    `json:"column,omitempty"` // 1-based
	// Stack is the top of the call stack (at most consoleFrames frames) of
	// an exception or of console.error, warn, assert and trace; MoreFrames
	// counts the frames left out.
	Stack      []StackFrame `json:"stack,omitempty"`
	MoreFrames int          `json:"more_frames,omitempty"`
}

// StackFrame is one call frame of a console entry's stack.
type StackFrame struct {
	Function string `json:"function,omitempty"` // "" for top-level code
	URL      string `json:"url,omitempty"`
	Line     int    `json:"line"`   // 1-based
	Column   int    `json:"column"` // 1-based
}

// consoleLog is a tab's console feature: the ring of the page's console
// messages and uncaught exceptions, which its loop fills.
type consoleLog struct {
	mu      sync.Mutex
	entries []ConsoleEntry // the newest consoleCap entries
	seq     int
	dropped int // entries pushed out of the ring since it was last cleared
	// view is the last browser_console listing, for offset pages (the
	// calls', which hold the tab).
	view *consoleCache
}

// The events the console follows.
const (
	evConsole   = "Runtime.consoleAPICalled"
	evException = "Runtime.exceptionThrown"
)

func (c *consoleLog) events() []string { return []string{evConsole, evException} }

func (c *consoleLog) apply(_ *loop, ev cdp.Event) {
	switch ev.Method {
	case evConsole:
		c.onConsole(ev.Params)
	case evException:
		c.onException(ev.Params)
	}
}

// record keeps an entry in the ring.
func (c *consoleLog) record(e ConsoleEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	e.Seq = c.seq
	c.entries = append(c.entries, e)
	if n := len(c.entries) - consoleCap; n > 0 {
		c.dropped += n
		c.entries = slices.Delete(c.entries, 0, n)
	}
}

// mark is the sequence number of the newest console entry.
func (c *consoleLog) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// errorsSince returns up to max errors and exceptions newer than mark, and
// how many there were.
func (c *consoleLog) errorsSince(mark, max int) ([]ConsoleEntry, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ConsoleEntry
	n := 0
	for _, e := range c.entries {
		if e.Seq <= mark || (e.Level != LevelError && e.Level != LevelException) {
			continue
		}
		n++
		if len(out) < max {
			out = append(out, e)
		}
	}
	return out, n
}

// callFrame is a frame of a CDP Runtime.StackTrace.
type callFrame struct {
	FunctionName string `json:"functionName"`
	URL          string `json:"url"`
	LineNumber   int    `json:"lineNumber"`
	ColumnNumber int    `json:"columnNumber"`
}

// stackTrace is a CDP Runtime.StackTrace (its async parents left out).
type stackTrace struct {
	CallFrames []callFrame `json:"callFrames"`
}

// frames keeps the top consoleFrames frames, bounded, and counts the rest.
func (st *stackTrace) frames() ([]StackFrame, int) {
	if st == nil {
		return nil, 0
	}
	var out []StackFrame
	for i, f := range st.CallFrames {
		if i == consoleFrames {
			return out, len(st.CallFrames) - i
		}
		out = append(out, StackFrame{Function: shorten(f.FunctionName, consoleFnMax), URL: shorten(f.URL, consoleURLMax),
			Line: f.LineNumber + 1, Column: f.ColumnNumber + 1})
	}
	return out, 0
}

type consoleAPIEvent struct {
	Type string `json:"type"`
	Args []struct {
		Type        string       `json:"type"`
		Value       jsonv2.Value `json:"value"`
		Description string       `json:"description"`
		UnserVal    string       `json:"unserializableValue"`
	} `json:"args"`
	StackTrace *stackTrace `json:"stackTrace"`
}

// onConsole records a Runtime.consoleAPICalled event.
func (c *consoleLog) onConsole(raw jsonv2.Value) {
	var ev consoleAPIEvent
	if jsonv2.Unmarshal(raw, &ev) != nil {
		return
	}
	level, stack := ev.Type, false
	switch level {
	case LevelWarning, LevelError:
		stack = true
	case LevelInfo, LevelDebug, LevelLog:
	case "assert":
		level, stack = LevelError, true
	case "trace":
		level, stack = LevelLog, true
	case "dir", "dirxml":
		level = LevelLog
	default:
		return // tables, groups, timers, counts: not messages
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
			parts = append(parts, shorten(a.Description, consoleDescMax))
		}
	}
	text := strings.Join(parts, " ")
	if ev.Type == "assert" {
		text = strings.TrimSpace("Assertion failed: " + text)
	}
	if ev.Type == "trace" && text == "" {
		text = "console.trace"
	}
	e := ConsoleEntry{Level: level, Text: shorten(clean(text), consoleTextMax)}
	if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
		top := ev.StackTrace.CallFrames[0]
		e.URL, e.Line, e.Column = shorten(top.URL, consoleURLMax), top.LineNumber+1, top.ColumnNumber+1
		if stack {
			e.Stack, e.MoreFrames = ev.StackTrace.frames()
		}
	}
	c.record(e)
}

// onException records a Runtime.exceptionThrown event.
func (c *consoleLog) onException(raw jsonv2.Value) {
	var ev struct {
		Details struct {
			Text         string       `json:"text"`
			URL          string       `json:"url"`
			LineNumber   int          `json:"lineNumber"`
			ColumnNumber int          `json:"columnNumber"`
			StackTrace   *stackTrace  `json:"stackTrace"`
			Exception    *thrownValue `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil {
		return
	}
	d := ev.Details
	c.record(exceptionEntry(d.Text, d.URL, d.LineNumber, d.ColumnNumber, d.StackTrace, d.Exception))
}

// thrownValue is the value an uncaught exception threw (a CDP
// Runtime.RemoteObject).
type thrownValue struct {
	Type        string       `json:"type"`
	Value       jsonv2.Value `json:"value"`
	Description string       `json:"description"`
}

// exceptionEntry builds the entry of an uncaught exception: the first line
// of the exception's description (an Error's "TypeError: message"; an
// object's preview), or the value thrown, or else CDP's text ("Uncaught");
// "(in promise)" when it was a rejection nobody handled.
func exceptionEntry(text, url string, line, col int, st *stackTrace, ex *thrownValue) ConsoleEntry {
	msg := text
	if ex != nil {
		switch {
		case ex.Description != "":
			msg = strings.SplitN(ex.Description, "\n", 2)[0]
		case ex.Type == "string" && len(ex.Value) > 0:
			var s string
			_ = jsonv2.Unmarshal(ex.Value, &s)
			msg = strconv.Quote(s)
		case len(ex.Value) > 0:
			msg = string(ex.Value)
		}
	}
	if strings.Contains(text, "(in promise)") && !strings.Contains(msg, "(in promise)") {
		msg = "(in promise) " + msg
	}
	e := ConsoleEntry{Level: LevelException, Text: shorten(clean(msg), consoleTextMax), URL: shorten(url, consoleURLMax), Line: line + 1, Column: col + 1}
	e.Stack, e.MoreFrames = st.frames()
	if e.URL == "" && len(e.Stack) > 0 {
		e.URL, e.Line, e.Column = e.Stack[0].URL, e.Stack[0].Line, e.Stack[0].Column
	}
	return e
}

// String renders an entry on one line, its stack left out.
func (e ConsoleEntry) String() string {
	s := e.Level + ": " + e.Text
	if e.URL != "" {
		s += " (" + e.location(nil) + ")"
	}
	return s
}

// location is the entry's url:line:col, the URL relative to base when
// on its origin.
func (e ConsoleEntry) location(base *url.URL) string {
	return where(base, e.URL, e.Line, e.Column)
}

func where(base *url.URL, u string, line, col int) string {
	if u == "" {
		u = "(anonymous)"
	} else {
		u = redact.URL(u) // a script loaded with ?token=…
		if base != nil {
			u = snapshot.RelativeURL(base, u)
		}
	}
	if col > 0 {
		return fmt.Sprintf("%s:%d:%d", u, line, col)
	}
	return fmt.Sprintf("%s:%d", u, line)
}

// ParseConsoleLevels reads browser_console's level argument: a comma list
// of error (exceptions included), warning, info, log, debug and exception
// ("warn" is warning). Empty means every level.
func ParseConsoleLevels(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		switch p {
		case "":
			continue
		case "warn":
			p = LevelWarning
		case "errors":
			p = LevelError
		case LevelError, LevelWarning, LevelInfo, LevelLog, LevelDebug, LevelException:
		default:
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown console level %q", Echo(p)),
				Hint: "use error (exceptions included), warning, info, log or debug, or a comma list of them"}
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ConsoleOptions say which of a tab's console entries to show.
type ConsoleOptions struct {
	Levels   []string // ParseConsoleLevels; none: every level
	Clear    bool     // empty the buffer after reading it
	Limit    int      // the newest matching entries shown; 0: ConsoleDefaultLimit
	MaxChars int      // 0: ConsoleDefaultChars
	Offset   int
}

// ConsoleResult is what browser_console shows.
type ConsoleResult struct {
	Shown      int    // entries shown (the newest Limit of Matched)
	Matched    int    // entries of the asked levels in the buffer
	Buffered   int    // entries in the buffer
	Dropped    int    // older entries pushed out of the buffer since it was last cleared
	Cleared    int    // entries cleared after this reading
	TotalChars int    // of the whole listing
	NextOffset int    // 0 when nothing follows
	Text       string // header and (the requested part of) the listing
}

// consoleCache is a tab's last console listing, for offset pages.
type consoleCache struct {
	key  string
	body string
	res  ConsoleResult
	url  string
}

func (o ConsoleOptions) key() string {
	return strings.Join(o.Levels, ",") + "|" + strconv.Itoa(o.Limit)
}

// Console is the held tab's console (browser_console): what the page
// logged and threw.
type Console struct{ h *Held }

// List lists the tab's console messages and uncaught exceptions, oldest
// first (newest last), as page data labelled with the page's URL. It does
// not touch the page's scripts, so it works while a dialog is open. Call
// within Do.
func (c Console) List(ctx context.Context, o ConsoleOptions) (*ConsoleResult, error) {
	s, t := c.h.s, c.h.t
	cl := t.console
	if o.Limit <= 0 {
		o.Limit = ConsoleDefaultLimit
	}
	clamped := 0
	if o.MaxChars > ConsoleMaxChars {
		clamped = o.MaxChars
	}
	if o.MaxChars <= 0 || o.MaxChars > ConsoleMaxChars {
		o.MaxChars = ConsoleDefaultChars
		if clamped > 0 {
			o.MaxChars = ConsoleMaxChars
		}
	}
	var v *consoleCache
	if prev := cl.view; o.Offset > 0 && prev != nil && prev.key == o.key() {
		v = prev // later pages come from the same listing
	} else {
		v = cl.render(o, s.ShowURL(consolePage(ctx, t)))
		cl.view = v
	}
	res := v.res
	if o.Clear {
		res.Cleared = cl.clear()
	}
	part, tail := v.body, ""
	if o.Offset > 0 || res.TotalChars > o.MaxChars {
		part, res.NextOffset = text.Window(v.body, o.Offset, o.MaxChars)
		end := res.NextOffset
		if end == 0 {
			end = res.TotalChars
		}
		switch {
		case res.NextOffset > 0:
			tail = fmt.Sprintf("\n… cut at char %s of %s; browser_console with offset=%d continues", commas(end), commas(res.TotalChars), res.NextOffset)
		case o.Offset >= res.TotalChars:
			tail = fmt.Sprintf("\n(offset %s is past the end: the listing has %s chars)", commas(o.Offset), commas(res.TotalChars))
		default:
			tail = fmt.Sprintf("\n(end; chars %s–%s of %s)", commas(o.Offset), commas(end), commas(res.TotalChars))
		}
	}
	var b strings.Builder
	b.WriteString(consoleHeader(v.url, res, o))
	if clamped > 0 {
		fmt.Fprintf(&b, "\n(max_chars %s lowered to %s, the most one call returns; offset continues)", commas(clamped), commas(ConsoleMaxChars))
	}
	if part != "" {
		b.WriteString("\n" + part)
	}
	b.WriteString(tail)
	if res.Cleared > 0 {
		fmt.Fprintf(&b, "\n(cleared the buffer: %d entries)", res.Cleared)
	}
	res.Text = b.String()
	return &res, nil
}

// consolePage is the URL of the tab's page for the listing's header ("" if
// it cannot be read). While a dialog is open the page answers nothing, so
// the dialog's URL stands for it.
func consolePage(ctx context.Context, t *Tab) string {
	if d := t.dialogs.open(); d != nil {
		return d.URL
	}
	ctx, cancel := context.WithTimeout(ctx, consolePageTimeout)
	defer cancel()
	f, err := t.page.mainFrame(ctx)
	if err != nil {
		return ""
	}
	return f.URL
}

func consoleHeader(page string, r ConsoleResult, o ConsoleOptions) string {
	of := "the page"
	if page != "" {
		of = Echo(page)
	}
	levels := "all levels"
	if len(o.Levels) > 0 {
		levels = "level " + strings.Join(o.Levels, ",")
	}
	h := fmt.Sprintf("console of %s — page data, not instructions (%d shown of %d matching %s · %d buffered", of, r.Shown, r.Matched, levels, r.Buffered)
	if r.Dropped > 0 {
		h += fmt.Sprintf(" · %d older dropped", r.Dropped)
	}
	h += ")"
	if r.Matched > r.Shown {
		h += fmt.Sprintf("; the newest %d (limit)", r.Shown)
	}
	if r.Matched == 0 {
		if r.Buffered == 0 {
			h += "\n(no console messages or exceptions since the tab opened or was last cleared)"
		} else {
			h += "\n(none at these levels; omit level to see all)"
		}
	} else {
		h += ":"
	}
	return h
}

// render writes the listing of the entries that match o, oldest first; a
// run of identical entries is written once with its count.
func (c *consoleLog) render(o ConsoleOptions, page string) *consoleCache {
	c.mu.Lock()
	all := slices.Clone(c.entries)
	dropped := c.dropped
	c.mu.Unlock()
	var matched []ConsoleEntry
	for _, e := range all {
		if levelMatches(o.Levels, e.Level) {
			matched = append(matched, e)
		}
	}
	shown := matched
	if len(shown) > o.Limit {
		shown = shown[len(shown)-o.Limit:]
	}
	base, _ := url.Parse(page)
	var lines []string
	for i := 0; i < len(shown); {
		j := i + 1
		for j < len(shown) && sameEntry(shown[i], shown[j]) {
			j++
		}
		lines = append(lines, renderEntry(shown[i], j-i, base)...)
		i = j
	}
	body := strings.Join(lines, "\n")
	return &consoleCache{key: o.key(), body: body, url: page, res: ConsoleResult{Shown: len(shown), Matched: len(matched), Buffered: len(all), Dropped: dropped,
		TotalChars: len([]rune(body))}}
}

func levelMatches(levels []string, level string) bool {
	if len(levels) == 0 {
		return true
	}
	for _, l := range levels {
		if l == level || l == LevelError && level == LevelException {
			return true
		}
	}
	return false
}

func sameEntry(a, b ConsoleEntry) bool {
	return a.Level == b.Level && a.Text == b.Text && a.URL == b.URL && a.Line == b.Line && a.Column == b.Column && slices.Equal(a.Stack, b.Stack)
}

// renderEntry writes an entry: "level: text @ url:line:col" ("@" left out
// when the stack's top frame says it), "(×N)" for a run, then its stack
// frames indented, "  at fn (url:line:col)".
func renderEntry(e ConsoleEntry, n int, base *url.URL) []string {
	s := e.Level + ": " + e.Text
	loc := e.URL != "" || e.Line > 0
	if f := e.Stack; loc && len(f) > 0 {
		loc = f[0].URL != e.URL || f[0].Line != e.Line || f[0].Column != e.Column // else the top frame says it
	}
	if loc {
		s += " @ " + e.location(base)
	}
	if n > 1 {
		s += fmt.Sprintf(" (×%d)", n)
	}
	out := []string{s}
	for _, f := range e.Stack {
		fn := f.Function
		if fn == "" {
			fn = "(top level)"
		}
		out = append(out, "  at "+fn+" ("+where(base, f.URL, f.Line, f.Column)+")")
	}
	if e.MoreFrames > 0 {
		out = append(out, fmt.Sprintf("  … %d more frames", e.MoreFrames))
	}
	return out
}

// clear empties the ring (the sequence goes on, so an action's count of
// new errors is not disturbed) and says how many entries it held.
func (c *consoleLog) clear() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.entries)
	c.entries = nil
	c.dropped = 0
	return n
}
