package browser

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// collectJS is browser_collect's page side: a function called in the
// walker's isolated world (this = the within element, if any) with one
// argument, answering one JSON string.
//
//go:embed collect.js
var collectJS string

// Limits of browser_collect.
const (
	DefaultCollectLimit = 50    // items returned when no limit is given
	MaxCollectLimit     = 1_000 // the most items one call returns
	// collectScan is how many items the page reads at most when filters
	// (exclude, deduplicate_by) may drop some of them.
	collectScan = 5_000
	// maxProposals is how many item selectors discover proposes.
	maxProposals = 5
)

// Scrolling bounds.
const (
	// scrollStepWait is how long one scroll waits for new items.
	scrollStepWait = 2500 * time.Millisecond
	// scrollBudget bounds the time all scrolls of one call take.
	scrollBudget = 15 * time.Second
	// scrollTries is how many scrolls in a row may bring nothing new
	// before the list is taken to be at its end.
	scrollTries = 2
	// maxScrolls bounds the scrolls of one call.
	maxScrolls = 60
)

// Why scrolling stopped.
const (
	StopLimit    = "limit"     // enough items
	StopNoGrowth = "no_growth" // scrolls brought no new items
	StopTime     = "time"      // the time bound (15 s, or the call's)
	StopMax      = "max_scrolls"
)

// CollectField is one value read from each item.
type CollectField struct {
	Name     string
	Selector string // CSS inside the item; "" is the item itself
	// Property is text (default), href, src (absolute URLs), value, html
	// or attr:NAME.
	Property string
}

// CollectOptions say what browser_collect reads.
type CollectOptions struct {
	Selector string         // CSS of the items
	Fields   []CollectField // none: each item's text as "text"
	Limit    int            // default DefaultCollectLimit
	// DeduplicateBy is a field: an item whose value of it repeats an
	// earlier item's is dropped (empty values are never duplicates).
	DeduplicateBy string
	// Exclude maps a field to a regular expression (RE2; /re/i accepted):
	// an item whose value matches is dropped. Applied before
	// DeduplicateBy.
	Exclude map[string]string
	// FallbackText keeps an item whose fields are all empty, as its text
	// in a "text" key; without it such an item is dropped (and counted).
	FallbackText bool
	// Scroll loads more items (infinite lists) while fewer than Limit are
	// there.
	Scroll bool
	// Discover proposes item selectors and fields instead of collecting.
	Discover bool
	Within   string // a ref or selector the items are looked for in
	Frame    string // an iframe (ref or selector) whose document is read
	MaxChars int    // page size of the text (0: MaxSnapshotChars)
	Offset   int    // continue a cut result here
}

// Collected is what browser_collect read.
type Collected struct {
	URL   string
	shown string              // URL as the agent is shown it (Session.ShowURL)
	Names []string            // the keys of the items, in order
	urls  map[string]bool     // the fields that hold URLs (href, src): written relative to the page
	Items []map[string]string // kept items (fallback items have only "text")
	// Matched is how many elements the selector matched (at the end).
	Matched      int
	Hidden       int            // matched elements not rendered, skipped
	Empty        int            // items whose fields were all empty, dropped
	Excluded     map[string]int // dropped by exclude, per field
	Deduplicated int            // dropped by deduplicate_by
	Scrolls      int            // scrolls done (Scroll)
	StopReason   string         // why scrolling stopped (Scroll)
	Stopped      bool           // the page's reading ran out of its time
	Proposals    []Proposal     // Discover
	Text         string         // header and (the requested page of) the body
	TotalChars   int
	NextOffset   int
	doc          string // the token of the document read (collect.js)
}

// Proposal is one item selector discover found.
type Proposal struct {
	Selector string          `json:"selector"`
	Count    int             `json:"count"`
	Fields   []ProposalField `json:"fields"`
	Sample   [][]string      `json:"sample"`
	Score    float64         `json:"score"`
	Chrome   bool            `json:"chrome"` // in page chrome or a menu
}

// ProposalField is a field of a proposal, as browser_collect takes it.
type ProposalField struct {
	Name     string `json:"name"`
	Selector string `json:"selector"`
	Property string `json:"property,omitempty"`
}

