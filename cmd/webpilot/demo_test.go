package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// `webpilot demo` end to end on a real browser: every step runs and it says
// it finished.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	args := []string{"demo"}
	if os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" {
		args = append(args, "--headless=true") // never open a window on a desktop
	}
	ctx := backendtest.Context(t, 90*time.Second)
	var out, errb syncBuffer
	if err := run(ctx, args, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"tools/list → 11 tools",
		"▶ browser_navigate",
		"▶ browser_action {action=fill",
		"Hello, Ada Lovelace!",
		"▶ browser_snapshot",
		"▶ browser_close",
		"demo finished",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
}
