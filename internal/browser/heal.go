package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// healJS describes elements and looks for them again, in the walker's
// world.
//
//go:embed heal.js
var healJS string

// Heal is what replaying a saved step needs of the held session
// (browser_flow, recipe_save, recipe_run): an element described so that it
// can be found again (Describe), found again on a page whose markup
// changed (Relocate), and the last flow that ran to its end (LastFlow),
// which recipe_save turns into a recipe.
type Heal struct{ h *Held }

// Candidates describe an element so that it can be found again later, on
// a page whose markup may have changed (a recipe's step replayed): taken
// by Describe when the step ran, used by Relocate.
type Candidates struct {
	// Fingerprint is what identifies the element; every match is verified
	// against it.
	Fingerprint Fingerprint `json:"fingerprint"`
	// CSS are selectors that were unique for the element, most
	// trustworthy first: its id, then attributes (test ids first), then
	// its structural path.
	CSS []CSSCandidate `json:"css,omitempty"`
	// Text is its visible text (at most 80 characters), when it has one.
	Text string `json:"text,omitempty"`
	// Position is its place among similar elements of a list-like
	// container, when it is in one.
	Position *Position `json:"position,omitempty"`
	// Frame is the CSS selector of the iframe it is in (the locator's
	// frame argument, or a selector of the iframe a ref, text or role
	// found it in); empty for the main frame. Frames in frames are not
	// named.
	Frame string `json:"frame,omitempty"`
	// ByPlace says the step picks its element by place (the agent's own
	// selector was positional, like "li:first-child > a": "the first
	// result"): whatever is in that place now is the element, whatever its
	// name. Set by the caller; Describe leaves it false.
	ByPlace bool `json:"by_place,omitempty"`
}

// Fingerprint is what identifies an element: what it is (tag, role,
// type), what it is called (accessible name, id, test id, name attribute,
// link target, placeholder) and where it is (the start of the text of the
// nearest ancestor that says more than it).
type Fingerprint struct {
	Tag         string `json:"tag"`
	Role        string `json:"role,omitempty"` // the computed role (the tag when it has none)
	Name        string `json:"name,omitempty"` // the accessible name
	ID          string `json:"id,omitempty"`
	TestID      string `json:"test_id,omitempty"` // data-testid, data-test-id, data-test, data-qa or data-cy
	Type        string `json:"type,omitempty"`    // of an input or button
	NameAttr    string `json:"name_attr,omitempty"`
	Href        string `json:"href,omitempty"` // a link's path and query (the full URL when on another origin)
	Placeholder string `json:"placeholder,omitempty"`
	Context     string `json:"context,omitempty"`
	// Similar is how many other shown elements had the same role and name
	// when it was described: the name alone did not tell it apart, its
	// context must.
	Similar int `json:"similar,omitempty"`
}

// CSSCandidate is one CSS selector that matched only the element.
type CSSCandidate struct {
	Kind     string `json:"kind"` // "id", "attr" or "structural"
	Selector string `json:"selector"`
}

// Position is an element's place in a group of similar elements: the
// Index-th (from 0) of the shown elements of its kind that Selector
// matches, of Count then.
type Position struct {
	Selector string `json:"selector"`
	Index    int    `json:"index"`
	Count    int    `json:"count"`
	// Kind is the element's tag, role attribute and input type
	// ("button||", "input||checkbox").
	Kind string `json:"kind,omitempty"`
}

// Relocation is how Relocate found the element again.
type Relocation struct {
	// Locator resolves now to exactly that element: a CSS selector unique
	// in the document (with the frame when in one), or, for an element a
	// selector cannot reach (in a shadow root), its ref.
	Locator Locator
	// Ref is the element's ref in the tab's current page.
	Ref string
	// Level is "exact" (the primary locator, same fingerprint), "stable"
	// (the primary locator, only its name, text or context changed),
	// "reidentified" (another candidate, same fingerprint) or "healed"
	// (another candidate, a fingerprint that differs but verifies).
	Level string
	// Via is the kind of candidate that found it: "primary", "id",
	// "attr", "text", "role", "structural" or "position".
	Via string
	// Score is the fingerprint similarity of the element found, 0..1.
	Score float64
}

