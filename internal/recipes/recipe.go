package recipes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/flow"
	"github.com/webpilot-mcp/webpilot/internal/text"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

// FormatVersion is the recipe file format this package reads and writes.
const FormatVersion = 1

// Limits of a recipe.
const (
	// MaxNameLen bounds a recipe's name.
	MaxNameLen = 64
	// MaxFileSize bounds a recipe file.
	MaxFileSize = 1 << 20
	// MaxBudget is the largest budget_ms (the flow's own limit).
	MaxBudget = flow.MaxBudget
	// DefaultBudget is a recipe's budget when budget_ms is left out.
	DefaultBudget = flow.DefaultBudget
)

// CandidatesField is the step field holding the element candidates that
// self-healing relocation recorded for the step (opaque to this package).
const CandidatesField = "candidates"

// Parameter types.
const (
	TypeString  = "string"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeEnum    = "enum"
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidName reports whether s can name a recipe: [a-z0-9][a-z0-9-_.]{0,63}.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// Recipe is a checked recipe.
type Recipe struct {
	Name        string           `json:"name"`
	Site        string           `json:"site"`
	Description string           `json:"description,omitempty"`
	Version     int              `json:"version"`
	Params      map[string]Param `json:"params,omitempty"`
	Steps       []Step           `json:"steps"`
	// Output are the save_as names whose values a run returns; empty: the
	// output of the last read or collect step.
	Output   []string `json:"output,omitempty"`
	BudgetMs int      `json:"budget_ms,omitempty"`

	// Path is the file the recipe was loaded from ("" for none).
	Path string `json:"-"`
	// Source is the store folder it was loaded from ("" outside a Store).
	Source Source `json:"-"`
}

// Param is a recipe's parameter.
type Param struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// Default is the value when a run gives none (string, float64 or
	// bool); nil makes the parameter required.
	Default any      `json:"default,omitempty"`
	Minimum *float64 `json:"minimum,omitempty"` // number only
	Maximum *float64 `json:"maximum,omitempty"` // number only
	Values  []string `json:"values,omitempty"`  // enum only: the allowed values
}

// Required reports whether a run must give the parameter.
func (p Param) Required() bool { return p.Default == nil }

// Step is one step of a recipe: a flow step (do, the tool's arguments and
// the flow's fields save_as, retry, optional, timeout_ms, nth) whose strings
// may hold $param references, and the candidates recorded for its element.
type Step struct {
	// Fields are the step's fields as in the file, "candidates" excepted.
	Fields map[string]any
	// Candidates is the step's "candidates" object, as in the file (nil:
	// none).
	Candidates json.RawMessage
}

// Do is the step's kind.
func (s Step) Do() string { v, _ := s.Fields["do"].(string); return v }

// SaveAs is the name the step saves its value as ("" for none).
func (s Step) SaveAs() string { v, _ := s.Fields["save_as"].(string); return v }

