package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelease builds a release for this machine twice (the same bytes: the
// archives are reproducible), installs it with install.sh from a local
// folder served over HTTP (and refuses an archive that does not match
// SHA256SUMS), and installs the npm packages from their packed tarballs
// into a scratch prefix, whose launcher then serves MCP on stdio.
func TestRelease(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("install.sh and the npm test are for Linux and macOS; install.ps1 is Windows'")
	}
	t.Chdir(filepath.Join("..", ".."))
	target := runtime.GOOS + "/" + runtime.GOARCH
	dist, again := t.TempDir(), t.TempDir()
	const version = "v0.9.1"
	// The store zip is unpacked here and loaded as Chrome loads an
	// extension without a key: its id comes from this path, and stands for
	// a listing's id, which the release pins.
	storeDir := filepath.Join(t.TempDir(), "store-extension")
	storeID := unpackedID(t, storeDir)
	for _, d := range []string{dist, again} {
		if err := release(version, d, []string{target}, "https://example.invalid/releases/download", "go", storeID); err != nil {
			t.Fatal(err)
		}
	}
	sums, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	sums2, _ := os.ReadFile(filepath.Join(again, "SHA256SUMS"))
	archive := "webpilot_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	if !bytes.Equal(sums, sums2) || !strings.Contains(string(sums), "  "+archive+"\n") {
		t.Fatalf("two releases of one commit differ:\n%s\n%s", sums, sums2)
	}
	rb, _ := os.ReadFile(filepath.Join(dist, "webpilot.rb"))
	sum := ""
	for _, line := range strings.Split(string(sums), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == archive {
			sum = f[0]
		}
	}
	if !strings.Contains(string(rb), `url "https://example.invalid/releases/download/v0.9.1/`+archive+`"`) || !strings.Contains(string(rb), `sha256 "`+sum+`"`) {
		t.Errorf("the Homebrew formula:\n%s", rb)
	}

	t.Run("install.sh", func(t *testing.T) {
		srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
		defer srv.Close()
		home := t.TempDir()
		install := func(url string) (string, error) {
			cmd := exec.Command("sh", filepath.Join(dist, "install.sh"))
			cmd.Env = append(os.Environ(), "HOME="+home, "WEBPILOT_DOWNLOAD_URL="+url, "WEBPILOT_INSTALL_DIR="+filepath.Join(home, "bin"))
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		out, err := install(srv.URL)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s", err, out)
		}
		v, err := exec.Command(filepath.Join(home, "bin", "webpilot"), "version").Output()
		if err != nil || strings.TrimSpace(string(v)) != "webpilot "+version {
			t.Errorf("the installed webpilot says %q (%v)", v, err)
		}
		if !strings.Contains(out, "checked "+archive+" against SHA256SUMS") || !strings.Contains(out, "webpilot setup") {
			t.Errorf("install.sh said:\n%s", out)
		}
		// A tampered archive is refused, and the installed binary stays.
		bad := t.TempDir()
		b, _ := os.ReadFile(filepath.Join(dist, archive))
		b[len(b)/2] ^= 1
		_ = os.WriteFile(filepath.Join(bad, archive), b, 0o644)
		_ = os.WriteFile(filepath.Join(bad, "SHA256SUMS"), sums, 0o644)
		badSrv := httptest.NewServer(http.FileServer(http.Dir(bad)))
		defer badSrv.Close()
		if out, err := install(badSrv.URL); err == nil || !strings.Contains(out, "does not match SHA256SUMS") {
			t.Errorf("a tampered archive: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(home, "bin", "webpilot")); err != nil {
			t.Errorf("the refused install removed the binary: %v", err)
		}
	})

	t.Run("store zip", func(t *testing.T) {
		storeZipPairs(t, dist, storeDir, storeID)
	})

	t.Run("README", func(t *testing.T) {
		testReadme(t, dist, version)
	})

	t.Run("npm", func(t *testing.T) {
		prefix := npmInstall(t, dist)
		launcher := filepath.Join(prefix, "node_modules", ".bin", NPMName)
		if v, err := exec.Command(launcher, "version").Output(); err != nil || strings.TrimSpace(string(v)) != "webpilot "+version {
			t.Fatalf("%s version: %q %v", launcher, v, err)
		}
		// setup run from npm configures clients with npx, not npx's cache.
		home := t.TempDir()
		setup := exec.Command(launcher, "setup", "--client", "cursor", "--no-skill")
		setup.Env = append(os.Environ(), "HOME="+home)
		if out, err := setup.CombinedOutput(); err != nil {
			t.Fatalf("setup through npm: %v\n%s", err, out)
		}
		cfg, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
		if !strings.Contains(string(cfg), `"command": "npx"`) || !strings.Contains(string(cfg), `"webpilot-mcp"`) {
			t.Errorf("setup through npm wrote:\n%s", cfg)
		}
		// An MCP client over stdio, through the launcher.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		srv := exec.Command(launcher, "mcp", "--standalone", "--isolated", "--no-prewarm")
		srv.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "npm-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: srv}, nil)
		if err != nil {
			t.Fatalf("connect through the npm launcher: %v", err)
		}
		defer cs.Close()
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) < 10 {
			t.Fatalf("tools/list through the npm launcher: %v", err)
		}
	})
}