// Relocation levels.
const (
	LevelExact        = "exact"
	LevelStable       = "stable"
	LevelReidentified = "reidentified"
	LevelHealed       = "healed"
)

// Describe returns the candidates of the element the locator resolves to
// now, before acting on the element (an action may change
// or remove it).
func (x Heal) Describe(ctx context.Context, target Locator) (*Candidates, error) {
	h := x.h
	t := h.t
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	defer t.releaseObjects(ctx)
	el, err := t.finder().locate(ctx, target)
	if err != nil {
		return nil, err
	}
	var c Candidates
	if err := t.callEl(ctx, el, "function(){ return ("+healJS+")(globalThis.__webpilot, 'describe', this, null) }", &c); err != nil {
		return nil, backendError("describe "+target.Describe(), err)
	}
	c.Frame = target.Frame
	if c.Frame == "" && el.frame != nil && el.frame.parent != nil && el.frame.parent.key == "" {
		// Found in a frame of the main document (by ref, text or role):
		// the frame is named by a selector of its iframe element.
		pw := frameWorld{sess: el.frame.parent.sess, frameID: el.frame.parent.frameID}
		var sel string
		if _, err := pw.eval(ctx, fmt.Sprintf("(%s)(W, 'selector', W.get(%d), null)", healJS, el.frame.owner), &sel); err != nil {
			return nil, backendError("describe "+target.Describe(), err)
		}
		if sel == "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s is in a frame that no selector names", target.Describe()),
				Hint: "give the iframe an id or title, or name the frame explicitly (frame: a CSS selector of the iframe)"}
		}
		c.Frame = sel
	}
	return &c, nil
}

// relocTry is one way of finding the element and what it matched (shown
// elements: their count and the walker's numbers of the first ten).
type relocTry struct {
	Via  string `json:"via"`
	What string `json:"what"`
	N    int    `json:"n"`
	Ks   []int  `json:"ks"`
}

// relocEl is an element the relocation script saw: its walker number,
// fingerprint (and the walker's form of it, for its ref) and, for a
// match, a selector unique to it.
type relocEl struct {
	K   int         `json:"k"`
	FP  Fingerprint `json:"fp"`
	P   []string    `json:"p"`
	Sel string      `json:"sel"`
}

// relocAnswer is the relocation script's answer.
type relocAnswer struct {
	Doc   string     `json:"doc"`
	URL   string     `json:"url"`
	Tries []relocTry `json:"tries"`
	Els   []relocEl  `json:"els"`
	Busy  string     `json:"busy"`
	Bad   string     `json:"bad"`
	// Pending says the very element may still come: the step's own
	// locator, its id or an attribute candidate matches only elements not
	// shown yet, or the document is still loading.
	Pending bool `json:"pending"`
	// Settling says the document changed in the last 300 ms (or was not
	// watched before): a page still rendering may yet show the element.
	Settling bool `json:"settling"`
}

