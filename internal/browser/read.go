package browser

import (
	"context"
	_ "embed"
	"fmt"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"github.com/webpilot-mcp/webpilot/internal/text"
	"strings"
	"unicode/utf8"
)

// readJS is browser_read's page side: a function (root, options) run in
// the walker's world of the target's frame.
//
//go:embed read.js
var readJS string

// What browser_read returns.
const (
	ReadText      = "text"       // visible text (innerText)
	ReadMarkdown  = "markdown"   // the target or page as markdown
	ReadMain      = "main"       // the page's main content as clean markdown
	ReadHTML      = "html"       // the document's, or the target's inner, HTML
	ReadOuterHTML = "outer_html" // the target's outer HTML
	ReadAttribute = "attribute"  // one attribute of the target
	ReadValue     = "value"      // a form control's value
	ReadTitle     = "title"      // the document's title
	ReadURL       = "url"        // the document's URL
)

// ReadKinds are the values of ReadOptions.What, in the order tools list
// them.
var ReadKinds = []string{ReadText, ReadMarkdown, ReadMain, ReadHTML, ReadOuterHTML, ReadAttribute, ReadValue, ReadTitle, ReadURL}

// MaxReadChars is the most one read returns: a larger max_chars (or none)
// is lowered to it, and the result says so.
const MaxReadChars = 100_000

// Lazy content: the retry scrolls down at most scrollSteps screens, pausing
// scrollPause between them (for intersection observers to fire), then waits
// for the page to settle (quiet.go's wait, at most 1.5 s).
const (
	scrollSteps = 10
	scrollPause = 120 // ms
)

// ReadOptions say what browser_read returns.
type ReadOptions struct {
	What      string  // one of ReadKinds; "" is text
	Attribute string  // the attribute's name, for ReadAttribute
	Target    Locator // an element; empty: the page (or Frame's document)
	MaxChars  int     // 0: MaxReadChars
	Offset    int     // continue a cut read at this character
	// ScrollRetry scrolls down to load lazy content and reads again once
	// when the target is missing or the result is empty.
	ScrollRetry bool
}

// ReadResult is what a read found.
type ReadResult struct {
	What       string
	Of         string // the target as named ("" for the page)
	Ref        string // the target's ref, when it has one
	URL        string // of the document read (a frame's for a frame)
	Title      string
	TotalChars int
	NextOffset int // 0 when nothing follows
	// Scrolled says what the scroll retry did ("" when it did not run).
	Scrolled string
	// Hint is set when the result is empty: what to try instead.
	Hint string
	// Text is the result as the agent reads it: a line naming what was
	// read and where from, then the content (the requested part of it).
	Text string
	// Content is the requested part of the content alone: what a flow's
	// save_as keeps.
	Content string
}

// readAnswer is what read.js answers.
type readAnswer struct {
	Text       *string  `json:"text"`
	URL        string   `json:"url"`
	Title      string   `json:"title"`
	How        string   `json:"how"`
	Missing    bool     `json:"missing"`
	Names      []string `json:"names"`
	Control    string   `json:"control"`
	NotControl string   `json:"notControl"`
	Cut        int      `json:"cut"`
	Scrolled   *struct {
		Steps  int    `json:"steps"`
		Y      int    `json:"y"`
		Height int    `json:"height"`
		Bottom bool   `json:"bottom"`
		Box    string `json:"box"`
	} `json:"scrolled"`
}

func (a *readAnswer) text() string {
	if a == nil || a.Text == nil {
		return ""
	}
	return *a.Text
}

