package clientconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientFiles: where each client's file is on each system.
func TestClientFiles(t *testing.T) {
	vars := map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}
	tests := []struct {
		goos, id, want string
	}{
		{"linux", "claude-desktop", "/h/.config/Claude/claude_desktop_config.json"},
		{"darwin", "claude-desktop", "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", "claude-desktop", filepath.Join(`C:\Users\u\AppData\Roaming`, "Claude", "claude_desktop_config.json")},
		{"darwin", "vscode", "/h/Library/Application Support/Code/User/mcp.json"},
		{"linux", "vscode", "/h/.config/Code/User/mcp.json"},
		{"linux", "claude-code", "/h/.claude.json"},
		{"darwin", "codex", "/h/.codex/config.toml"},
		{"darwin", "zed", "/h/.config/zed/settings.json"},
		{"windows", "zed", filepath.Join(`C:\Users\u\AppData\Roaming`, "Zed", "settings.json")},
		{"linux", "windsurf", "/h/.codeium/windsurf/mcp_config.json"},
	}
	for _, tt := range tests {
		e := Env{Home: "/h", GOOS: tt.goos, Getenv: func(k string) string { return vars[k] }}
		var got string
		for _, c := range Clients(e) {
			if c.ID == tt.id {
				got = c.File
			}
		}
		if got != filepath.FromSlash(tt.want) && got != tt.want {
			t.Errorf("%s on %s: %s, want %s", tt.id, tt.goos, got, tt.want)
		}
	}
	// The variables that move a client's home.
	e := Env{Home: "/h", GOOS: "linux", Getenv: func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "XDG_CONFIG_HOME": "/xdg"}[k]
	}}
	for _, c := range Clients(e) {
		switch c.ID {
		case "claude-code":
			if c.File != "/c/.claude.json" || c.Skills != "/c/skills" {
				t.Errorf("CLAUDE_CONFIG_DIR: %s %s", c.File, c.Skills)
			}
		case "codex":
			if c.File != "/x/config.toml" {
				t.Errorf("CODEX_HOME: %s", c.File)
			}
		case "vscode":
			if c.File != "/xdg/Code/User/mcp.json" {
				t.Errorf("XDG_CONFIG_HOME: %s", c.File)
			}
		}
	}
}

// TestPlanNamedClient: a client named with Only is set up even when its
// directory is absent; an unknown one is refused; a foreign SKILL.md is
// left alone.
func TestPlanNamedClient(t *testing.T) {
	home := t.TempDir()
	e := Env{Home: home, GOOS: "linux"}
	if _, _, err := Plan(e, Options{Bin: "/opt/webpilot", Only: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("an unknown client: %v", err)
	}
	if _, _, err := Plan(e, Options{Bin: "webpilot"}); err == nil {
		t.Error("a relative program path was accepted")
	}
	found, changes, err := Plan(e, Options{Bin: "/opt/webpilot"})
	if err != nil || len(changes) != 0 || len(found) == 0 || found[0].There {
		t.Errorf("an empty home: %v %d changes %+v", err, len(changes), found)
	}
	foreign := filepath.Join(home, ".agents", "skills", "webpilot", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foreign, []byte("---\nname: other\n---\nmine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, changes, err = Plan(e, Options{Bin: "/opt/webpilot", Skill: []byte("---\nname: webpilot\n---\n"), Only: []string{"codex"}})
	if err != nil || len(changes) != 2 {
		t.Fatalf("codex named: %v %+v", err, changes)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil || string(b) != "[mcp_servers.webpilot]\ncommand = \"/opt/webpilot\"\nargs = [\"mcp\"]\n" {
		t.Errorf("codex's new file: %v %q", err, b)
	}
	if st, err := os.Stat(filepath.Join(home, ".codex", "config.toml")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a new file's mode: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "---\nname: other\n---\nmine\n" || changes[1].Note == "" {
		t.Errorf("a foreign skill was touched: %q (%s)", b, changes[1].Note)
	}
}

// TestRemoveKeepsClientFolder: a file setup made goes on --remove, the
// client's folder stays even when that leaves it empty.
func TestRemoveKeepsClientFolder(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := Env{Home: home, GOOS: "linux"}
	for _, remove := range []bool{false, true} {
		_, changes, err := Plan(e, Options{Bin: "/opt/webpilot", Remove: remove})
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(changes); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); !os.IsNotExist(err) {
		t.Errorf("the file setup made is still there: %v", err)
	}
	if st, err := os.Stat(filepath.Join(home, ".cursor")); err != nil || !st.IsDir() {
		t.Errorf("the client's folder went: %v", err)
	}
}
