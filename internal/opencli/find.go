package opencli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Package is the npm package OpenCLI is published as.
const Package = "@jackwener/opencli"

// Command is how OpenCLI is run: Path with Prefix before the site and
// command (Path node, Prefix the package's CLI entry, for a package found
// in the npm global folder).
type Command struct {
	Path   string   `json:"path"`
	Prefix []string `json:"prefix,omitempty"`
	// Source says where it was found: "env WEBPILOT_OPENCLI_BIN", "PATH",
	// "npm global package", "OpenCLIApp", …
	Source string `json:"source"`
	// PathEnv is the PATH of the environment it was found in, which its
	// runs get: npm's opencli is a script that finds node on PATH, and
	// the daemon that runs it for a client may have another PATH.
	PathEnv string `json:"path_env,omitempty"`
}

// Argv is the whole command line of a run with args after the prefix.
func (c Command) Argv(args ...string) []string {
	out := append([]string{c.Path}, c.Prefix...)
	return append(out, args...)
}

// String shows the command line (without arguments), each word quoted
// when it has a space.
func (c Command) String() string {
	words := c.Argv()
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\"'") {
			words[i] = fmt.Sprintf("%q", w)
		}
	}
	return strings.Join(words, " ")
}

// key identifies a command (with the PATH it runs with) for sharing one
// Service among clients.
func (c Command) key() string {
	b, _ := json.Marshal(append(c.Argv(), "PATH="+c.PathEnv))
	return string(b)
}

// FindOptions are where Find looks. The zero value looks nowhere but at
// the real environment (os.Getenv, exec.LookPath, runtime.GOOS).
type FindOptions struct {
	// Bin is the configured program (--opencli-bin,
	// WEBPILOT_OPENCLI_BIN): a path, or a name looked up on PATH; "" to
	// look for OpenCLI. BinSource says where Bin came from.
	Bin, BinSource string
	// PrefixArgs is a JSON array of arguments put before the site
	// (--opencli-prefix-args, WEBPILOT_OPENCLI_PREFIX_ARGS); only with Bin.
	PrefixArgs string
	// Getenv reads the environment (PATH, npm_config_prefix, HOME,
	// APPDATA, LOCALAPPDATA); nil: os.Getenv.
	Getenv func(string) string
	// GOOS is the system whose layout is looked for; "": runtime.GOOS.
	GOOS string
}

// NotFoundError says that OpenCLI was looked for and not found, and where.
type NotFoundError struct {
	Tried []string
}

func (e *NotFoundError) Error() string {
	return "OpenCLI was not found (looked at: " + strings.Join(e.Tried, "; ") + ")"
}

// Find resolves the OpenCLI command, in order: the configured Bin (with
// PrefixArgs), `opencli` on PATH, the npm global folder's package (run with
// node, the entry read from its package.json bin field), and on Windows
// the OpenCLIApp layout under %LOCALAPPDATA%. A configured Bin that cannot
// be run is an error naming it; nothing found is a *NotFoundError. Find
// runs nothing: it only reads the file system.
func Find(o FindOptions) (Command, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	c, err := find(o)
	c.PathEnv = o.Getenv("PATH")
	return c, err
}

// find is Find without PathEnv.
func find(o FindOptions) (Command, error) {
	if o.Bin != "" {
		return configured(o)
	}
	if o.PrefixArgs != "" {
		return Command{}, fmt.Errorf("WEBPILOT_OPENCLI_PREFIX_ARGS is set without WEBPILOT_OPENCLI_BIN: the prefix goes with a configured program")
	}
	var tried []string
	// 1. opencli on PATH. On Windows npm's shim is a .cmd, which would run
	// through cmd.exe; the package next to it is run with node instead.
	if p, err := lookPath("opencli", o); err == nil {
		if o.GOOS == "windows" && isBatch(p) {
			if c, err := fromPackage(filepath.Join(filepath.Dir(p), "node_modules", filepath.FromSlash(Package)), o); err == nil {
				c.Source = "PATH (" + p + ", run with node)"
				return c, nil
			}
		}
		return Command{Path: p, Source: "PATH"}, nil
	}
	tried = append(tried, "opencli on PATH")
	// 2. The npm global folder.
	for _, root := range npmRoots(o) {
		pkg := filepath.Join(root, filepath.FromSlash(Package))
		c, err := fromPackage(pkg, o)
		if err == nil {
			c.Source = "npm global package (" + pkg + ")"
			return c, nil
		}
		tried = append(tried, pkg)
	}
	// 3. OpenCLIApp on Windows.
	if o.GOOS == "windows" {
		if dir := o.Getenv("LOCALAPPDATA"); dir != "" {
			app := filepath.Join(dir, "OpenCLIApp")
			if c, err := fromApp(app, o); err == nil {
				return c, nil
			}
			tried = append(tried, app)
		}
	}
	return Command{}, &NotFoundError{Tried: tried}
}