// validate refuses options that cannot be read, before the page is
// touched.
func (o *ReadOptions) validate() error {
	if o.What == "" {
		o.What = ReadText
	}
	known := false
	for _, k := range ReadKinds {
		known = known || k == o.What
	}
	if !known {
		return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown what %q", Echo(o.What)),
			Hint: "use " + strings.Join(ReadKinds, ", "), Suggestions: ReadKinds}
	}
	if o.What == ReadAttribute && strings.TrimSpace(o.Attribute) == "" {
		return &Error{Code: CodeInvalidArgument, Message: "what=attribute needs attribute (its name)",
			Hint: `e.g. {"what":"attribute","attribute":"href","selector":"a.next"}`}
	}
	if o.What != ReadAttribute && o.Attribute != "" {
		return &Error{Code: CodeInvalidArgument, Message: "attribute is only for what=attribute",
			Hint: `use {"what":"attribute","attribute":"` + Echo(o.Attribute) + `"} to read it`}
	}
	// within alone names the element to read.
	if tg := o.Target; tg.Empty() && tg.Within != "" {
		if IsRef(tg.Within) {
			if tg.Frame != "" {
				return &Error{Code: CodeInvalidArgument, Message: "a ref needs no frame", Hint: "a ref already names one element in one frame"}
			}
			o.Target = Locator{Ref: tg.Within}
		} else {
			o.Target = Locator{Selector: tg.Within, Frame: tg.Frame}
		}
	}
	hasTarget := !o.Target.Empty()
	switch {
	case (o.What == ReadTitle || o.What == ReadURL) && hasTarget:
		return &Error{Code: CodeInvalidArgument, Message: o.What + " is the document's: it takes no element",
			Hint: "omit ref, selector, text and role (frame reads a frame's " + o.What + ")"}
	case o.What == ReadValue && !hasTarget:
		return &Error{Code: CodeInvalidArgument, Message: "what=value needs the form control: ref, selector, text or role",
			Hint: `e.g. {"what":"value","selector":"#email"}; browser_snapshot shows values as = "…" too`}
	}
	if hasTarget {
		return o.Target.validate()
	}
	return nil
}

// reader is a call's reading of a tab of a held session: a snapshot
// (render, page), a read, a collect, a script's evaluation, a wait for
// conditions and a fetch of the page's files (download). It owns no
// state: what a read caches is the tab's; the session gives it its policy
// (redaction, limits) and snapshot ids.
type reader struct{ s *Session }

// Read returns the text, markdown, main content, HTML, an attribute or a
// value of the target (or of the page), or the page's title or URL, in
// pages of MaxChars. A target that is missing, or an empty result, is
// tried once more after scrolling down to load lazy content (ScrollRetry).
func (h *Held) Read(ctx context.Context, o ReadOptions) (*ReadResult, error) {
	s, t := h.s, h.t
	if err := o.validate(); err != nil {
		return nil, err
	}
	return untilAnswered(ctx, t, func(ctx context.Context) (*ReadResult, error) {
		defer t.releaseObjects(ctx)
		ictx, cancel := innerContext(ctx)
		defer cancel()
		return reader{s}.read(ictx, t, o)
	})
}

// retries says an empty result of this kind is worth a scroll: lazy content
// fills elements and sets attributes (src of lazy images), nothing else.
func retries(what string) bool {
	switch what {
	case ReadText, ReadMarkdown, ReadMain, ReadHTML, ReadOuterHTML, ReadAttribute:
		return true
	}
	return false
}

func (rd reader) read(ctx context.Context, t *Tab, o ReadOptions) (*ReadResult, error) {
	s := rd.s
	ans, el, err := t.view.readOnce(ctx, o)
	missing := err != nil && isNotFound(err)
	empty := err == nil && ans.text() == "" && retries(o.What)
	if err != nil && !missing {
		return nil, err
	}
	res := &ReadResult{What: o.What}
	if o.ScrollRetry && (missing || empty) {
		w, werr := t.finder().scrollWorld(ctx, o.Target, el)
		if werr != nil {
			return nil, werr
		}
		where, serr := t.view.scrollForLazy(ctx, w)
		if serr != nil {
			return nil, serr
		}
		ans2, el2, err2 := t.view.readOnce(ctx, o)
		switch {
		case err2 != nil && isNotFound(err2):
			we, _ := AsError(err2)
			we.Message += " (also after scrolling to load lazy content)"
			we.Hint = "scrolled " + where + " and waited for the page to settle; it is not there. " + we.Hint
			var vis string
			if _, verr := w.eval(ctx, "document.visibilityState", &vis); verr == nil && vis == "hidden" {
				// A hidden tab draws no frames: observers that load
				// content on scrolling never fire there.
				we.Hint = "the tab is not shown in the browser (another tab is in front), and a page loads nothing on scrolling while it is hidden: lazy content comes once the tab is shown. " + we.Hint
			}
			return nil, we
		case err2 != nil:
			return nil, err2
		}
		ans, el = ans2, el2
		if ans.text() != "" {
			res.Scrolled = "scrolled " + where + " to load lazy content, then found it"
		} else {
			res.Scrolled = "scrolled " + where + " to load lazy content; still empty"
		}
	} else if missing {
		we, _ := AsError(err)
		we.Hint += "; lazy content may appear on scrolling: leave auto_scroll_retry on, or scroll first"
		return nil, we
	}
	if ans.NotControl != "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is a <%s>, not a form control: it has no value", o.Target.Describe(), ans.NotControl),
			Hint: "use what=text for an element's text, or target an input, select or textarea"}
	}
	res.URL, res.Title = ans.URL, ans.Title
	if !o.Target.Empty() {
		res.Of = o.Target.Describe()
		if el != nil {
			res.Ref = el.ref
		}
	}
	content := ans.text()
	if m := t.mask(); m != nil {
		content = m(content) // before the window cuts it
	}
	content = snapshot.MarkPageLines(content)
	if !s.pol.opts.NoRedact {
		content = redact.URLsIn(content)
		res.URL = redact.URL(res.URL)
	}
	if content == "" {
		res.Hint = emptyHint(o, ans)
	}
	if ans.Cut > 0 {
		res.Hint = strings.TrimSpace(res.Hint + fmt.Sprintf(" (the content was %s chars: only the first %s were read)", commas(ans.Cut), commas(len(content))))
	}
	res.Text = res.render(content, o)
	return res, nil
}

