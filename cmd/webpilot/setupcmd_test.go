package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/clientconf"
	"github.com/webpilot-mcp/webpilot/skills"
)

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tree is every file under dir (but the backups) with its text.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, clientconf.Backup) {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// TestSetupClients: webpilot setup on a home with every client it knows,
// each file as the client writes it: the entries and the skills land,
// nothing else in the files changes, a second run changes nothing, a dry
// run writes nothing, and --remove leaves every file as it was.
func TestSetupClients(t *testing.T) {
	home := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "testdata", "clients", "home"), home)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	if os.Getenv("GOOS") == "windows" {
		t.Fatal("the fixture home is a Linux one")
	}
	before := tree(t, home)
	ctx := context.Background()
	setup := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := run(ctx, append([]string{"setup"}, args...), nil, &out, &errb); err != nil {
			t.Fatalf("setup %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		return out.String()
	}

	dry := setup("--dry-run")
	if got := tree(t, home); !equalTrees(got, before) {
		t.Fatalf("a dry run wrote files:\n%s", dry)
	}
	for _, want := range []string{"MCP clients found: Claude Code, Claude Desktop, Codex, Cursor, VS Code, Windsurf, Gemini CLI, Zed, opencode.",
		"+[mcp_servers.webpilot]", `+    "webpilot": {`, "Dry run: 12 file(s) would change; nothing was written."} {
		if !strings.Contains(dry, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, dry)
		}
	}

	out := setup()
	bin, _ := os.Executable()
	bin, _ = filepath.EvalSymlinks(bin)
	env := clientconf.Env{Home: home, GOOS: "linux", Getenv: func(string) string { return "" }}
	for _, c := range clientconf.Clients(env) {
		b, err := os.ReadFile(c.File)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if c.Format == clientconf.TOML {
			if !strings.Contains(string(b), "[mcp_servers.webpilot]\ncommand = \""+bin+"\"\nargs = [\"mcp\"]\n") || !strings.Contains(string(b), "approval_policy = \"on-request\" # ask before running commands") {
				t.Errorf("%s:\n%s", c.Name, b)
			}
			continue
		}
		v, ok, err := clientconf.GetJSON(b, c.Path, "webpilot")
		if !ok || err != nil || !strings.Contains(jsonText(v), bin) {
			t.Errorf("%s: no webpilot entry (%v):\n%s", c.Name, err, b)
		}
		if _, err := os.Stat(c.File + clientconf.Backup); before[rel(home, c.File)] != "" && err != nil {
			t.Errorf("%s: no backup: %v", c.Name, err)
		}
	}
	for _, dir := range []string{".claude/skills", ".agents/skills", ".codeium/windsurf/skills"} {
		if b, err := os.ReadFile(filepath.Join(home, dir, "webpilot", "SKILL.md")); err != nil || !bytes.Equal(b, skills.Skill()) {
			t.Errorf("the skill in %s: %v", dir, err)
		}
	}
	if !strings.Contains(out, "Done: 12 file(s) changed") || !strings.Contains(out, "then `webpilot pair`") {
		t.Errorf("setup's output:\n%s", out)
	}
	// VS Code's JSONC keeps its comment and trailing commas; the entry has
	// the type VS Code needs.
	vs, _ := os.ReadFile(filepath.Join(home, ".config/Code/User/mcp.json"))
	if !strings.Contains(string(vs), "// Servers for every workspace") || !strings.Contains(string(vs), `"type": "stdio"`) || !strings.Contains(string(vs), `"inputs": [],`) {
		t.Errorf("VS Code's file:\n%s", vs)
	}

	after := tree(t, home)
	if again := setup(); !strings.Contains(again, "Everything is as it should be already.") || !equalTrees(tree(t, home), after) {
		t.Errorf("a second run changed something:\n%s", again)
	}

	removed := setup("--remove")
	for _, dir := range []string{".cursor", ".codex", ".gemini", ".codeium/windsurf", ".config/Claude", ".claude"} {
		if st, err := os.Stat(filepath.Join(home, dir)); err != nil || !st.IsDir() {
			t.Errorf("--remove took the client's folder %s: %v", dir, err)
		}
	}
	if got := tree(t, home); !equalTrees(got, before) {
		for k, v := range got {
			if before[k] != v {
				t.Errorf("after --remove, %s:\n%s\nwas:\n%s", k, v, before[k])
			}
		}
		for k := range before {
			if _, ok := got[k]; !ok {
				t.Errorf("after --remove, %s is gone", k)
			}
		}
		t.Logf("%s", removed)
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func rel(home, p string) string {
	r, _ := filepath.Rel(home, p)
	return r
}

func jsonText(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			b.WriteString(x + " ")
		}
	}
	walk(v)
	return b.String()
}
