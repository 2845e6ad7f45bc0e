package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// RecipeRecordIn is recipe_record's input.
type RecipeRecordIn struct {
	Action       string   `json:"action" jsonschema:"what to do" enum:"start,status,stop,save"`
	Name         string   `json:"name,omitempty" jsonschema:"start, save: the recipe's name"`
	Description  string   `json:"description,omitempty" jsonschema:"stop, save: for recipe_list"`
	Message      string   `json:"message,omitempty" jsonschema:"start: what the user should show"`
	URL          string   `json:"url,omitempty" jsonschema:"start: in a new tab at this URL"`
	SecretFields []string `json:"secret_fields,omitempty" jsonschema:"start: labels or selectors of fields typed as secrets (passwords always are)"`
	TimeoutMs    int      `json:"timeout_ms,omitempty" minimum:"1" maximum:"1800000"`
	Save         bool     `json:"save,omitempty" jsonschema:"stop: save it too"`
	Overwrite    bool     `json:"overwrite,omitempty" jsonschema:"replace a recipe of that name"`
	Session      string   `json:"session,omitempty"`
	Tab          string   `json:"tab,omitempty"`
}

// Check refuses arguments of another action.
func (in RecipeRecordIn) Check() error {
	bad := func(arg, hint string) error {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("%s goes with another action than %s", arg, in.Action), Hint: hint}
	}
	switch in.Action {
	case "start":
		if in.Name != "" && !recipes.ValidName(in.Name) {
			return badRecipeName(in.Name)
		}
		if in.Save {
			return bad("save", "save goes with stop")
		}
	case "status":
		if in.URL != "" || in.Message != "" || len(in.SecretFields) > 0 || in.Save || in.TimeoutMs != 0 {
			return bad("url, message, secret_fields, save and timeout_ms", "status takes only session")
		}
	case "stop", "save":
		if in.URL != "" || in.Message != "" || len(in.SecretFields) > 0 || in.TimeoutMs != 0 {
			return bad("url, message, secret_fields and timeout_ms", "they go with start")
		}
		if in.Name != "" && !recipes.ValidName(in.Name) {
			return badRecipeName(in.Name)
		}
	default:
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("action %q: start, status, stop or save", browser.Echo(in.Action))}
	}
	return nil
}

func badRecipeName(name string) error {
	return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("name %q: lower-case letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit", browser.Echo(name)),
		Suggestions: []string{`"name": "shop-search"`}}
}

var recipeRecordTool = Def(Tool{
	Name:        "recipe_record",
	Description: "Record the user doing a task in the browser as a recipe: start (they see it records, with Stop), status, stop (the steps to review; save: true saves), save.",
	Annotations: Annotations{OpenWorld: ptr(true)},
	Group:       GroupRecipes,
	Hold:        HoldSession,
}, func(ctx context.Context, h *Held, in RecipeRecordIn) (*Result, error) {
	switch in.Action {
	case "start":
		return recordStart(ctx, h, in)
	case "status":
		st := h.Recorder().Status()
		if st == nil {
			return &Result{Text: fmt.Sprintf("Session %q is not recording.", h.SessionName())}, nil
		}
		return &Result{Text: recordStatusLine(st)}, nil
	case "stop":
		rec, err := h.Recorder().Stop(ctx)
		if err != nil {
			return nil, err
		}
		if in.Name == "" {
			in.Name = rec.Name
		}
		r, review, err := recordedRecipe(in.Name, in.Description, rec, h.env.Decode, h.env.Secrets)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Recorded %q in tab %s: %s (%s).\n", r.Name, rec.Tab, endedHow(rec.EndedBy), time.Since(rec.Started).Round(time.Second))
		b.WriteString(review.text)
		b.WriteString("\n" + recordTrace(h, r, review))
		if in.Save {
			line, err := saveRecorded(h, r, in.Overwrite)
			if err != nil {
				return nil, err
			}
			b.WriteString("\n" + line)
		} else {
			fmt.Fprintf(&b, "\nNot saved yet: check the steps, then recipe_record {\"action\":\"save\",\"name\":%q}.", r.Name)
		}
		return &Result{Text: b.String()}, nil
	}
	// save
	rec := h.Recorder().Last()
	if rec == nil {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("session %q has no stopped recording to save", h.SessionName()),
			Hint: `record one: recipe_record {"action":"start","name":"…"}, the user does the task, then {"action":"stop"}`}
	}
	if in.Name == "" {
		in.Name = rec.Name
	}
	r, review, err := recordedRecipe(in.Name, in.Description, rec, h.env.Decode, h.env.Secrets)
	if err != nil {
		return nil, err
	}
	line, err := saveRecorded(h, r, in.Overwrite)
	if err != nil {
		return nil, err
	}
	return &Result{Text: review.text + "\n" + line}, nil
})

