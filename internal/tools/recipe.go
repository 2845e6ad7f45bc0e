package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/flow"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// RecipeParamIn is one parameter recipe_save makes: a literal of the steps
// that becomes $name.
type RecipeParamIn struct {
	Value       any    `json:"value"`
	Description string `json:"description,omitempty"`
}

// RecipeSaveIn is recipe_save's input.
type RecipeSaveIn struct {
	Name        string                   `json:"name" jsonschema:"a-z0-9 . _ -"`
	Description string                   `json:"description,omitempty" jsonschema:"what it does, for recipe_list"`
	Site        string                   `json:"site,omitempty" jsonschema:"default: the first URL's host"`
	Params      map[string]RecipeParamIn `json:"params,omitempty" jsonschema:"name → {value: a literal in the steps that becomes $name}"`
	Steps       []map[string]any         `json:"steps,omitempty" jsonschema:"default: this session's last browser_flow that ran to its end"`
	Output      []string                 `json:"output,omitempty" jsonschema:"save_as names a run returns"`
	Overwrite   bool                     `json:"overwrite,omitempty" jsonschema:"replace a recipe of that name (kept as .bak)"`
	Session     string                   `json:"session,omitempty"`
}

// RecipeListIn is recipe_list's input.
type RecipeListIn struct {
	Site string `json:"site,omitempty" jsonschema:"only this site's"`
}

// RecipeRunIn is recipe_run's input.
type RecipeRunIn struct {
	Name    string         `json:"name"`
	Params  map[string]any `json:"params,omitempty" jsonschema:"name → value; defaults for the rest"`
	Session string         `json:"session,omitempty"`
	Tab     string         `json:"tab,omitempty"`
}

var recipeSaveTool = Def(Tool{
	Name:        "recipe_save",
	Description: "Save the session's last browser_flow that ran to its end (or steps) as a recipe; params turn literals into $name.",
	Annotations: Annotations{Destructive: ptr(false), OpenWorld: ptr(false)},
	Group:       GroupRecipes,
	Hold:        HoldExistingSession,
}, func(ctx context.Context, h *Held, in RecipeSaveIn) (*Result, error) {
	store, err := recipeStore(h)
	if err != nil {
		return nil, err
	}
	if !recipes.ValidName(in.Name) {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("name %q: lower-case letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit", browser.Echo(in.Name)),
			Suggestions: []string{`"name": "shop-search"`}}
	}
	var steps []map[string]any
	var cands map[int]*browser.Candidates
	var fieldCands map[int][]*browser.Candidates
	budget := 0
	switch {
	case len(in.Steps) > 0:
		steps = in.Steps
	case h.Exists() && h.Heal().LastFlow() != nil:
		last := h.Heal().LastFlow()
		steps, cands, fieldCands, budget = last.Steps, last.Candidates, last.Fields, last.BudgetMs
	default:
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("session %q has no browser_flow that ran to its end, and no steps were given", h.SessionName()),
			Hint: "run the flow with browser_flow first (it records the elements its steps act on), then call recipe_save; or pass steps"}
	}
	r, err := buildRecipe(in, steps, cands, fieldCands, budget)
	if err != nil {
		return nil, err
	}
	if !in.Overwrite {
		if old, err := store.Load(r.Name); err == nil {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("recipe %q exists (%s)", r.Name, recipes.ShortPath(old.Path)),
				Hint: "pass overwrite: true to replace it (the old file is kept as .bak), or choose another name"}
		}
	}
	path, err := store.Save(r)
	if err != nil {
		return nil, recipeError(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Saved recipe %s for %s: %d step(s)", r.Name, r.Site, len(r.Steps))
	if n := countCandidates(r); n > 0 {
		fmt.Fprintf(&b, ", %d with recorded elements", n)
	}
	fmt.Fprintf(&b, ", to %s.", recipes.ShortPath(path))
	if len(r.Params) > 0 {
		b.WriteString("\nParams: " + paramsLine(r))
	}
	fmt.Fprintf(&b, "\nRun it: recipe_run {\"name\":%q}", r.Name)
	return &Result{Text: b.String()}, nil
})