// npmInstall packs the release's launcher and this platform's package
// with npm pack and installs the tarballs, offline, into a scratch prefix.
func npmInstall(t *testing.T, dist string) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is needed for this test (.ci/run installs it)")
	}
	packs := t.TempDir()
	var tarballs []string
	for _, dir := range []string{NPMName, npmDir(runtime.GOOS, runtime.GOARCH)} {
		cmd := exec.Command(npm, "pack", "--pack-destination", packs, filepath.Join(dist, "npm", dir))
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(packs, "cache"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("npm pack %s: %v", dir, err)
		}
		lines := strings.Fields(string(out))
		tarballs = append(tarballs, filepath.Join(packs, lines[len(lines)-1]))
	}
	prefix := t.TempDir()
	cmd := exec.Command(npm, append([]string{"install", "--prefix", prefix, "--offline", "--no-audit", "--no-fund"}, tarballs...)...)
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(packs, "cache"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	return prefix
}

func npmDir(goos, goarch string) string {
	t := Target{goos, goarch}
	return t.npmOS() + "-" + t.npmCPU()
}

// TestArchivesReproducible: the same files make the same archive bytes.
func TestArchivesReproducible(t *testing.T) {
	files := []file{{"webpilot", []byte("binary"), 0o755}, {"LICENSE", []byte("l"), 0o644}}
	a, _ := tarGz(files)
	b, _ := tarGz(files)
	z1, _ := zipOf(files)
	z2, _ := zipOf(files)
	if !bytes.Equal(a, b) || !bytes.Equal(z1, z2) || len(a) == 0 || len(z1) == 0 {
		t.Error("archives of the same files differ")
	}
}

// TestManagers: the Homebrew formula and the Scoop manifest of a release
// of every platform name each archive's URL with its checksum, under the
// platform it is for.
func TestManagers(t *testing.T) {
	dist := t.TempDir()
	sums := map[string]string{}
	for _, s := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		goos, goarch, _ := strings.Cut(s, "/")
		sums[Target{goos, goarch}.Archive("v1.2.3")] = fmt.Sprintf("%064x", len(sums)+1)
	}
	if err := managers("v1.2.3", dist, "https://example.invalid/dl", sums); err != nil {
		t.Fatal(err)
	}
	rb, _ := os.ReadFile(filepath.Join(dist, "webpilot.rb"))
	for _, block := range []struct{ os, cond, archive string }{
		{"macos", "on_arm", "webpilot_darwin_arm64.tar.gz"}, {"macos", "on_intel", "webpilot_darwin_amd64.tar.gz"},
		{"linux", "on_arm", "webpilot_linux_arm64.tar.gz"}, {"linux", "on_intel", "webpilot_linux_amd64.tar.gz"},
	} {
		section := regexp.MustCompile(`(?s)\n  on_` + block.os + ` do\n(.*?)\n  end\n`).FindSubmatch(rb)
		want := "    " + block.cond + " do\n      url \"https://example.invalid/dl/v1.2.3/" + block.archive + "\"\n      sha256 \"" + sums[block.archive] + "\"\n    end"
		if section == nil || !strings.Contains(string(section[1]), want) {
			t.Errorf("the formula's on_%s has no %s block for %s:\n%s", block.os, block.cond, block.archive, rb)
		}
	}
	var scoop struct {
		Version      string
		Bin          string
		Architecture map[string]struct{ URL, Hash string }
	}
	b, _ := os.ReadFile(filepath.Join(dist, "webpilot.json"))
	if err := json.Unmarshal(b, &scoop); err != nil {
		t.Fatal(err)
	}
	for arch, archive := range map[string]string{"64bit": "webpilot_windows_amd64.zip", "arm64": "webpilot_windows_arm64.zip"} {
		a := scoop.Architecture[arch]
		if a.URL != "https://example.invalid/dl/v1.2.3/"+archive || a.Hash != sums[archive] {
			t.Errorf("Scoop's %s: %+v", arch, a)
		}
	}
	if scoop.Version != "1.2.3" || scoop.Bin != "webpilot.exe" {
		t.Errorf("Scoop's manifest:\n%s", b)
	}
}