// Relocate finds the element the candidates describe in the tab's page
// now. primary is the locator the step was written with (a selector, text
// or role and name; a ref, which does not outlive its page, is skipped);
// it is tried first, then the candidates in confidence order (id,
// attributes, text, role and name, structural path, position). A match
// counts only when it is the one shown element the candidate matches, its
// fingerprint verifies (Similarity at least HealThreshold) and no other
// element verifies about as well (within healTieMargin): Relocate never
// picks among look-alikes, and returns AMBIGUOUS_TARGET when only
// ambiguous matches are left, TARGET_NOT_FOUND (naming what was tried)
// when nothing verifies. A page still rendering is looked at again for a
// moment. The element is looked for in the main frame, or in the frame
// the primary locator or candidates name (open shadow roots included,
// child frames not).
func (x Heal) Relocate(ctx context.Context, primary Locator, c *Candidates) (*Relocation, error) {
	h := x.h
	t := h.t
	if err := t.dialogs.err(); err != nil {
		return nil, err
	}
	if c == nil || c.Fingerprint.Tag == "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: "no candidates to relocate the element by", Hint: "describe the element (when the step runs) before relocating it"}
	}
	frame := c.Frame
	if primary.Frame != "" {
		frame = primary.Frame
	}
	if IsRef(frame) || IsRef(primary.Within) {
		return nil, &Error{Code: CodeInvalidArgument, Message: "relocate takes CSS selectors for frame and within, not refs", Hint: "refs do not outlive their page: give the iframe's or the container's CSS selector"}
	}
	if err := t.finder().checkPatterns(ctx, primary.Text, primary.Name); err != nil {
		return nil, err
	}
	defer t.releaseObjects(ctx)
	w, _, err := t.finder().targetWorld(ctx, frame)
	if err != nil {
		return nil, err
	}
	pr := map[string]any{}
	if primary.Ref == "" {
		pr = map[string]any{"sel": primary.Selector, "text": primary.Text, "role": strings.TrimSpace(primary.Role), "name": primary.Name, "exact": primary.Exact, "within": primary.Within}
	}
	args, err := json.Marshal(map[string]any{"primary": pr, "c": c, "ms": patternBudget.Milliseconds()})
	if err != nil {
		return nil, fmt.Errorf("relocate: %w", err)
	}
	call := "(" + healJS + ")(W, 'relocate', null, " + string(args) + ")"
	deadline := time.Now().Add(notFoundWait)
	for {
		var ans relocAnswer
		pats := []string{primary.Text, primary.Name}
		if m := withinRole.FindStringSubmatch(primary.Within); m != nil {
			pats = append(pats, m[2])
		}
		err := w.evalPatterns(ctx, false, pats, func(ctx context.Context) error {
			_, err := w.eval(ctx, call, &ans)
			return err
		})
		if err != nil {
			return nil, backendError("relocate "+describeFP(c.Fingerprint), err)
		}
		if ans.Busy != "" {
			return nil, patternError(ans.Busy)
		}
		if ans.Bad != "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: ans.Bad, Hint: "use CSS syntax such as #id, .class, button[name=go]"}
		}
		d, derr := decide(c.Fingerprint, ans, c.ByPlace)
		// An element that only resembles the recorded one (healed) is
		// taken at once when the very one is plainly gone (nothing in the
		// document matches its own locator, id or attributes); while
		// something matches that is not shown yet, the page has time to
		// show it: a modal still fading in must not make its button's
		// look-alike outside it the match; nor may a page still rendering
		// its next view (its document changed in the last 300 ms). Nothing
		// found at all is looked for again for a moment.
		wait := derr != nil && derr.Code == CodeTargetNotFound || derr == nil && d.level == LevelHealed && (ans.Pending || ans.Settling)
		if wait && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
			case <-time.After(pollInterval):
				continue
			}
		}
		if derr != nil {
			return nil, derr
		}
		mainID, err := t.page.mainFrameID(ctx)
		if err != nil {
			return nil, backendError("read the page", err)
		}
		f := t.refs.frame(w.frameID, w.frameID == mainID, w.sess, ans.Doc)
		rel := &Relocation{Ref: t.refs.refFor(f, d.el.K, d.el.P), Level: d.level, Via: d.via, Score: d.score}
		if d.el.Sel != "" {
			rel.Locator = Locator{Selector: d.el.Sel, Frame: frame}
		} else {
			rel.Locator = Locator{Ref: rel.Ref}
		}
		return rel, nil
	}
}

// HealThreshold is the fingerprint similarity a match needs to count as
// the element. Tag and role together weigh 3 of about 12: at 0.6 a match
// must also agree on most of what names and places the element (its
// accessible name and context; or its id, test id and type), so that a
// single agreeing trait (only the id, only the text) is not enough when
// the rest contradicts it, while a reworded label (same id or test id) or
// dropped ids (same name, type and context) still verify.
const HealThreshold = 0.6