// buildRecipe makes the recipe recipe_save saves: the steps with their
// recorded candidates, refs replaced by locators that outlive the page, and
// the literals the agent named turned into $params; checked as a file
// would be.
func buildRecipe(in RecipeSaveIn, steps []map[string]any, cands map[int]*browser.Candidates, fieldCands map[int][]*browser.Candidates, budget int) (*recipes.Recipe, error) {
	r := &recipes.Recipe{Name: in.Name, Description: strings.TrimSpace(in.Description), Version: recipes.FormatVersion, Output: in.Output, BudgetMs: budget}
	for i, raw := range steps {
		fields := map[string]any{}
		for k, v := range raw {
			if k != recipes.CandidatesField {
				fields[k] = v
			}
		}
		st := recipes.Step{Fields: fields}
		if c := cands[i+1]; c != nil {
			b, err := json.Marshal(c)
			if err != nil {
				return nil, fmt.Errorf("recipe_save: step %d: %w", i+1, err)
			}
			st.Candidates = b
			replaceRef(fields, c)
		}
		if fc := fieldCands[i+1]; fc != nil {
			list, _ := fields["fields"].([]any)
			copied := make([]any, len(list))
			for j, f := range list {
				m, ok := f.(map[string]any)
				if !ok {
					copied[j] = f
					continue
				}
				fm := maps.Clone(m)
				if j < len(fc) && fc[j] != nil {
					replaceRef(fm, fc[j])
				}
				if ref, _ := fm["ref"].(string); ref != "" {
					return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("step %d, field %d targets ref %s, which does not outlive its page, and no element was recorded for it", i+1, j+1, browser.Echo(ref)),
						Hint: "run the steps as a browser_flow first (it records each field's element), or write the field with a selector, text or role and name"}
				}
				copied[j] = fm
			}
			fields["fields"] = copied
			b, err := json.Marshal(formCandidates{Fields: fc})
			if err != nil {
				return nil, fmt.Errorf("recipe_save: step %d: %w", i+1, err)
			}
			st.Candidates = b
		}
		if ref, _ := fields["ref"].(string); ref != "" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("step %d targets ref %s, which does not outlive its page, and no element was recorded for it", i+1, browser.Echo(ref)),
				Hint: "run the steps as a browser_flow first (it records each step's element), or write the step with a selector, text or role and name"}
		}
		r.Steps = append(r.Steps, st)
	}
	if r.Site = strings.ToLower(strings.TrimSpace(in.Site)); r.Site == "" {
		r.Site = firstHost(r.Steps)
	}
	if r.Site == "" {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "the recipe's site is unknown: no step navigates to a URL with a host",
			Hint: "pass site (e.g. \"shop.example.com\")"}
	}
	if err := promoteParams(r, in.Params); err != nil {
		return nil, err
	}
	if err := keepNoPasswords(r, cands, fieldCands); err != nil {
		return nil, err
	}
	data, err := r.JSON()
	if err != nil {
		return nil, fmt.Errorf("recipe_save: %w", err)
	}
	checked, err := recipes.Parse("", data)
	if err != nil {
		return nil, recipeError(err)
	}
	return checked, nil
}

// keepNoPasswords makes sure a recipe stores no password: a value filled
// or typed into a password field (as its recorded element says) must be a
// declared secret or a parameter, and such a parameter keeps no default
// (each run gives it). A literal left in the steps refuses the save.
func keepNoPasswords(r *recipes.Recipe, cands map[int]*browser.Candidates, fieldCands map[int][]*browser.Candidates) error {
	isPassword := func(c *browser.Candidates) bool { return c != nil && strings.EqualFold(c.Fingerprint.Type, "password") }
	saved := map[string]bool{} // the steps' save_as names
	for _, st := range r.Steps {
		if n, ok := st.Fields["save_as"].(string); ok {
			saved[n] = true
		}
	}
	check := func(where string, fields map[string]any) error {
		v, ok := fields["value"].(string)
		if !ok || v == "" {
			return nil
		}
		if m := wholeParam.FindStringSubmatch(v); m != nil {
			name := m[1] + m[2] // one of the two forms matched
			if p, ok := r.Params[name]; ok {
				p.Default = nil // asked for at each run, never written down
				if p.Description == "" {
					p.Description = "a password: given at each run, not stored"
				}
				r.Params[name] = p
				return nil
			}
			if saved[name] {
				return nil // a value an earlier step read, at run time
			}
		}
		return &browser.Error{Code: browser.CodeInvalidArgument,
			Message: fmt.Sprintf("%s fills a password field with a value written in the step: a recipe stores no password", where),
			Hint:    `fill it with a declared secret ({"secret": "NAME"} in the flow: webpilot --secrets FILE or WEBPILOT_SECRET_NAME), or name the value as a parameter (params: {"password": {"value": "…"}}), which each run then gives`}
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		if _, isSecret := st.Fields["secret"]; isSecret {
			continue
		}
		if isPassword(cands[i+1]) {
			if err := check(fmt.Sprintf("step %d", i+1), st.Fields); err != nil {
				return err
			}
		}
		fc := fieldCands[i+1]
		list, _ := st.Fields["fields"].([]any)
		for j, f := range list {
			m, ok := f.(map[string]any)
			if !ok || j >= len(fc) || !isPassword(fc[j]) {
				continue
			}
			if _, isSecret := m["secret"]; isSecret {
				continue
			}
			if err := check(fmt.Sprintf("step %d, field %d", i+1, j+1), m); err != nil {
				return err
			}
		}
	}
	return nil
}

