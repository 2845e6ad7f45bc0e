package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
)

// unpackedID is the id Chrome gives an extension loaded unpacked from dir
// whose manifest has no key: the first 128 bits of the SHA-256 of the
// folder's absolute path, hex with the digits written as the letters a-p.
func unpackedID(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(real))
	var b strings.Builder
	for _, c := range hex.EncodeToString(sum[:16]) {
		if c <= '9' {
			b.WriteRune('a' + c - '0')
		} else {
			b.WriteRune('a' + 10 + c - 'a')
		}
	}
	return b.String()
}

// storeZipPairs checks the release's store zip: the extension's files but
// PROTOCOL.md, the manifest as it is but for its key; then loads it in
// headless Chromium, where it gets an id other than the unpacked
// extension's (as a store install does), pairs it with the released binary
// (which pins that id, as a release pins the listings'), and drives the
// browser through it from an MCP client.
func storeZipPairs(t *testing.T, dist, dir, id string) {
	zr, err := zip.OpenReader(filepath.Join(dist, "webpilot-extension-"+extension.Version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string][]byte{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got[f.Name] = b
		if err := os.WriteFile(filepath.Join(dir, f.Name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = fs.WalkDir(extension.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(extension.Files, p)
		switch b, ok := got[p]; {
		case p == "PROTOCOL.md":
			if ok {
				t.Errorf("the store zip holds %s, which Chrome does not load", p)
			}
		case !ok:
			t.Errorf("the store zip lacks %s", p)
		case p == "manifest.json":
			var m, orig map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("the store manifest: %v\n%s", err, b)
			}
			_ = json.Unmarshal(want, &orig)
			if _, has := m["key"]; has {
				t.Error("the store manifest has a key (the stores refuse it)")
			}
			delete(orig, "key")
			mb, _ := json.Marshal(m)
			ob, _ := json.Marshal(orig)
			if !bytes.Equal(mb, ob) {
				t.Errorf("the store manifest differs from the extension's by more than its key:\n%s", b)
			}
		case !bytes.Equal(b, want):
			t.Errorf("the store zip's %s differs from the extension's", p)
		}
		delete(got, p)
		return nil
	})
	for p := range got {
		t.Errorf("the store zip holds %s, which is not the extension's", p)
	}

	ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(3*time.Minute))
	defer cancel()
	port := backendtest.FreePort(t)
	chrome, done, err := backendtest.ExtensionBrowserFrom(ctx, dir, port)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if origin, err := backendtest.ExtensionOrigin(ctx, chrome); err != nil || origin != "chrome-extension://"+id || id == extension.ID {
		t.Fatalf("the store zip loaded as %s (%v); want chrome-extension://%s, not the unpacked id", origin, err, id)
	}

	// A webpilot that does not pin the store's id refuses the store build,
	// and the popup says why (not "is it running?").
	old, err := bridge.Listen(bridge.Options{Addr: "127.0.0.1:0", ExtensionIDs: []string{extension.ID}, ServerVersion: "v0.9.0"})
	if err != nil {
		t.Fatal(err)
	}
	old.ArmPairing("ABCD-EFGH", time.Minute)
	res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "pair", "code": fmt.Sprintf("ABCD-EFGH@%d", old.Port())})
	_ = old.Close()
	if err != nil || !strings.Contains(res, `"ok":false`) || !strings.Contains(res, "does not know the extension id "+id) {
		t.Fatalf("pairing with a webpilot that does not pin the store id: %s %v", res, err)
	}

	bin := filepath.Join(dist, "bin", runtime.GOOS+"-"+runtime.GOARCH, "webpilot")
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TMPDIR="+home)
	pair := exec.CommandContext(ctx, bin, "pair", "--bridge-port", strconv.Itoa(port))
	pair.Env = env
	out := new(backendtest.SyncBuffer)
	pair.Stdout, pair.Stderr = out, out
	if err := pair.Start(); err != nil {
		t.Fatal(err)
	}
	code, err := backendtest.PairingCode[struct{}](ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := backendtest.PopupMessage(ctx, chrome, map[string]any{"type": "pair", "code": code}); err != nil || !strings.Contains(res, `"ok":true`) {
		t.Fatalf("pairing in the store build's popup: %s %v\n%s", res, err, out)
	}
	if err := pair.Wait(); err != nil || !strings.Contains(out.String(), "Paired.") {
		t.Fatalf("webpilot pair: %v\n%s", err, out)
	}

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Store build</title><button>Go</button>`)
	}))
	defer page.Close()
	srv := exec.Command(bin, "mcp", "--standalone", "--backend", "bridge", "--bridge-port", strconv.Itoa(port), "--approve", "always")
	srv.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "store-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: srv}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": page.URL}})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range call.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if call.IsError || !strings.Contains(text, "Store build") || !regexp.MustCompile(`button e\d+ "Go"`).MatchString(text) {
		t.Fatalf("navigate through the store build: %s", text)
	}
}