// collectPage is the page side's answer.
type collectPage struct {
	Error   string     `json:"error"`
	Message string     `json:"message"`
	URL     string     `json:"url"`
	Title   string     `json:"title"`
	Count   int        `json:"count"`
	Hidden  int        `json:"hidden"`
	Empty   int        `json:"empty"`
	Items   [][]string `json:"items"`
	Stopped bool       `json:"stopped"`
	Moved   bool       `json:"moved"`
	Doc     string     `json:"doc"`
	Next    int        `json:"next"`
	Near    []struct {
		Selector string `json:"selector"`
		Count    int    `json:"count"`
	} `json:"near"`
	Proposals []Proposal `json:"proposals"`
}

// validFieldName says whether a field's name is 1 to 40 letters, digits
// (any script) and _ . - (what `^[\p{L}\p{N}_.-]{1,40}$` says, without the
// megabyte and milliseconds that compiling those classes takes at start).
func validFieldName(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' && r != '.' && r != '-' {
			return false // invalid UTF-8 reads as U+FFFD, which is neither
		}
		n++
	}
	return n >= 1 && n <= 40
}

// check refuses options that contradict each other or cannot work, before
// the page is touched; it returns the fields to read (the default "text"
// when none) and the compiled exclude patterns.
func (o *CollectOptions) check() ([]CollectField, map[string]*regexp.Regexp, error) {
	bad := func(msg, hint string) error { return &Error{Code: CodeInvalidArgument, Message: msg, Hint: hint} }
	if o.Discover {
		if o.Selector != "" || len(o.Fields) > 0 || len(o.Exclude) > 0 || o.DeduplicateBy != "" || o.Scroll {
			return nil, nil, bad("discover takes no selector, fields, exclude, deduplicate_by or scroll",
				`call {"discover": true} first, then collect with the selector and fields it proposes`)
		}
		return nil, nil, nil
	}
	if strings.TrimSpace(o.Selector) == "" {
		return nil, nil, bad("selector is empty: give the CSS selector of the items",
			`e.g. {"selector": ".product", "fields": [{"name": "title", "selector": "h3"}]}; or {"discover": true} to have selectors proposed`)
	}
	if o.Limit < 0 || o.Limit > MaxCollectLimit {
		return nil, nil, bad(fmt.Sprintf("limit %d is out of range 1–%d", o.Limit, MaxCollectLimit), "omit limit for 50 items")
	}
	fields := o.Fields
	if len(fields) == 0 {
		fields = []CollectField{{Name: "text"}}
	}
	seen := map[string]bool{}
	for i, f := range fields {
		if !validFieldName(f.Name) {
			return nil, nil, bad(fmt.Sprintf("fields[%d].name %q is not a field name: use 1 to 40 letters, digits, _ . -", i, Echo(f.Name)), `e.g. "title", "price", "url"`)
		}
		if seen[f.Name] {
			return nil, nil, bad(fmt.Sprintf("two fields are named %q", f.Name), "give each field its own name")
		}
		seen[f.Name] = true
		switch p := f.Property; {
		case p == "", p == "text", p == "href", p == "src", p == "value", p == "html":
		case strings.HasPrefix(p, "attr:") && len(p) > 5:
		default:
			return nil, nil, bad(fmt.Sprintf("fields[%d].property %q is unknown", i, Echo(p)), "use text (default), href, src, value, html or attr:NAME (e.g. attr:data-id)")
		}
	}
	names := func() string {
		var ns []string
		for _, f := range fields {
			ns = append(ns, f.Name)
		}
		return strings.Join(ns, ", ")
	}
	if o.DeduplicateBy != "" && !seen[o.DeduplicateBy] {
		return nil, nil, bad(fmt.Sprintf("deduplicate_by %q is not one of the fields (%s)", Echo(o.DeduplicateBy), names()), "name a field, e.g. the url")
	}
	excl := map[string]*regexp.Regexp{}
	for name, pat := range o.Exclude {
		if !seen[name] {
			return nil, nil, bad(fmt.Sprintf("exclude names %q, which is not one of the fields (%s)", Echo(name), names()), `exclude maps a field to a regular expression, e.g. {"badge": "(?i)sponsored"}`)
		}
		re, err := compileExclude(pat)
		if err != nil {
			return nil, nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("exclude %q: %s is not a valid regular expression: %v", name, Echo(pat), err),
				Hint: "use RE2 syntax, e.g. (?i)sponsored or ^ad: ; /re/i is accepted too"}
		}
		excl[name] = re
	}
	return fields, excl, nil
}

// compileExclude compiles an exclude pattern: RE2, or /re/flags as
// elsewhere (goPattern).
func compileExclude(pat string) (*regexp.Regexp, error) {
	if re, ok, err := goPattern(pat); ok {
		return re, err
	}
	return regexp.Compile(pat)
}

