//go:build unix

package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/daemon"
)

// A state dir or file another user owns or may change is not trusted
// (issue 47, 12): Ensure and Find refuse it, saying how to fix it, and
// start nothing; the dir and file webpilot writes itself pass.
func TestTrusted(t *testing.T) {
	mk := func(dirMode, fileMode os.FileMode) string {
		dir := filepath.Join(t.TempDir(), "webpilot")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := daemon.WriteState(dir, daemon.State{PID: 1, Addr: "127.0.0.1:1", Token: "t"}); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, daemon.StateFile), fileMode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if err := daemon.Trusted(mk(0o700, 0o600)); err != nil {
		t.Errorf("webpilot's own dir and file: %v", err)
	}
	if err := daemon.Trusted(filepath.Join(t.TempDir(), "none")); err != nil {
		t.Errorf("a dir not made yet: %v", err)
	}
	cases := map[string]string{
		mk(0o777, 0o600): "chmod 700",
		mk(0o700, 0o666): "chmod 600",
		mk(0o700, 0o644): "chmod 600",
	}
	if os.Geteuid() == 0 {
		other := mk(0o700, 0o600)
		if err := os.Chown(filepath.Join(other, daemon.StateFile), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases[other] = "another user (uid 65534)"
	} else {
		t.Log("not root: a file of another user is not made here (the mode cases stand for it)")
	}
	for dir, want := range cases {
		_, err := daemon.Ensure(context.Background(), daemon.EnsureOptions{Dir: dir, Timeout: time.Second, Start: func() (<-chan error, error) {
			t.Errorf("%s: a daemon was started", dir)
			return nil, os.ErrInvalid
		}})
		if err == nil || !strings.Contains(err.Error(), "does not trust") || !strings.Contains(err.Error(), want) {
			t.Errorf("Ensure in %s: %v, want it to say %q", dir, err, want)
		}
		if _, err := daemon.Find(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "does not trust") {
			t.Errorf("Find in %s: %v", dir, err)
		}
	}
}