// MarshalJSON writes the step with do first, the other fields in name
// order, and candidates last.
func (s Step) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	keys := make([]string, 0, len(s.Fields))
	for k := range s.Fields {
		if k != "do" && k != CandidatesField {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if _, ok := s.Fields["do"]; ok {
		keys = append([]string{"do"}, keys...)
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(s.Fields[k])
		if err != nil {
			return nil, fmt.Errorf("step field %s: %w", k, err)
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	if len(s.Candidates) > 0 {
		if len(keys) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + CandidatesField + `":`)
		var c bytes.Buffer
		if err := json.Compact(&c, s.Candidates); err != nil {
			return nil, fmt.Errorf("step candidates: %w", err)
		}
		b.Write(c.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a step object (without checking it: Parse does).
func (s *Step) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	s.Fields, s.Candidates = map[string]any{}, nil
	for k, v := range raw {
		if k == CandidatesField {
			s.Candidates = append(json.RawMessage(nil), v...)
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return err
		}
		s.Fields[k] = x
	}
	return nil
}

// Budget is the recipe's time budget: budget_ms, or DefaultBudget.
func (r *Recipe) Budget() time.Duration {
	if r.BudgetMs > 0 {
		return time.Duration(r.BudgetMs) * time.Millisecond
	}
	return DefaultBudget
}

// OutputStep is the 1-based index of the step whose output a run returns
// when Output is empty: the last read or collect step (0: none).
func (r *Recipe) OutputStep() int {
	if len(r.Output) > 0 {
		return 0
	}
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if d := r.Steps[i].Do(); d == "read" || d == "collect" {
			return i + 1
		}
	}
	return 0
}

// ParamNames are the recipe's parameter names, sorted.
func (r *Recipe) ParamNames() []string {
	names := make([]string, 0, len(r.Params))
	for n := range r.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// JSON is the recipe as its file holds it: indented, with a final newline.
func (r *Recipe) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("recipe %s: %w", r.Name, err)
	}
	return append(b, '\n'), nil
}

// Problem is one thing wrong with a recipe: where (a step, a field) and
// what.
type Problem struct {
	Step    int    // 1-based; 0: not a step's
	Do      string // the step's kind, when known
	Field   string // "params.limit.default", "output", or a step's field
	Message string
}

// String is the problem as a line: `step 3 (action): "selector": must be a
// non-empty string`, or `params.limit.default: 99 is above maximum 50`.
func (p Problem) String() string {
	var parts []string
	if p.Step > 0 {
		if p.Do != "" {
			parts = append(parts, fmt.Sprintf("step %d (%s)", p.Step, p.Do))
		} else {
			parts = append(parts, fmt.Sprintf("step %d", p.Step))
		}
		if p.Field != "" {
			parts = append(parts, strconv.Quote(p.Field))
		}
	} else if p.Field != "" {
		parts = append(parts, p.Field)
	}
	parts = append(parts, p.Message)
	return strings.Join(parts, ": ")
}

// ValidationError is a recipe that does not check: its file and every
// problem found.
type ValidationError struct {
	Path     string // the file ("" when not from a file)
	Problems []Problem
}

// Error lists the problems, one a line, each prefixed with the file (the
// home directory written ~).
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
		if e.Path != "" {
			lines[i] = ShortPath(e.Path) + ": " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// ShortPath is path with the home directory written ~.
func ShortPath(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		if rel == "." {
			return "~"
		}
		return "~" + string(filepath.Separator) + rel
	}
	return path
}

// AsValidationError finds a *ValidationError in err's chain.
func AsValidationError(err error) (*ValidationError, bool) {
	var ve *ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}

// LoadFile reads and checks the recipe file at path.
func LoadFile(path string) (*Recipe, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read recipe: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read recipe %s: not a regular file", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, &ValidationError{Path: path, Problems: []Problem{{Message: fmt.Sprintf("the file is %d bytes; a recipe is at most %d", fi.Size(), MaxFileSize)}}}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read recipe: %w", err)
	}
	return Parse(path, data)
}

// Parse checks the recipe in data, read from path (whose base name, less
// .json, must be the recipe's name; "" to skip that check). A recipe that
// does not check is a *ValidationError listing every problem found.
func Parse(path string, data []byte) (*Recipe, error) {
	v := &validator{path: path}
	r := v.parse(data)
	if len(v.problems) > 0 {
		return nil, &ValidationError{Path: path, Problems: v.problems}
	}
	r.Path = path
	return r, nil
}

// validator collects the problems of one recipe.
type validator struct {
	path     string
	problems []Problem
}

func (v *validator) add(field, format string, a ...any) {
	v.problems = append(v.problems, Problem{Field: field, Message: fmt.Sprintf(format, a...)})
}

func (v *validator) addStep(step int, do, field, format string, a ...any) {
	v.problems = append(v.problems, Problem{Step: step, Do: do, Field: field, Message: fmt.Sprintf(format, a...)})
}

// topFields are the fields a recipe file may have.
var topFields = []string{"name", "site", "description", "version", "params", "steps", "output", "budget_ms"}

