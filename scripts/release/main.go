// Command release builds webpilot's release into a directory (make release):
//
//	webpilot_OS_ARCH.tar.gz   (.zip for Windows) the binary, LICENSE and README.md
//	SHA256SUMS                         the archives' checksums, as sha256sum writes them
//	install.sh, install.ps1            the installers, which check an archive against SHA256SUMS
//	npm/                               the npm packages: the launcher and one per platform
//	webpilot.rb, webpilot.json         a Homebrew formula and a Scoop manifest
//	webpilot-extension-VERSION.zip     the extension for the Chrome Web Store and Edge Add-ons
//
// The stores refuse a manifest with a key and give the listing an id of its
// own, so the store zip's manifest has no key, and the binaries pin the
// listings' ids beside the unpacked extension's: WEBPILOT_STORE_IDS (or
// -store-ids), comma-separated, is stamped in (extension.IDs).
//
// The build is reproducible: -trimpath, an empty build id, and archives whose
// entries have fixed times, owners and modes, in a fixed order, so the same
// commit gives the same bytes and the same SHA256SUMS (docs/install.md).
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/clientconf"
)

// Target is one platform a release is built for.
type Target struct{ GOOS, GOARCH string }

// npmOS and npmCPU are Node's names (process.platform, process.arch).
func (t Target) npmOS() string {
	if t.GOOS == "windows" {
		return "win32"
	}
	return t.GOOS
}

func (t Target) npmCPU() string {
	if t.GOARCH == "amd64" {
		return "x64"
	}
	return t.GOARCH
}

func (t Target) exe() string {
	if t.GOOS == "windows" {
		return "webpilot.exe"
	}
	return "webpilot"
}

// Archive is the target's archive name. It carries no version, so that
// the installers find the latest release's by name.
func (t Target) Archive(version string) string {
	ext := ".tar.gz"
	if t.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("webpilot_%s_%s%s", t.GOOS, t.GOARCH, ext)
}

