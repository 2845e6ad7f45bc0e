package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"log/slog"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/extension"
)

func TestExtensionCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ext")
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"extension", "--out", dir}, nil, &out, &errb); err != nil {
		t.Fatalf("extension --out: %v (%s)", err, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, Version string
		Key           string
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Name != "webpilot" || m.Version != extension.Version || m.Key == "" {
		t.Errorf("manifest = %+v, %v", m, err)
	}
	if !strings.Contains(out.String(), "Load unpacked") || !strings.Contains(out.String(), "webpilot pair") {
		t.Errorf("output does not say how to load and pair:\n%s", out.String())
	}
	// Writing again replaces the extension.
	if err := run(context.Background(), []string{"extension", "--out", dir}, nil, &out, &errb); err != nil {
		t.Errorf("second write: %v", err)
	}
	// A directory with other files is left alone.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	err = run(context.Background(), []string{"extension", "--out", other}, nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Error("the user's file was removed")
	}
	if code := exitCode(run(context.Background(), []string{"extension"}, nil, &out, &errb), &errb); code != 2 {
		t.Errorf("extension without --out: exit %d", code)
	}
}

// syncWriter is a bytes.Buffer safe for a writer goroutine and a reader.
type syncWriter = backendtest.SyncBuffer

func freePort(t *testing.T) int { return backendtest.FreePort(t) }

// `webpilot pair` prints a code; an extension presenting it gets the secret,
// which webpilot stores (0600) and then uses to pick the bridge backend.
func TestPairCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	port := freePort(t)
	out := &syncWriter{}
	var errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"pair", "--bridge-port", strconv.Itoa(port)}, nil, out, &errb) }()
	code, err := backendtest.PairingCode(ctx, out, done)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	code, _, _ = strings.Cut(code, "@") // (the extension sends the code without the port it carries)
	h := http.Header{"Origin": {extension.Origin}}
	c, _, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(port)+"/bridge", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Read(ctx) // challenge
	msg, _ := json.Marshal(map[string]any{"type": "pair", "protocol": extension.ProtocolVersion, "code": strings.ToLower(code), "profile_id": "p", "extension_version": extension.Version})
	c.Write(ctx, websocket.MessageText, msg)
	_, data, err := c.Read(ctx)
	if err != nil || !strings.Contains(string(data), `"paired"`) {
		t.Fatalf("pair reply %s, %v", data, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("pair: %v", err)
	}
	path, _ := pairingFile()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pairing file %s: %v %v", path, fi, err)
	}
	secret, err := readSecret()
	if err != nil || len(secret) != 32 {
		t.Fatalf("readSecret = %d bytes, %v", len(secret), err)
	}
	// With a pairing, auto picks the bridge; launch stays launch.
	cfg := &Config{Backend: "auto", BridgePort: freePort(t)}
	be, _, kind, err := chooseBackend(cfg, discardLogger())
	if err != nil || !strings.HasPrefix(kind, "bridge") {
		t.Fatalf("auto after pairing = %q, %v", kind, err)
	}
	info := be.Info()
	if info.Kind != "bridge" || !info.Paired || info.Running {
		t.Errorf("bridge info = %+v", info)
	}
	be.Close()
	if _, _, kind, _ := chooseBackend(&Config{Backend: "launch"}, discardLogger()); kind != "launch" {
		t.Errorf("--backend launch chose %q", kind)
	}
}

func TestAutoWithoutPairingIsLaunch(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	be, _, kind, err := chooseBackend(&Config{Backend: "auto", BridgePort: freePort(t)}, discardLogger())
	if err != nil || be != nil || !strings.HasPrefix(kind, "launch") {
		t.Errorf("auto, never paired = %v %q %v", be, kind, err)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Once paired, a request for a browser of its own (--isolated, a
// .webpilot.json with "isolated": true, --user-data-dir) still gets a
// launched browser, never the user's Chrome; with --backend bridge it is a
// usage error, not a silent choice.
func TestAutoOwnProfileIsLaunch(t *testing.T) {
	cliEnv(t)
	if _, err := writeSecret(bytes.Repeat([]byte{7}, 32)); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	for _, tc := range []struct {
		name string
		args []string
		file string
		want string // kind prefix, or "" for a usage error
	}{
		{"paired", nil, "", "bridge"},
		{"isolated flag", []string{"--isolated"}, "", "launch (auto: --isolated"},
		{"isolated in file", nil, `{"isolated": true}`, "launch (auto: .webpilot.json isolated"},
		{"isolated false", []string{"--isolated=false"}, "", "bridge"},
		{"user data dir", []string{"--user-data-dir", t.TempDir()}, "", "launch (auto: --user-data-dir"},
		{"bridge and isolated", []string{"--backend", "bridge", "--isolated"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, ".webpilot.json"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var errb bytes.Buffer
			cfg, err := parseConfig("mcp", append([]string{"--bridge-port", port}, tc.args...), &errb)
			if err != nil {
				t.Fatalf("parseConfig: %v (%s)", err, errb.String())
			}
			be, _, kind, err := chooseBackend(cfg, discardLogger())
			if be != nil {
				defer be.Close()
			}
			switch {
			case tc.want == "" && (err == nil || !strings.Contains(err.Error(), "--isolated asks for a browser webpilot launches")):
				t.Errorf("chose %q, %v; want a usage error naming --isolated", kind, err)
			case tc.want != "" && (err != nil || !strings.HasPrefix(kind, tc.want)):
				t.Errorf("chose %q, %v; want %q", kind, err, tc.want)
			}
		})
	}
}