// configured is the command of FindOptions.Bin.
func configured(o FindOptions) (Command, error) {
	src := o.BinSource
	if src == "" {
		src = "WEBPILOT_OPENCLI_BIN"
	}
	c := Command{Source: src}
	if o.PrefixArgs != "" {
		if err := json.Unmarshal([]byte(o.PrefixArgs), &c.Prefix); err != nil {
			return Command{}, fmt.Errorf("WEBPILOT_OPENCLI_PREFIX_ARGS: want a JSON array of strings, like [\"/path/to/main.js\"]: %w", err)
		}
	}
	p, err := lookPath(o.Bin, o)
	if err != nil {
		return Command{}, fmt.Errorf("%s %q: %w", src, o.Bin, err)
	}
	c.Path = p
	return c, nil
}

// lookPath finds a program: a name without a separator on PATH, else the
// file itself, which must be a regular file (executable, but on Windows).
// The path returned is absolute.
func lookPath(name string, o FindOptions) (string, error) {
	if !strings.ContainsAny(name, `/\`) {
		for _, dir := range filepath.SplitList(o.Getenv("PATH")) {
			if dir == "" || !filepath.IsAbs(dir) {
				continue // a relative PATH entry would run what the working directory holds
			}
			exts := []string{""}
			if o.GOOS == "windows" {
				exts = []string{".exe", ".cmd", ".bat", ""}
			}
			for _, ext := range exts {
				if p := filepath.Join(dir, name+ext); runnable(p, o.GOOS) == nil {
					return p, nil
				}
			}
		}
		return "", exec.ErrNotFound
	}
	p, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	if err := runnable(p, o.GOOS); err != nil {
		return "", err
	}
	return p, nil
}

// runnable checks that p is a regular file (through links) that may be
// run.
func runnable(p, goos string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	if goos != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable (chmod +x it, or set WEBPILOT_OPENCLI_BIN to node with the entry in WEBPILOT_OPENCLI_PREFIX_ARGS)")
	}
	return nil
}

// isBatch reports whether p is a Windows batch file.
func isBatch(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".cmd" || ext == ".bat"
}

// npmRoots are the npm global package folders (node_modules), without
// running npm: the prefix of npm_config_prefix, of ~/.npmrc's prefix=, and
// the one beside node on PATH (POSIX: PREFIX/lib/node_modules for
// PREFIX/bin/node; Windows: %APPDATA%\npm\node_modules).
func npmRoots(o FindOptions) []string {
	var prefixes []string
	for _, name := range []string{"npm_config_prefix", "NPM_CONFIG_PREFIX"} {
		if p := o.Getenv(name); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	home := o.Getenv("HOME")
	if o.GOOS == "windows" && home == "" {
		home = o.Getenv("USERPROFILE")
	}
	if home != "" {
		if p := npmrcPrefix(filepath.Join(home, ".npmrc")); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	var roots []string
	if o.GOOS == "windows" {
		for _, p := range prefixes {
			roots = append(roots, filepath.Join(p, "node_modules"))
		}
		if ad := o.Getenv("APPDATA"); ad != "" {
			roots = append(roots, filepath.Join(ad, "npm", "node_modules"))
		}
		if node, err := lookPath("node", o); err == nil {
			roots = append(roots, filepath.Join(filepath.Dir(node), "node_modules"))
		}
	} else {
		for _, p := range prefixes {
			roots = append(roots, filepath.Join(p, "lib", "node_modules"))
		}
		if node, err := lookPath("node", o); err == nil {
			if real, err := filepath.EvalSymlinks(node); err == nil {
				node = real
			}
			roots = append(roots, filepath.Join(filepath.Dir(filepath.Dir(node)), "lib", "node_modules"))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r = filepath.Clean(r); !seen[r] && filepath.IsAbs(r) {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// npmrcPrefix is the prefix= line of an .npmrc ("" when none).
func npmrcPrefix(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && strings.TrimSpace(k) == "prefix" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// fromPackage is the command that runs the OpenCLI package at dir: node
// (on PATH, else beside the package's prefix) with the CLI entry its
// package.json names in bin.
func fromPackage(dir string, o FindOptions) (Command, error) {
	entry, err := binEntry(dir)
	if err != nil {
		return Command{}, err
	}
	node, err := lookPath("node", o)
	if err != nil {
		return Command{}, fmt.Errorf("the package %s is there, but node is not on PATH to run it", dir)
	}
	return Command{Path: node, Prefix: []string{entry}}, nil
}

// binEntry is the absolute path of the opencli entry in the package.json
// bin field of the package at dir: a string, or an object whose opencli
// key (else its only key) names it. The entry must be inside the package.
func binEntry(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("%s: package.json: %w", dir, err)
	}
	var rel string
	var one string
	var many map[string]string
	switch {
	case json.Unmarshal(pkg.Bin, &one) == nil && one != "":
		rel = one
	case json.Unmarshal(pkg.Bin, &many) == nil:
		rel = many["opencli"]
		if rel == "" && len(many) == 1 {
			for _, v := range many {
				rel = v
			}
		}
	}
	if rel == "" {
		return "", fmt.Errorf("%s: package.json has no opencli entry in bin", dir)
	}
	rel = filepath.FromSlash(rel)
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: package.json bin %q leaves the package", dir, rel)
	}
	entry := filepath.Join(dir, rel)
	fi, err := os.Stat(entry)
	if err != nil {
		return "", fmt.Errorf("%s: package.json bin: %w", dir, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: package.json bin %q is not a file", dir, rel)
	}
	return entry, nil
}

// fromApp looks in the OpenCLIApp folder: a program it keeps
// (bin\opencli.exe, opencli.exe), else the OpenCLI package it bundles (a
// node_modules\@jackwener\opencli at most four folders down), run with the
// node.exe it bundles or node on PATH. Batch files are not run (cmd.exe
// would read the arguments).
func fromApp(app string, o FindOptions) (Command, error) {
	if _, err := os.Stat(app); err != nil {
		return Command{}, err
	}
	for _, p := range []string{filepath.Join(app, "bin", "opencli.exe"), filepath.Join(app, "opencli.exe")} {
		if runnable(p, o.GOOS) == nil {
			return Command{Path: p, Source: "OpenCLIApp (" + app + ")"}, nil
		}
	}
	var found Command
	errFound := errors.New("found")
	err := filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(app, p)
		if d.IsDir() && strings.Count(filepath.ToSlash(rel), "/") > 5 {
			return filepath.SkipDir
		}
		if !d.IsDir() || filepath.ToSlash(rel) == "." || !strings.HasSuffix(filepath.ToSlash(p), "node_modules/"+Package) {
			return nil
		}
		entry, err := binEntry(p)
		if err != nil {
			return filepath.SkipDir
		}
		node := ""
		for dir := filepath.Dir(p); strings.HasPrefix(dir, app) && node == ""; dir = filepath.Dir(dir) {
			for _, name := range []string{"node.exe", "node"} {
				if runnable(filepath.Join(dir, name), o.GOOS) == nil {
					node = filepath.Join(dir, name)
					break
				}
			}
			if dir == app {
				break
			}
		}
		if node == "" {
			if n, err := lookPath("node", o); err == nil {
				node = n
			}
		}
		if node == "" {
			return filepath.SkipDir
		}
		found = Command{Path: node, Prefix: []string{entry}, Source: "OpenCLIApp (" + p + ")"}
		return errFound
	})
	if errors.Is(err, errFound) {
		return found, nil
	}
	return Command{}, fmt.Errorf("no opencli program or package in %s", app)
}