func (v *validator) parse(data []byte) *Recipe {
	r := &Recipe{Version: FormatVersion}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		v.add("", "%s", jsonError(data, err))
		return r
	}
	if top == nil {
		v.add("", "the file must hold a JSON object {\"name\": …, \"site\": …, \"steps\": […]}")
		return r
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		v.add("", "%s: more data after the recipe's object", lineCol(data, int64(len(data)-len(rest))))
	}
	var unknown []string
	for k := range top {
		if !slices.Contains(topFields, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		v.add(k, "unknown field (a recipe has %s)", strings.Join(topFields, ", "))
	}

	// name
	if raw, ok := top["name"]; !ok {
		v.add("name", "missing: the recipe's name, the file's name without .json")
	} else if err := json.Unmarshal(raw, &r.Name); err != nil {
		v.add("name", "must be a string; got %s", brief(raw))
	} else if !ValidName(r.Name) {
		v.add("name", "%q is not a recipe name: lower-case letters, digits, - _ and ., starting with a letter or digit, at most %d", r.Name, MaxNameLen)
	} else if v.path != "" && filepath.Base(v.path) != r.Name+".json" {
		v.add("name", "%q does not match the file name %q (the file must be %s.json)", r.Name, filepath.Base(v.path), r.Name)
	}
	// site
	if raw, ok := top["site"]; !ok {
		v.add("site", "missing: the host the recipe is for, e.g. \"shop.example.com\"")
	} else if err := json.Unmarshal(raw, &r.Site); err != nil {
		v.add("site", "must be a string; got %s", brief(raw))
	} else if msg := checkSite(r.Site); msg != "" {
		v.add("site", "%s", msg)
	}
	// description
	if raw, ok := top["description"]; ok {
		if err := json.Unmarshal(raw, &r.Description); err != nil {
			v.add("description", "must be a string; got %s", brief(raw))
		}
	}
	// version
	if raw, ok := top["version"]; ok {
		if n, ok := wholeNumber(raw); !ok {
			v.add("version", "must be a whole number; got %s", brief(raw))
		} else if n != FormatVersion {
			v.add("version", "%d is not a recipe format this webpilot reads (it reads %d)", n, FormatVersion)
		}
	}
	// budget_ms
	if raw, ok := top["budget_ms"]; ok {
		n, ok := wholeNumber(raw)
		if !ok || n < 1 || n > int(MaxBudget.Milliseconds()) {
			v.add("budget_ms", "must be a whole number of milliseconds from 1 to %d; got %s", MaxBudget.Milliseconds(), brief(raw))
		} else {
			r.BudgetMs = n
		}
	}
	// params
	if raw, ok := top["params"]; ok {
		r.Params = v.params(raw)
	}
	// steps
	if raw, ok := top["steps"]; !ok {
		v.add("steps", "missing: the recipe's steps, e.g. [{\"do\":\"navigate\",\"url\":\"https://…\"}]")
	} else {
		r.Steps = v.steps(raw)
	}
	// output
	if raw, ok := top["output"]; ok {
		if err := json.Unmarshal(raw, &r.Output); err != nil || r.Output == nil {
			v.add("output", "must be a list of save_as names; got %s", brief(raw))
			r.Output = nil
		}
	}

	v.checkNames(r)
	if len(v.problems) == 0 {
		v.checkFlow(r)
	}
	return r
}

// checkSite explains why site is not a host ("" when it is one).
func checkSite(site string) string {
	switch {
	case site == "":
		return "must not be empty: the host the recipe is for, e.g. \"shop.example.com\""
	case strings.Contains(site, "://") || strings.ContainsAny(site, "/?#@ "):
		return fmt.Sprintf("%q is not a host: write the host alone, e.g. \"shop.example.com\"", site)
	case site != strings.ToLower(site):
		return fmt.Sprintf("%q: write the host in lower case", site)
	}
	host, port, hasPort := strings.Cut(site, ":")
	if hasPort {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("%q: the port must be a number from 1 to 65535", site)
		}
	}
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return fmt.Sprintf("%q is not a host name", site)
	}
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return fmt.Sprintf("%q is not a host name (letters, digits, - and .; international names in their xn-- form)", site)
		}
	}
	return ""
}

// paramFields are the fields a parameter may have.
var paramFields = []string{"type", "description", "default", "minimum", "maximum", "values"}

