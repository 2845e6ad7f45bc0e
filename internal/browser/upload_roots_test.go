package browser_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Upload roots that would open the whole filesystem are not used, and a
// hard link cannot bring a file from elsewhere into a root; the page's
// file input gets nothing from a refused upload.
func TestUploadRootBoundaries(t *testing.T) {
	mkfile := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+filepath.Base(p)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	work, out := t.TempDir(), t.TempDir()
	plain := mkfile(filepath.Join(work, "report.txt"))
	// A directory standing for /etc, reached through an output directory
	// that is a symbolic link to it; and a link to /etc itself.
	victim := t.TempDir()
	shadow := mkfile(filepath.Join(victim, "shadow"))
	outLink := filepath.Join(t.TempDir(), "out")
	etcLink := filepath.Join(t.TempDir(), "etc")
	for target, link := range map[string]string{victim: outLink, "/etc": etcLink} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// A hard link in the working directory to a file outside it, and one in
	// the output directory.
	hard := filepath.Join(work, "hard.txt")
	if err := os.Link(shadow, hard); err != nil {
		t.Fatal(err)
	}
	outHard := filepath.Join(out, "saved.txt")
	if err := os.Link(mkfile(filepath.Join(t.TempDir(), "saved.txt")), outHard); err != nil {
		t.Fatal(err)
	}

	refused := func(t *testing.T, e *env, file, why string) {
		t.Helper()
		_, err := e.act(browser.Action{Kind: "upload", Target: sel("#files"), Files: []string{file}})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && (!strings.Contains(be.Message, why) || be.Hint == "") {
			t.Errorf("upload %s: %q (hint %q), want %q and a hint", file, be.Message, be.Hint, why)
		}
	}

	t.Run("filesystem root", func(t *testing.T) {
		e := newEnv(t, browser.Options{UploadRoots: []string{"/"}, OutputDir: out})
		e.navigate("/act/upload.html")
		refused(t, e, "/etc/hostname", "no directory they may come from")
		refused(t, e, plain, "no directory they may come from")
		if got := e.log(); got != "" {
			t.Errorf("the page got files: %q", got)
		}
	})
	t.Run("linked output dir", func(t *testing.T) {
		e := newEnv(t, browser.Options{UploadRoots: []string{outLink, etcLink, work}, OutputDir: outLink})
		e.navigate("/act/upload.html")
		refused(t, e, filepath.Join(outLink, "shadow"), "outside the directories")
		refused(t, e, filepath.Join(etcLink, "hostname"), "outside the directories")
		refused(t, e, "/etc/hostname", "outside the directories")
		res, err := e.act(browser.Action{Kind: "upload", Target: sel("#files"), Files: []string{plain}})
		if err != nil || res.Outcome != "verified" || res.Value != "report.txt" {
			t.Fatalf("a file of the working directory: %+v %v", res, err)
		}
		if got := e.log(); got != "files:report.txt" {
			t.Errorf("log = %q, want only the working directory's file", got)
		}
	})
	t.Run("hard links", func(t *testing.T) {
		e := newEnv(t, browser.Options{UploadRoots: []string{out, work}, OutputDir: out})
		e.navigate("/act/upload.html")
		refused(t, e, hard, "2 hard links")
		res, err := e.act(browser.Action{Kind: "upload", Target: sel("#files"), Files: []string{outHard}})
		if err != nil || res.Outcome != "verified" || res.Value != "saved.txt" {
			t.Fatalf("a hard-linked file in the output directory: %+v %v", res, err)
		}
		if got := e.log(); got != "files:saved.txt" {
			t.Errorf("log = %q", got)
		}
	})
}