// healTieMargin is how close another verifying element's similarity may
// come to a match's before the two count as look-alikes (ambiguous).
const healTieMargin = 0.05

// similarContext is the context similarity an element needs when its
// name did not tell it apart when described (Fingerprint.Similar): one of
// several "Add to cart" buttons is told apart by its card's text.
const similarContext = 0.5

// fpWeights weigh the fingerprint's fields in Similarity.
var fpWeights = struct{ tag, role, id, testID, nameAttr, typ, href, placeholder, name, context float64 }{
	tag: 1, role: 2, id: 2, testID: 2, nameAttr: 1.5, typ: 1, href: 1.5, placeholder: 1, name: 3, context: 1.5,
}

// Similarity scores how well fingerprint b (an element found now) matches
// a (the one described), 0..1: the weighted share of a's traits that b
// has. Tag, role, type, name and context always count; the identifiers
// (id, test id, name attribute, link target, placeholder) count when a
// has them. Names and contexts compare by their words (Jaccard), so that
// a reworded label scores in part. Neither tag nor role in common is 0.
func Similarity(a, b Fingerprint) float64 {
	if a.Tag != b.Tag && a.Role != b.Role {
		return 0
	}
	wt := fpWeights
	var got, total float64
	same := func(w float64, x, y string) {
		total += w
		if x == y {
			got += w
		}
	}
	ident := func(w float64, x, y string) {
		if x != "" {
			same(w, x, y)
		}
	}
	same(wt.tag, a.Tag, b.Tag)
	same(wt.role, a.Role, b.Role)
	same(wt.typ, a.Type, b.Type)
	ident(wt.id, a.ID, b.ID)
	ident(wt.testID, a.TestID, b.TestID)
	ident(wt.nameAttr, a.NameAttr, b.NameAttr)
	ident(wt.href, a.Href, b.Href)
	ident(wt.placeholder, a.Placeholder, b.Placeholder)
	total += wt.name + wt.context
	got += wt.name*wordSimilarity(a.Name, b.Name) + wt.context*wordSimilarity(a.Context, b.Context)
	return got / total
}

// wordSimilarity compares two texts by their lower-cased words: 1 when
// equal (both empty too), else the Jaccard index of their word sets.
func wordSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// sameIdentity says b names the element a did in the same words: all
// but the context (which moves with the page's text) equal, and, for an
// element its name did not tell apart (Similar), the context close
// enough.
func sameIdentity(a, b Fingerprint) bool {
	if !contextFits(a, b) {
		return false
	}
	a.Context, b.Context, a.Similar, b.Similar = "", "", 0, 0
	return a == b
}

// contextFits says b's context is close enough to a's when a's name did
// not tell it apart from others (Similar).
func contextFits(a, b Fingerprint) bool {
	return a.Similar == 0 || a.Context == "" || wordSimilarity(a.Context, b.Context) >= similarContext
}

// stableMatch says b is a as found by the primary locator with only its
// unstable traits changed (name, text, context, link target): same tag
// and role, same id, test id, name attribute and type where a had them,
// and still verifying.
func stableMatch(a, b Fingerprint) bool {
	return sameShape(a, b) && verifies(a, b, Similarity(a, b))
}

// positionalRE finds the pseudo-classes that pick an element by its place.
var positionalRE = regexp.MustCompile(`:(first|last|only|nth|nth-last)-(child|of-type)\b`)

// Positional says a selector picks its element by place (the first result,
// the third row): what it finds is whatever is in that place now, so its
// name, text and link may differ from the recorded element's
// (Candidates.ByPlace).
func Positional(sel string) bool { return positionalRE.MatchString(sel) }

