package recipes

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const needsRecipe = `{
  "name": "shop-login",
  "site": "shop.example.com",
  "params": {
    "email": {"type": "string"},
    "limit": {"type": "number", "minimum": 1, "maximum": 50, "default": 5},
    "token": {"type": "string", "default": "none"},
    "account": {"type": "string", "default": "MAIN"}
  },
  "steps": [
    {"do": "navigate", "url": "https://shop.example.com/login?n=$limit"},
    {"do": "action", "action": "fill", "selector": "#email", "value": "$email"},
    {"do": "action", "action": "fill", "selector": "#pw", "secret": "SHOP_PASSWORD"},
    {"do": "fill_form", "fields": [{"selector": "#otp", "secret": "OTP"}, {"selector": "#tok", "value": "$token"}]},
    {"do": "action", "action": "fill", "selector": "#acct", "secret": "${account}_PIN"},
    {"do": "action", "action": "click", "selector": "#go"}
  ]
}`

// Needs lists a recipe's required parameters and the secrets its steps
// type (a step's and a form field's), by name.
func TestNeeds(t *testing.T) {
	r, err := Parse("", []byte(needsRecipe))
	if err != nil {
		t.Fatal(err)
	}
	n := r.Needs()
	if !slices.Equal(n.Params, []string{"email"}) || !slices.Equal(n.Secrets, []string{"OTP", "SHOP_PASSWORD"}) {
		t.Errorf("needs %+v", n)
	}
}

// CheckRun names everything a run lacks at once — required parameters,
// undeclared secrets (the recipe's, one named through a parameter, one
// given as a parameter), wrong values — and binds the steps when nothing
// is missing.
func TestCheckRun(t *testing.T) {
	r, err := Parse("", []byte(needsRecipe))
	if err != nil {
		t.Fatal(err)
	}
	known := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	_, err = r.CheckRun(map[string]any{"limit": 99, "token": Secret{Name: "API_TOKEN"}}, known("OTP"))
	var m *Missing
	if !errors.As(err, &m) {
		t.Fatalf("err %v, want *Missing", err)
	}
	if !slices.Equal(m.Params, []string{"email"}) || !slices.Equal(m.Secrets, []string{"API_TOKEN", "SHOP_PASSWORD"}) ||
		len(m.Problems) != 1 || m.Problems[0].Field != "params.limit" {
		t.Errorf("missing %+v", m)
	}
	want := "recipe shop-login cannot run: missing parameter email; missing secrets API_TOKEN, SHOP_PASSWORD (not declared); params.limit: 99 is above maximum 50"
	if m.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", m.Error(), want)
	}
	// Bound: a secret name that takes a parameter is checked too.
	_, err = r.CheckRun(map[string]any{"email": "ada@example.com"}, known("OTP", "SHOP_PASSWORD"))
	if !errors.As(err, &m) || !slices.Equal(m.Secrets, []string{"MAIN_PIN"}) || len(m.Params) != 0 {
		t.Errorf("with the parameters given: %v", err)
	}
	steps, err := r.CheckRun(map[string]any{"email": "ada@example.com"}, known("OTP", "SHOP_PASSWORD", "MAIN_PIN"))
	if err != nil || len(steps) != 6 || steps[1]["value"] != "ada@example.com" {
		t.Errorf("nothing missing: %v, %v", steps, err)
	}
	// Nothing declared at all (no secrets file): every secret is missing.
	if _, err = r.CheckRun(map[string]any{"email": "x"}, nil); err == nil || !strings.Contains(err.Error(), "missing secrets MAIN_PIN, OTP, SHOP_PASSWORD") {
		t.Errorf("none declared: %v", err)
	}
}