// isNotFound says err is TARGET_NOT_FOUND.
func isNotFound(err error) bool {
	we, ok := AsError(err)
	return ok && we.Code == CodeTargetNotFound
}

// readOnce reads once: locates the target (when there is one) and runs
// read.js on it, or on the document of the frame.
func (v *pageView) readOnce(ctx context.Context, o ReadOptions) (*readAnswer, *element, error) {
	t := v.t
	opts := map[string]any{"what": o.What, "attribute": o.Attribute}
	var ans readAnswer
	if o.Target.Empty() {
		w, _, err := t.finder().targetWorld(ctx, o.Target.Frame)
		if err != nil {
			return nil, nil, err
		}
		if _, err := w.eval(ctx, "("+readJS+")(null, "+mustJSON(opts)+")", &ans); err != nil {
			return nil, nil, backendError("read the page", err)
		}
		return &ans, nil, nil
	}
	el, err := t.finder().locate(ctx, o.Target)
	if err != nil {
		return nil, nil, err
	}
	if err := t.callEl(ctx, el, "function(o){ return ("+readJS+")(this, o) }", &ans, opts); err != nil {
		if isNodeGone(err) {
			return nil, nil, &Error{Code: CodeTargetNotFound, Message: o.Target.Describe() + " left the page while it was read",
				Hint: "the page is changing; read again, or take a browser_snapshot", Err: err}
		}
		return nil, nil, backendError("read "+o.Target.Describe(), err)
	}
	return &ans, el, nil
}

// scrollWorld is the frame the scroll retry scrolls: the found element's,
// else that of the frame the target is in, else the main frame.
func (find finder) scrollWorld(ctx context.Context, tg Locator, el *element) (frameWorld, error) {
	if el != nil {
		return el.world, nil
	}
	if tg.Frame != "" {
		if w, _, err := find.targetWorld(ctx, tg.Frame); err == nil {
			return w, nil
		}
	}
	w, _, err := find.targetWorld(ctx, "")
	return w, err
}