// Collect reads repeated items of the tab's page (or proposes how to, with
// Discover) and renders them: a header with a columns line, then one JSON array per
// item.
func (h *Held) Collect(ctx context.Context, o CollectOptions) (*Collected, error) {
	s, t := h.s, h.t
	fields, excl, err := o.check()
	if err != nil {
		return nil, err
	}
	if o.Limit == 0 {
		o.Limit = DefaultCollectLimit
	}
	if o.MaxChars <= 0 || o.MaxChars > MaxSnapshotChars {
		o.MaxChars = MaxSnapshotChars
	}
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	key := collectKey(o)
	defer t.releaseObjects(ctx)
	dctx, stop := t.dialogs.until(ctx)
	defer stop()
	ictx, cancel := innerContext(dctx)
	defer cancel()
	c, err := reader{s}.collect(ictx, t, o, key, fields, excl)
	if dctx.Err() != nil && t.dialogs.open() != nil {
		return nil, t.dialogs.err()
	}
	if err != nil {
		return nil, err
	}
	c.shown = s.ShowURL(c.URL)
	t.view.collected = &collectEntry{key: key, c: *c}
	c.page(o)
	return c, nil
}

func (rd reader) collect(ctx context.Context, t *Tab, o CollectOptions, key string, fields []CollectField, excl map[string]*regexp.Regexp) (*Collected, error) {
	w, root, err := t.finder().collectRoot(ctx, o.Within, o.Frame)
	if err != nil {
		return nil, err
	}
	// offset pages on the last result when it was read with the same
	// arguments from the document that is there now.
	if e := t.view.collected; o.Offset > 0 && e != nil && e.key == key {
		if p, err := w.collectCall(ctx, root, map[string]any{"op": "doc"}); err == nil && p.Doc != "" && p.Doc == e.c.doc {
			c := e.c
			return &c, nil
		}
	}
	t.view.collected = nil
	run := func(ctx context.Context, args map[string]any) (*collectPage, error) {
		args["budget"] = walkBudget(ctx).Milliseconds()
		p, err := w.collectCall(ctx, root, args)
		if err != nil {
			return nil, walkError(ctx, err)
		}
		return p, nil
	}
	if o.Discover {
		p, err := run(ctx, map[string]any{"op": "discover", "want": maxProposals})
		if err != nil {
			return nil, err
		}
		return &Collected{URL: p.URL, Proposals: p.Proposals, doc: p.Doc}, nil
	}

	jsFields := make([]map[string]string, len(fields))
	for i, f := range fields {
		jsFields[i] = map[string]string{"name": f.Name, "selector": f.Selector, "property": f.Property}
	}
	var st readState
	c := &Collected{Names: make([]string, len(fields)), urls: map[string]bool{}}
	for i, f := range fields {
		c.Names[i] = f.Name
		if f.Property == "href" || f.Property == "src" {
			c.urls[f.Name] = true
		}
	}
	// read reads the items after those read so far: as many as the limit
	// still wants (more when filters may drop some).
	read := func() (*collectPage, error) {
		need := o.Limit - len(c.Items)
		if len(excl) > 0 || o.DeduplicateBy != "" {
			need = min(max(need*2, 20), collectScan)
		}
		p, err := run(ctx, map[string]any{"op": "collect", "selector": o.Selector, "fields": jsFields, "from": st.next, "need": need, "fallback": o.FallbackText})
		if err != nil {
			return nil, err
		}
		if p.Error != "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is not a valid CSS selector: %s", p.Error, p.Message),
				Hint: "use CSS syntax such as .product, ul.results > li, h3 a; or discover: true for proposals"}
		}
		st.add(p, t.mask())
		return p, nil
	}
	// fill reads on until the limit is reached or every match is read.
	fill := func() error {
		for {
			c.filter(&st, fields, excl, o)
			if len(c.Items) >= o.Limit || st.next >= st.count || st.stopped || len(st.raw) >= collectScan {
				return nil
			}
			before := st.next
			if _, err := read(); err != nil {
				return err
			}
			if st.next == before {
				return nil
			}
		}
	}
	p, err := read()
	if err != nil {
		return nil, err
	}
	// Items a page is still rendering are waited for a moment.
	for deadline := time.Now().Add(notFoundWait); p.Count == 0 && time.Now().Before(deadline) && ctx.Err() == nil; {
		sleep(ctx, int(pollInterval.Milliseconds()))
		if p, err = read(); err != nil {
			return nil, err
		}
	}
	if p.Count == 0 {
		return nil, t.view.noMatch(ctx, o, p.URL, run)
	}
	c.URL, c.doc = p.URL, p.Doc
	if err := fill(); err != nil {
		return nil, err
	}
	if o.Scroll {
		start := time.Now()
		noGrowth := 0
		for len(c.Items) < o.Limit && !st.stopped {
			if c.Scrolls >= maxScrolls {
				c.StopReason = StopMax
				break
			}
			wait := scrollStepWait
			if d, ok := ctx.Deadline(); time.Since(start)+wait > scrollBudget || ok && time.Until(d) < wait+time.Second {
				c.StopReason = StopTime
				break
			}
			sp, err := run(ctx, map[string]any{"op": "scroll", "selector": o.Selector, "wait": wait.Milliseconds(), "nudge": noGrowth > 0})
			if err != nil {
				return nil, err
			}
			c.Scrolls++
			if sp.Count <= st.count {
				if noGrowth++; noGrowth >= scrollTries {
					c.StopReason = StopNoGrowth
					break
				}
				continue
			}
			noGrowth = 0
			st.count = sp.Count
			if err := fill(); err != nil {
				return nil, err
			}
		}
		if c.StopReason == "" {
			c.StopReason = StopLimit
		}
	}
	return c, nil
}

