package clientconf

import (
	"os"
	"path/filepath"
	"strings"
)

// Env is where the clients' files are: the user's home and the variables
// that move them, and the operating system ("linux", "darwin", "windows").
type Env struct {
	Home string
	GOOS string
	// Getenv reads XDG_CONFIG_HOME, APPDATA, CLAUDE_CONFIG_DIR and
	// CODEX_HOME; nil reads none.
	Getenv func(string) string
}

func (e Env) env(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// join is a path under the home.
func (e Env) join(parts ...string) string {
	return filepath.Join(append([]string{e.Home}, parts...)...)
}

// configDir is the operating system's per-user settings directory:
// XDG_CONFIG_HOME or ~/.config, ~/Library/Application Support, %APPDATA%.
func (e Env) configDir() string {
	switch e.GOOS {
	case "darwin":
		return e.join("Library", "Application Support")
	case "windows":
		if a := e.env("APPDATA"); a != "" {
			return a
		}
		return e.join("AppData", "Roaming")
	}
	if x := e.env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	return e.join(".config")
}

// Format is how a client's file is written.
type Format int

// The formats: JSON (comments kept where there are any), TOML.
const (
	JSON Format = iota
	TOML
)

// Client is one MCP client: how to find it, the file that lists its
// servers and how webpilot's entry looks there, and where it reads skills.
type Client struct {
	ID   string // the name --client takes
	Name string // as the user knows it
	// Dir is the directory whose presence says the client is installed.
	Dir string
	// File is its server list; Format how it is written; Path the keys of
	// the object that holds the servers (JSON) or the table's prefix
	// (TOML: mcp_servers).
	File   string
	Format Format
	Path   []string
	// Entry is webpilot's entry for the program bin run with args.
	Entry func(bin string, args []string) any
	// Skills is the directory the client reads skills from ("" when it
	// has none); webpilot's goes to Skills/webpilot/SKILL.md.
	Skills string
	// Note says what the user must do for the client to read the change.
	Note string
}

// stdioEntry is the entry most clients read.
type stdioEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// typedEntry is the entry of clients that name the transport.
type typedEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// opencodeEntry is opencode's: the command and its arguments in one list.
type opencodeEntry struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
}

// Args are the arguments every client starts webpilot with.
var Args = []string{"mcp"}

// NPX is the command of a webpilot that runs from npm: clients start it
// through npx, not from npx's cache, which npm may clear.
var NPX = []string{"npx", "-y", "webpilot-mcp", "mcp"}

// Clients are the clients webpilot knows, in the order setup lists them.
func Clients(e Env) []Client {
	plain := func(bin string, args []string) any { return stdioEntry{Command: bin, Args: args} }
	typed := func(bin string, args []string) any { return typedEntry{Type: "stdio", Command: bin, Args: args} }
	agents := e.join(".agents", "skills") // read by Codex, Gemini CLI, Cursor, Zed and opencode
	claudeDir := e.join(".claude")
	claudeFile := e.join(".claude.json")
	if d := e.env("CLAUDE_CONFIG_DIR"); d != "" && filepath.IsAbs(d) {
		claudeDir, claudeFile = d, filepath.Join(d, ".claude.json")
	}
	codex := e.join(".codex")
	if d := e.env("CODEX_HOME"); d != "" && filepath.IsAbs(d) {
		codex = d
	}
	cfg := e.configDir()
	vscode := filepath.Join(cfg, "Code", "User")
	zed := filepath.Join(cfg, "zed")
	if e.GOOS == "windows" {
		zed = filepath.Join(cfg, "Zed")
	} else if e.GOOS == "darwin" {
		zed = e.join(".config", "zed")
	}
	opencode := e.join(".config", "opencode")
	return []Client{
		{ID: "claude-code", Name: "Claude Code", Dir: claudeDir, File: claudeFile, Path: []string{"mcpServers"}, Entry: typed,
			Skills: filepath.Join(claudeDir, "skills"), Note: "start a new Claude Code session"},
		{ID: "claude-desktop", Name: "Claude Desktop", Dir: filepath.Join(cfg, "Claude"), File: filepath.Join(cfg, "Claude", "claude_desktop_config.json"),
			Path: []string{"mcpServers"}, Entry: plain, Note: "quit Claude Desktop fully and open it again"},
		{ID: "codex", Name: "Codex", Dir: codex, File: filepath.Join(codex, "config.toml"), Format: TOML, Path: []string{"mcp_servers"}, Entry: plain,
			Skills: agents, Note: "start a new Codex session"},
		{ID: "cursor", Name: "Cursor", Dir: e.join(".cursor"), File: e.join(".cursor", "mcp.json"), Path: []string{"mcpServers"}, Entry: plain,
			Skills: agents, Note: "Cursor picks it up in Settings → MCP (reload the window if it does not)"},
		{ID: "vscode", Name: "VS Code", Dir: vscode, File: filepath.Join(vscode, "mcp.json"), Path: []string{"servers"}, Entry: typed,
			Note: "VS Code asks to start the server the first time a chat uses it"},
		{ID: "windsurf", Name: "Windsurf", Dir: e.join(".codeium", "windsurf"), File: e.join(".codeium", "windsurf", "mcp_config.json"), Path: []string{"mcpServers"}, Entry: plain,
			Skills: e.join(".codeium", "windsurf", "skills"), Note: "press Refresh in Windsurf's MCP panel"},
		{ID: "gemini", Name: "Gemini CLI", Dir: e.join(".gemini"), File: e.join(".gemini", "settings.json"), Path: []string{"mcpServers"}, Entry: plain,
			Skills: agents, Note: "start a new Gemini CLI session"},
		{ID: "zed", Name: "Zed", Dir: zed, File: filepath.Join(zed, "settings.json"), Path: []string{"context_servers"}, Entry: plain,
			Skills: agents, Note: "Zed reloads its settings by itself"},
		{ID: "opencode", Name: "opencode", Dir: opencode, File: opencodeFile(opencode), Path: []string{"mcp"},
			Entry: func(bin string, args []string) any {
				return opencodeEntry{Type: "local", Command: append([]string{bin}, args...), Enabled: true}
			},
			Skills: agents, Note: "start a new opencode session"},
	}
}

// opencodeFile is opencode.jsonc when that is the file there, else
// opencode.json.
func opencodeFile(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "opencode.jsonc")); err == nil {
		return filepath.Join(dir, "opencode.jsonc")
	}
	return filepath.Join(dir, "opencode.json")
}

// IDs are the clients' ids, for usage text.
func IDs(e Env) string {
	var ids []string
	for _, c := range Clients(e) {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}