// locatorTakesParam says a step's (or a form field's) locator holds a
// $parameter.
func locatorTakesParam(fields map[string]any) bool {
	for _, k := range []string{"selector", "text", "role", "name", "within", "frame"} {
		if v, ok := fields[k].(string); ok && paramRef.MatchString(v) {
			return true
		}
	}
	return false
}

// wholeParam is a value that is one $name or ${name} and nothing else
// ("$$x" is a literal "$x").
var wholeParam = regexp.MustCompile(`^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$`)

// paramRef is a $name or ${name} in a step's string (not CSS's $= operator).
var paramRef = regexp.MustCompile(`\$\{?[A-Za-z_]`)

// formCandidates are a fill_form step's candidates: one per field (null
// for a field that was not described).
type formCandidates struct {
	Fields []*browser.Candidates `json:"fields"`
}

// replaceRef writes a step that targeted a ref with the locator that
// outlives the page, chosen by recipes.Locate (as recipe_record chooses
// it); a frame the step names stays. A step the policy finds nothing for
// keeps its ref, which the caller refuses.
func replaceRef(fields map[string]any, c *browser.Candidates) {
	if ref, _ := fields["ref"].(string); ref == "" {
		return
	}
	loc := recipes.Locate(recordedElement(c))
	if len(loc) == 0 {
		return
	}
	delete(fields, "ref")
	if fields["frame"] != nil {
		delete(loc, "frame")
	}
	maps.Copy(fields, loc)
}

// recordedElement is what recipes.Locate chooses a locator from: the
// naming part of the element's candidates.
func recordedElement(c *browser.Candidates) recipes.Element {
	e := recipes.Element{Tag: c.Fingerprint.Tag, Role: c.Fingerprint.Role, Name: c.Fingerprint.Name, Similar: c.Fingerprint.Similar,
		Text: c.Text, Frame: c.Frame, ByPlace: c.ByPlace}
	for _, s := range c.CSS {
		e.CSS = append(e.CSS, recipes.Selector{Kind: s.Kind, CSS: s.Selector})
	}
	return e
}

// firstHost is the host of the first URL a step navigates to.
func firstHost(steps []recipes.Step) string {
	for _, s := range steps {
		if u, ok := s.Fields["url"].(string); ok && s.Do() == "navigate" {
			if p, err := url.Parse(u); err == nil && p.Host != "" {
				return strings.ToLower(p.Host)
			}
		}
	}
	return ""
}

// promoteParams turns each parameter's literal into $name wherever it is a
// whole string value, or inside a URL or text, in the steps; a literal
// that appears nowhere is refused.
func promoteParams(r *recipes.Recipe, params map[string]RecipeParamIn) error {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	// Longer literals first, so that one holding another is replaced whole.
	sort.Slice(names, func(i, j int) bool {
		return len(fmt.Sprint(params[names[i]].Value)) > len(fmt.Sprint(params[names[j]].Value))
	})
	r.Params = map[string]recipes.Param{}
	for _, name := range names {
		p := params[name]
		var typ, lit string
		switch v := p.Value.(type) {
		case string:
			typ, lit = "string", v
		case float64:
			typ, lit = "number", strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", v), "0"), ".")
		case bool:
			typ, lit = "boolean", fmt.Sprint(v)
		default:
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("params.%s.value: a string, number or boolean that appears in the steps", browser.Echo(name)),
				Hint: "name a literal the steps use", Suggestions: []string{`"params": {"query": {"value": "kettle"}}`}}
		}
		if lit == "" {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("params.%s.value is empty", browser.Echo(name)),
				Hint: "name a literal the steps use", Suggestions: []string{`"params": {"query": {"value": "kettle"}}`}}
		}
		found := 0
		for i := range r.Steps {
			for k, v := range r.Steps[i].Fields {
				nv, n := replaceLiteral(v, lit, name, typ)
				if n > 0 {
					r.Steps[i].Fields[k] = nv
					found += n
				}
			}
		}
		if found == 0 {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("params.%s: the value %q appears in no step", browser.Echo(name), browser.Echo(lit)),
				Hint: "name a literal the steps use, as written there (a URL's query value, a fill value, a text)"}
		}
		r.Params[name] = recipes.Param{Type: typ, Description: p.Description, Default: p.Value}
	}
	if len(r.Params) == 0 {
		r.Params = nil
	}
	return nil
}

