package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Working in / with an output directory that links to /etc, webpilot says
// at once that uploads will come from neither.
func TestUploadRootsWarnAtStartup(t *testing.T) {
	link := filepath.Join(t.TempDir(), "out")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	roots := uploadRoots(&Config{OutputDir: link}, "/", slog.New(slog.NewTextHandler(&buf, nil)))
	if len(roots) != 2 || roots[0] != link || roots[1] != "/" {
		t.Errorf("roots = %q, want the output and working directories (each upload checks them)", roots)
	}
	got := buf.String()
	for _, want := range []string{"uploads will not come from the output directory", "symbolic link (to /etc)",
		"uploads will not come from the working directory", "root of the filesystem"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	buf.Reset()
	uploadRoots(&Config{OutputDir: t.TempDir()}, t.TempDir(), slog.New(slog.NewTextHandler(&buf, nil)))
	if buf.Len() != 0 {
		t.Errorf("usable roots were warned about: %s", buf.String())
	}
}