// sameShape says b has a's tag, role and type, and its id, test id and
// name attribute where a had them: the same kind of element.
func sameShape(a, b Fingerprint) bool {
	if a.Tag != b.Tag || a.Role != b.Role || a.Type != b.Type {
		return false
	}
	for _, p := range [][2]string{{a.ID, b.ID}, {a.TestID, b.TestID}, {a.NameAttr, b.NameAttr}} {
		if p[0] != "" && p[0] != p[1] {
			return false
		}
	}
	return true
}

// verifies says b, at similarity score, can be taken for a.
func verifies(a, b Fingerprint, score float64) bool {
	return score >= HealThreshold && contextFits(a, b)
}

// decision is the element decide chose and how.
type decision struct {
	el    relocEl
	level string
	via   string
	score float64
}

// decide picks the element from the relocation script's answer: the
// primary locator's single match when its fingerprint is the same
// (exact) or differs only in unstable traits (stable); else the first
// try, in confidence order, whose single match verifies and has no
// look-alike that verifies about as well; else the primary's single
// match when it verifies without look-alikes (healed). positional says the
// primary locator picks by place (positional): its single match of the same
// shape is then stable whatever its name, and the single match of a
// structural or position candidate of the same shape heals it.
func decide(stored Fingerprint, a relocAnswer, positional bool) (*decision, *Error) {
	byK := make(map[int]relocEl, len(a.Els))
	score := make(map[int]float64, len(a.Els))
	for _, e := range a.Els {
		byK[e.K] = e
		score[e.K] = Similarity(stored, e.FP)
	}
	ok := func(k int) bool { return verifies(stored, byK[k].FP, score[k]) }
	// rival is another verifying element within the tie margin of k.
	rival := func(k int) (relocEl, bool) {
		for _, e := range a.Els {
			if e.K != k && ok(e.K) && score[e.K] >= score[k]-healTieMargin {
				return e, true
			}
		}
		return relocEl{}, false
	}
	var tried, ambiguous []string
	amb := map[int]bool{}
	noteAmb := func(ks ...int) {
		for _, k := range ks {
			if !amb[k] && len(ambiguous) < 10 {
				amb[k] = true
				ambiguous = append(ambiguous, describeEl(byK[k], score[k]))
			}
		}
	}
	primaryK := 0
	for _, tr := range a.Tries {
		label := tr.What
		if tr.Via != "primary" && tr.Via != "text" && tr.Via != "role" {
			label = tr.Via + " " + tr.What
		}
		switch {
		case tr.N == 0:
			tried = append(tried, label+": none")
			continue
		case tr.N > 1:
			tried = append(tried, fmt.Sprintf("%s: %d elements", label, tr.N))
			noteAmb(tr.Ks...)
			continue
		case len(tr.Ks) == 0:
			continue
		}
		k := tr.Ks[0]
		e := byK[k]
		if tr.Via == "primary" {
			if sameIdentity(stored, e.FP) {
				return &decision{el: e, level: LevelExact, via: "primary", score: score[k]}, nil
			}
			if stableMatch(stored, e.FP) || positional && sameShape(stored, e.FP) {
				return &decision{el: e, level: LevelStable, via: "primary", score: score[k]}, nil
			}
			if ok(k) {
				primaryK = k
			}
			tried = append(tried, fmt.Sprintf("%s: %s, which differs (similarity %.2f)", label, describeEl(e, -1), score[k]))
			continue
		}
		if positional && (tr.Via == "structural" || tr.Via == "position") && sameShape(stored, e.FP) {
			// The step picks by place: the element in that place now.
			level := LevelHealed
			if sameIdentity(stored, e.FP) {
				level = LevelReidentified
			}
			return &decision{el: e, level: level, via: tr.Via, score: score[k]}, nil
		}
		if !ok(k) {
			tried = append(tried, fmt.Sprintf("%s: %s, which does not verify (similarity %.2f)", label, describeEl(e, -1), score[k]))
			continue
		}
		if r, has := rival(k); has {
			tried = append(tried, fmt.Sprintf("%s: %s, but %s is as similar", label, describeEl(e, -1), describeEl(r, -1)))
			noteAmb(k, r.K)
			continue
		}
		level := LevelHealed
		if sameIdentity(stored, e.FP) {
			level = LevelReidentified
		}
		return &decision{el: e, level: level, via: tr.Via, score: score[k]}, nil
	}
	if primaryK != 0 {
		r, has := rival(primaryK)
		if !has {
			return &decision{el: byK[primaryK], level: LevelHealed, via: "primary", score: score[primaryK]}, nil
		}
		noteAmb(primaryK, r.K)
	}
	what := describeFP(stored)
	if len(ambiguous) > 0 {
		return nil, &Error{Code: CodeAmbiguousTarget, Message: fmt.Sprintf("%s cannot be told apart from look-alikes on this page (%s)", what, strings.Join(tried, "; ")),
			Hint: "the page changed so that several elements fit the recorded one: name the element again (browser_snapshot, then a ref or a more specific selector)", Suggestions: ambiguous}
	}
	var near []string
	best := append([]relocEl(nil), a.Els...)
	sortByScore(best, score)
	for _, e := range best {
		if len(near) < 3 && score[e.K] >= 0.3 {
			near = append(near, describeEl(e, score[e.K]))
		}
	}
	if len(tried) == 0 {
		tried = []string{"no candidates"}
	}
	return nil, &Error{Code: CodeTargetNotFound, Message: fmt.Sprintf("%s is no longer on this page", what),
		Hint: "tried " + strings.Join(tried, "; ") + ". The page changed too much to find it again: take a browser_snapshot and name the element anew", Suggestions: near}
}