// epoch is every archive entry's time: the commit's, for reproducibility.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	version := flag.String("version", "dev", "the version stamped in (webpilot version)")
	dist := flag.String("dist", "dist", "the directory to write")
	targets := flag.String("targets", "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64", "GOOS/GOARCH list")
	baseURL := flag.String("url", "https://github.com/webpilot-mcp/webpilot/releases/download", "where the release's files are published, without the version")
	goBin := flag.String("go", "go", "the go command")
	storeIDs := flag.String("store-ids", os.Getenv("WEBPILOT_STORE_IDS"), "the extension ids the stores gave webpilot's listings, comma-separated: the binaries pin them beside the unpacked extension's")
	flag.Parse()
	if err := release(*version, *dist, strings.Fields(*targets), *baseURL, *goBin, *storeIDs); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func release(version, dist string, targetList []string, baseURL, goBin, storeIDs string) error {
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	ids, err := checkIDs(storeIDs)
	if err != nil {
		return err
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		return err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	if t := os.Getenv("SOURCE_DATE_EPOCH"); t != "" {
		var sec int64
		if _, err := fmt.Sscan(t, &sec); err == nil {
			epoch = time.Unix(sec, 0).UTC()
		}
	}
	sums := map[string]string{}
	var built []Target
	for _, s := range targetList {
		goos, goarch, ok := strings.Cut(s, "/")
		if !ok {
			return fmt.Errorf("target %q is not GOOS/GOARCH", s)
		}
		t := Target{goos, goarch}
		bin := filepath.Join(dist, "bin", goos+"-"+goarch, t.exe())
		fmt.Println("building", bin)
		cmd := exec.Command(goBin, "build", "-trimpath", "-buildvcs=false",
			"-ldflags", "-s -w -buildid= -X main.version="+version+" -X github.com/webpilot-mcp/webpilot/extension.storeIDs="+ids, "-o", bin, "./cmd/webpilot")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", s, err)
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		files := []file{{t.exe(), exe, 0o755}, {"LICENSE", license, 0o644}, {"README.md", readme, 0o644}}
		var b []byte
		if goos == "windows" {
			b, err = zipOf(files)
		} else {
			b, err = tarGz(files)
		}
		if err != nil {
			return err
		}
		name := t.Archive(version)
		if err := os.WriteFile(filepath.Join(dist, name), b, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		sums[name] = hex.EncodeToString(sum[:])
		built = append(built, t)
	}
	storeZip, err := storeZip()
	if err != nil {
		return err
	}
	zipName := "webpilot-extension-" + extension.Version + ".zip"
	if err := os.WriteFile(filepath.Join(dist, zipName), storeZip, 0o644); err != nil {
		return err
	}
	zsum := sha256.Sum256(storeZip)
	sums[zipName] = hex.EncodeToString(zsum[:])
	var names []string
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var list strings.Builder
	for _, n := range names {
		fmt.Fprintf(&list, "%s  %s\n", sums[n], n)
	}
	if err := os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(list.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(list.String())
	for _, name := range []string{"install.sh", "install.ps1"} {
		b, err := os.ReadFile(filepath.Join("scripts", name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dist, name), b, 0o755); err != nil {
			return err
		}
	}
	if err := npmPackages(version, dist, built); err != nil {
		return err
	}
	return managers(version, dist, baseURL, sums)
}

// checkIDs checks a comma-separated list of extension ids (32 letters a
// to p each, as Chrome writes them) and returns it without spaces.
func checkIDs(list string) (string, error) {
	var ids []string
	for _, id := range strings.Split(list, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if len(id) != 32 || strings.Trim(id, "abcdefghijklmnop") != "" {
			return "", fmt.Errorf("store id %q is not an extension id (32 letters a to p)", id)
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, ","), nil
}

// storeZip is the extension as the stores take it: the files Chrome loads
// (not PROTOCOL.md), at the zip's root, with the manifest's key removed.
func storeZip() ([]byte, error) {
	var files []file
	err := fs.WalkDir(extension.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "PROTOCOL.md" {
			return err
		}
		b, err := fs.ReadFile(extension.Files, path)
		if err != nil {
			return err
		}
		if path == "manifest.json" {
			if b, err = clientconf.DeleteJSON(b, nil, "key"); err != nil {
				return fmt.Errorf("the store manifest: %w", err)
			}
		}
		files = append(files, file{path, b, 0o644})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return zipOf(files)
}

// file is one entry of an archive.
type file struct {
	name string
	data []byte
	mode int64
}

// tarGz is a .tar.gz of files, the same bytes for the same files.
func tarGz(files []file) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.ModTime = epoch
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX,
			Uname: "root", Gname: "root"}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipOf is a .zip of files, the same bytes for the same files.
func zipOf(files []file) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: epoch}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// NPMName is the launcher package's name; each platform's package is
// NPMScope/OS-CPU.
const (
	NPMName  = "webpilot-mcp"
	NPMScope = "@webpilot-mcp"
)

// npmPackages writes dist/npm/<name>/: the launcher, whose bin runs the
// platform package's binary, and one package per platform holding it
// (optional dependencies of the launcher, each limited to its os and cpu,
// so npm installs only the one that fits; no install script downloads
// anything).
func npmPackages(version, dist string, targets []Target) error {
	v := strings.TrimPrefix(version, "v")
	if !strings.ContainsAny(v, ".") {
		v = "0.0.0-" + strings.NewReplacer("_", "-", "+", "-").Replace(v) // a dev build: still a semver
	}
	root := filepath.Join(dist, "npm")
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	license, _ := os.ReadFile("LICENSE")
	optional := map[string]string{}
	for _, t := range targets {
		name := NPMScope + "/" + t.npmOS() + "-" + t.npmCPU()
		optional[name] = v
		dir := filepath.Join(root, t.npmOS()+"-"+t.npmCPU())
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			return err
		}
		exe, err := os.ReadFile(filepath.Join(dist, "bin", t.GOOS+"-"+t.GOARCH, t.exe()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", t.exe()), exe, 0o755); err != nil {
			return err
		}
		pkg := map[string]any{"name": name, "version": v, "description": "webpilot's binary for " + t.GOOS + "/" + t.GOARCH + " (installed by " + NPMName + ")",
			"license": "Apache-2.0", "os": []string{t.npmOS()}, "cpu": []string{t.npmCPU()}, "files": []string{"bin/"},
			"repository": map[string]string{"type": "git", "url": "git+https://github.com/webpilot-mcp/webpilot.git"}}
		if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "LICENSE"), license, 0o644); err != nil {
			return err
		}
	}
	dir := filepath.Join(root, NPMName)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	launcher, err := os.ReadFile(filepath.Join("scripts", "npm", "webpilot.js"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "webpilot.js"), launcher, 0o755); err != nil {
		return err
	}
	readme, _ := os.ReadFile(filepath.Join("scripts", "npm", "README.md"))
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "LICENSE"), license, 0o644); err != nil {
		return err
	}
	pkg := map[string]any{"name": NPMName, "version": v,
		"description": "webpilot: an MCP server that gives AI agents a real web browser (your Chrome, a launched Chromium, or a browser farm), in one binary",
		"license":     "Apache-2.0", "bin": map[string]string{"webpilot": "bin/webpilot.js", NPMName: "bin/webpilot.js"},
		"files": []string{"bin/"}, "engines": map[string]string{"node": ">=18"}, "optionalDependencies": optional,
		"keywords":   []string{"mcp", "browser", "automation", "chrome", "agent"},
		"repository": map[string]string{"type": "git", "url": "git+https://github.com/webpilot-mcp/webpilot.git"}}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// managers writes the Homebrew formula and the Scoop manifest for the