// replaceLiteral replaces lit by $name in v (strings inside maps and lists
// too); a whole-value match of a number or boolean becomes "$name".
func replaceLiteral(v any, lit, name, typ string) (any, int) {
	switch x := v.(type) {
	case string:
		if x == lit {
			return "$" + name, 1
		}
		if typ == "string" && strings.Contains(x, lit) {
			return strings.ReplaceAll(x, lit, "${"+name+"}"), strings.Count(x, lit)
		}
		if typ == "string" {
			if enc := url.QueryEscape(lit); enc != lit && strings.Contains(x, enc) {
				return strings.ReplaceAll(x, enc, "${"+name+"}"), strings.Count(x, enc)
			}
		}
	case float64, bool:
		if fmt.Sprint(x) == lit {
			return "$" + name, 1
		}
	case []any:
		n := 0
		out := make([]any, len(x))
		for i, e := range x {
			var k int
			out[i], k = replaceLiteral(e, lit, name, typ)
			n += k
		}
		return out, n
	case map[string]any:
		n := 0
		out := make(map[string]any, len(x))
		for k, e := range x {
			var c int
			out[k], c = replaceLiteral(e, lit, name, typ)
			n += c
		}
		return out, n
	}
	return v, 0
}

func countCandidates(r *recipes.Recipe) int {
	n := 0
	for _, s := range r.Steps {
		if len(s.Candidates) > 0 {
			n++
		}
	}
	return n
}