// recordStart starts a recording in the session's tab, or in a new one at
// in.URL.
func recordStart(ctx context.Context, h *Held, in RecipeRecordIn) (*Result, error) {
	if in.Name == "" {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "name is missing: the recipe's name", Suggestions: []string{`"name": "shop-search"`}}
	}
	var t *browser.Tab
	var err error
	if in.URL != "" {
		if t, err = h.Tabs().New(ctx); err != nil {
			return nil, err
		}
		if _, err := h.Navigate(ctx, in.URL, 0); err != nil {
			return nil, err
		}
	} else if t, err = h.Tabs().Ready(ctx, in.Tab); err != nil {
		return nil, err
	}
	h.Use(t)
	st, err := h.Recorder().Start(ctx, browser.RecordOptions{Name: in.Name, Message: in.Message, Secret: in.SecretFields, Timeout: time.Duration(in.TimeoutMs) * time.Millisecond})
	if err != nil {
		return nil, err
	}
	return &Result{Text: fmt.Sprintf("Recording %q in tab %s: %s. The user does the task; every click, typed text, choice and key becomes a step (password fields are never read). End with recipe_record {\"action\":\"stop\"} (status tells whether the user pressed Stop).",
		in.Name, st.Tab, st.Notice), Tab: t}, nil
}

// recordStatusLine tells where a recording stands.
func recordStatusLine(st *browser.RecordStatus) string {
	if st.EndedBy == "" {
		return fmt.Sprintf("Recording %q in tab %s for %s: %d step(s) so far. The user ends it with Stop, or call recipe_record {\"action\":\"stop\"}.",
			st.Name, st.Tab, time.Since(st.Started).Round(time.Second), st.Steps)
	}
	return fmt.Sprintf("Recording %q ended: %s, %d step(s). Collect it: recipe_record {\"action\":\"stop\"}.", st.Name, endedHow(st.EndedBy), st.Steps)
}

// endedHow says why a recording ended.
func endedHow(by string) string {
	switch by {
	case "user":
		return "the user pressed Stop"
	case "agent":
		return "stopped"
	case "timeout":
		return "the timeout passed"
	case "tab closed":
		return "its tab was closed"
	case "limit":
		return fmt.Sprintf("it reached %d steps", browser.RecordMaxSteps)
	}
	return by
}

// recordTrace writes the recording as a trace file, one step per thing
// the user did (webpilot trace show reads it like a run), and says where.
func recordTrace(h *Held, r *recipes.Recipe, rv *recordReview) string {
	ft, err := newTraceFile(h, "-recording")
	if err != nil {
		return "Trace: not written: " + browser.Echo(err.Error())
	}
	for i, st := range r.Steps {
		if i >= len(rv.steps) {
			break
		}
		s := trace.Step{Time: rv.steps[i].at, Tool: "user " + rv.steps[i].kind, Target: rv.steps[i].line, OK: true}
		if u, ok := st.Fields["url"].(string); ok {
			s.URL = u
		}
		if b, err := json.Marshal(st.Fields); err == nil {
			s.Args = string(b)
		}
		if err := ft.Add(s); err != nil {
			return "Trace: not written: " + browser.Echo(err.Error())
		}
	}
	return "Trace: " + ft.Path() + " (webpilot trace show FILE)"
}

// saveRecorded saves a recorded recipe as recipe_save would.
func saveRecorded(h *Held, r *recipes.Recipe, overwrite bool) (string, error) {
	store, err := recipeStore(h)
	if err != nil {
		return "", err
	}
	if !overwrite {
		if old, err := store.Load(r.Name); err == nil {
			return "", &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("recipe %q exists (%s)", r.Name, recipes.ShortPath(old.Path)),
				Hint: "pass overwrite: true to replace it (the old file is kept as .bak), or choose another name"}
		}
	}
	path, err := store.Save(r)
	if err != nil {
		return "", recipeError(err)
	}
	return fmt.Sprintf("Saved recipe %s for %s to %s. Run it: recipe_run {\"name\":%q}", r.Name, r.Site, recipes.ShortPath(path), r.Name), nil
}

// recordReview is a recorded recipe as the user and agent check it: the
// numbered list, and each step's time, kind and line (for the trace).
type recordReview struct {
	text  string
	steps []reviewStep
}

