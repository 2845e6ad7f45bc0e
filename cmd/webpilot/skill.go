package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/webpilot-mcp/webpilot/skills"
)

const skillUsage = `Usage:
  webpilot skill --out DIR [--force]

Writes webpilot's agent skill (SKILL.md, the Agent Skills format: how an agent should use the
webpilot tools, read their errors, and handle secrets and page content) to DIR/webpilot/SKILL.md,
creating the folders. A different file already there is kept unless --force; the same file is
left as it is.

Where clients read skills:
  Claude Code   ~/.claude/skills (yours, every project) or .claude/skills in a project:
                webpilot skill --out ~/.claude/skills
  others        check your client's documentation for its skills folder

Flags:
  --out DIR   the skills folder to write into (required; the skill goes in DIR/webpilot/)
  --force     replace a different DIR/webpilot/SKILL.md
`

// runSkill writes the embedded agent skill to DIR/webpilot/SKILL.md.
func runSkill(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webpilot skill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, skillUsage) }
	out := fs.String("out", "", "the skills folder to write into")
	force := fs.Bool("force", false, "replace a different SKILL.md")
	if err := parseFlagsOnly(fs, args, "skill"); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("%w: --out DIR is required (for Claude Code: --out ~/.claude/skills)", errUsage)
	}
	root, err := filepath.Abs(*out)
	if err != nil {
		return fmt.Errorf("skill --out %s: %w", *out, err)
	}
	path := filepath.Join(root, filepath.FromSlash(skills.Path))
	written, err := writeSkill(path, skills.Skill(), *force)
	if err != nil {
		return err
	}
	if written {
		fmt.Fprintf(stdout, "Wrote the webpilot skill to %s\n", path)
	} else {
		fmt.Fprintf(stdout, "The webpilot skill at %s is already up to date\n", path)
	}
	return nil
}

// writeSkill writes content to path, creating its folders. An existing file
// with the same content is left alone (written false); a different one is
// replaced only with force; anything but a regular file is never replaced.
// The file is written beside path and renamed over it, so a reader never
// sees half of it.
func writeSkill(path string, content []byte, force bool) (written bool, err error) {
	switch fi, err := os.Lstat(path); {
	case err == nil && !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s exists and is not a regular file: left alone", path)
	case err == nil:
		old, err := os.ReadFile(path)
		if err != nil {
			return false, fmt.Errorf("read the existing skill: %w", err)
		}
		if bytes.Equal(old, content) {
			return false, nil
		}
		if !force {
			return false, fmt.Errorf("%s exists and differs from this webpilot's skill (edited, or from another version): left alone; add --force to replace it", path)
		}
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("check %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create the skill's folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".SKILL.md.*")
	if err != nil {
		return false, fmt.Errorf("write the skill: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write the skill: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write the skill: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("write the skill: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("write the skill: %w", err)
	}
	return true, nil
}

// parseFlagsOnly parses the flags of command cmd, which takes no other
// arguments: a flag error or an argument is a usage error (-h is
// flag.ErrHelp).
func parseFlagsOnly(fs *flag.FlagSet, args []string, cmd string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%w: %s takes no arguments; got %q", errUsage, cmd, fs.Arg(0))
	}
	return nil
}