// paramsLine is a recipe's parameters in brief: query:string=socks, and
// email:string (required) for one without a default.
func paramsLine(r *recipes.Recipe) string {
	var parts []string
	for _, n := range r.ParamNames() {
		p := r.Params[n]
		s := n + ":" + p.Type
		if p.Type == "enum" {
			s += "(" + strings.Join(p.Values, "|") + ")"
		}
		if p.Default != nil {
			s += "=" + fmt.Sprint(p.Default)
		} else {
			s += " (required)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// secretsLine is the secrets a recipe types, by name, each not declared
// for this client marked: SHOP_PASSWORD (not declared).
func secretsLine(r *recipes.Recipe, declared *secrets.Set) string {
	names := r.Needs().Secrets
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n
		if _, ok := declared.Lookup(n); !ok {
			parts[i] += " (not declared)"
		}
	}
	return strings.Join(parts, ", ")
}

var recipeListTool = Def(Tool{
	Name:        "recipe_list",
	Description: "Saved recipes: name, site, description, params.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupRecipes,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, in RecipeListIn) (*Result, error) {
	store, err := recipeStore(h)
	if err != nil {
		return nil, err
	}
	l, err := store.List()
	if err != nil {
		return nil, recipeError(err)
	}
	var lines []string
	for _, e := range l.Entries {
		if e.Shadowed {
			continue
		}
		if e.Err != nil {
			lines = append(lines, fmt.Sprintf("- %s (%s): does not load: %s", e.Name, e.Source, browser.Echo(firstLine(e.Err.Error()))))
			continue
		}
		r := e.Recipe
		if s := strings.ToLower(strings.TrimSpace(in.Site)); s != "" && !strings.Contains(r.Site, s) {
			continue
		}
		line := fmt.Sprintf("- %s · %s", r.Name, r.Site)
		if r.Description != "" {
			line += " · " + browser.Echo(r.Description)
		}
		if p := paramsLine(r); p != "" {
			line += " · params " + p
		}
		if sl := secretsLine(r, h.env.Secrets); sl != "" {
			line += " · secrets " + sl
		}
		if e.Source == recipes.SourceProject {
			line += " · project"
			if !e.Trusted {
				line += " (untrusted: not run until the user trusts the folder)"
			}
		}
		lines = append(lines, line)
	}
	text := fmt.Sprintf("%d recipe(s)", len(lines))
	if len(lines) > 0 {
		text += ":\n" + strings.Join(lines, "\n")
	} else {
		text += ". Save one with recipe_save after a browser_flow that works."
	}
	if l.ProjectErr != nil {
		text += "\nProject recipes: " + browser.Echo(firstLine(l.ProjectErr.Error()))
	}
	return &Result{Text: text}, nil
})

var recipeRunTool = Def(Tool{
	Name:        "recipe_run",
	Description: "Run a saved recipe with params in one call: its output and a per-step trace (match level of each element).",
	Annotations: Annotations{},
	Group:       GroupRecipes,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in RecipeRunIn) (*Result, error) {
	store, err := recipeStore(h)
	if err != nil {
		return nil, err
	}
	r, steps, err := bindRun(h.env, in)
	if err != nil {
		return nil, err
	}
	cands := map[int]*browser.Candidates{}
	formCands := map[int][]*browser.Candidates{}
	for i, st := range steps {
		raw := recipes.TakeCandidates(st)
		if len(raw) == 0 {
			continue
		}
		var err error
		if st["do"] == "fill_form" {
			var fc formCandidates
			err = json.Unmarshal(raw, &fc)
			formCands[i+1] = fc.Fields
		} else {
			var c browser.Candidates
			err = json.Unmarshal(raw, &c)
			cands[i+1] = &c
		}
		if err != nil {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("recipe %s: step %d: candidates do not read: %v", r.Name, i+1, err),
				Hint: "fix or remove the step's candidates in " + recipes.ShortPath(r.Path)}
		}
	}
	// A step whose locator takes a parameter (the row that holds $order)
	// names another element at each run: the element recorded when it was
	// saved is no guide, so the step's own locator decides, strictly.
	for i, st := range r.Steps {
		if locatorTakesParam(st.Fields) {
			delete(cands, i+1)
		}
		if list, _ := st.Fields["fields"].([]any); formCands[i+1] != nil {
			for j, f := range list {
				if m, ok := f.(map[string]any); ok && j < len(formCands[i+1]) && locatorTakesParam(m) {
					formCands[i+1][j] = nil
				}
			}
		}
	}
	p, err := flow.Parse(steps, r.BudgetMs, true)
	if err != nil {
		return nil, err
	}
	heals := map[int]*stepHeal{}
	relocate := func(ctx context.Context, loc browser.Locator, c *browser.Candidates) (*browser.Relocation, *browser.Candidates, error) {
		rel, err := h.Heal().Relocate(ctx, loc, c)
		if err != nil {
			return nil, nil, err
		}
		var nc *browser.Candidates
		if rel.Level == browser.LevelHealed || rel.Level == browser.LevelReidentified {
			if nc, _ = h.Heal().Describe(ctx, rel.Locator); nc != nil {
				nc.ByPlace = c.ByPlace
			}
		}
		return rel, nc, nil
	}
	x := &stepExec{env: h.env, h: h}
	x.before = func(ctx context.Context, step int, in any) (any, error) {
		if form, ok := in.(FillFormIn); ok && formCands[step] != nil {
			fc := formCands[step]
			sh := &stepHeal{fields: make([]*browser.Relocation, len(form.Fields)), newFields: make([]*browser.Candidates, len(form.Fields))}
			form.Fields = slices.Clone(form.Fields)
			for i := range form.Fields {
				if i >= len(fc) || fc[i] == nil {
					continue
				}
				rel, nc, err := relocate(ctx, form.Fields[i].target(), fc[i])
				if err != nil {
					if be, ok := browser.AsError(err); ok {
						be.Message = fmt.Sprintf("field %d: %s", i+1, be.Message)
					}
					return nil, err
				}
				sh.fields[i], sh.newFields[i] = rel, nc
				form.Fields[i].LocatorIn = locatorIn(rel.Locator)
			}
			heals[step] = sh
			return form, nil
		}
		c := cands[step]
		tg, ok := in.(targeted)
		if c == nil || !ok {
			return in, nil
		}
		rel, nc, err := relocate(ctx, tg.target(), c)
		if err != nil {
			return nil, err
		}
		heals[step] = &stepHeal{rel: rel, newCand: nc}
		return withTarget(in, rel.Locator), nil
	}
	if err := p.Check(x); err != nil {
		return nil, err
	}
	release, gateNote, err := enterGate(ctx, h, recipes.Site(r.Site))
	if err != nil {
		return nil, err
	}
	defer release()
	tr := p.Run(ctx, x, h.env.Progress)
	if tr.Err != nil {
		addHeals(tr.Err, heals)
		return nil, tr.Err
	}
	res := recipeResult(r, p, tr, heals)
	if gateNote != "" {
		res.Text += "\n" + gateNote
	}
	if h.env.HealWrite {
		if n, path, err := healWrite(store, r, heals); err != nil {
			res.Text += "\nCould not write the healed locators back: " + browser.Echo(err.Error())
		} else if n > 0 {
			res.Text += fmt.Sprintf("\nWrote %d healed locator(s) into %s (the previous version is kept as .bak).", n, recipes.ShortPath(path))
		}
	} else if n := healed(heals); n > 0 {
		res.Text += fmt.Sprintf("\nNote: %d step(s) found their element through another locator than the recipe's; webpilot started with --heal-write writes the new locators into %s (the old file kept as .bak).", n, recipes.ShortPath(r.Path))
	}
	return res, nil
})

// Prepare checks, before the call holds a session or a tab, everything the
// run needs: the recipe loads (and is trusted), every required parameter
// is given and every value checks, every secret it would type is declared
// (one error naming all that is missing), and each step's arguments check
// as its tool's own call would. recipe_run, from an agent or from webpilot
// recipe run, does nothing on the page before this passes.
func (in RecipeRunIn) Prepare(env *Env) error {
	r, steps, err := bindRun(env, in)
	if err != nil {
		return err
	}
	for _, st := range steps {
		recipes.TakeCandidates(st)
	}
	p, err := flow.Parse(steps, r.BudgetMs, true)
	if err != nil {
		return err
	}
	return p.Check(&stepExec{env: env})
}

// bindRun loads the recipe a run names from the call's store and binds
// its parameters, after CheckRun found nothing missing: its steps, with
// the secrets given as parameters placed.
func bindRun(env *Env, in RecipeRunIn) (*recipes.Recipe, []map[string]any, error) {
	if env.Recipes == nil {
		return nil, nil, &browser.Error{Code: browser.CodeInternal, Message: "no recipe folder is set up", Hint: "start webpilot with --recipes DIR"}
	}
	r, err := env.Recipes.Load(in.Name)
	if err != nil {
		return nil, nil, recipeError(err)
	}
	declared := func(name string) bool { _, ok := env.Secrets.Lookup(name); return ok }
	steps, err := r.CheckRun(secretParams(in.Params), declared)
	if err != nil {
		return nil, nil, recipeError(err)
	}
	if err := placeSecrets(steps); err != nil {
		return nil, nil, err
	}
	return r, steps, nil
}

// secretParams turns the parameters given as {"secret": "NAME"} into
// recipes.Secret values, which Bind keeps as values in the steps.
func secretParams(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			if name, ok := m["secret"].(string); ok {
				out[k] = recipes.Secret{Name: name}
				continue
			}
		}
		out[k] = v
	}
	return out
}