// archives, with their checksums.
func managers(version, dist, baseURL string, sums map[string]string) error {
	v := strings.TrimPrefix(version, "v")
	url := func(t Target) string { return baseURL + "/v" + v + "/" + t.Archive(version) }
	var rb strings.Builder
	fmt.Fprintf(&rb, `# Homebrew formula for webpilot %s (written by make release).
class Webpilot < Formula
  desc "MCP server that gives AI agents a real web browser"
  homepage "https://github.com/webpilot-mcp/webpilot"
  version "%s"
  license "Apache-2.0"
`, v, v)
	for _, os := range []string{"macos", "linux"} {
		goos := map[string]string{"macos": "darwin", "linux": "linux"}[os]
		fmt.Fprintf(&rb, "\n  on_%s do\n", os)
		for _, arch := range []string{"arm64", "amd64"} {
			t := Target{goos, arch}
			sum, ok := sums[t.Archive(version)]
			if !ok {
				continue
			}
			cond := map[string]string{"arm64": "on_arm", "amd64": "on_intel"}[arch]
			fmt.Fprintf(&rb, "    %s do\n      url %q\n      sha256 %q\n    end\n", cond, url(t), sum)
		}
		rb.WriteString("  end\n")
	}
	rb.WriteString(`
  def install
    bin.install "webpilot"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/webpilot version")
  end
end
`)
	if err := os.WriteFile(filepath.Join(dist, "webpilot.rb"), []byte(rb.String()), 0o644); err != nil {
		return err
	}
	scoop := map[string]any{"version": v, "description": "MCP server that gives AI agents a real web browser",
		"homepage": "https://github.com/webpilot-mcp/webpilot", "license": "Apache-2.0", "bin": "webpilot.exe",
		"architecture": map[string]any{}}
	arch := scoop["architecture"].(map[string]any)
	for goarch, name := range map[string]string{"amd64": "64bit", "arm64": "arm64"} {
		t := Target{"windows", goarch}
		if sum, ok := sums[t.Archive(version)]; ok {
			arch[name] = map[string]string{"url": url(t), "hash": sum}
		}
	}
	return writeJSON(filepath.Join(dist, "webpilot.json"), scoop)
}
