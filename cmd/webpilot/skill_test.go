package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/skills"
)

func TestSkillCommand(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "home", ".claude", "skills") // not there yet: created
	path := filepath.Join(root, "webpilot", "SKILL.md")
	skill := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := run(ctx, append([]string{"skill"}, args...), nil, &out, &errb)
		return out.String(), errb.String(), err
	}
	content := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	out, errs, err := skill("--out", root)
	if err != nil {
		t.Fatalf("skill --out: %v (%s)", err, errs)
	}
	if content() != string(skills.Skill()) {
		t.Error("the written SKILL.md is not the embedded one")
	}
	if !strings.Contains(out, path) {
		t.Errorf("output does not print the path %s:\n%s", path, out)
	}

	// The same file again: nothing to do, still fine.
	if out, _, err := skill("--out", root); err != nil || !strings.Contains(out, "up to date") {
		t.Errorf("second write of the same skill: %v, %q", err, out)
	}

	// A different file (edited by the user) is refused without --force...
	edited := content() + "\nMy own notes.\n"
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = skill("--out", root)
	if err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a different SKILL.md was not refused: %v", err)
	}
	if code := exitCode(err, &bytes.Buffer{}); code != 1 {
		t.Errorf("refusal exits %d, want 1", code)
	}
	if content() != edited {
		t.Error("the user's SKILL.md was changed without --force")
	}
	// ...and replaced with it.
	if _, errs, err := skill("--out", root, "--force"); err != nil {
		t.Fatalf("skill --force: %v (%s)", err, errs)
	}
	if content() != string(skills.Skill()) {
		t.Error("--force did not replace the different SKILL.md")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the skill's folder holds %d entries, want only SKILL.md (a temporary file left behind?)", len(entries))
	}

	// A directory where the file should be is never replaced, even with --force.
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, "webpilot", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := skill("--out", other, "--force"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory named SKILL.md: %v", err)
	}
}

func TestSkillCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no --out", []string{"skill"}, 2, "~/.claude/skills"},
		{"an argument", []string{"skill", "--out", "x", "extra"}, 2, "--out DIR"},
		{"unknown flag", []string{"skill", "--dir", "x"}, 2, "--out DIR"},
		{"help", []string{"skill", "-h"}, 0, "check your client's documentation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, nil, &out, &errb)
			if code := exitCode(err, &errb); code != tt.code {
				t.Errorf("exit %d, want %d (%v)", code, tt.code, err)
			}
			if !strings.Contains(errb.String(), tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("wrote to stdout: %s", out.String())
			}
		})
	}
}