// sortByScore orders elements by descending score (stable).
func sortByScore(els []relocEl, score map[int]float64) {
	for i := 1; i < len(els); i++ {
		for j := i; j > 0 && score[els[j].K] > score[els[j-1].K]; j-- {
			els[j], els[j-1] = els[j-1], els[j]
		}
	}
}

// describeFP names a fingerprint's element for messages: role "name"
// (#id).
func describeFP(fp Fingerprint) string {
	s := fp.Role
	if s == "" {
		s = fp.Tag
	}
	if fp.Name != "" {
		s += " " + quote(shorten(fp.Name, 60))
	}
	if fp.ID != "" {
		s += " #" + fp.ID
	} else if fp.TestID != "" {
		s += " [test id " + fp.TestID + "]"
	}
	return s
}

// describeEl names a seen element, with its selector and, when score is
// not negative, its similarity.
func describeEl(e relocEl, score float64) string {
	s := describeFP(e.FP)
	if e.Sel != "" && !strings.HasPrefix(e.Sel, "#") {
		s += " (" + e.Sel + ")"
	}
	if e.FP.Context != "" && e.FP.Context != e.FP.Name {
		s += " in " + quote(shorten(e.FP.Context, 40))
	}
	if score >= 0 {
		s += fmt.Sprintf(" similarity %.2f", score)
	}
	return s
}

// FlowRecord is a flow that ran to its end (browser_flow): its steps as
// the agent gave them, and the candidates of the element each targeting
// step acted on, described just before it acted (by step index, 1-based).
// recipe_save turns it into a recipe.
type FlowRecord struct {
	Steps      []map[string]any
	Candidates map[int]*Candidates
	// Fields are the candidates of each field of a fill_form step (nil
	// for a field that was not described).
	Fields   map[int][]*Candidates
	BudgetMs int
	At       time.Time
}

// SetLastFlow keeps r as the session's last flow that ran to its end. Call
// within Do.
func (x Heal) SetLastFlow(r *FlowRecord) {
	h := x.h
	s := h.s
	s.lastFlow = r
}

// LastFlow is the session's last flow that ran to its end, or nil. Call
// within Do.
func (x Heal) LastFlow() *FlowRecord {
	h := x.h
	s := h.s
	return s.lastFlow
}
