package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

const recipeUsage = `Usage:
  webpilot recipe list [--recipes DIR]              the recipes: name, site, source (user or project), trusted, what a
                                                    run needs (required parameters, secrets by name), parameters
  webpilot recipe show [--recipes DIR] NAME         print a recipe's JSON
  webpilot recipe validate [--recipes DIR] [FILE|DIR...]
                                                    check recipe files (default: your recipes and the project's); exit 1 on problems
  webpilot recipe trust [DIR]                       trust a project's recipe folder as it is now (default ./.webpilot/recipes)
  webpilot recipe run [flags] NAME [PARAM=VALUE...] run a recipe in the browser of the per-user daemon (the one your agents
                                                    share, in a session of its own; --standalone: a browser in this process)
                                                    and print its output and trace. It first checks that every required
                                                    parameter is given and every secret it types is declared, and names
                                                    all that is missing before any step. Flags are webpilot call's
                                                    (--backend, --headless, --recipes, --secrets, …)
  webpilot recipe record [flags] NAME [--url URL] [--secret-field LABEL]... [--record-for 10m] [--overwrite]
                                                    record yourself doing a task in the browser (your Chrome through the
                                                    extension, or --headed) and save it as a recipe in your recipe folder:
                                                    press Stop in the browser (or Ctrl-C here) when done; prints the steps
                                                    and parameters

Your recipes live in --recipes DIR (WEBPILOT_RECIPES; default webpilot/recipes in the user
config dir) and are always usable. A project's recipes in ./.webpilot/recipes are usable once you
have read and trusted them; any change to that folder needs "webpilot recipe trust" again. When
both have a recipe of the same name, the project's is used while trusted.
`

// runRecipe is `webpilot recipe SUBCOMMAND`: list, show, validate, trust
// and run recipes.
func runRecipe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, recipeUsage)
		return fmt.Errorf("%w: recipe needs a subcommand: run, record, list, show, validate or trust", errUsage)
	}
	sub, rest := args[0], args[1:]
	if sub == "help" || sub == "-h" || sub == "--help" {
		fmt.Fprint(stdout, recipeUsage)
		return nil
	}
	if sub == "run" {
		return runRecipeRun(ctx, rest, stdout, stderr)
	}
	if sub == "record" {
		return runRecipeRecord(ctx, rest, stdout, stderr)
	}
	fs := flag.NewFlagSet("webpilot recipe "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, recipeUsage) }
	dir := fs.String("recipes", "", "the folder of your recipes (default: WEBPILOT_RECIPES, else webpilot/recipes in the user config dir)")
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *dir == "" {
		*dir = os.Getenv(envName("recipes"))
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	store, err := recipes.NewStore(*dir, wd)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: recipe list takes no arguments; got %q", errUsage, fs.Arg(0))
		}
		return recipeList(store, stdout)
	case "show":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: recipe show takes one recipe name", errUsage)
		}
		return recipeShow(store, fs.Arg(0), stdout, stderr)
	case "validate":
		return recipeValidate(store, fs.Args(), stdout, stderr)
	case "trust":
		if fs.NArg() > 1 {
			return fmt.Errorf("%w: recipe trust takes one folder", errUsage)
		}
		target := store.ProjectDir
		if fs.NArg() == 1 {
			target = fs.Arg(0)
		}
		return recipeTrust(store, target, stdout, stderr)
	}
	fmt.Fprint(stderr, recipeUsage)
	return fmt.Errorf("%w: unknown recipe subcommand %q", errUsage, sub)
}

