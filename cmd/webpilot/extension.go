package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/webpilot-mcp/webpilot/extension"
)

// runExtension writes the unpacked extension to a directory for Chrome's
// "Load unpacked".
func runExtension(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webpilot extension", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write the unpacked extension to (created; an older webpilot extension there is replaced)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *out == "" {
		return fmt.Errorf("%w: --out DIR is required", errUsage)
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		// Replace only a webpilot extension, never someone's other files.
		b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		var m struct {
			Name string `json:"name"`
		}
		if err != nil || json.Unmarshal(b, &m) != nil || m.Name != "webpilot" {
			return fmt.Errorf("%s is not empty and holds no webpilot extension; pick an empty or new directory", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.CopyFS(dir, extension.Files); err != nil {
		return fmt.Errorf("write the extension: %w", err)
	}
	fmt.Fprintf(stdout, "Wrote the webpilot extension %s (id %s) to %s\n\nLoad it: chrome://extensions → turn on Developer mode → Load unpacked → choose that directory.\nThen pair it: run `webpilot pair` and type the code in the extension's popup.\n", extension.Version, extension.ID, dir)
	return nil
}
