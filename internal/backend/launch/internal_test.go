package launch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

func TestClaimProfile(t *testing.T) {
	const host = "box"
	alive := func(pid int) bool { return pid == 42 }
	lock := func(t *testing.T, dir, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, singletonLock)); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }

	t.Run("no lock", func(t *testing.T) {
		removed, err := claimProfile(t.TempDir(), host, alive)
		if removed || err != nil {
			t.Fatalf("claimProfile = %v, %v", removed, err)
		}
	})
	t.Run("live pid on this host", func(t *testing.T) {
		dir := t.TempDir()
		lock(t, dir, "box-42")
		_, err := claimProfile(dir, host, alive)
		if !errors.Is(err, backend.ErrProfileLocked) {
			t.Fatalf("err = %v, want ErrProfileLocked", err)
		}
		for _, s := range []string{dir, "--isolated", "pid 42"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %q", err, s)
			}
		}
		if !exists(filepath.Join(dir, singletonLock)) {
			t.Error("a live lock was removed")
		}
	})
	t.Run("other host", func(t *testing.T) {
		dir := t.TempDir()
		lock(t, dir, "other-host-7")
		_, err := claimProfile(dir, host, alive)
		if !errors.Is(err, backend.ErrProfileLocked) || !strings.Contains(err.Error(), `"other-host"`) || !strings.Contains(err.Error(), "--isolated") {
			t.Fatalf("err = %v, want ErrProfileLocked naming other-host and --isolated", err)
		}
	})
	t.Run("hostname with dashes", func(t *testing.T) {
		dir := t.TempDir()
		lock(t, dir, "my-box-1-42")
		_, err := claimProfile(dir, "my-box-1", alive)
		if !errors.Is(err, backend.ErrProfileLocked) {
			t.Fatalf("err = %v, want ErrProfileLocked", err)
		}
	})
	t.Run("dead pid on this host is stale", func(t *testing.T) {
		dir := t.TempDir()
		lock(t, dir, "box-43")
		sockDir, err := os.MkdirTemp("", "org.chromium.Chromium.")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
		sock := filepath.Join(sockDir, singletonSocket)
		if err := os.WriteFile(sock, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("1234567", filepath.Join(sockDir, singletonCookie)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(sock, filepath.Join(dir, singletonSocket)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("1234567", filepath.Join(dir, singletonCookie)); err != nil {
			t.Fatal(err)
		}
		removed, err := claimProfile(dir, host, alive)
		if !removed || err != nil {
			t.Fatalf("claimProfile = %v, %v; want removed", removed, err)
		}
		for _, p := range []string{singletonLock, singletonSocket, singletonCookie} {
			if exists(filepath.Join(dir, p)) {
				t.Errorf("%s left behind", p)
			}
		}
		if exists(sockDir) {
			t.Errorf("socket dir %s left behind", sockDir)
		}
	})
	t.Run("unparsable lock is left to the browser", func(t *testing.T) {
		dir := t.TempDir()
		lock(t, dir, "garbage")
		if removed, err := claimProfile(dir, host, alive); removed || err != nil {
			t.Fatalf("claimProfile = %v, %v", removed, err)
		}
	})
}

func TestTail(t *testing.T) {
	tl := newTail(16)
	_, _ = tl.Write([]byte("hel"))
	_, _ = tl.Write([]byte("lo\n"))
	if got := tl.String(); got != "hello" {
		t.Fatalf("String = %q", got)
	}
	_, _ = tl.Write([]byte("[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n"))
	if got := tl.String(); got != "hello" {
		t.Fatalf("D-Bus noise kept: %q", got)
	}
	_, _ = tl.Write([]byte("first line\nsecond\npartial"))
	if got := tl.String(); got != "…second\npartial" {
		t.Fatalf("after wrap String = %q", got)
	}
	_, _ = tl.Write([]byte(strings.Repeat("x", 40) + "\n"))
	if got := tl.String(); got != "…"+strings.Repeat("x", 15) {
		t.Fatalf("after a long line String = %q", got)
	}
	_, _ = tl.Write([]byte(strings.Repeat("y", 40)))
	if got := tl.String(); got != "…"+strings.Repeat("y", 16) {
		t.Fatalf("after an endless line String = %q", got)
	}
}

func TestBrowserArgs(t *testing.T) {
	args := browserArgs(Options{Headless: true, ExtraArgs: []string{"--lang=de"}}, "/p", true)
	for _, want := range []string{"--remote-debugging-pipe", "--user-data-dir=/p", "--headless", "--disable-gpu",
		"--no-sandbox", "--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-quic", "--disable-dev-shm-usage", "--password-store=basic",
		"--use-mock-keychain", "--window-size=1280,800", "--lang=de",
		"--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,BackForwardCache,SpareRendererForSitePerProcess",
		"--enable-features=NetworkServiceInProcess2", "--in-process-gpu", "--no-unsandboxed-zygote"} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %s: %q", want, args)
		}
	}
	if args[len(args)-1] != "about:blank" {
		t.Errorf("last arg %q, want about:blank", args[len(args)-1])
	}
	if i, j := slices.Index(args, "--window-size=1280,800"), slices.Index(args, "--lang=de"); i > j {
		t.Error("ExtraArgs must come after the defaults so they override them")
	}
	args = browserArgs(Options{}, "/p", false)
	for _, no := range []string{"--headless", "--no-sandbox", "--disable-gpu",
		"--enable-features=NetworkServiceInProcess2", "--in-process-gpu", "--no-unsandboxed-zygote"} {
		if slices.Contains(args, no) {
			t.Errorf("headful non-root args contain %s", no)
		}
	}
	// With the sandbox on, helpers stay out of the browser process, headless too.
	args = browserArgs(Options{Headless: true}, "/p", false)
	for _, no := range []string{"--no-sandbox", "--enable-features=NetworkServiceInProcess2", "--in-process-gpu", "--no-unsandboxed-zygote"} {
		if slices.Contains(args, no) {
			t.Errorf("headless sandboxed args contain %s", no)
		}
	}
	// The sandbox turned off by ExtraArgs counts as off; headful, the GPU
	// process stays.
	args = browserArgs(Options{ExtraArgs: []string{"--no-sandbox"}}, "/p", false)
	if !slices.Contains(args, "--enable-features=NetworkServiceInProcess2") {
		t.Errorf("args with --no-sandbox given lack the in-process network service: %q", args)
	}
	for _, no := range []string{"--in-process-gpu", "--no-unsandboxed-zygote"} {
		if slices.Contains(args, no) {
			t.Errorf("headful args contain %s", no)
		}
	}
}

