package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cmdRecipe = `{
  "name": "shop-search",
  "site": "shop.example.com",
  "params": {
    "query": {"type": "string"},
    "limit": {"type": "number", "minimum": 1, "maximum": 50, "default": 5},
    "sort": {"type": "enum", "values": ["price", "rating"], "default": "price"}
  },
  "steps": [
    {"do": "navigate", "url": "https://shop.example.com/search?q=$query"},
    {"do": "read", "what": "text", "selector": ".price", "save_as": "price"}
  ],
  "output": ["price"]
}`

// recipeEnv is a user config dir and a working directory with a project
// recipe folder, both empty; it returns the user's and the project's
// recipe folders.
func recipeEnv(t *testing.T) (user, project string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("WEBPILOT_RECIPES", "")
	work := filepath.Join(root, "work")
	user = filepath.Join(root, "config", "webpilot", "recipes")
	project = filepath.Join(work, ".webpilot", "recipes")
	for _, d := range []string{user, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	return user, project
}

func runRecipeCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"recipe"}, args...), nil, &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func TestRecipeValidateCommand(t *testing.T) {
	user, project := recipeEnv(t)
	os.WriteFile(filepath.Join(user, "shop-search.json"), []byte(cmdRecipe), 0o644)

	out, errs, code := runRecipeCmd(t, "validate")
	if code != 0 || !strings.Contains(out, "ok  ") || !strings.Contains(out, "shop-search.json") {
		t.Fatalf("validate of a good recipe: exit %d\n%s%s", code, out, errs)
	}

	bad := strings.Replace(cmdRecipe, `"output": ["price"]`, `"output": ["cost"]`, 1)
	bad = strings.Replace(bad, `"maximum": 50, "default": 5`, `"maximum": 50, "default": 99`, 1)
	badPath := filepath.Join(project, "shop-search.json")
	os.WriteFile(badPath, []byte(bad), 0o644)
	out, errs, code = runRecipeCmd(t, "validate", badPath)
	if code != 1 {
		t.Errorf("validate of a bad recipe: exit %d, want 1", code)
	}
	for _, want := range []string{
		badPath + ": params.limit.default: 99 is above maximum 50\n",
		badPath + `: output: "cost" is not a save_as name of any step` + "\n",
		"webpilot: 1 of 1 recipe file(s) have problems",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(out, "ok") {
		t.Errorf("stdout says ok:\n%s", out)
	}

	// A folder, and the defaults (the user's and the project's folders).
	if _, errs, code = runRecipeCmd(t, "validate", project); code != 1 || !strings.Contains(errs, "99 is above maximum 50") {
		t.Errorf("validate DIR: exit %d\n%s", code, errs)
	}
	if out, _, code = runRecipeCmd(t, "validate"); code != 1 || !strings.Contains(out, filepath.Join(user, "shop-search.json")) {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
	// JSON syntax: line and column.
	syntax := filepath.Join(t.TempDir(), "broken.json")
	os.WriteFile(syntax, []byte("{\n  \"name\": \"broken\",\n  \"site\": ,\n}"), 0o644)
	if _, errs, code = runRecipeCmd(t, "validate", syntax); code != 1 || !strings.Contains(errs, syntax+": line 3:11: invalid JSON") {
		t.Errorf("validate of broken JSON: exit %d\n%s", code, errs)
	}
	if _, _, code = runRecipeCmd(t, "validate", filepath.Join(project, "missing.json")); code != 1 {
		t.Errorf("validate of a missing file: exit %d", code)
	}
}

func TestRecipeListTrustShowCommands(t *testing.T) {
	user, project := recipeEnv(t)
	os.WriteFile(filepath.Join(user, "shop-search.json"), []byte(cmdRecipe), 0o644)
	proj := strings.Replace(cmdRecipe, `"shop-search"`, `"proj"`, 1)
	os.WriteFile(filepath.Join(project, "proj.json"), []byte(proj), 0o644)

	out, errs, code := runRecipeCmd(t, "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list:\n%s", out)
	}
	if f := strings.Fields(lines[1]); len(f) < 5 || f[0] != "proj" || f[2] != "project" || f[3] != "no" {
		t.Errorf("project line: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); len(f) < 5 || f[0] != "shop-search" || f[1] != "shop.example.com" || f[2] != "user" || f[3] != "yes" {
		t.Errorf("user line: %q", lines[2])
	}
	if !strings.Contains(lines[2], `limit=5[1..50] query:string sort=price(price|rating)`) {
		t.Errorf("params not compact: %q", lines[2])
	}
	if !strings.Contains(out, "webpilot recipe trust "+canon(project)) {
		t.Errorf("list does not say how to trust the project:\n%s", out)
	}

	// show prints the recipe, untrusted or not.
	out, errs, code = runRecipeCmd(t, "show", "proj")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["name"] != "proj" || !strings.Contains(errs, "not trusted") {
		t.Errorf("show proj: exit %d\n%s%s", code, out, errs)
	}
	if _, _, code = runRecipeCmd(t, "show", "nope"); code != 1 {
		t.Errorf("show of a missing recipe: exit %d", code)
	}

	// trust with no argument trusts ./.webpilot/recipes.
	out, errs, code = runRecipeCmd(t, "trust")
	if code != 0 || !strings.Contains(out, "Trusted "+canon(project)) || !strings.Contains(out, "proj  site shop.example.com, 2 step(s)") {
		t.Fatalf("trust: exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(user), "trust.json"))
	if err != nil || !strings.Contains(string(b), canon(project)) {
		t.Errorf("trust.json: %v\n%s", err, b)
	}
	out, _, _ = runRecipeCmd(t, "list")
	if f := strings.Fields(strings.Split(out, "\n")[1]); f[3] != "yes" || strings.Contains(out, "not usable") {
		t.Errorf("list after trust:\n%s", out)
	}
	// Edited: untrusted again, and list says which file.
	os.WriteFile(filepath.Join(project, "proj.json"), []byte(strings.Replace(proj, "shop.example.com", "other.example.com", -1)), 0o644)
	out, _, _ = runRecipeCmd(t, "list")
	if !strings.Contains(out, "proj.json (edited)") || !strings.Contains(out, "webpilot recipe trust") {
		t.Errorf("list after an edit:\n%s", out)
	}

	// --recipes and WEBPILOT_RECIPES choose the user's folder.
	other := t.TempDir()
	if out, _, _ = runRecipeCmd(t, "list", "--recipes", other); strings.Contains(out, "shop-search") {
		t.Errorf("list --recipes shows the default folder:\n%s", out)
	}
	t.Setenv("WEBPILOT_RECIPES", other)
	if out, _, _ = runRecipeCmd(t, "list"); strings.Contains(out, "shop-search") {
		t.Errorf("WEBPILOT_RECIPES ignored:\n%s", out)
	}

	for _, args := range [][]string{{}, {"frobnicate"}, {"show"}, {"list", "extra"}, {"trust", "a", "b"}} {
		if _, _, code := runRecipeCmd(t, args...); code != 2 {
			t.Errorf("recipe %q: exit %d, want 2", args, code)
		}
	}
	if _, _, code := runRecipeCmd(t, "trust", filepath.Join(t.TempDir(), "none")); code != 1 {
		t.Errorf("trust of a missing folder: exit %d", code)
	}
}

// TestRecipeValidateToolArguments: validate runs each step's arguments
// through the checks its tool runs at call time (the input schema: enums,
// ranges, unknown names; the input's own Check), without a browser, and
// reports every problem of every file with its file and step; a recipe
// whose steps all check is ok. Before, only the file's own format was
// checked and these recipes passed.
func TestRecipeValidateToolArguments(t *testing.T) {
	user, _ := recipeEnv(t)
	dir := t.TempDir()
	write := func(name, steps string) string {
		t.Helper()
		path := filepath.Join(dir, name+".json")
		body := `{"name": "` + name + `", "site": "shop.example.com",
  "params": {"query": {"type": "string"}, "n": {"type": "number", "default": 5}},
  "steps": ` + steps + `}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good", `[
    {"do": "navigate", "url": "https://shop.example.com/?q=$query"},
    {"do": "find", "text": "$query", "limit": "$n"},
    {"do": "action", "action": "press", "key": "Enter", "selector": "#q"}]`)
	bad := write("bad", `[
    {"do": "navigate", "url": "https://shop.example.com/"},
    {"do": "read", "what": "txt", "selector": ".price"},
    {"do": "find", "text": "$query", "limit": 5000},
    {"do": "action", "action": "click", "selector": "#buy", "key": "Enter"},
    {"do": "action", "action": "click", "selector": "#buy", "colour": "red"}]`)
	worse := write("worse", `[{"do": "screenshot", "format": "gif"}, {"do": "wait", "mode": "all"}]`)

	out, errs, code := runRecipeCmd(t, "validate", good, bad, worse)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "ok  "+good) {
		t.Errorf("stdout lacks the good recipe's ok:\n%s", out)
	}
	if strings.Contains(out, bad) || strings.Contains(out, worse) {
		t.Errorf("stdout says a bad recipe is ok:\n%s", out)
	}
	for _, want := range []string{
		bad + `: step 2 (read): what must be one of`,
		bad + `: step 3 (find): limit must be`,
		bad + `: step 4 (action): click takes no key`,
		bad + `: step 5 (action): unknown argument "colour"`,
		worse + `: step 1 (screenshot): format must be one of`,
		worse + `: step 2 (wait): missing required argument conditions`,
		"webpilot: 2 of 3 recipe file(s) have problems",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "step 1 (navigate)") {
		t.Errorf("a good step reported:\n%s", errs)
	}
	// The default folders too.
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "bad.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code = runRecipeCmd(t, "validate"); code != 1 || !strings.Contains(errs, "step 4 (action): click takes no key") {
		t.Errorf("validate of the user's folder: exit %d\n%s", code, errs)
	}
}

// recipe list shows what each run needs: the parameters without a default
// and the secrets the steps type, by name only, and says how to give them.
func TestRecipeListNeeds(t *testing.T) {
	user, _ := recipeEnv(t)
	login := `{"name": "shop-login", "site": "shop.example.com",
  "params": {"email": {"type": "string"}, "remember": {"type": "boolean", "default": true}},
  "steps": [
    {"do": "navigate", "url": "https://shop.example.com/login"},
    {"do": "action", "action": "fill", "selector": "#email", "value": "$email"},
    {"do": "fill_form", "fields": [{"selector": "#pw", "secret": "SHOP_PASSWORD"}, {"selector": "#otp", "secret": "SHOP_OTP"}]}
  ]}`
	open := `{"name": "open-shop", "site": "shop.example.com", "steps": [{"do": "navigate", "url": "https://shop.example.com/"}]}`
	os.WriteFile(filepath.Join(user, "shop-login.json"), []byte(login), 0o644)
	os.WriteFile(filepath.Join(user, "open-shop.json"), []byte(open), 0o644)
	t.Setenv("WEBPILOT_SECRET_SHOP_PASSWORD", "never-shown-value")

	out, errs, code := runRecipeCmd(t, "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, errs)
	}
	t.Logf("list:\n%s", out)
	lines := strings.Split(out, "\n")
	if f := strings.Fields(lines[0]); len(f) != 6 || f[4] != "NEEDS" || f[5] != "PARAMS" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) != 6 || f[0] != "open-shop" || f[4] != "-" || f[5] != "-" {
		t.Errorf("a recipe that needs nothing: %q", lines[1])
	}
	if !strings.Contains(lines[2], "email secret:SHOP_OTP secret:SHOP_PASSWORD  email:string remember=true") {
		t.Errorf("what shop-login needs: %q", lines[2])
	}
	if !strings.Contains(out, "webpilot recipe run NAME PARAM=VALUE") || !strings.Contains(out, "WEBPILOT_SECRET_NAME") || strings.Contains(out, "never-shown-value") {
		t.Errorf("the note on NEEDS:\n%s", out)
	}
}

// The top-level help names recipe run and record; recipe help says a run
// goes through the per-user daemon and checks what it needs first.
func TestRecipeHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"help"}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"webpilot recipe run NAME [PARAM=VALUE...]", "webpilot recipe record NAME"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("webpilot help lacks %q:\n%s", want, out.String())
		}
	}
	help, _, code := runRecipeCmd(t, "help")
	if code != 0 || strings.Contains(help, "a browser of its own") || !strings.Contains(help, "per-user daemon") || !strings.Contains(help, "all that is missing") {
		t.Errorf("webpilot recipe help: exit %d\n%s", code, help)
	}
}