// readState is what the page has given so far: items in order, from the
// first match up to next.
type readState struct {
	raw           [][]string
	next, count   int
	hidden, empty int
	stopped       bool
}

func (st *readState) add(p *collectPage, mask func(string) string) {
	if mask != nil {
		// Values are masked as they are read, before exclude and
		// deduplicate_by compare them: no answer may depend on a secret's
		// characters.
		for _, it := range p.Items {
			for i, v := range it {
				it[i] = mask(v)
			}
		}
	}
	st.raw = append(st.raw, p.Items...)
	st.next = max(st.next, p.Next)
	st.count = p.Count
	st.hidden += p.Hidden
	st.empty += p.Empty
	st.stopped = st.stopped || p.Stopped
}

// filter applies exclude, then deduplicate_by, then the limit to the items
// read so far.
func (c *Collected) filter(st *readState, fields []CollectField, excl map[string]*regexp.Regexp, o CollectOptions) {
	c.Matched, c.Hidden, c.Empty, c.Stopped = st.count, st.hidden, st.empty, st.stopped
	c.Items, c.Excluded, c.Deduplicated = nil, map[string]int{}, 0
	// Exclude patterns are tried in the fields' order, so that the counts
	// do not depend on a map's order.
	var exNames []string
	for _, f := range fields {
		if excl[f.Name] != nil {
			exNames = append(exNames, f.Name)
		}
	}
	seen := map[string]bool{}
items:
	for _, vs := range st.raw {
		if len(c.Items) >= o.Limit {
			break
		}
		item := map[string]string{}
		if len(vs) == len(fields)+1 {
			item["text"] = vs[len(fields)]
		} else {
			for i, f := range fields {
				if i < len(vs) {
					item[f.Name] = vs[i]
				}
			}
		}
		for _, name := range exNames {
			if v, ok := item[name]; ok && excl[name].MatchString(v) {
				c.Excluded[name]++
				continue items
			}
		}
		if o.DeduplicateBy != "" {
			if v := item[o.DeduplicateBy]; v != "" {
				if seen[v] {
					c.Deduplicated++
					continue
				}
				seen[v] = true
			}
		}
		c.Items = append(c.Items, item)
	}
}

// shownURL is the page's URL as the agent is shown it.
func (c *Collected) shownURL() string {
	if c.shown == "" {
		return redact.URL(c.URL)
	}
	return c.shown
}

// excludedTotal is how many items exclude dropped.
func (c *Collected) excludedTotal() int {
	n := 0
	for _, v := range c.Excluded {
		n += v
	}
	return n
}

