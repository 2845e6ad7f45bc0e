package opencli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout writes files (path → content; a path ending in * is made
// executable, without the *) under a fresh root and returns it.
func layout(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// envOf is a Getenv of the given variables only.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

const pkgJSON = `{"name":"@jackwener/opencli","version":"1.8.7","bin":{"opencli":"dist/src/main.js"}}`

func TestFindOrder(t *testing.T) {
	root := layout(t, map[string]string{
		"conf/my-opencli*":  "#!/bin/sh\n",
		"path1/opencli*":    "#!/bin/sh\n",
		"path2/opencli*":    "#!/bin/sh\n",
		"noexec/opencli":    "#!/bin/sh\n",
		"nodebin/bin/node*": "",
		// the npm global folder beside node (PREFIX/bin/node → PREFIX/lib/node_modules)
		"nodebin/lib/node_modules/@jackwener/opencli/package.json":     pkgJSON,
		"nodebin/lib/node_modules/@jackwener/opencli/dist/src/main.js": "",
		// npm_config_prefix's folder, with bin as a string
		"prefix/lib/node_modules/@jackwener/opencli/package.json": `{"bin":"cli.js"}`,
		"prefix/lib/node_modules/@jackwener/opencli/cli.js":       "",
		// a package whose bin leaves it
		"bad/lib/node_modules/@jackwener/opencli/package.json": `{"bin":{"opencli":"../../../../conf/my-opencli"}}`,
		// ~/.npmrc naming a prefix
		"home/.npmrc": "color=false\nprefix = " + "PLACEHOLDER" + "\n",
	})
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	if err := os.WriteFile(p("home/.npmrc"), []byte("color=false\nprefix = "+p("prefix")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := func(dirs ...string) string {
		for i, d := range dirs {
			if d != "relative" {
				dirs[i] = p(d)
			}
		}
		return strings.Join(dirs, string(os.PathListSeparator))
	}
	for _, tc := range []struct {
		name       string
		o          FindOptions
		env        map[string]string
		wantPath   string
		wantPrefix []string
		wantSource string
		wantErr    string // "" → found; "notfound" → *NotFoundError
	}{
		{name: "configured beats PATH", o: FindOptions{Bin: p("conf/my-opencli"), BinSource: "env WEBPILOT_OPENCLI_BIN"},
			env: map[string]string{"PATH": list("path1")}, wantPath: p("conf/my-opencli"), wantSource: "env WEBPILOT_OPENCLI_BIN"},
		{name: "configured with a prefix", o: FindOptions{Bin: p("nodebin/bin/node"), PrefixArgs: `["/x/main.js","--quiet"]`},
			wantPath: p("nodebin/bin/node"), wantPrefix: []string{"/x/main.js", "--quiet"}, wantSource: "WEBPILOT_OPENCLI_BIN"},
		{name: "configured by name on PATH", o: FindOptions{Bin: "opencli"}, env: map[string]string{"PATH": list("path2")}, wantPath: p("path2/opencli")},
		{name: "configured and missing", o: FindOptions{Bin: p("nope/opencli"), BinSource: "flag --opencli-bin"}, wantErr: "flag --opencli-bin"},
		{name: "configured and not executable", o: FindOptions{Bin: p("noexec/opencli")}, wantErr: "not executable"},
		{name: "prefix that is not JSON", o: FindOptions{Bin: p("conf/my-opencli"), PrefixArgs: `main.js`}, wantErr: "JSON array"},
		{name: "prefix without a program", o: FindOptions{PrefixArgs: `["x"]`}, wantErr: "without WEBPILOT_OPENCLI_BIN"},
		{name: "first on PATH", env: map[string]string{"PATH": list("path1", "path2")}, wantPath: p("path1/opencli"), wantSource: "PATH"},
		{name: "relative PATH entries are skipped", env: map[string]string{"PATH": "relative" + string(os.PathListSeparator) + list("path2")}, wantPath: p("path2/opencli")},
		{name: "PATH beats npm", env: map[string]string{"PATH": list("nodebin/bin", "path2"), "npm_config_prefix": p("prefix")}, wantPath: p("path2/opencli")},
		{name: "npm_config_prefix package, bin as a string", env: map[string]string{"PATH": list("nodebin/bin"), "npm_config_prefix": p("prefix")},
			wantPath: p("nodebin/bin/node"), wantPrefix: []string{p("prefix/lib/node_modules/@jackwener/opencli/cli.js")}, wantSource: "npm global package"},
		{name: "~/.npmrc prefix", env: map[string]string{"PATH": list("nodebin/bin"), "HOME": p("home")},
			wantPath: p("nodebin/bin/node"), wantPrefix: []string{p("prefix/lib/node_modules/@jackwener/opencli/cli.js")}},
		{name: "package beside node, bin as an object", env: map[string]string{"PATH": list("nodebin/bin")},
			wantPath: p("nodebin/bin/node"), wantPrefix: []string{p("nodebin/lib/node_modules/@jackwener/opencli/dist/src/main.js")}},
		{name: "a bin that leaves its package is not run", env: map[string]string{"PATH": list("noexec"), "npm_config_prefix": p("bad")}, wantErr: "notfound"},
		{name: "nothing", env: map[string]string{"PATH": list("noexec")}, wantErr: "notfound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Getenv, o.GOOS = envOf(tc.env), "linux"
			c, err := Find(o)
			switch {
			case tc.wantErr == "notfound":
				var nf *NotFoundError
				if !errors.As(err, &nf) || !strings.Contains(err.Error(), "opencli on PATH") {
					t.Fatalf("Find = %+v, %v; want a NotFoundError naming where it looked", c, err)
				}
				return
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Find = %+v, %v; want an error with %q", c, err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("Find: %v", err)
			}
			if c.Path != tc.wantPath || strings.Join(c.Prefix, "|") != strings.Join(tc.wantPrefix, "|") {
				t.Errorf("Find = %s %q; want %s %q", c.Path, c.Prefix, tc.wantPath, tc.wantPrefix)
			}
			if tc.wantSource != "" && !strings.HasPrefix(c.Source, tc.wantSource) {
				t.Errorf("source %q, want %q…", c.Source, tc.wantSource)
			}
		})
	}
}

// The Windows layouts: npm's opencli.cmd shim is run as node and the entry
// beside it (never through cmd.exe), %APPDATA%\npm holds the global
// packages, and OpenCLIApp under %LOCALAPPDATA% keeps a program or bundles
// the package with its own node.exe.
func TestFindWindows(t *testing.T) {
	root := layout(t, map[string]string{
		"npm/opencli.cmd": "@node ...",
		"npm/node_modules/@jackwener/opencli/package.json":     pkgJSON,
		"npm/node_modules/@jackwener/opencli/dist/src/main.js": "",
		"nodejs/node.exe": "",
		"appdata/npm/node_modules/@jackwener/opencli/package.json":                             pkgJSON,
		"appdata/npm/node_modules/@jackwener/opencli/dist/src/main.js":                         "",
		"local1/OpenCLIApp/bin/opencli.exe":                                                    "",
		"local2/OpenCLIApp/resources/runtime/node.exe":                                         "",
		"local2/OpenCLIApp/resources/runtime/node_modules/@jackwener/opencli/package.json":     pkgJSON,
		"local2/OpenCLIApp/resources/runtime/node_modules/@jackwener/opencli/dist/src/main.js": "",
	})
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		name       string
		env        map[string]string
		wantPath   string
		wantPrefix string
		wantSource string
	}{
		{"npm's shim on PATH", map[string]string{"PATH": p("nodejs") + string(os.PathListSeparator) + p("npm")}, p("nodejs/node.exe"), p("npm/node_modules/@jackwener/opencli/dist/src/main.js"), "PATH ("},
		{"%APPDATA%\\npm", map[string]string{"PATH": p("nodejs"), "APPDATA": p("appdata")}, p("nodejs/node.exe"), p("appdata/npm/node_modules/@jackwener/opencli/dist/src/main.js"), "npm global package"},
		{"OpenCLIApp's program", map[string]string{"PATH": p("none"), "LOCALAPPDATA": p("local1")}, p("local1/OpenCLIApp/bin/opencli.exe"), "", "OpenCLIApp"},
		{"OpenCLIApp's package and node", map[string]string{"PATH": p("none"), "LOCALAPPDATA": p("local2")}, p("local2/OpenCLIApp/resources/runtime/node.exe"), p("local2/OpenCLIApp/resources/runtime/node_modules/@jackwener/opencli/dist/src/main.js"), "OpenCLIApp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Find(FindOptions{Getenv: envOf(tc.env), GOOS: "windows"})
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != tc.wantPath || strings.Join(c.Prefix, "|") != tc.wantPrefix || !strings.HasPrefix(c.Source, tc.wantSource) {
				t.Errorf("Find = %s %q (%s); want %s %q (%s…)", c.Path, c.Prefix, c.Source, tc.wantPath, tc.wantPrefix, tc.wantSource)
			}
		})
	}
	// Nothing there: the app folder is named among the places looked at.
	_, err := Find(FindOptions{Getenv: envOf(map[string]string{"PATH": p("none"), "LOCALAPPDATA": p("empty")}), GOOS: "windows"})
	if !strings.Contains(fmtErr(err), filepath.Join(p("empty"), "OpenCLIApp")) {
		t.Errorf("nothing found: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
