package recipes

import (
	"fmt"
	"sort"
	"strings"
)

// Needs is what a run of a recipe must be given before its first step:
// its required parameters (those without a default) and the secrets its
// steps type by name. Names only: a secret's value is never here.
type Needs struct {
	// Params are the required parameters' names, sorted.
	Params []string
	// Secrets are the names of the secrets the steps type (a step's or a
	// form field's "secret"), sorted; a name that takes a $parameter is
	// known only once bound (BoundSecrets).
	Secrets []string
}

// Needs lists what every run of the recipe needs.
func (r *Recipe) Needs() Needs {
	var n Needs
	for _, name := range r.ParamNames() {
		if r.Params[name].Required() {
			n.Params = append(n.Params, name)
		}
	}
	seen := map[string]bool{}
	for _, s := range r.Steps {
		for _, name := range stepSecrets(s.Fields) {
			if !seen[name] && !strings.Contains(name, "$") {
				seen[name] = true
				n.Secrets = append(n.Secrets, name)
			}
		}
	}
	sort.Strings(n.Secrets)
	return n
}

// BoundSecrets are the names of the secrets bound steps (Bind's) name in
// their "secret" fields, sorted: the recipe's own, with the parameters a
// name takes put in.
func BoundSecrets(steps []map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range steps {
		for _, name := range stepSecrets(st) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// stepSecrets are the secret names a step's fields hold: its own "secret"
// and its form fields'.
func stepSecrets(fields map[string]any) []string {
	var out []string
	if name, ok := fields["secret"].(string); ok && name != "" {
		out = append(out, name)
	}
	if list, ok := fields["fields"].([]any); ok {
		for _, f := range list {
			if m, ok := f.(map[string]any); ok {
				if name, ok := m["secret"].(string); ok && name != "" {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// Missing is what a run of a recipe lacks before its first step, all of
// it at once.
type Missing struct {
	Recipe string
	// Params are the required parameters the run did not give, sorted.
	Params []string
	// Secrets are the secrets the run would type that are not declared,
	// sorted.
	Secrets []string
	// Problems are the run's other parameter problems: a value of the
	// wrong type or out of range, an unknown name.
	Problems []Problem
}

// Empty reports whether nothing is missing or wrong.
func (m *Missing) Empty() bool {
	return len(m.Params) == 0 && len(m.Secrets) == 0 && len(m.Problems) == 0
}

// Error names everything missing: `recipe shop-login cannot run: missing
// parameter email; missing secret SHOP_PASSWORD (not declared);
// params.limit: 99 is above maximum 50`.
func (m *Missing) Error() string {
	var parts []string
	if len(m.Params) > 0 {
		parts = append(parts, fmt.Sprintf("missing %s %s", plural(len(m.Params), "parameter"), strings.Join(m.Params, ", ")))
	}
	if len(m.Secrets) > 0 {
		parts = append(parts, fmt.Sprintf("missing %s %s (not declared)", plural(len(m.Secrets), "secret"), strings.Join(m.Secrets, ", ")))
	}
	for _, p := range m.Problems {
		parts = append(parts, p.String())
	}
	return fmt.Sprintf("recipe %s cannot run: %s", m.Recipe, strings.Join(parts, "; "))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// CheckRun finds, before a run's first step, everything it lacks: the
// required parameters params does not give, the other problems of params
// (as Bind finds them), and the secrets the run would type — the steps'
// own and those given as parameters (Secret values) — that declared does
// not know. It returns the bound steps when nothing is missing (Bind's),
// else a *Missing naming all of it.
func (r *Recipe) CheckRun(params map[string]any, declared func(name string) bool) ([]map[string]any, error) {
	m := &Missing{Recipe: r.Name}
	for _, name := range r.Needs().Params {
		if x, ok := params[name]; !ok || x == nil {
			m.Params = append(m.Params, name)
		}
	}
	steps, err := r.Bind(params)
	if err != nil {
		ve, ok := AsValidationError(err)
		if !ok {
			return nil, err
		}
		for _, p := range ve.Problems {
			if name, isParam := strings.CutPrefix(p.Field, "params."); isParam && containsName(m.Params, name) {
				continue // said once, as missing
			}
			m.Problems = append(m.Problems, p)
		}
	}
	names := r.Needs().Secrets
	for _, x := range params {
		if sec, ok := x.(Secret); ok {
			names = append(names, sec.Name)
		}
	}
	if steps != nil {
		names = append(names, BoundSecrets(steps)...)
	}
	seen := map[string]bool{}
	for _, name := range names {
		if !seen[name] && (declared == nil || !declared(name)) {
			m.Secrets = append(m.Secrets, name)
		}
		seen[name] = true
	}
	sort.Strings(m.Secrets)
	if !m.Empty() {
		return nil, m
	}
	return steps, nil
}

func containsName(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}