func (v *validator) params(raw json.RawMessage) map[string]Param {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		v.add("params", "must be an object of parameters by name, e.g. {\"query\": {\"type\": \"string\"}}; got %s", brief(raw))
		return nil
	}
	out := map[string]Param{}
	for _, name := range sortedKeys(m) {
		at := "params." + name
		if !validVar(name) {
			v.add(at, "%q is not a parameter name: letters, digits and _, not starting with a digit, at most %d", name, flow.MaxNameLen)
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(m[name], &fields); err != nil || fields == nil {
			v.add(at, "must be an object such as {\"type\": \"string\"}; got %s", brief(m[name]))
			continue
		}
		for _, k := range sortedKeys(fields) {
			if !slices.Contains(paramFields, k) {
				v.add(at+"."+k, "unknown field (a parameter has %s)", strings.Join(paramFields, ", "))
			}
		}
		var p Param
		ok := true
		if rt, has := fields["type"]; !has {
			v.add(at+".type", "missing: string, number, boolean or enum")
			ok = false
		} else if err := json.Unmarshal(rt, &p.Type); err != nil || !slices.Contains([]string{TypeString, TypeNumber, TypeBoolean, TypeEnum}, p.Type) {
			v.add(at+".type", "%s is not a parameter type: string, number, boolean or enum", brief(rt))
			ok = false
		}
		if rd, has := fields["description"]; has {
			if err := json.Unmarshal(rd, &p.Description); err != nil {
				v.add(at+".description", "must be a string; got %s", brief(rd))
			}
		}
		for _, bound := range []string{"minimum", "maximum"} {
			rb, has := fields[bound]
			if !has {
				continue
			}
			if ok && p.Type != TypeNumber {
				v.add(at+"."+bound, "is for number parameters only")
				continue
			}
			var f float64
			if err := json.Unmarshal(rb, &f); err != nil {
				v.add(at+"."+bound, "must be a number; got %s", brief(rb))
				continue
			}
			if bound == "minimum" {
				p.Minimum = &f
			} else {
				p.Maximum = &f
			}
		}
		if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
			v.add(at+".minimum", "%s is above maximum %s", num(*p.Minimum), num(*p.Maximum))
		}
		if rv, has := fields["values"]; has {
			if ok && p.Type != TypeEnum {
				v.add(at+".values", "is for enum parameters only")
			} else if err := json.Unmarshal(rv, &p.Values); err != nil || len(p.Values) == 0 {
				v.add(at+".values", "must be a non-empty list of strings; got %s", brief(rv))
			} else {
				seen := map[string]bool{}
				for _, s := range p.Values {
					if s == "" || seen[s] {
						v.add(at+".values", "values must be distinct non-empty strings; %q is not", s)
						break
					}
					seen[s] = true
				}
			}
		} else if ok && p.Type == TypeEnum {
			v.add(at+".values", "missing: an enum lists its allowed values, e.g. [\"price\", \"rating\"]")
		}
		if rd, has := fields["default"]; has && ok {
			var d any
			if err := json.Unmarshal(rd, &d); err != nil || d == nil {
				v.add(at+".default", "must be a %s value; got %s (leave default out to make the parameter required)", p.Type, brief(rd))
			} else if val, msg := p.check(d, false); msg != "" {
				v.add(at+".default", "%s", msg)
			} else {
				p.Default = val
			}
		}
		out[name] = p
	}
	return out
}

// check checks a parameter value: the value to bind (a number as float64)
// or a message saying what is wrong. loose takes a number or boolean sent
// as a string (as some clients send arguments).
func (p Param) check(x any, loose bool) (any, string) {
	switch p.Type {
	case TypeString:
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Sprintf("%s is not a string", show(x))
		}
		return s, ""
	case TypeBoolean:
		switch b := x.(type) {
		case bool:
			return b, ""
		case string:
			if loose {
				if v, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(b))); err == nil {
					return v, ""
				}
			}
		}
		return nil, fmt.Sprintf("%s is not true or false", show(x))
	case TypeEnum:
		s, ok := x.(string)
		if !ok || !slices.Contains(p.Values, s) {
			return nil, fmt.Sprintf("%s is not one of %s", show(x), quoteList(p.Values))
		}
		return s, ""
	case TypeNumber:
		var f float64
		switch n := x.(type) {
		case float64:
			f = n
		case int:
			f = float64(n)
		case int64:
			f = float64(n)
		case json.Number:
			v, err := n.Float64()
			if err != nil {
				return nil, fmt.Sprintf("%s is not a number", show(x))
			}
			f = v
		case string:
			v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if !loose || err != nil {
				return nil, fmt.Sprintf("%s is not a number", show(x))
			}
			f = v
		default:
			return nil, fmt.Sprintf("%s is not a number", show(x))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Sprintf("%s is not a number", show(x))
		}
		if p.Minimum != nil && f < *p.Minimum {
			return nil, fmt.Sprintf("%s is below minimum %s", num(f), num(*p.Minimum))
		}
		if p.Maximum != nil && f > *p.Maximum {
			return nil, fmt.Sprintf("%s is above maximum %s", num(f), num(*p.Maximum))
		}
		return f, ""
	}
	return nil, fmt.Sprintf("unknown parameter type %q", p.Type)
}

