package recipes

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/flow"
	"github.com/webpilot-mcp/webpilot/internal/vars"
)

// Bind checks a run's parameter values (types, enum values, minimum and
// maximum, unknown names, required ones: those without a default) and
// returns the recipe's steps ready for flow.Parse: every $param and
// ${param} replaced by its value (a "$param" string alone for a number or
// boolean becomes the value itself; a $ inside a value is written $$ so that
// the flow keeps it literal), the $names of saved values left for the flow,
// and each step's candidates kept under "candidates" as a json.RawMessage
// (the flow sees no strings in it; the executor takes it out before running
// the step's tool). A string parameter may be given as a Secret: a string
// that is that $param alone becomes the Secret itself, one that holds it
// among other text a Secret with InText set (the caller decides where a
// secret may go). Wrong values are a *ValidationError whose problems name
// params.NAME.
func (r *Recipe) Bind(params map[string]any) ([]map[string]any, error) {
	var problems []Problem
	given := make([]string, 0, len(params))
	for name := range params {
		given = append(given, name)
	}
	sort.Strings(given)
	for _, name := range given {
		if _, ok := r.Params[name]; !ok {
			takes := "takes no parameters"
			if len(r.Params) > 0 {
				takes = "takes " + strings.Join(r.ParamNames(), ", ")
			}
			problems = append(problems, Problem{Field: "params." + name, Message: fmt.Sprintf("no such parameter (recipe %s %s)", r.Name, takes)})
		}
	}
	vals := make(map[string]any, len(r.Params))
	for _, name := range r.ParamNames() {
		p := r.Params[name]
		x, ok := params[name]
		if !ok || x == nil {
			if p.Default == nil {
				problems = append(problems, Problem{Field: "params." + name, Message: fmt.Sprintf("missing: the %s parameter is required (it has no default)", p.Type)})
				continue
			}
			vals[name] = p.Default
			continue
		}
		if sec, ok := x.(Secret); ok && p.Type == TypeString {
			vals[name] = sec
			continue
		}
		v, msg := p.check(x, true)
		if msg != "" {
			problems = append(problems, Problem{Field: "params." + name, Message: msg})
			continue
		}
		vals[name] = v
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return r.bind(vals)
}

// bind substitutes vals (checked values of every parameter) into the steps.
func (r *Recipe) bind(vals map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, len(r.Steps))
	for i, s := range r.Steps {
		m := make(map[string]any, len(s.Fields)+1)
		for k, v := range s.Fields {
			if k == "do" || k == "save_as" {
				m[k] = v
				continue
			}
			if u, ok := v.(string); ok && k == "url" && s.Fields["do"] == "navigate" {
				m[k] = substituteURL(u, vals)
				continue
			}
			m[k] = substitute(v, vals)
		}
		if s.Candidates != nil {
			m[CandidatesField] = append(json.RawMessage(nil), s.Candidates...)
		}
		out[i] = m
	}
	return out, nil
}

// substitute puts the parameters' values into every string of v (maps and
// lists included); v itself is not changed.
func substitute(v any, vals map[string]any) any {
	switch x := v.(type) {
	case string:
		return substituteString(x, vals)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, vals)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, vals)
		}
		return out
	}
	return v
}

// Secret is a string parameter's value that stands for a declared secret,
// by name: Bind puts it into the steps as a value, never as text, so the
// secret itself is looked up only where it is typed.
type Secret struct {
	Name string `json:"secret"`
	// InText is set on a Secret that Bind found among other text of a
	// string ("Bearer $token"), which stands for that whole string.
	InText bool `json:"-"`
}

func substituteString(s string, vals map[string]any) any {
	var inText *Secret // a secret among other text: the string is refused
	for _, rf := range refsIn(s) {
		if sec, ok := vals[rf.name].(Secret); ok && !rf.whole {
			inText = &Secret{Name: sec.Name, InText: true}
			break
		}
	}
	if inText != nil {
		return *inText
	}
	if refs := refsIn(s); len(refs) == 1 && refs[0].whole {
		if v, ok := vals[refs[0].name]; ok {
			if str, ok := v.(string); ok {
				return escape(str)
			}
			return v
		}
	}
	return rewrite(s, func(rf ref) string {
		v, ok := vals[rf.name]
		if !ok {
			return "$" + rf.name // a saved value: the flow puts it in
		}
		switch x := v.(type) {
		case string:
			return escape(x)
		case float64:
			return num(x)
		}
		return fmt.Sprint(v)
	})
}