// placeSecrets turns each step value that is a secret parameter alone into
// that step's (or field's) secret; a secret anywhere else is refused: a
// secret is typed, never put into a URL or a selector.
func placeSecrets(steps []map[string]any) error {
	swap := func(m map[string]any) {
		if sec, ok := m["value"].(recipes.Secret); ok && !sec.InText {
			delete(m, "value")
			m["secret"] = sec.Name
		}
	}
	for i, st := range steps {
		swap(st)
		if list, ok := st["fields"].([]any); ok {
			for _, f := range list {
				if m, ok := f.(map[string]any); ok {
					swap(m)
				}
			}
		}
		if holdsSecret(st) {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("step %d uses a secret parameter other than as a whole value to type", i+1),
				Hint: "a secret can only be the value of a fill or type action or of a form field; give this parameter as a plain value, or ask the user"}
		}
	}
	return nil
}

// holdsSecret reports whether a recipes.Secret is left anywhere in v.
func holdsSecret(v any) bool {
	switch x := v.(type) {
	case recipes.Secret:
		return true
	case map[string]any:
		for _, e := range x {
			if holdsSecret(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsSecret(e) {
				return true
			}
		}
	}
	return false
}

// stepHeal is how a recipe step found its element (or, for fill_form, each
// field's) again, and the new candidates of those found through another
// candidate (for --heal-write).
type stepHeal struct {
	rel       *browser.Relocation
	newCand   *browser.Candidates
	fields    []*browser.Relocation
	newFields []*browser.Candidates
}

// line is the step's match for the trace: "exact", "healed via id", or per
// field "fields exact, healed via attr".
func (sh *stepHeal) line() string {
	if sh.rel != nil {
		return matchLine(sh.rel) + foundAs(sh.rel, sh.newCand)
	}
	var parts []string
	for i, rel := range sh.fields {
		if rel != nil {
			var nc *browser.Candidates
			if i < len(sh.newFields) {
				nc = sh.newFields[i]
			}
			parts = append(parts, matchLine(rel)+foundAs(rel, nc))
		}
	}
	return "fields " + strings.Join(parts, ", ")
}

// foundAs names the element a step found through another candidate as it
// is now (` → button "Ask for a refund"`): the step's own label is the
// recipe's, which may name what the page no longer says.
func foundAs(rel *browser.Relocation, nc *browser.Candidates) string {
	if nc == nil || (rel.Level != browser.LevelHealed && rel.Level != browser.LevelReidentified && rel.Level != browser.LevelStable) {
		return ""
	}
	fp := nc.Fingerprint
	if fp.Name == "" {
		return " → " + fp.Role
	}
	return " → " + fp.Role + " " + strconv.Quote(browser.Echo(fp.Name))
}

// healed counts the steps (and form fields) found through another
// candidate than their own locator.
func healed(heals map[int]*stepHeal) int {
	n := 0
	for _, sh := range heals {
		for _, rel := range append([]*browser.Relocation{sh.rel}, sh.fields...) {
			if rel != nil && (rel.Level == browser.LevelHealed || rel.Level == browser.LevelReidentified) {
				n++
			}
		}
	}
	return n
}

// locatorIn is l as a tool's target arguments.
func locatorIn(l browser.Locator) LocatorIn {
	return LocatorIn{Ref: l.Ref, Selector: l.Selector, Text: l.Text, Role: l.Role, Name: l.Name, Exact: l.Exact, Within: l.Within, Frame: l.Frame}
}

// withTarget is the step input in with its target replaced by l.
func withTarget(in any, l browser.Locator) any {
	li := locatorIn(l)
	switch v := in.(type) {
	case ActionIn:
		v.LocatorIn = li
		return v
	case ReadIn:
		v.LocatorIn = li
		return v
	}
	return in
}

// matchLine is how a step found its element: "exact", "healed via text".
func matchLine(rel *browser.Relocation) string {
	if rel.Via == "primary" || rel.Via == "" {
		return rel.Level
	}
	return rel.Level + " via " + rel.Via
}

// addHeals puts the match of each step that found its element into a failed
// run's trace.
func addHeals(e *browser.Error, heals map[int]*stepHeal) {
	if len(heals) == 0 || e.Diagnosis == nil {
		return
	}
	m := map[string]string{}
	for i, sh := range heals {
		m[fmt.Sprint(i)] = sh.line()
	}
	e.Diagnosis["match_level"] = m
}

// recipeResult is a run that went to its end: the output, then the trace
// with each step's match level.
func recipeResult(r *recipes.Recipe, p *flow.Plan, tr *flow.Trace, heals map[int]*stepHeal) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "Recipe %s done: %d step(s) in %d ms.", r.Name, len(tr.Entries), tr.Ms)
	var out []string
	if len(r.Output) > 0 {
		for _, name := range r.Output {
			for _, e := range tr.Entries {
				if e.Saved == name {
					out = append(out, fmt.Sprintf("%s: %s", name, capFlowPart(e.Value)))
				}
			}
		}
	} else if i := r.OutputStep(); i > 0 {
		for _, e := range tr.Entries {
			if e.Index == i && e.Outcome == flow.OutcomeOK {
				out = append(out, capFlowPart(strings.TrimSpace(e.Output.Text)))
			}
		}
	}
	if len(out) > 0 {
		b.WriteString("\nOutput:\n" + strings.Join(out, "\n"))
	}
	b.WriteString("\nTrace:")
	for _, e := range tr.Entries {
		line := e.Line()
		if sh := heals[e.Index]; sh != nil {
			line += " · match " + sh.line()
		}
		b.WriteString("\n" + line)
	}
	return &Result{Text: b.String()}
}