func TestStartReason(t *testing.T) {
	for _, tc := range []struct {
		out, reason, hint string
	}{
		{"", "", ""},
		{"[1:2:ERROR:dbus/bus.cc(405)] Failed to connect to the bus\n", "", ""},
		{"[1:1:1206/1:ERROR:ozone_platform_x11.cc:257] Missing X server or $DISPLAY\nmore\n",
			"there is no display (the browser said: Missing X server or $DISPLAY)", "xvfb-run"},
		{"x\n[3:3:1206/1:FATAL:process_singleton_posix.cc:315] Socket path too long: /t/x/SingletonSocket.\n",
			"too long for the browser's socket (the browser said: Socket path too long: /t/x/SingletonSocket.)", "TMPDIR"},
		{"[9:9:0:FATAL:something.cc(1)] Check failed: boom\n", "the browser said: Check failed: boom", ""},
		{"chrome: error while loading shared libraries: libnss3.so: cannot open shared object file\n",
			"system library", "apt-get install chromium"},
	} {
		reason, hint := startReason(tc.out)
		if !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") || !strings.Contains(hint, tc.hint) || (tc.hint == "") != (hint == "") {
			t.Errorf("startReason(%q) = %q, %q; want %q, %q", tc.out, reason, hint, tc.reason, tc.hint)
		}
	}
}

func TestBrowserTempDir(t *testing.T) {
	for _, tc := range []struct {
		tmp  string
		want bool
	}{
		{"", false},
		{"/tmp", false},
		{"/home/user/tmp/go-build/TestX123/001", false},
		{"/" + strings.Repeat("a", 57), false},
		{"/" + strings.Repeat("a", 58), true},
		{"/home/someone/work/tmp/TestBrowserSuiteLaunchRecordingLongName4242424242/001", true},
	} {
		dir, ok := browserTempDir(tc.tmp)
		if ok != tc.want || (ok && dir != "/tmp") {
			t.Errorf("browserTempDir(%q) = %q, %v; want shortened %v", tc.tmp, dir, ok, tc.want)
		}
	}
}

func TestStartOutput(t *testing.T) {
	noise := "[1:2:ERROR:dbus/bus.cc(405)] Failed to connect to the bus\n"
	long := strings.Repeat(noise, 50) + strings.Repeat("x", 300) + "\n" + strings.Repeat("y", 700) + "\n[3:3:FATAL:thing.cc(9)] the reason\n" + noise
	got := startOutput(long)
	if strings.Contains(got, "dbus") || !strings.HasSuffix(got, "[3:3:FATAL:thing.cc(9)] the reason") || !strings.Contains(got, "yyy") || strings.Contains(got, "xxx") || len(got) > maxOutput+10 {
		t.Errorf("startOutput kept %d chars:\n%s", len(got), got)
	}
	if got := startOutput(strings.Repeat("z", 2000)); len(got) > maxOutput+len("…") || !strings.HasPrefix(got, "…") {
		t.Errorf("one long line: %d chars, %q…", len(got), got[:10])
	}
	if got := startOutput(noise + noise); got != "" {
		t.Errorf("only noise: %q", got)
	}
}
