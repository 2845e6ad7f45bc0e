package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The example files are what they claim: client configs parse, and the
// flags the service files pass to webpilot are flags webpilot accepts.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples")
	for _, f := range []string{"clients/cursor.json", "clients/vscode.json"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]map[string]map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The argv after "webpilot serve" in each service file.
	for f, re := range map[string]*regexp.Regexp{
		"service/webpilot.service":         regexp.MustCompile(`(?m)^ExecStart=\S+ serve (.*)$`),
		"service/com.webpilot.serve.plist": regexp.MustCompile(`(?s)<string>serve</string>(.*?)</array>`),
		"service/webpilot-startup.ps1":     regexp.MustCompile(`\$args = @\('serve', (.*)\)`),
		"clients/codex.toml":               regexp.MustCompile(`args = \["(mcp)"\]`),
	} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			t.Errorf("%s: no webpilot command line found", f)
			continue
		}
		// A value the shell or the service manager fills in gets a stand-in.
		standIn := map[string]string{"--listen": "127.0.0.1:31999", "--log-file": filepath.Join(t.TempDir(), "w.log")}
		var args []string
		for _, s := range regexp.MustCompile(`<string>([^<]*)</string>|'([^']*)'|"([^"]*)"|(\S+)`).FindAllStringSubmatch(string(m[1]), -1) {
			a := strings.Trim(s[1]+s[2]+s[3]+s[4], `",`)
			if a == "" {
				continue
			}
			if strings.HasPrefix(a, "$") || strings.Contains(a, "%h") {
				if len(args) == 0 || standIn[args[len(args)-1]] == "" {
					t.Errorf("%s: a placeholder %q after %v", f, a, args)
					continue
				}
				a = standIn[args[len(args)-1]]
			}
			args = append(args, a)
		}
		cmd := "serve"
		if len(args) > 0 && args[0] == "mcp" {
			cmd, args = "mcp", args[1:]
		}
		if _, err := parseConfig(cmd, args, io.Discard); err != nil {
			t.Errorf("%s: webpilot %s %q: %v", f, cmd, args, err)
		}
	}
}