// capFlowPart bounds one output value as a flow's result does.
func capFlowPart(s string) string {
	const maxPart = 4000
	if head, more := text.Head(s, maxPart); more > 0 {
		return head + fmt.Sprintf(" … (%d more chars)", more)
	}
	return s
}

// healWrite saves the recipe with the new locators and candidates of the
// elements found through another candidate (atomic; the previous version
// kept as .bak); n is how many; nothing is written when there are none.
func healWrite(store *recipes.Store, r *recipes.Recipe, heals map[int]*stepHeal) (n int, path string, err error) {
	for step, sh := range heals {
		if step < 1 || step > len(r.Steps) {
			continue
		}
		st := &r.Steps[step-1]
		if sel := healedSelector(sh.rel, sh.newCand); sh.newCand != nil && sel != "" {
			setSelector(st.Fields, sel)
			if st.Candidates, err = json.Marshal(sh.newCand); err != nil {
				return 0, "", err
			}
			n++
		}
		if sh.fields == nil {
			continue
		}
		var fc formCandidates
		_ = json.Unmarshal(st.Candidates, &fc)
		list, _ := st.Fields["fields"].([]any)
		changed := false
		for i, nc := range sh.newFields {
			fm, ok := fieldMap(list, i)
			sel := healedSelector(sh.fields[i], nc)
			if nc == nil || !ok || sel == "" || i >= len(fc.Fields) {
				continue
			}
			setSelector(fm, sel)
			fc.Fields[i] = nc
			changed = true
			n++
		}
		if changed {
			if st.Candidates, err = json.Marshal(fc); err != nil {
				return 0, "", err
			}
		}
	}
	if n == 0 {
		return 0, "", nil
	}
	path, err = store.Save(r)
	return n, path, err
}