// placeholder is a value of the parameter's type that checks, for checking
// a recipe's flow without a run's values.
func (p Param) placeholder() any {
	if p.Default != nil {
		return p.Default
	}
	switch p.Type {
	case TypeNumber:
		switch {
		case p.Minimum != nil:
			return *p.Minimum
		case p.Maximum != nil && *p.Maximum < 1:
			return *p.Maximum
		}
		return float64(1)
	case TypeBoolean:
		return false
	case TypeEnum:
		if len(p.Values) > 0 {
			return p.Values[0]
		}
	}
	return "x"
}

func (v *validator) steps(raw json.RawMessage) []Step {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		v.add("steps", "must be a list of steps, e.g. [{\"do\":\"navigate\",\"url\":\"https://…\"}]; got %s", brief(raw))
		return nil
	}
	if len(list) == 0 {
		v.add("steps", "is empty: give at least one step")
		return nil
	}
	if len(list) > flow.MaxSteps {
		v.add("steps", "a recipe takes at most %d steps; got %d", flow.MaxSteps, len(list))
	}
	out := make([]Step, 0, len(list))
	for i, rs := range list {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(rs, &fields); err != nil || fields == nil {
			v.addStep(i+1, "", "", "must be an object such as {\"do\": \"navigate\", \"url\": \"https://…\"}; got %s", brief(rs))
			out = append(out, Step{Fields: map[string]any{}})
			continue
		}
		var s Step
		if err := s.UnmarshalJSON(rs); err != nil {
			v.addStep(i+1, "", "", "%v", err)
		}
		if s.Candidates != nil {
			var c map[string]json.RawMessage
			if err := json.Unmarshal(s.Candidates, &c); err != nil || c == nil {
				v.addStep(i+1, s.Do(), CandidatesField, "must be an object; got %s", brief(s.Candidates))
			}
		}
		out = append(out, s)
	}
	return out
}

// nonEmptyStrings are step arguments that, when given, must be non-empty
// strings. The tools check every argument fully when the recipe runs; these
// are checked on load so that a broken file is found at once.
var nonEmptyStrings = []string{"url", "selector", "ref", "action", "what", "role", "key", "go", "mode"}

// checkNames checks the $ namespace: parameter and save_as names apart,
// every $reference known, output naming saved values, and the step
// arguments checked on load.
func (v *validator) checkNames(r *Recipe) {
	savedAt := map[string]int{}
	for i, s := range r.Steps {
		n, do := i+1, s.Do()
		if name, has := s.Fields["save_as"]; has && !validVar(s.SaveAs()) {
			v.addStep(n, do, "save_as", "must be a name of letters, digits and _ (not starting with a digit, at most %d); got %s", flow.MaxNameLen, show(name))
		}
		if name := s.SaveAs(); name != "" && validVar(name) {
			if _, clash := r.Params[name]; clash {
				v.addStep(n, do, "save_as", "%q is also a parameter's name; parameters and saved values share $names: rename one", name)
			}
		}
		for _, k := range sortedKeys(s.Fields) {
			if k == "do" || k == "save_as" {
				continue
			}
			val := s.Fields[k]
			if slices.Contains(nonEmptyStrings, k) {
				if str, ok := val.(string); !ok || str == "" {
					v.addStep(n, do, k, "must be a non-empty string; got %s", show(val))
					continue
				}
			}
			walk(val, func(str string) {
				for _, ref := range refsIn(str) {
					_, isParam := r.Params[ref.name]
					at, isSaved := savedAt[ref.name]
					switch {
					case isParam:
					case isSaved && at < n:
						if ref.braced && ref.nameCharAfter {
							v.addStep(n, do, k, "${%s} is a saved value and cannot be followed by a letter, digit or _ (only parameters take ${…}); add a separator", ref.name)
						}
					case isSaved || laterSave(r, ref.name, n) > 0:
						v.addStep(n, do, k, "$%s is saved only by a later step (%d); a step can use the values of earlier steps", ref.name, laterSave(r, ref.name, n))
					default:
						v.addStep(n, do, k, "$%s is neither a parameter nor saved by an earlier step%s (write $$ for a literal $)", ref.name, suggest(ref.name, r))
					}
				}
			})
		}
		if name := s.SaveAs(); name != "" {
			if _, ok := savedAt[name]; !ok {
				savedAt[name] = n
			}
		}
	}
	seen := map[string]bool{}
	for _, o := range r.Output {
		switch _, ok := savedAt[o]; {
		case !ok:
			v.add("output", "%q is not a save_as name of any step", o)
		case seen[o]:
			v.add("output", "%q is listed twice", o)
		}
		seen[o] = true
	}
}