// scrollForLazy scrolls frame w down in steps (to the bottom, at most
// scrollSteps screens) so that lazy content loads, then waits for what that
// set off (requests, DOM changes; bounded). It returns where it scrolled,
// for the result; the page stays scrolled.
func (v *pageView) scrollForLazy(ctx context.Context, w frameWorld) (string, error) {
	t := v.t
	mainID, err := t.page.mainFrameID(ctx)
	if err != nil {
		return "", backendError("read the page", err)
	}
	q := t.watchQuiet(ctx, mainID)
	var ans readAnswer
	opts := map[string]any{"what": ReadTitle, "scroll": map[string]int{"steps": scrollSteps, "pause": scrollPause}}
	if _, err := w.eval(ctx, "("+readJS+")(null, "+mustJSON(opts)+")", &ans); err != nil {
		return "", backendError("scroll the page", err)
	}
	q.inputDone()
	q.wait(ctx)
	sc := ans.Scrolled
	if sc == nil {
		return "down", nil
	}
	what := "the page"
	if sc.Box != "" {
		what = "the scroll container " + sc.Box
	}
	if w.frameID != mainID {
		what += " of the frame"
	}
	where := fmt.Sprintf("%s down %d %s to y=%s of %s px", what, sc.Steps, plural(sc.Steps, "screen", "screens"), commas(sc.Y), commas(sc.Height))
	switch {
	case sc.Steps == 0:
		where = what + " (already at its bottom, y=" + commas(sc.Y) + " px)"
	case sc.Bottom:
		where += " (the bottom)"
	default:
		where += " (not the bottom: stopped after " + fmt.Sprint(scrollSteps) + " screens)"
	}
	return where, nil
}

// emptyHint says what to try when a read found nothing.
func emptyHint(o ReadOptions, ans *readAnswer) string {
	thing := "the element"
	if o.Target.Empty() {
		thing = "the page"
	}
	switch o.What {
	case ReadText, ReadMarkdown:
		return thing + " has no visible text; try what=html, or a different target"
	case ReadMain:
		return "no main content found; try what=markdown or what=text"
	case ReadHTML:
		return thing + " is empty; try what=outer_html"
	case ReadAttribute:
		if ans.Missing {
			names := "none"
			if len(ans.Names) > 0 {
				names = strings.Join(ans.Names, ", ")
			}
			return fmt.Sprintf("%s has no attribute %q; its attributes: %s", thing, Echo(o.Attribute), names)
		}
		return fmt.Sprintf("attribute %q is set and empty", Echo(o.Attribute))
	case ReadValue:
		if ans.Control != "" {
			return "the " + ans.Control + " is empty"
		}
		return "the control is empty"
	case ReadTitle:
		return "the document has no title"
	}
	return ""
}

// render writes the result: a first line naming what was read, from where
// and how long it is, then the content's requested part, then how to go on.
func (r *ReadResult) render(content string, o ReadOptions) string {
	max := o.MaxChars
	clamped := 0
	if max > MaxReadChars {
		clamped = max
	}
	if max <= 0 || max > MaxReadChars {
		max = MaxReadChars
	}
	r.TotalChars = utf8.RuneCountInString(content)
	part, tail := content, ""
	if o.Offset > 0 || r.TotalChars > max {
		part, r.NextOffset = text.Window(content, o.Offset, max)
		part = strings.TrimRight(part, "\n")
		end := r.NextOffset
		if end == 0 {
			end = r.TotalChars
		}
		switch {
		case r.NextOffset > 0:
			tail = fmt.Sprintf("\n… cut at char %s of %s; browser_read with offset=%d continues", commas(end), commas(r.TotalChars), r.NextOffset)
		case o.Offset >= r.TotalChars:
			tail = fmt.Sprintf("\n(offset %s is past the end: the content has %s chars)", commas(o.Offset), commas(r.TotalChars))
		default:
			tail = fmt.Sprintf("\n(end; chars %s–%s of %s)", commas(o.Offset), commas(end), commas(r.TotalChars))
		}
	}
	r.Content = part
	var b strings.Builder
	b.WriteString(r.What)
	if r.What == ReadAttribute {
		b.WriteString(" " + quote(Echo(o.Attribute)))
	}
	b.WriteString(" of ")
	if r.Of != "" {
		b.WriteString(Echo(r.Of))
		if r.Ref != "" && o.Target.Ref == "" {
			b.WriteString(" (" + r.Ref + ")")
		}
		b.WriteString(" at ")
	}
	fmt.Fprintf(&b, "%s (%s chars):", Echo(r.URL), commas(r.TotalChars))
	if clamped > 0 {
		fmt.Fprintf(&b, "\n(max_chars %s lowered to %s, the most one read returns; offset continues)", commas(clamped), commas(MaxReadChars))
	}
	if r.Scrolled != "" {
		b.WriteString("\n(" + r.Scrolled + ")")
	}
	if part != "" {
		b.WriteString("\n" + part)
	}
	b.WriteString(tail)
	if r.Hint != "" {
		b.WriteString("\n(" + r.Hint + ")")
	}
	return b.String()
}