// reviewStep is one step of a review.
type reviewStep struct {
	at         time.Time
	kind, line string
}

// recordedRecipe turns a recording into a recipe: each step as a flow step
// with its element's candidates, each typed value a parameter named from
// its field (its default the text typed), each secret field a declared
// secret's name; the review is the numbered list of what it does.
func recordedRecipe(name, description string, rec *browser.Recorded, decode func(tool string, args map[string]any) (any, error), sec *secrets.Set) (*recipes.Recipe, *recordReview, error) {
	r := &recipes.Recipe{Name: name, Description: strings.TrimSpace(description), Version: recipes.FormatVersion, Params: map[string]recipes.Param{}}
	if r.Description == "" {
		r.Description = "Recorded from the user's demonstration"
	}
	type typed struct {
		value, name string
		step        int // the index of the fill in r.Steps
	}
	var values []typed
	usedNames := map[string]bool{}
	unique := func(base string, taken map[string]bool) string {
		n := base
		for i := 2; taken[n]; i++ {
			n = fmt.Sprintf("%s_%d", base, i)
		}
		taken[n] = true
		return n
	}
	secrets := map[string]bool{}
	var notes []string
	var review []string
	var kept []reviewStep
	// searched: steps since the last fill, while they are only what
	// submits it (a key, a click, the page it loaded); -1: none.
	searched := -1
	site := secretPrefix(rec.Steps)
	for _, st := range rec.Steps {
		fields := map[string]any{}
		el := ""
		if st.Element != nil {
			// A click on one of a list's items right after the user typed
			// and submitted (a search's results) picks by place: another
			// query lists other items, and "the first result" is what was
			// meant. Elsewhere a list's item is picked by what it is.
			if searched >= 0 && searched <= 3 && (st.Kind == "click" || st.Kind == "dblclick") && st.Element.Position != nil && structuralOf(st.Element) != "" {
				st.Element.ByPlace = true
			}
			setLocator(fields, st.Element)
			el = describeRecorded(st.Element)
			if st.Element.ByPlace {
				el += fmt.Sprintf(" (by place: item %d of %d)", st.Element.Position.Index+1, st.Element.Position.Count)
			}
		}
		switch {
		case st.Kind == "fill":
			searched = 0
		case searched >= 0 && (st.Kind == "press" || st.Kind == "click" || st.Kind == "navigate" || st.Kind == "wait"):
			searched++
		default:
			searched = -1
		}
		line := ""
		switch st.Kind {
		case "navigate":
			if sec != nil && sec.Mask(st.URL) != st.URL {
				// An address holding a declared secret (a token typed into
				// the address bar) is not written down.
				notes = append(notes, "an address that held a declared secret was left out")
				continue
			}
			fields["do"], fields["url"] = "navigate", st.URL
			line = "navigate " + st.URL
		case "tab":
			fields["do"], fields["action"], fields["match"] = "tabs", "select", tabMatch(st.URL)
			line = "switch to the tab at " + tabMatch(st.URL)
		case "wait":
			if sec != nil && sec.Mask(st.Text) != st.Text {
				continue // a secret shown on the page is not written down
			}
			fields["do"], fields["conditions"] = "wait", []any{map[string]any{"text": st.Text}}
			line = fmt.Sprintf("wait for text %q", st.Text)
		case "scroll":
			fields["do"], fields["action"], fields["direction"] = "action", "scroll", st.Direction
			line = "scroll " + st.Direction
		case "fill":
			fields["do"], fields["action"] = "action", "fill"
			if st.Secret {
				sn := unique(site+strings.ToUpper(paramBase(st.Element)), secrets)
				fields["secret"] = sn
				line = fmt.Sprintf("fill %s = secret %s", el, sn)
				break
			}
			if sec != nil {
				// The user typed a declared secret: it is that secret, by
				// name; a text holding one is asked for at each run.
				if masked := sec.Mask(st.Value); masked != st.Value {
					if m := wholeSecret.FindStringSubmatch(masked); m != nil {
						fields["secret"] = m[1]
						line = fmt.Sprintf("fill %s = secret %s", el, m[1])
						break
					}
					pn := unique(paramBase(st.Element), usedNames)
					fields["value"] = "$" + pn
					r.Params[pn] = recipes.Param{Type: "string", Description: "typed into " + cutString(el, 180) + " (it held a secret: given at each run, not stored)"}
					line = fmt.Sprintf("fill %s = $%s (holds a secret: not stored)", el, pn)
					break
				}
			}
			pn := unique(paramBase(st.Element), usedNames)
			fields["value"] = "$" + pn
			desc := "typed into " + cutString(el, 180)
			r.Params[pn] = recipes.Param{Type: "string", Default: st.Value, Description: desc}
			values = append(values, typed{st.Value, pn, len(r.Steps)})
			line = fmt.Sprintf("fill %s = $%s (%q)", el, pn, st.Value)
		case "select":
			fields["do"], fields["action"] = "action", "select"
			vals := make([]any, len(st.Values))
			for i, v := range st.Values {
				vals[i] = v
			}
			fields["values"] = vals
			line = fmt.Sprintf("select %s = %s", el, strings.Join(st.Values, ", "))
		case "upload":
			fields["do"], fields["action"] = "action", "upload"
			pn := unique("file", usedNames)
			fields["files"] = []any{"$" + pn}
			r.Params[pn] = recipes.Param{Type: "string", Description: "the path of the file to choose (the user chose " + strings.Join(st.Files, ", ") + ")"}
			line = fmt.Sprintf("upload into %s = $%s", el, pn)
		case "press":
			fields["do"], fields["action"], fields["key"] = "action", "press", st.Key
			line = "press " + st.Key
			if el != "" {
				line += " in " + el
			}
		default: // click, dblclick, check, uncheck
			fields["do"], fields["action"] = "action", st.Kind
			line = st.Kind + " " + el
		}
		step := recipes.Step{Fields: fields}
		if st.Element != nil {
			b, err := json.Marshal(st.Element)
			if err != nil {
				return nil, nil, fmt.Errorf("recipe_record: %w", err)
			}
			step.Candidates = b
		}
		r.Steps = append(r.Steps, step)
		review = append(review, line)
		kept = append(kept, reviewStep{at: st.At, kind: st.Kind})
	}
	// A value typed once and seen later (a whole query value or path
	// segment of an address the user typed, text they waited for) is the
	// same parameter there.
	for i := range r.Steps {
		f := r.Steps[i].Fields
		for _, v := range values {
			if len(v.value) < 3 || i <= v.step {
				continue
			}
			if u, ok := f["url"].(string); ok && f["do"] == "navigate" {
				if nu := paramInURL(u, v.value, v.name); nu != u {
					f["url"] = nu
					review[i] = "navigate " + nu
				}
			}
			if conds, ok := f["conditions"].([]any); ok && f["do"] == "wait" && len(conds) == 1 {
				c, _ := conds[0].(map[string]any)
				if t, ok := c["text"].(string); ok && strings.Contains(t, v.value) {
					c["text"] = strings.ReplaceAll(t, v.value, "${"+v.name+"}")
					review[i] = fmt.Sprintf("wait for text %q", c["text"])
				}
			}
		}
	}
	r.Site = firstHost(r.Steps)
	if r.Site == "" {
		return nil, nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "the recording starts on no site (about:blank?): nothing to replay",
			Hint: `start the recording on the site: recipe_record {"action":"start","url":"https://…"}`}
	}
	if len(r.Steps) <= 1 {
		return nil, nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "nothing was recorded but the start page",
			Hint: "the user clicks, types and chooses in the tab while it records; start again and do the task in that tab"}
	}
	data, err := r.JSON()
	if err != nil {
		return nil, nil, fmt.Errorf("recipe_record: %w", err)
	}
	checked, err := recipes.Parse("", data)
	if err != nil {
		return nil, nil, recipeError(err)
	}
	if decode != nil {
		// Each step's arguments as its tool checks them: a recording that
		// would not run is not offered.
		if err := checked.Check(StepChecker(decode)); err != nil {
			return nil, nil, recipeError(err)
		}
	}
	var b strings.Builder
	for i, l := range review {
		fmt.Fprintf(&b, "%d %s\n", i+1, l)
	}
	if p := paramsLine(checked); p != "" {
		b.WriteString("Params: " + p + "\n")
	}
	if len(secrets) > 0 {
		var names []string
		for n := range secrets {
			names = append(names, n)
		}
		b.WriteString("Secrets (declare each: webpilot --secrets FILE, or WEBPILOT_SECRET_<NAME>): " + strings.Join(slices.Sorted(slices.Values(names)), ", ") + "\n")
	}
	for _, n := range append(slices.Clone(rec.Notes), notes...) {
		b.WriteString("Note: " + n + "\n")
	}
	for i := range kept {
		kept[i].line = review[i]
	}
	return checked, &recordReview{text: strings.TrimRight(b.String(), "\n"), steps: kept}, nil
}

