package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/clientconf"
	"github.com/webpilot-mcp/webpilot/skills"
)

const setupUsage = `Usage:
  webpilot setup [--dry-run] [--remove] [--client ID,...] [--no-skill]

Finds the MCP clients installed for you and adds webpilot to each one's server list (the
command is this program's absolute path, with "mcp"), and writes webpilot's SKILL.md where a
client reads skills. Only webpilot's own entry changes: other servers, settings, comments and
formatting stay as they are. Each file changed is written whole and at once, after a copy of
what it held goes to FILE.webpilot-backup. Running it again changes nothing.

Flags:
  --dry-run        show what would change (a diff per file) and write nothing
  --remove         take webpilot's entries and its skill back out
  --client IDS     only these clients (comma-separated), even when they look absent:
                   %s
  --no-skill       leave the skills folders alone
`

// envNPMLauncher is set to 1 by the npm package's launcher
// (scripts/npm/webpilot.js) for the webpilot it runs.
const envNPMLauncher = "WEBPILOT_NPM_LAUNCHER"

func or(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

// runSetup configures the MCP clients installed for the user
// (internal/clientconf).
func runSetup(_ context.Context, args []string, stdout, stderr io.Writer) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	env := clientconf.Env{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv}
	fs := flag.NewFlagSet("webpilot setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, setupUsage, clientconf.IDs(env)) }
	dry := fs.Bool("dry-run", false, "show what would change")
	remove := fs.Bool("remove", false, "take webpilot's entries back out")
	only := fs.String("client", "", "only these clients")
	noSkill := fs.Bool("no-skill", false, "leave the skills folders alone")
	if err := parseFlagsOnly(fs, args, "setup"); err != nil {
		return err
	}
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		return fmt.Errorf("setup: where is this program? %w", err)
	}
	o := clientconf.Options{Bin: bin, Remove: *remove}
	if os.Getenv(envNPMLauncher) == "1" {
		// Run from npm: npx's cache is no place to start it from.
		o.Bin, o.Args = clientconf.NPX[0], clientconf.NPX[1:]
	}
	if !*noSkill {
		o.Skill = skills.Skill()
	}
	for _, id := range strings.Split(*only, ",") {
		if id = strings.TrimSpace(id); id != "" {
			o.Only = append(o.Only, id)
		}
	}
	found, changes, err := clientconf.Plan(env, o)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	short := func(p string) string {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
		return p
	}
	var names []string
	for _, f := range found {
		if f.There || len(o.Only) > 0 {
			names = append(names, f.Client.Name)
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(stdout, "No MCP client found for this user (looked for %s).\nName one with --client (%s), or see the README for a config to paste.\n", clientList(found), clientconf.IDs(env))
		return nil
	}
	fmt.Fprintf(stdout, "MCP clients found: %s.\n", strings.Join(names, ", "))
	if !*remove {
		fmt.Fprintf(stdout, "webpilot for them: %s %s\n", o.Bin, strings.Join(append([]string{}, or(o.Args, clientconf.Args)...), " "))
	}
	n := 0
	for _, c := range changes {
		what := c.Client
		if c.Skill {
			what = "skill (" + c.Client + ")"
			if c.Client == "" {
				what = "skill (shared)"
			}
		}
		switch {
		case c.Note != "" && c.Skill && !c.Changed():
			fmt.Fprintf(stdout, "  %-22s %s: %s\n", what, short(c.File), c.Note)
		case !c.Changed():
			fmt.Fprintf(stdout, "  %-22s %s: nothing to change\n", what, short(c.File))
		default:
			n++
			verb := "add webpilot"
			switch {
			case c.Delete || *remove:
				verb = "remove webpilot"
			case c.Before != nil && !c.Skill && strings.Contains(string(c.Before), `webpilot`):
				verb = "update webpilot"
			}
			fmt.Fprintf(stdout, "  %-22s %s: %s\n", what, short(c.File), verb)
			if *dry {
				fmt.Fprint(stdout, prefixLines(clientconf.Diff(c), "    "))
			}
		}
	}
	switch {
	case n == 0:
		fmt.Fprintln(stdout, "Everything is as it should be already.")
		return nil
	case *dry:
		fmt.Fprintf(stdout, "Dry run: %d file(s) would change; nothing was written.\n", n)
		return nil
	}
	if err := clientconf.Apply(changes); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	fmt.Fprintf(stdout, "Done: %d file(s) changed (each one's old text is in FILE%s).\n", n, clientconf.Backup)
	if !*remove {
		for _, c := range changes {
			if c.Changed() && !c.Skill && c.Note != "" {
				fmt.Fprintf(stdout, "  %s: %s.\n", c.Client, c.Note)
			}
		}
		if secret, err := readSecret(); err == nil && secret == nil {
			fmt.Fprintln(stdout, "Agents now get a Chromium webpilot launches. To let them use your own Chrome, with your logins: `webpilot extension --out DIR`, load DIR in chrome://extensions (Developer mode → Load unpacked), then `webpilot pair` (docs/extension.md).")
		}
	}
	return nil
}

func clientList(found []clientconf.Found) string {
	var out []string
	for _, f := range found {
		out = append(out, f.Client.Name)
	}
	return strings.Join(out, ", ")
}

// prefixLines puts prefix before every line of s.
func prefixLines(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}
