package launch_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// fakeSystem is a file system and PATH for Discover.
type fakeSystem struct {
	goos  string
	env   map[string]string
	files map[string]bool   // executable files
	path  map[string]string // PATH name -> path
}

func (f fakeSystem) probe() launch.Probe {
	return launch.Probe{
		GOOS:   f.goos,
		Env:    func(k string) string { return f.env[k] },
		IsExec: func(p string) bool { return f.files[p] },
		LookPath: func(name string) (string, error) {
			if p, ok := f.path[name]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		},
	}
}

func set(paths ...string) map[string]bool {
	m := make(map[string]bool)
	for _, p := range paths {
		m[p] = true
	}
	return m
}

func TestDiscover(t *testing.T) {
	const (
		mac       = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
		macHome   = "/Users/ann/Applications/Chromium.app/Contents/MacOS/Chromium"
		macEdge   = "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"
		winChrome = `C:\Program Files\Google\Chrome\Application\chrome.exe`
		winEdge   = `C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`
	)
	winEnv := map[string]string{
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LocalAppData":      `C:\Users\ann\AppData\Local`,
	}
	tests := []struct {
		name     string
		explicit string
		sys      fakeSystem
		want     string
		wantErr  []string // substrings of the error; nil means success
	}{
		{
			name:     "explicit path wins",
			explicit: "/opt/my/chrome",
			sys: fakeSystem{goos: "linux", files: set("/opt/my/chrome", "/usr/lib/chromium/chromium"),
				env: map[string]string{"WEBPILOT_BROWSER": "/usr/lib/chromium/chromium"}},
			want: "/opt/my/chrome",
		},
		{
			name:     "explicit bare name is looked up on PATH",
			explicit: "brave-browser",
			sys:      fakeSystem{goos: "linux", path: map[string]string{"brave-browser": "/usr/bin/brave-browser", "chromium": "/usr/bin/chromium"}},
			want:     "/usr/bin/brave-browser",
		},
		{
			name:     "explicit but missing does not fall back",
			explicit: "/nope/chrome",
			sys:      fakeSystem{goos: "linux", files: set("/usr/lib/chromium/chromium")},
			wantErr:  []string{"/nope/chrome", "--browser"},
		},
		{
			name: "env beats PATH",
			sys: fakeSystem{goos: "linux", env: map[string]string{"WEBPILOT_BROWSER": "/srv/chrome-linux/chrome"},
				files: set("/srv/chrome-linux/chrome"), path: map[string]string{"chromium": "/usr/bin/chromium"}},
			want: "/srv/chrome-linux/chrome",
		},
		{
			name:    "env set but missing does not fall back",
			sys:     fakeSystem{goos: "linux", env: map[string]string{"WEBPILOT_BROWSER": "/gone"}, files: set("/usr/lib/chromium/chromium")},
			wantErr: []string{"/gone", "WEBPILOT_BROWSER"},
		},
		{
			name: "linux PATH order: chromium before google-chrome",
			sys: fakeSystem{goos: "linux", path: map[string]string{
				"google-chrome": "/usr/bin/google-chrome", "chromium": "/snap/bin/chromium"}},
			want: "/snap/bin/chromium",
		},
		{
			name: "linux Debian wrapper on PATH is replaced by the real binary",
			sys: fakeSystem{goos: "linux", path: map[string]string{"chromium": "/usr/bin/chromium"},
				files: set("/usr/bin/chromium", "/usr/lib/chromium/chromium")},
			want: "/usr/lib/chromium/chromium",
		},
		{
			name: "linux usrmerge /bin/chromium is replaced too",
			sys: fakeSystem{goos: "linux", path: map[string]string{"chromium": "/bin/chromium"},
				files: set("/usr/lib/chromium/chromium")},
			want: "/usr/lib/chromium/chromium",
		},
		{
			name: "linux /usr/bin/chromium kept when there is no real binary",
			sys:  fakeSystem{goos: "linux", path: map[string]string{"chromium": "/usr/bin/chromium"}, files: set("/usr/bin/chromium")},
			want: "/usr/bin/chromium",
		},
		{
			name: "linux later PATH name",
			sys:  fakeSystem{goos: "linux", path: map[string]string{"microsoft-edge": "/usr/bin/microsoft-edge"}},
			want: "/usr/bin/microsoft-edge",
		},
		{
			name: "linux install path: /usr/lib/chromium/chromium first",
			sys:  fakeSystem{goos: "linux", files: set("/opt/google/chrome/chrome", "/usr/lib/chromium/chromium")},
			want: "/usr/lib/chromium/chromium",
		},
		{
			name: "linux install path: google chrome under /opt",
			sys:  fakeSystem{goos: "linux", files: set("/snap/bin/chromium", "/opt/google/chrome/chrome")},
			want: "/opt/google/chrome/chrome",
		},
		{
			name: "linux install path: snap last",
			sys:  fakeSystem{goos: "linux", files: set("/snap/bin/chromium")},
			want: "/snap/bin/chromium",
		},
		{
			name: "linux nothing found",
			sys:  fakeSystem{goos: "linux"},
			wantErr: []string{"no Chromium-based browser found", "chromium, chromium-browser", "/usr/lib/chromium/chromium",
				"/opt/google/chrome/chrome", "install Chromium", "--browser", "WEBPILOT_BROWSER"},
		},
		{
			name: "darwin Google Chrome in /Applications",
			sys:  fakeSystem{goos: "darwin", env: map[string]string{"HOME": "/Users/ann"}, files: set(macEdge, mac)},
			want: mac,
		},
		{
			name: "darwin Edge",
			sys:  fakeSystem{goos: "darwin", env: map[string]string{"HOME": "/Users/ann"}, files: set(macEdge)},
			want: macEdge,
		},
		{
			name: "darwin under $HOME/Applications",
			sys:  fakeSystem{goos: "darwin", env: map[string]string{"HOME": "/Users/ann/"}, files: set(macHome)},
			want: macHome,
		},
		{
			name: "darwin PATH before apps",
			sys: fakeSystem{goos: "darwin", env: map[string]string{"HOME": "/Users/ann"}, files: set(mac),
				path: map[string]string{"chromium": "/opt/homebrew/bin/chromium"}},
			want: "/opt/homebrew/bin/chromium",
		},
		{
			name:    "darwin nothing found",
			sys:     fakeSystem{goos: "darwin", env: map[string]string{"HOME": "/Users/ann"}},
			wantErr: []string{"/Applications/Google Chrome.app", "/Users/ann/Applications/Brave Browser.app"},
		},
		{
			name: "windows Program Files",
			sys:  fakeSystem{goos: "windows", env: winEnv, files: set(winEdge, winChrome)},
			want: winChrome,
		},
		{
			name: "windows Edge",
			sys:  fakeSystem{goos: "windows", env: winEnv, files: set(winEdge)},
			want: winEdge,
		},
		{
			name:     "windows explicit path with backslashes",
			explicit: `D:\chrome\chrome.exe`,
			sys:      fakeSystem{goos: "windows", env: winEnv, files: set(`D:\chrome\chrome.exe`)},
			want:     `D:\chrome\chrome.exe`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := launch.Discover(tt.explicit, tt.sys.probe())
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("Discover = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Discover = %q, want an error", got)
			}
			if !errors.Is(err, backend.ErrNoBrowser) {
				t.Errorf("error %v does not match backend.ErrNoBrowser", err)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestInstallPathsDarwinWithoutHome(t *testing.T) {
	paths := launch.InstallPaths("darwin", func(string) string { return "" })
	for _, p := range paths {
		if !strings.HasPrefix(p, "/Applications/") {
			t.Errorf("without HOME, got %q", p)
		}
	}
	if len(paths) == 0 {
		t.Fatal("no darwin paths")
	}
}

func TestInstallPathsUnknownOS(t *testing.T) {
	if p := launch.InstallPaths("plan9", func(string) string { return "" }); len(p) != 0 {
		t.Errorf("plan9 paths = %q", p)
	}
}