func recipeList(store *recipes.Store, stdout io.Writer) error {
	l, err := store.List()
	if err != nil {
		return err
	}
	if len(l.Entries) == 0 {
		fmt.Fprintf(stdout, "No recipes yet. Yours go in %s; a project's in %s.\n", recipes.ShortPath(store.UserDir), recipes.ShortPath(store.ProjectDir))
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSITE\tSOURCE\tTRUSTED\tNEEDS\tPARAMS")
		anySecret, anyNeeds := false, false
		for _, e := range l.Entries {
			src := string(e.Source)
			if e.Shadowed {
				src += " (shadowed)"
			}
			site, needs, params := "-", "-", ""
			if e.Recipe != nil {
				site, params = e.Recipe.Site, compactParams(e.Recipe)
				if params == "" {
					params = "-"
				}
				n := e.Recipe.Needs()
				if len(n.Secrets) > 0 {
					anySecret = true
				}
				needs = compactNeeds(n)
				anyNeeds = anyNeeds || needs != "-"
			} else if e.Err != nil {
				first, _, _ := strings.Cut(e.Err.Error(), "\n")
				params = "INVALID: " + strings.TrimPrefix(first, recipes.ShortPath(e.Path)+": ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, site, src, yesNo(e.Trusted), needs, params)
		}
		tw.Flush()
		switch {
		case anySecret:
			fmt.Fprintf(stdout, "\nNEEDS: what a run must be given: each parameter without a default (webpilot recipe run NAME PARAM=VALUE), and each\nsecret:NAME it types from your secrets (a line NAME=value in the --secrets file, or %sNAME in the environment).\n", secrets.EnvPrefix)
		case anyNeeds:
			fmt.Fprintln(stdout, "\nNEEDS: the parameters a run must be given (webpilot recipe run NAME PARAM=VALUE).")
		}
	}
	if l.ProjectErr != nil {
		fmt.Fprintf(stdout, "\nProject recipes are not usable: %v\n", l.ProjectErr)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// compactNeeds is what a run of a recipe must be given, on one line: the
// required parameters' names, then secret:NAME for each secret its steps
// type (names only); "-" for nothing.
func compactNeeds(n recipes.Needs) string {
	parts := append([]string(nil), n.Params...)
	for _, s := range n.Secrets {
		parts = append(parts, "secret:"+s)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// compactParams is a recipe's parameters on one line: name:type for a
// required one, name=default for the others, with an enum's values and a
// number's range.
func compactParams(r *recipes.Recipe) string {
	var parts []string
	for _, name := range r.ParamNames() {
		p := r.Params[name]
		s := name + ":" + p.Type
		if p.Default != nil {
			s = name + "=" + fmt.Sprint(p.Default)
			if str, ok := p.Default.(string); ok && p.Type == recipes.TypeString {
				s = fmt.Sprintf("%s=%q", name, str)
			}
		}
		switch {
		case p.Type == recipes.TypeEnum:
			s += "(" + strings.Join(p.Values, "|") + ")"
		case p.Minimum != nil || p.Maximum != nil:
			lo, hi := "", ""
			if p.Minimum != nil {
				lo = fmt.Sprint(*p.Minimum)
			}
			if p.Maximum != nil {
				hi = fmt.Sprint(*p.Maximum)
			}
			s += "[" + lo + ".." + hi + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func recipeShow(store *recipes.Store, name string, stdout, stderr io.Writer) error {
	l, err := store.List()
	if err != nil {
		return err
	}
	var found *recipes.Entry
	for i, e := range l.Entries {
		if e.Name == name && !e.Shadowed {
			found = &l.Entries[i]
		}
	}
	if found == nil {
		return fmt.Errorf("no recipe %q (run webpilot recipe list)", name)
	}
	if found.Err != nil {
		return found.Err
	}
	if !found.Trusted {
		fmt.Fprintf(stderr, "%s: a project recipe that is not trusted (it cannot run): %v\n", recipes.ShortPath(found.Path), l.ProjectErr)
	}
	b, err := found.Recipe.JSON()
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}

// recipeValidate checks the recipe files named (files or folders), or the
// user's and the project's folders: each file's format and, once that
// checks, each step's arguments as its tool checks them at call time
// (mcpserver.StepChecker, no browser). Every problem goes to stderr, a line
// each with the file and step, and makes the exit status 1.
func recipeValidate(store *recipes.Store, args []string, stdout, stderr io.Writer) error {
	x := mcpserver.StepChecker()
	targets := args
	if len(targets) == 0 {
		targets = []string{store.UserDir}
		if fi, err := os.Stat(store.ProjectDir); err == nil && fi.IsDir() {
			targets = append(targets, store.ProjectDir)
		}
	}
	checked, bad := 0, 0
	for _, t := range targets {
		fi, err := os.Stat(t)
		if err != nil && (len(args) > 0 || !errors.Is(err, os.ErrNotExist)) {
			fmt.Fprintf(stderr, "%s: %v\n", t, err)
			bad++
			continue
		}
		if err != nil {
			continue // a default folder that does not exist yet
		}
		if !fi.IsDir() {
			checked++
			r, err := recipes.LoadFile(t)
			if err == nil {
				err = r.Check(x)
			}
			if err != nil {
				fmt.Fprintln(stderr, err)
				bad++
			} else {
				fmt.Fprintf(stdout, "ok  %s\n", t)
			}
			continue
		}
		entries, err := recipes.LoadDir(t)
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad++
			continue
		}
		if len(entries) == 0 {
			fmt.Fprintf(stdout, "no recipe files (NAME.json) in %s\n", t)
		}
		for _, e := range entries {
			checked++
			err := e.Err
			if err == nil {
				err = e.Recipe.Check(x)
			}
			if err != nil {
				fmt.Fprintln(stderr, err)
				bad++
				continue
			}
			fmt.Fprintf(stdout, "ok  %s\n", recipes.ShortPath(e.Path))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d recipe file(s) have problems", bad, max(checked, bad))
	}
	return nil
}

func recipeTrust(store *recipes.Store, dir string, stdout, stderr io.Writer) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("no recipe folder %s to trust (a project's recipes go in %s)", dir, recipes.ProjectSubdir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if canon(abs) == canon(store.UserDir) {
		return fmt.Errorf("%s is your own recipe folder: it needs no trust", abs)
	}
	// What is trusted is shown first: read it before trusting it.
	entries, err := recipes.LoadDir(abs)
	if err != nil {
		return err
	}
	cdir, files, err := store.Trust(abs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", e.Err)
			continue
		}
		fmt.Fprintf(stdout, "  %s  site %s, %d step(s)\n", e.Name, e.Recipe.Site, len(e.Recipe.Steps))
	}
	fmt.Fprintf(stdout, "Trusted %s (%d recipe file(s)). Any change to its recipe files needs `webpilot recipe trust` again.\n", cdir, len(files))
	return nil
}

// canon is path with its links resolved when it exists.
func canon(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// runRecipeRun is `webpilot recipe run [flags] NAME [PARAM=VALUE...]`:
// recipe_run through `webpilot call`, with the recipes group switched on. A
// value that reads as a JSON number or boolean is one; anything else is a
// string.
func runRecipeRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webpilot recipe run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_, _ = loadConfig(fs, args, func(string) string { return "" }, os.TempDir())
	rest := args
	if fs.Parsed() {
		rest = fs.Args()
	}
	flagArgs := append([]string(nil), args[:len(args)-len(rest)]...)
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		fmt.Fprint(stderr, recipeUsage)
		return fmt.Errorf("%w: recipe run needs the recipe's name", errUsage)
	}
	params := map[string]any{}
	for _, kv := range rest[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("%w: recipe run: %q is not PARAM=VALUE", errUsage, kv)
		}
		var x any
		if err := json.Unmarshal([]byte(v), &x); err == nil {
			switch x.(type) {
			case float64, bool:
				params[k] = x
				continue
			}
		}
		params[k] = v
	}
	b, err := json.Marshal(map[string]any{"name": rest[0], "params": params})
	if err != nil {
		return err
	}
	return runCall(ctx, append(flagArgs, "--caps", "+recipes", "recipe_run", string(b)), stdout, stderr)
}

// envRecordHeadless lets a headless launched browser record (the test
// rig's flag: its "user" is input sent over CDP).
const envRecordHeadless = "WEBPILOT_TEST_RECORD_HEADLESS"

// recordPoll is how often `webpilot recipe record` asks whether the user
// pressed Stop.
const recordPoll = time.Second

// runRecipeRecord is `webpilot recipe record [flags] NAME [--url URL]
// [--secret-field LABEL]... [--record-for D] [--overwrite]`: recipe_record
// through the daemon (or --standalone) for a user without an agent. It
// starts the recording, waits until the user presses Stop in the browser
// (or Ctrl-C, or the timeout), then stops and saves it and prints the
// steps.
func runRecipeRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	start := map[string]any{"action": "start"}
	var secretFields []any
	overwrite := false
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "url" && name != "secret-field" && name != "record-for" && name != "overwrite" && name != "message") {
			rest = append(rest, a)
			continue
		}
		if name == "overwrite" {
			overwrite = !hasVal || val == "true"
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return fmt.Errorf("%w: recipe record: --%s needs a value", errUsage, name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "url":
			start["url"] = val
		case "message":
			start["message"] = val
		case "secret-field":
			secretFields = append(secretFields, val)
		case "record-for":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return fmt.Errorf("%w: recipe record: --record-for %q is not a duration (like 10m)", errUsage, val)
			}
			start["timeout_ms"] = d.Milliseconds()
		}
	}
	if len(secretFields) > 0 {
		start["secret_fields"] = secretFields
	}
	flagArgs, pos := splitCallArgs(rest)
	if len(pos) != 1 || strings.HasPrefix(pos[0], "-") {
		fmt.Fprint(stderr, recipeUsage)
		return fmt.Errorf("%w: recipe record needs the recipe's name (one)", errUsage)
	}
	start["name"] = pos[0]
	cfg, err := parseConfig("recipe record", append(flagArgs, "--caps", "+recipes"), stderr)
	if err != nil {
		return err
	}
	cs, done, err := connectCLI(ctx, cfg, "webpilot recipe record", stderr)
	if err != nil {
		return err
	}
	defer done()
	callTool := func(ctx context.Context, args map[string]any, tool ...string) (string, error) {
		name := "recipe_record"
		if len(tool) > 0 {
			name = tool[0]
		}
		what := name
		if a, ok := args["action"]; ok {
			what += fmt.Sprint(" ", a)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		text := mcpclient.ResultText(res)
		if res.IsError {
			if code := errorCode(text); code != "" {
				fmt.Fprintln(stderr, text)
				return "", fmt.Errorf("%w: %s returned %s", errToolFailed, what, code)
			}
			return "", fmt.Errorf("%w: %s: %s", errToolFailed, what, text)
		}
		return text, nil
	}
	if !overwrite {
		// Ask before the user shows anything: a save that fails at the
		// end would lose the demonstration.
		if list, err := callTool(ctx, map[string]any{}, "recipe_list"); err == nil && strings.Contains(list, "\n- "+pos[0]+" · ") {
			return fmt.Errorf("%w: recipe record: a recipe %q exists; pass --overwrite to replace it (the old file is kept as .bak), or choose another name", errUsage, pos[0])
		}
	}
	if _, err := callTool(ctx, start); err != nil {
		return err
	}
	limit := browser.RecordDefaultTimeout
	if ms, ok := start["timeout_ms"].(int64); ok {
		limit = time.Duration(ms) * time.Millisecond
	}
	savedAt := ""
	if store, err := recipes.NewStore(cfg.Recipes, ""); err == nil {
		savedAt = filepath.Join(store.UserDir, pos[0]+".json")
	}
	url, _ := start["url"].(string)
	fmt.Fprint(stdout, recordStartText(pos[0], url, limit, savedAt))
	tick := time.NewTicker(recordPoll)
	defer tick.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case <-tick.C:
			st, err := callTool(ctx, map[string]any{"action": "status"})
			if err != nil {
				if ctx.Err() == nil {
					// Still stop it: the user's browser must not go on
					// showing that it records.
					fmt.Fprintf(stderr, "webpilot recipe record: %v; stopping the recording\n", err)
				}
				break wait
			}
			if !strings.Contains(st, "step(s) so far") {
				break wait
			}
		}
	}
	// Ctrl-C ends the wait, not the stop: the recording is still saved.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	out, err := callTool(sctx, map[string]any{"action": "stop", "save": true, "overwrite": overwrite})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, recordDoneText(out, pos[0], savedAt))
	return nil
}

// recordStartText tells the person at the terminal that the recording
// runs: what to do, how to stop it, and where the recipe will be saved.
func recordStartText(name, url string, limit time.Duration, savedAt string) string {
	var b strings.Builder
	if url != "" {
		fmt.Fprintf(&b, "Recording %q in a new tab at %s.\n", name, url)
	} else {
		fmt.Fprintf(&b, "Recording %q in the browser's current tab.\n", name)
	}
	b.WriteString("Do the task in the browser: each click, typed text, choice and key becomes a step (password fields are never read).\n")
	fmt.Fprintf(&b, "To stop, press Stop in the browser (on the \"webpilot is recording\" banner in the page, or, in your own Chrome,\n"+
		"in the webpilot extension's notification or popup), or press Ctrl-C here. It stops by itself after %s.\n", shortDuration(limit))
	if savedAt != "" {
		fmt.Fprintf(&b, "Then the recipe is saved to %s.\n", recipes.ShortPath(savedAt))
	}
	return b.String()
}

// recordDoneText is recipe_record stop's result as the person at the
// terminal reads it: how to run the recipe from here (its parameters, from
// the file saved at savedAt), not the agent's tool call.
func recordDoneText(out, name, savedAt string) string {
	cmd := "webpilot recipe run " + name + " [PARAM=VALUE...]"
	if r, err := recipes.LoadFile(savedAt); err == nil {
		cmd = "webpilot recipe run " + name
		for _, p := range r.ParamNames() {
			if r.Params[p].Required() {
				cmd += " " + p + "=…"
			} else {
				cmd += " [" + p + "=…]"
			}
		}
		if n := r.Needs(); len(n.Secrets) > 0 {
			cmd += fmt.Sprintf(" (declare first, in --secrets FILE or as %sNAME: %s)", secrets.EnvPrefix, strings.Join(n.Secrets, ", "))
		}
	}
	return strings.ReplaceAll(out, fmt.Sprintf("Run it: recipe_run {\"name\":%q}", name), "Run it: "+cmd)
}

// shortDuration writes d without zero units: 10m, 1h30m, 45s.
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