// noMatch is the error of a selector that matches nothing: selectors near
// it and discover's best proposals as suggestions.
func (v *pageView) noMatch(ctx context.Context, o CollectOptions, url string, run func(context.Context, map[string]any) (*collectPage, error)) error {
	where := ""
	if o.Within != "" {
		where += " within " + Echo(o.Within)
	}
	if o.Frame != "" {
		where += " in frame " + Echo(o.Frame)
	}
	e := &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("no element matches %q%s on %s", Echo(o.Selector), where, Echo(url)),
		Hint:      `try {"discover": true} for the repeated items of this page, or a selector suggested here (with its match count)`,
		Diagnosis: map[string]any{"reason": "selector_no_match", "selector": Echo(o.Selector), "url": Echo(url)}}
	p, err := run(ctx, map[string]any{"op": "near", "selector": o.Selector, "want": 2})
	if err != nil {
		e.Suggestions = append(e.Suggestions, `{"discover": true}`)
		return e
	}
	for _, n := range p.Near {
		e.Suggestions = append(e.Suggestions, fmt.Sprintf("%s (%d elements)", n.Selector, n.Count))
	}
	for _, pr := range p.Proposals {
		e.Suggestions = append(e.Suggestions, fmt.Sprintf("discover proposes %s (%d items)", pr.Selector, pr.Count))
	}
	if len(p.Proposals) == 0 {
		e.Suggestions = append(e.Suggestions, `{"discover": true}`)
	}
	return e
}

// collectRoot is the world the items are read in (the main frame's, or
// frame's) and the within element, if any.
func (find finder) collectRoot(ctx context.Context, within, frame string) (frameWorld, runtime.RemoteObjectID, error) {
	w, f, err := find.targetWorld(ctx, frame)
	if err != nil || within == "" {
		return w, "", err
	}
	el, err := find.locateIn(ctx, w, f, within, "", "within")
	if err != nil {
		return frameWorld{}, "", err
	}
	return el.world, el.objectID, nil
}

// collectCall runs the page side of browser_collect in world w (with this
// = root when given) and decodes its answer.
func (w frameWorld) collectCall(ctx context.Context, root runtime.RemoteObjectID, args map[string]any) (*collectPage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("collect arguments: %w", err)
	}
	p := runtime.CallFunctionOnParams{FunctionDeclaration: collectJS, Arguments: []*runtime.CallArgument{{Value: raw}},
		ReturnByValue: new(true), AwaitPromise: new(true)}
	var res runtime.CallFunctionOnResult
	if root != "" {
		p.ObjectID = root
		res, err = cdproto.Call(ctx, w.sess, runtime.CallFunctionOn, p)
	} else {
		res, err = w.callFunction(ctx, p)
	}
	stopScript(ctx, w.sess, err)
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("collect: %s", exceptionText(res.ExceptionDetails))
	}
	var text string
	if res.Result == nil || json.Unmarshal(res.Result.Value, &text) != nil {
		return nil, fmt.Errorf("collect: the page answered no text")
	}
	var out collectPage
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	return &out, nil
}

// render writes the whole body: the items as JSON arrays, or the proposals.
func (c *Collected) render(o CollectOptions) (header, body string) {
	if o.Discover {
		return c.renderProposals()
	}
	// One JSON array per item under a columns line: the keys are not
	// repeated on every item, and URLs on the page's origin are written
	// from their path, as snapshots write them (tokens).
	cols := slices.Clone(c.Names)
	if !slices.Contains(cols, "text") && slices.ContainsFunc(c.Items, func(it map[string]string) bool { return it["text"] != "" }) {
		cols = append(cols, "text") // fallback items are their text
	}
	base, _ := url.Parse(c.URL)
	var lines []string
	for _, it := range c.Items {
		row := make([]string, len(cols))
		for i, k := range cols {
			row[i] = it[k]
			if c.urls[k] && row[i] != "" {
				row[i] = snapshot.RelativeURL(base, row[i])
			}
		}
		lines = append(lines, compactJSON(row))
	}
	var notes []string
	if n := c.Deduplicated; n > 0 {
		notes = append(notes, fmt.Sprintf("deduplicated %d", n))
	}
	if n := c.excludedTotal(); n > 0 {
		var per []string
		for _, name := range c.Names {
			if v := c.Excluded[name]; v > 0 {
				per = append(per, fmt.Sprintf("%s %d", name, v))
			}
		}
		notes = append(notes, fmt.Sprintf("excluded %d (%s)", n, strings.Join(per, ", ")))
	}
	if c.Empty > 0 {
		notes = append(notes, fmt.Sprintf("%d with all fields empty dropped (fallback_text keeps them)", c.Empty))
	}
	if c.Hidden > 0 {
		notes = append(notes, fmt.Sprintf("%d hidden skipped", c.Hidden))
	}
	header = fmt.Sprintf("%d items from %s (%d matched", len(c.Items), Echo(c.shownURL()), c.Matched)
	for _, n := range notes {
		header += "; " + n
	}
	header += ")"
	if len(c.Items) >= o.Limit && c.Matched > len(c.Items)+c.Deduplicated+c.excludedTotal()+c.Empty+c.Hidden {
		header += fmt.Sprintf("; limit %d reached", o.Limit)
	}
	if o.Scroll {
		header += fmt.Sprintf("\nscrolled %d times; stopped: %s", c.Scrolls, map[string]string{
			StopLimit: "limit reached", StopNoGrowth: fmt.Sprintf("no new items after %d scrolls (end of the list?)", scrollTries),
			StopTime: "time bound", StopMax: fmt.Sprintf("%d scrolls", maxScrolls)}[c.StopReason])
	}
	if c.Stopped {
		header += "\n(reading stopped at the time budget: later items are not included)"
	}
	if len(c.Items) > 0 {
		header += "\ncolumns " + compactJSON(cols)
	}
	if len(c.Items) == 0 {
		header += "\n(reason: all_filtered — every match was dropped by exclude, deduplicate_by, emptiness or hiding; loosen them)"
	}
	return header, strings.Join(lines, "\n")
}