// paramInURL writes ${name} for each query value and path segment of raw
// that is value (escaped as a URL writes it), leaving the rest as it is;
// a run escapes the value it puts there (recipes: substituteURL).
func paramInURL(raw, value, name string) string {
	rest, frag, hasFrag := strings.Cut(raw, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	scheme, after, ok := strings.Cut(base, "://")
	if !ok {
		return raw
	}
	host, path, hasPath := strings.Cut(after, "/")
	ref := "${" + name + "}"
	if hasPath {
		segs := strings.Split(path, "/")
		for i, sg := range segs {
			if v, err := url.PathUnescape(sg); err == nil && v == value {
				segs[i] = ref
			}
		}
		path = strings.Join(segs, "/")
	}
	if hasQuery {
		pairs := strings.Split(query, "&")
		for i, pr := range pairs {
			k, v, ok := strings.Cut(pr, "=")
			if uv, err := url.QueryUnescape(v); ok && err == nil && uv == value {
				pairs[i] = k + "=" + ref
			}
		}
		query = strings.Join(pairs, "&")
	}
	out := scheme + "://" + host
	if hasPath {
		out += "/" + path
	}
	if hasQuery {
		out += "?" + query
	}
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// setLocator writes the step's locator from the element's candidates, by
// recipes.Locate (the rest of the candidates are kept for healing).
func setLocator(fields map[string]any, c *browser.Candidates) {
	maps.Copy(fields, recipes.Locate(recordedElement(c)))
}

// secretPrefix is what a recorded secret's name starts with: the
// recording's site in upper case (SHOP_EXAMPLE_ for shop.example.com), so
// that PASSWORD of one site is not taken for a secret of that name
// declared for another; "" for a site that does not start with a letter
// (an IP address).
func secretPrefix(steps []browser.RecordedStep) string {
	for _, st := range steps {
		if st.Kind != "navigate" {
			continue
		}
		site := recipes.Site(st.URL)
		if i := strings.LastIndex(site, "."); i > 0 {
			site = site[:i] // without the top-level domain
		}
		p := strings.Trim(notWord.ReplaceAllString(strings.ToLower(site), "_"), "_")
		if p == "" || p[0] < 'a' || p[0] > 'z' || len(p) > 24 {
			return ""
		}
		return strings.ToUpper(p) + "_"
	}
	return ""
}

// structuralOf is the element's structural selector, or "".
func structuralOf(c *browser.Candidates) string {
	for _, k := range c.CSS {
		if k.Kind == "structural" {
			return k.Selector
		}
	}
	return ""
}

// describeRecorded names an element in the review: its role and name.
func describeRecorded(c *browser.Candidates) string {
	fp := c.Fingerprint
	role := fp.Role
	if role == "" {
		role = fp.Tag
	}
	if fp.Name != "" {
		return fmt.Sprintf("%s %q", role, cutString(fp.Name, 60))
	}
	if c.Text != "" {
		return fmt.Sprintf("%s %q", role, cutString(c.Text, 60))
	}
	if len(c.CSS) > 0 {
		return role + " " + c.CSS[0].Selector
	}
	return role
}

func cutString(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// wholeSecret is a value that is one declared secret, as Mask writes it.
var wholeSecret = regexp.MustCompile(`^<secret:([A-Za-z][A-Za-z0-9_]*)>$`)

// notWord is what a parameter name leaves out.
var notWord = regexp.MustCompile(`[^a-z0-9]+`)

// paramBase is a parameter's name from its field: its label (accessible
// name), else its placeholder, name attribute or id; lower case, words
// joined by _, at most 32 characters.
func paramBase(c *browser.Candidates) string {
	if c == nil {
		return "value"
	}
	fp := c.Fingerprint
	for _, s := range []string{fp.Name, fp.Placeholder, fp.NameAttr, fp.ID} {
		n := strings.Trim(notWord.ReplaceAllString(strings.ToLower(s), "_"), "_")
		if n == "" {
			continue
		}
		if len(n) > 28 {
			n = strings.TrimRight(n[:28], "_")
		}
		if n[0] >= '0' && n[0] <= '9' {
			n = "f_" + n
		}
		return n
	}
	return "value"
}

// tabMatch is what selects a new tab by its address: its path and query
// (the host too when there is no path).
func tabMatch(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	if p := u.RequestURI(); p != "/" {
		return p
	}
	return u.Host
}
