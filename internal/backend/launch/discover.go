package launch

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// EnvBrowser is the environment variable that names the browser executable
// when no explicit path is given.
const EnvBrowser = "WEBPILOT_BROWSER"

// debianWrapper is the shell script Debian installs as /usr/bin/chromium. It
// sources /etc/chromium.d/*, which adds flags (--load-extension of the
// system extensions, --enable-remote-extensions, ...) that get in the way of
// automation and of the extension bridge, so Discover prefers the real
// binary, debianBinary, when both exist.
const (
	debianWrapper = "/usr/bin/chromium"
	debianBinary  = "/usr/lib/chromium/chromium"
)

// Probe is the part of the system [Discover] consults. Tests pass fakes;
// [SystemProbe] is the real one.
type Probe struct {
	// GOOS selects the table of install paths: "linux", "darwin",
	// "windows"; others get PATH names only.
	GOOS string
	// Env reads an environment variable (WEBPILOT_BROWSER, HOME, ...).
	Env func(key string) string
	// IsExec reports whether path is an executable regular file.
	IsExec func(path string) bool
	// LookPath finds an executable on PATH, like exec.LookPath.
	LookPath func(file string) (string, error)
}

// SystemProbe returns the Probe of the running system. env reads the
// environment; nil means os.Getenv.
func SystemProbe(env func(string) string) Probe {
	if env == nil {
		env = os.Getenv
	}
	return Probe{GOOS: runtime.GOOS, Env: env, IsExec: isExec, LookPath: exec.LookPath}
}

// isExec reports whether path names an executable regular file (following
// symlinks).
func isExec(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// PathNames returns the executable names Discover looks up on PATH for goos,
// in order of preference.
func PathNames(goos string) []string {
	if goos == "windows" {
		return []string{"chrome", "msedge", "brave", "chromium"}
	}
	return []string{
		"chromium", "chromium-browser",
		"google-chrome", "google-chrome-stable", "chrome",
		"microsoft-edge", "microsoft-edge-stable",
		"brave-browser",
	}
}

// InstallPaths returns the well-known install locations Discover tries for
// goos after PATH, in order of preference. env supplies HOME (macOS) and the
// Windows folder variables; a location whose variable is unset is left out.
func InstallPaths(goos string, env func(string) string) []string {
	switch goos {
	case "linux":
		return []string{
			debianBinary,
			"/usr/lib/chromium-browser/chromium-browser",
			"/usr/bin/chromium",
			"/usr/bin/chromium-browser",
			"/usr/bin/google-chrome",
			"/usr/bin/google-chrome-stable",
			"/opt/google/chrome/chrome",
			"/usr/bin/microsoft-edge",
			"/opt/microsoft/msedge/msedge",
			"/usr/bin/brave-browser",
			"/opt/brave.com/brave/brave",
			"/snap/bin/chromium",
		}
	case "darwin":
		apps := []string{
			"Google Chrome.app/Contents/MacOS/Google Chrome",
			"Chromium.app/Contents/MacOS/Chromium",
			"Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"Brave Browser.app/Contents/MacOS/Brave Browser",
			"Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
			"Google Chrome Beta.app/Contents/MacOS/Google Chrome Beta",
			"Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
		}
		var out []string
		for _, a := range apps {
			out = append(out, "/Applications/"+a)
		}
		if home := strings.TrimRight(env("HOME"), "/"); home != "" {
			for _, a := range apps {
				out = append(out, home+"/Applications/"+a)
			}
		}
		return out
	case "windows":
		var out []string
		add := func(dirVar string, rels ...string) {
			dir := strings.TrimRight(env(dirVar), `\`)
			if dir == "" {
				return
			}
			for _, r := range rels {
				out = append(out, dir+`\`+r)
			}
		}
		chrome := `Google\Chrome\Application\chrome.exe`
		edge := `Microsoft\Edge\Application\msedge.exe`
		brave := `BraveSoftware\Brave-Browser\Application\brave.exe`
		add("ProgramFiles", chrome)
		add("ProgramFiles(x86)", chrome)
		add("LocalAppData", chrome, `Chromium\Application\chrome.exe`)
		add("ProgramFiles(x86)", edge)
		add("ProgramFiles", edge, brave)
		add("LocalAppData", brave)
		return out
	}
	return nil
}

// Discover finds the browser to launch: explicit (the --browser flag) if set,
// else $WEBPILOT_BROWSER (read through p.Env), else the first of
// [PathNames] found on PATH, else the first of [InstallPaths] that exists.
// explicit and $WEBPILOT_BROWSER may be paths or bare names looked up on
// PATH; when set they must work, there is no fallback. On Linux a PATH hit on
// Debian's /usr/bin/chromium wrapper is replaced by /usr/lib/chromium/chromium
// when that exists. The error matches [backend.ErrNoBrowser] and says where
// Discover looked.
func Discover(explicit string, p Probe) (string, error) {
	if explicit != "" {
		if path, ok := resolve(explicit, p); ok {
			return path, nil
		}
		return "", fmt.Errorf("launch: browser %q (from --browser) is not an executable file: %w", explicit, backend.ErrNoBrowser)
	}
	if v := p.Env(EnvBrowser); v != "" {
		if path, ok := resolve(v, p); ok {
			return path, nil
		}
		return "", fmt.Errorf("launch: browser %q (from %s) is not an executable file: %w", v, EnvBrowser, backend.ErrNoBrowser)
	}
	names := PathNames(p.GOOS)
	for _, name := range names {
		if path, err := p.LookPath(name); err == nil && path != "" {
			if p.GOOS == "linux" && (path == debianWrapper || path == "/bin/chromium") && p.IsExec(debianBinary) {
				return debianBinary, nil
			}
			return path, nil
		}
	}
	paths := InstallPaths(p.GOOS, p.Env)
	for _, path := range paths {
		if p.IsExec(path) {
			return path, nil
		}
	}
	where := "PATH names " + strings.Join(names, ", ")
	if len(paths) > 0 {
		where += "; paths " + strings.Join(paths, ", ")
	}
	return "", fmt.Errorf("launch: no Chromium-based browser found (looked at $%s, %s): install Chromium or Google Chrome, or set --browser or %s to its executable: %w",
		EnvBrowser, where, EnvBrowser, backend.ErrNoBrowser)
}

// resolve turns a path or a bare name into an executable path.
func resolve(s string, p Probe) (string, bool) {
	if strings.ContainsRune(s, '/') || (p.GOOS == "windows" && strings.ContainsRune(s, '\\')) {
		return s, p.IsExec(s)
	}
	path, err := p.LookPath(s)
	return path, err == nil && path != ""
}
