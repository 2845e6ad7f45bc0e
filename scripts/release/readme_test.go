package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/clientconf"
)

// readmeCommands are the command lines of the README's sh blocks, without
// their comments, in order.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	comment := regexp.MustCompile(`\s+#\s.*$`)
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			in = strings.TrimSpace(strings.TrimPrefix(line, "```")) == "sh" && !in
		case in:
			if c := strings.TrimSpace(comment.ReplaceAllString(line, "")); c != "" && !strings.HasPrefix(c, "#") {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// The README's commands that need GitHub or the npm registry's webpilot
// run here against the release just built: the same line, with GitHub's
// address swapped for a local server of dist, or npx finding the launcher
// installed from the packed tarballs.
const (
	readmeReleases = "https://github.com/webpilot-mcp/webpilot/releases/latest/download"
	readmeRepo     = "https://github.com/webpilot-mcp/webpilot"
	// claudeCode runs the Claude Code CLI (from npm, through npx, on the
	// Node 22 it asks for; the conformance script's), as a client that
	// reads its config and connects.
	claudeCode = "-p node@22.23.3 -p @anthropic-ai/claude-code@2.1.332 -- claude"
)

// readmeNotHere are the README's commands this machine cannot run, and
// what stands for them.
var readmeNotHere = map[string]string{
	"irm " + readmeReleases + "/install.ps1 | iex": "PowerShell on Windows; install.ps1 is written for it and checks the archive against SHA256SUMS as install.sh does",
	"make test": ".ci/run runs it (this test is part of it)",
}

// testReadme runs every command the README shows that can run here, as a
// new user runs them: the install line on a machine with no Go (a scratch
// HOME, a PATH without go), setup on a home with every client's files,
// Claude Code reading what setup wrote and connecting, `claude mcp add`,
// the npx line driven by an MCP client, and the clone, make build, go
// install and make demo path. A command it does not know fails it.
func testReadme(t *testing.T, dist, version string) {
	ran := map[string]bool{}
	cmds := readmeCommands(t)
	if len(cmds) < 8 {
		t.Fatalf("found %d commands in the README's sh blocks: %q", len(cmds), cmds)
	}
	has := func(c string) bool {
		for _, x := range cmds {
			if x == c {
				return true
			}
		}
		t.Errorf("the README no longer shows %q: update the doc test", c)
		return false
	}
	ci, _ := os.ReadFile(filepath.Join(".ci", "run"))
	if !regexp.MustCompile(`(?m)^make test\b|^exec make test\b`).Match(ci) {
		t.Errorf(".ci/run does not run make test:\n%s", ci)
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(6*time.Minute))
	defer cancel()
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Fatal("npx is needed for this test (.ci/run installs it)")
	}
	realHome, _ := os.UserHomeDir()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Readme page</title><a href="/next">Next</a>`)
	}))
	defer page.Close()
	srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
	defer srv.Close()

	// A machine with no Go: a scratch home and a PATH that has every tool
	// of this one but go.
	home := t.TempDir()
	nogo := pathWithoutGo(t)
	env := []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":" + nogo, "TMPDIR=" + home,
		"WEBPILOT_DOWNLOAD_URL=" + srv.URL, "npm_config_cache=" + filepath.Join(realHome, ".npm"), "npm_config_update_notifier=false", "npm_config_loglevel=error"}
	if out, err := shell(ctx, home, env, "command -v go"); err == nil {
		t.Fatalf("go is on the PATH of the machine without Go: %s", out)
	}
	defer func() { _, _ = shell(context.Background(), home, env, "webpilot daemon stop") }()

	install := "curl -fsSL " + readmeReleases + "/install.sh | sh"
	if has(install) {
		out, err := shell(ctx, home, env, strings.Replace(install, readmeReleases, srv.URL, 1))
		if err != nil || !strings.Contains(out, "checked webpilot_") {
			t.Fatalf("%s: %v\n%s", install, err, out)
		}
		if v, err := shell(ctx, home, env, "webpilot version"); err != nil || strings.TrimSpace(v) != "webpilot "+version {
			t.Fatalf("webpilot version after install.sh: %q %v", v, err)
		}
		ran[install] = true
		// The installed webpilot drives a browser for an MCP client.
		mcpNavigates(ctx, t, home, env, "webpilot mcp --standalone --isolated", page.URL)
	}

	// setup, on a home with every client's files as each writes them.
	if err := os.CopyFS(home, os.DirFS(filepath.Join("testdata", "clients", "home"))); err != nil {
		t.Fatal(err)
	}
	before := files(t, home)
	for _, c := range []string{"webpilot setup --dry-run", "webpilot setup"} {
		if !has(c) {
			continue
		}
		out, err := shell(ctx, home, env, c)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		ran[c] = true
		after := files(t, home)
		changed := 0 // client files changed or made (skills aside)
		for p, b := range after {
			if before[p] == nil || !bytes.Equal(before[p], b) {
				if !strings.HasSuffix(p, "SKILL.md") {
					changed++
				}
			}
		}
		switch {
		case c == "webpilot setup --dry-run" && (changed != 0 || !strings.Contains(out, "nothing was written")):
			t.Errorf("%s changed %d file(s):\n%s", c, changed, out)
		case c == "webpilot setup" && (changed != 9 || !strings.Contains(out, "Done: 12 file(s) changed")):
			t.Errorf("%s changed %d of the 9 clients' files:\n%s", c, changed, out)
		}
	}
	if out, err := shell(ctx, home, env, "webpilot setup --remove"); err != nil {
		t.Errorf("webpilot setup --remove: %v\n%s", err, out)
	}
	after := files(t, home)
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("webpilot setup --remove left %s changed:\n%s", p, after[p])
		}
	}
	// Claude Code reads what setup wrote and connects to webpilot through
	// it (through the daemon, as every client does by default). It writes
	// its own state into the same file, so this comes after --remove.
	if out, err := shell(ctx, home, env, "webpilot setup --client claude-code --no-skill"); err != nil {
		t.Fatalf("webpilot setup --client claude-code: %v\n%s", err, out)
	}
	bin := filepath.Join(home, ".local", "bin", "webpilot")
	if out, err := shell(ctx, home, env, npx+" -y "+claudeCode+" mcp list"); err != nil || !strings.Contains(out, "webpilot: "+bin+" mcp - ✔ Connected") {
		t.Errorf("Claude Code after webpilot setup: %v\n%s", err, out)
	}

	// claude mcp add, in a home of its own: Claude Code writes the entry
	// for every project, then connects through it from another folder.
	add := "claude mcp add --scope user webpilot -- webpilot mcp"
	if has(add) {
		home2 := t.TempDir()
		env2 := append(slices.Clone(env), "HOME="+home2, "TMPDIR="+home2) // (the later ones win)
		defer func() { _, _ = shell(context.Background(), home2, env2, "webpilot daemon stop") }()
		proj, other := filepath.Join(home2, "project"), filepath.Join(home2, "other")
		_ = os.MkdirAll(proj, 0o755)
		_ = os.MkdirAll(other, 0o755)
		line := strings.Replace(add, "claude ", npx+" -y "+claudeCode+" ", 1)
		if out, err := shell(ctx, proj, env2, line); err != nil {
			t.Errorf("%s: %v\n%s", add, err, out)
		} else if out, err := shell(ctx, other, env2, npx+" -y "+claudeCode+" mcp list"); err != nil || !strings.Contains(out, "webpilot: webpilot mcp - ✔ Connected") {
			t.Errorf("Claude Code after %s: %v\n%s", add, err, out)
		} else {
			ran[add] = true
		}
	}

	// npx, where the launcher is installed from the packed tarballs: npx
	// runs the local one, as it runs the registry's once published.
	line := "npx -y webpilot-mcp mcp"
	if has(line) {
		prefix := npmInstall(t, dist)
		mcpNavigates(ctx, t, prefix, env, line, page.URL)
		ran[line] = true
	}

	// From source: the clone (of this checkout), make build, go install
	// and make demo, with Go.
	clone := "git clone " + readmeRepo + " && cd webpilot"
	if has(clone) {
		work := t.TempDir()
		root, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
			t.Fatalf("the README's clone needs this checkout to be a git repository: %v", err)
		}
		// (the clone's folder is named after the repository, as GitHub's is)
		src := filepath.Join(t.TempDir(), "webpilot")
		if err := os.Symlink(root, src); err != nil {
			t.Fatal(err)
		}
		withGo := append(os.Environ(), "GOBIN="+filepath.Join(work, "gobin"))
		script := strings.Replace(clone, readmeRepo, src, 1) + " && make build && go install ./cmd/webpilot && make demo && bin/webpilot version && " + filepath.Join(work, "gobin", "webpilot") + " version"
		out, err := shell(ctx, work, withGo, script)
		if err != nil || !strings.Contains(out, "demo finished") {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		for _, c := range []string{clone, "make build", "go install ./cmd/webpilot", "make demo"} {
			if has(c) {
				ran[c] = true
			}
		}
	}

	for _, c := range cmds {
		if why, ok := readmeNotHere[c]; ok {
			t.Logf("not run here: %s (%s)", c, why)
			continue
		}
		if !ran[c] {
			t.Errorf("the README shows %q, which no test runs: run it here, or say in readmeNotHere what stands for it", c)
		}
	}
}

// shell runs line with sh in dir, with env only, and returns its output.
func shell(ctx context.Context, dir string, env []string, line string) (string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mcpNavigates starts line (a webpilot MCP server on stdio) with sh in
// dir and env, as an MCP client, and has it open url.
func mcpNavigates(ctx context.Context, t *testing.T, dir string, env []string, line, url string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "exec "+line)
	cmd.Dir, cmd.Env = dir, env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", line, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": url}})
	if err != nil {
		t.Fatalf("%s: navigate: %v", line, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "Readme page") || !regexp.MustCompile(`link e\d+ "Next"`).MatchString(text) {
		t.Fatalf("%s: navigate: %s", line, text)
	}
}

// pathWithoutGo is a folder of links to every program on the PATH but go
// and gofmt (the first of each name, as the PATH finds it).
func pathWithoutGo(t *testing.T) string {
	t.Helper()
	farm := t.TempDir()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if name == "go" || name == "gofmt" {
				continue
			}
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				continue
			}
			_ = os.Symlink(p, filepath.Join(farm, name)) // the first one stays
		}
	}
	return farm
}

// files maps each regular file under root (backups excepted) to its
// bytes.
func files(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".local" || d.Name() == ".npm") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".webpilot-backup") {
			return nil
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, root+string(filepath.Separator))] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadmeConfigs: the configs the README shows for a setup by hand are
// what webpilot setup writes for those clients into an empty file (with
// "webpilot" for the binary's absolute path).
func TestReadmeConfigs(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)\\*\\*([^*]+)\\*\\*: `[^`]+`\\n\\n```(json|toml)\\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	_, changes, err := clientconf.Plan(clientconf.Env{Home: t.TempDir(), GOOS: "linux"}, clientconf.Options{Bin: "/opt/bin/webpilot", Only: []string{"codex", "cursor", "vscode"}})
	if err != nil {
		t.Fatal(err)
	}
	written := map[string][]byte{}
	for _, c := range changes {
		written[c.Client] = bytes.ReplaceAll(c.After, []byte("/opt/bin/webpilot"), []byte("webpilot"))
	}
	if len(blocks) != 3 {
		t.Fatalf("found %d client configs in the README, want Codex, Cursor and VS Code's", len(blocks))
	}
	for _, m := range blocks {
		name, format, text := m[1], m[2], m[3]
		want, ok := written[name]
		switch {
		case !ok:
			t.Errorf("the README shows a config for %q, which setup does not know", name)
		case format == "toml":
			if strings.TrimSpace(text) != strings.TrimSpace(string(want)) {
				t.Errorf("%s: the README shows\n%s\nsetup writes\n%s", name, text, want)
			}
		default:
			var a, w any
			if err := json.Unmarshal([]byte(text), &a); err != nil {
				t.Errorf("%s: the README's JSON: %v", name, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(a, w) {
				t.Errorf("%s: the README shows\n%s\nsetup writes\n%s", name, text, want)
			}
		}
	}
}