func (c *Collected) renderProposals() (header, body string) {
	if len(c.Proposals) == 0 {
		return fmt.Sprintf("no repeated items found on %s (looked for ≥3 similar siblings with text or links)", Echo(c.shownURL())),
			"use browser_snapshot, or collect with a selector of your own"
	}
	header = fmt.Sprintf("%d item selectors on %s, best first; pass one line's JSON to browser_collect", len(c.Proposals), Echo(c.shownURL()))
	base, _ := url.Parse(c.URL)
	var lines []string
	for i, p := range c.Proposals {
		args := struct {
			Selector string          `json:"selector"`
			Fields   []ProposalField `json:"fields,omitempty"`
		}{p.Selector, p.Fields}
		where := ""
		if p.Chrome {
			where = ", in a menu or page chrome"
		}
		lines = append(lines, fmt.Sprintf("%d. %d items%s: %s", i+1, p.Count, where, compactJSON(args)))
		// The sample: one array per item in the fields' order (the item's
		// text when it has no fields), as a collect returns them.
		isURL := make([]bool, len(p.Fields))
		for j, f := range p.Fields {
			isURL[j] = f.Property == "href" || f.Property == "src"
		}
		for _, vs := range p.Sample {
			if len(p.Fields) > 0 && len(vs) == len(p.Fields)+1 {
				// every field empty: the item's text
				lines = append(lines, "   "+compactJSON([]string{shorten(vs[len(vs)-1], 80)}))
				continue
			}
			row := make([]string, 0, len(vs))
			for j, v := range vs {
				if len(p.Fields) > 0 && j >= len(p.Fields) {
					break
				}
				if j < len(isURL) && isURL[j] && v != "" {
					v = snapshot.RelativeURL(base, v)
				}
				row = append(row, shorten(v, 80))
			}
			lines = append(lines, "   "+compactJSON(row))
		}
	}
	return header, strings.Join(lines, "\n")
}

// compactJSON is v as JSON without HTML escaping.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `""`
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// page sets Text to the header and the window of the body asked for.
func (c *Collected) page(o CollectOptions) {
	header, body := c.render(o)
	c.TotalChars = utf8.RuneCountInString(body)
	part, tail := body, ""
	c.NextOffset = 0
	if o.Offset > 0 || c.TotalChars > o.MaxChars {
		part, c.NextOffset = text.Window(body, o.Offset, o.MaxChars)
		end := o.Offset + utf8.RuneCountInString(part)
		switch {
		case c.NextOffset > 0:
			tail = fmt.Sprintf("\n… cut at char %s of %s; browser_collect with the same arguments and offset=%d continues", commas(end), commas(c.TotalChars), c.NextOffset)
		case o.Offset >= c.TotalChars:
			tail = fmt.Sprintf("(offset %s is past the end: the result has %s chars)", commas(o.Offset), commas(c.TotalChars))
		default:
			tail = fmt.Sprintf("\n(end; chars %s–%s of %s)", commas(o.Offset), commas(end), commas(c.TotalChars))
		}
	}
	c.Text = header
	if part != "" || tail != "" {
		c.Text += "\n" + part + tail
	}
}

// collectEntry is a tab's last collection (pageView.collected), so that offset
// pages through the same result while the tab shows the same document.
type collectEntry struct {
	key string // the arguments but offset and max_chars (collectKey)
	c   Collected
}

func collectKey(o CollectOptions) string {
	o.Offset, o.MaxChars = 0, 0
	b, _ := json.Marshal(o)
	return string(b)
}