// healedSelector is the selector a healed step is written back with: the
// one it was found by, or, for a step that picks by place, a structural
// one (still by place) when there is one.
func healedSelector(rel *browser.Relocation, nc *browser.Candidates) string {
	if nc != nil && nc.ByPlace {
		for _, c := range nc.CSS {
			if c.Kind == "structural" && browser.Positional(c.Selector) {
				return c.Selector
			}
		}
	}
	if rel == nil {
		return ""
	}
	return rel.Locator.Selector
}

// setSelector makes a target's arguments the one selector sel.
func setSelector(fields map[string]any, sel string) {
	for _, k := range []string{"ref", "selector", "text", "role", "name", "exact"} {
		delete(fields, k)
	}
	fields["selector"] = sel
}

// fieldMap is the i-th field of a fill_form step's fields list.
func fieldMap(list []any, i int) (map[string]any, bool) {
	if i >= len(list) {
		return nil, false
	}
	m, ok := list[i].(map[string]any)
	return m, ok
}

// recipeStore is the call's recipe store.
func recipeStore(h *Held) (*recipes.Store, error) {
	if h.env.Recipes == nil {
		return nil, &browser.Error{Code: browser.CodeInternal, Message: "no recipe folder is set up", Hint: "start webpilot with --recipes DIR"}
	}
	return h.env.Recipes, nil
}

// recipeError turns the recipe package's errors into agent errors.
func recipeError(err error) error {
	if _, ok := browser.AsError(err); ok {
		return err
	}
	var miss *recipes.Missing
	if errors.As(err, &miss) {
		return missingError(miss)
	}
	if ve, ok := recipes.AsValidationError(err); ok {
		var sugg []string
		for _, p := range ve.Problems {
			sugg = append(sugg, p.String())
		}
		hint := "the recipe file does not check: fix what each line names (webpilot recipe validate checks a file)"
		if ve.Path == "" {
			hint = "check the params against the recipe's (recipe_list shows them)"
		}
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: firstLine(ve.Error()), Suggestions: slices.Clip(sugg), Hint: hint, Err: err}
	}
	var ue *recipes.UntrustedError
	if errors.As(err, &ue) {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: ue.Error(),
			Hint: "project recipes run in the user's own browser, so the user must trust the folder first: " + ue.Hint() + " (ask the user; never run it yourself)", Err: err}
	}
	if errors.Is(err, recipes.ErrNotFound) {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: err.Error(), Hint: "recipe_list shows the recipes", Err: err}
	}
	return fmt.Errorf("recipes: %w", err)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// missingError is a run refused before its first step: one INVALID_ARGUMENT
// naming every missing parameter and undeclared secret (and the other
// parameter problems), with how to give each; diagnosis missing_params and
// missing_secrets (names only, never a value).
func missingError(m *recipes.Missing) error {
	var hints, sugg []string
	diag := map[string]any{}
	if len(m.Secrets) > 0 {
		// First: the hint is cut at its bound, and this part must reach
		// the agent whole.
		hints = append(hints, "the user declares each secret for webpilot — a line NAME=value in the --secrets file, or the environment variable WEBPILOT_SECRET_NAME — then runs it again; never ask for the value in the chat")
	}
	if len(m.Params) > 0 {
		ex := make([]string, len(m.Params))
		kv := make([]string, len(m.Params))
		for i, name := range m.Params {
			ex[i] = fmt.Sprintf("%q: …", name)
			kv[i] = name + "=…"
		}
		hints = append(hints, fmt.Sprintf(`give every required parameter: recipe_run {"name": %q, "params": {%s}} (on the command line: webpilot recipe run %s %s)`,
			m.Recipe, strings.Join(ex, ", "), m.Recipe, strings.Join(kv, " ")))
		for _, name := range m.Params {
			sugg = append(sugg, fmt.Sprintf("parameter %s: required, no default", name))
		}
		diag["missing_params"] = m.Params
	}
	if len(m.Secrets) > 0 {
		for _, name := range m.Secrets {
			sugg = append(sugg, fmt.Sprintf("secret %s: %s%s=… (or %s=… in the --secrets file)", name, secrets.EnvPrefix, name, name))
		}
		diag["missing_secrets"] = m.Secrets
	}
	for _, p := range m.Problems {
		sugg = append(sugg, p.String())
	}
	if len(m.Problems) > 0 {
		hints = append(hints, "check the params against the recipe's (recipe_list shows them)")
	}
	if len(diag) == 0 {
		diag = nil
	}
	return &browser.Error{Code: browser.CodeInvalidArgument, Message: m.Error() + ". Nothing was run.",
		Hint: strings.Join(hints, "; "), Suggestions: sugg, Diagnosis: diag, Err: m}
}