// substituteURL is substituteString for a navigation's URL: a value put
// into the query or fragment is query-escaped, into the path
// path-escaped ("a b&c" stays one value); in the scheme and host, or as
// the whole URL, it goes in as it is.
func substituteURL(s string, vals map[string]any) any {
	if refs := refsIn(s); len(refs) == 0 || (len(refs) == 1 && refs[0].whole) {
		return substituteString(s, vals)
	}
	for _, rf := range refsIn(s) {
		if _, ok := vals[rf.name].(Secret); ok {
			return substituteString(s, vals) // refused by the caller
		}
	}
	return rewriteAt(s, func(rf ref, before string) string {
		v, ok := vals[rf.name]
		if !ok {
			return "$" + rf.name // a saved value: the flow puts it in
		}
		str := fmt.Sprint(v)
		switch x := v.(type) {
		case string:
			str = x
		case float64:
			str = num(x)
		}
		switch {
		case strings.ContainsAny(before, "?#"):
			str = url.QueryEscape(str)
		case inPath(before):
			str = url.PathEscape(str)
		}
		return escape(str)
	})
}

// inPath says a URL that starts with before goes on in its path: past the
// scheme's "//" and the host.
func inPath(before string) bool {
	_, rest, ok := strings.Cut(before, "://")
	if !ok {
		return strings.HasPrefix(before, "/")
	}
	return strings.Contains(rest, "/")
}

// escape writes a value's $ as $$, which the flow turns back into $.
func escape(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// ref is a $name or ${name} in a string.
type ref struct {
	name          string
	braced        bool // ${name}
	whole         bool // the whole string is the reference
	nameCharAfter bool // a letter, digit or _ follows it
}

// refsIn lists the references in s.
func refsIn(s string) []ref {
	var refs []ref
	rewrite(s, func(r ref) string { refs = append(refs, r); return "" })
	return refs
}

// rewrite rewrites s, calling repl for each reference; $$ and a $ that
// starts no reference stay as they are (the flow reads them).
func rewrite(s string, repl func(r ref) string) string {
	return rewriteAt(s, func(r ref, _ string) string { return repl(r) })
}

// rewriteAt is rewrite whose repl also gets the text of s before the
// reference.
func rewriteAt(s string, repl func(r ref, before string) string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	toks := vars.Lex(s, true)
	var b, src strings.Builder
	for i, t := range toks {
		if t.Kind != vars.Ref {
			b.WriteString(t.Text)
			src.WriteString(t.Text)
			continue
		}
		after := t.Braced && i+1 < len(toks) && vars.NameChar(toks[i+1].Text[0])
		b.WriteString(repl(ref{name: t.Name, braced: t.Braced, whole: t.Text == s, nameCharAfter: after}, src.String()))
		src.WriteString(t.Text)
	}
	return b.String()
}

// walk calls f with every string in v.
func walk(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for _, e := range x {
			walk(e, f)
		}
	case []any:
		for _, e := range x {
			walk(e, f)
		}
	}
}

// validVar reports whether s can be a $name: letters, digits and _, not
// starting with a digit, at most flow.MaxNameLen (as the flow's save_as).
func validVar(s string) bool { return vars.ValidName(s) }

// TakeCandidates removes a bound step's candidates from it and returns
// them (nil: none), for the executor to run the step's tool without them.
func TakeCandidates(step map[string]any) json.RawMessage {
	c, _ := step[CandidatesField].(json.RawMessage)
	delete(step, CandidatesField)
	return c
}

// Check checks every step's tool arguments with x as the step's tool would
// check its own call (flow.Plan.CheckEach), the parameters bound to their
// defaults or, for required ones, a placeholder of their type (a string
// "x", a number's minimum or 1, false, an enum's first value). Problems are
// a *ValidationError naming the recipe's file and listing each step whose
// arguments do not check.
func (r *Recipe) Check(x flow.Executor) error {
	vals := map[string]any{}
	for name, p := range r.Params {
		vals[name] = p.placeholder()
	}
	steps, err := r.bind(vals)
	if err != nil {
		return err
	}
	for _, s := range steps {
		TakeCandidates(s)
	}
	p, err := flow.Parse(steps, r.BudgetMs, true)
	if err != nil {
		return &ValidationError{Path: r.Path, Problems: []Problem{flowProblem(err)}}
	}
	errs := p.CheckEach(x)
	if len(errs) == 0 {
		return nil
	}
	ve := &ValidationError{Path: r.Path}
	for _, err := range errs {
		ve.Problems = append(ve.Problems, flowProblem(err))
	}
	return ve
}