// laterSave is the first step after step n that saves name (0: none).
func laterSave(r *Recipe, name string, n int) int {
	for i := n; i < len(r.Steps); i++ {
		if r.Steps[i].SaveAs() == name {
			return i + 1
		}
	}
	return 0
}

// suggest is " (did you mean $x?)" for the known name (a parameter or a
// save_as) nearest to name, by text.Nearest; "" when none is near.
func suggest(name string, r *Recipe) string {
	var names []string
	for p := range r.Params {
		names = append(names, p)
	}
	for _, s := range r.Steps {
		if n := s.SaveAs(); n != "" {
			names = append(names, n)
		}
	}
	best := text.Nearest(name, names, 1)
	if len(best) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean $%s?)", best[0])
}

// checkFlow checks the flow's own fields of each step (kinds, save_as,
// retry, optional, timeout_ms, nth) with flow.Parse, parameters bound to
// their defaults or placeholders.
func (v *validator) checkFlow(r *Recipe) {
	vals := map[string]any{}
	for name, p := range r.Params {
		vals[name] = p.placeholder()
	}
	steps, err := r.bind(vals)
	if err == nil {
		_, err = flow.Parse(steps, r.BudgetMs, true)
	}
	if err != nil {
		v.problems = append(v.problems, flowProblem(err))
	}
}

// flowProblem is a flow error as a recipe's problem: flow names the step
// in its message and in its diagnosis.
func flowProblem(err error) Problem {
	if ve, ok := AsValidationError(err); ok && len(ve.Problems) > 0 {
		return ve.Problems[0]
	}
	var p Problem
	msg := err.Error()
	if be, ok := toolerr.As(err); ok {
		msg = be.Message
		if n, ok := be.Diagnosis["step"].(int); ok {
			p.Step = n
			p.Do, _ = be.Diagnosis["do"].(string)
		}
		if be.Hint != "" {
			msg += " (" + be.Hint + ")"
		}
	}
	if p.Step > 0 {
		prefix := fmt.Sprintf("step %d: ", p.Step)
		if p.Do != "" {
			prefix = fmt.Sprintf("step %d (%s): ", p.Step, p.Do)
		}
		msg = strings.TrimPrefix(msg, prefix)
	} else {
		p.Field = "steps"
	}
	p.Message = msg
	return p
}

// jsonError is a JSON decoding error with the line and column it is at.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s: invalid JSON: %s", lineCol(data, se.Offset-1), strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		return fmt.Sprintf("%s: the file must hold a JSON object, not %s", lineCol(data, te.Offset-1), te.Value)
	case errors.Is(err, io.EOF):
		return "the file is empty: it must hold a JSON object {\"name\": …, \"site\": …, \"steps\": […]}"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s: invalid JSON: the file ends in the middle of a value", lineCol(data, int64(len(data))))
	}
	return "invalid JSON: " + err.Error()
}

// lineCol is "line L:C" of a byte offset in data (1-based).
func lineCol(data []byte, off int64) string {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d:%d", line, col)
}

// wholeNumber reads a JSON whole number.
func wholeNumber(raw json.RawMessage) (int, bool) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// brief renders raw JSON in one short line.
func brief(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return shorten(string(raw), 60)
	}
	return shorten(b.String(), 60)
}

// show renders a value briefly, as JSON.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b), 60)
}

// shorten cuts s to n characters, with an ellipsis.
func shorten(s string, n int) string { return text.Cut(s, n) }

// num writes a number as JSON would.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, s := range vals {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
