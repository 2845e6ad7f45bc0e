package launch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadActivePort(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content *string // nil: no file
		port    int
		path    string
	}{
		{name: "missing file"},
		{name: "empty", content: new("")},
		{name: "port only", content: new("9222\n")},
		{name: "garbage", content: new("hello\nworld\n")},
		{name: "bad port", content: new("99999\n/devtools/browser/abc\n")},
		{name: "bad path", content: new("9222\n/json/version\n")},
		{name: "no id", content: new("9222\n/devtools/browser/\n")},
		{name: "good", content: new("41233\n/devtools/browser/0b1c-2d\n"), port: 41233, path: "/devtools/browser/0b1c-2d"},
		{name: "good without final newline", content: new("41233\n/devtools/browser/x"), port: 41233, path: "/devtools/browser/x"},
		{name: "good with CRLF", content: new("41233\r\n/devtools/browser/x\r\n"), port: 41233, path: "/devtools/browser/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != nil {
				if err := os.WriteFile(filepath.Join(dir, activePortFile), []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			port, path, err := readActivePort(dir)
			if tc.port == 0 {
				if err == nil {
					t.Fatalf("readActivePort = %d, %q, nil; want an error", port, path)
				}
				if tc.content == nil && !os.IsNotExist(err) {
					t.Fatalf("missing file: %v, want not-exist", err)
				}
				return
			}
			if err != nil || port != tc.port || path != tc.path {
				t.Fatalf("readActivePort = %d, %q, %v; want %d, %q", port, path, err, tc.port, tc.path)
			}
		})
	}
}

func TestBrowserArgsPort(t *testing.T) {
	args := browserArgs(Options{DebuggingPort: true}, "/p", false)
	for _, want := range []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=/p"} {
		if !slices.Contains(args, want) {
			t.Errorf("port args lack %s: %q", want, args)
		}
	}
	if slices.Contains(args, "--remote-debugging-pipe") {
		t.Errorf("port args contain --remote-debugging-pipe: %q", args)
	}
	if slices.Contains(browserArgs(Options{}, "/p", false), "--remote-debugging-port=0") {
		t.Error("pipe args contain --remote-debugging-port=0")
	}
}
