package launch

import (
	"path/filepath"
	"slices"
	"strings"
)

// startCause is one cause of a failed start the browser names in its
// output: the words it prints, what they mean and the way out.
type startCause struct {
	says   string
	reason string
	hint   string
}

var startCauses = []startCause{
	{"Missing X server or $DISPLAY", "it was asked for a window (headed) and there is no display",
		"run it headless (leave out --headed, or set headless to true or auto), or give it a display: set DISPLAY, or start webpilot under xvfb-run"},
	{"Missing Wayland display", "it was asked for a window (headed) and there is no display",
		"run it headless (leave out --headed, or set headless to true or auto), or give it a display: set WAYLAND_DISPLAY or DISPLAY"},
	{"Socket path too long", "the temporary directory's path is too long for the browser's socket",
		"set TMPDIR to a short directory such as /tmp"},
	{"error while loading shared libraries", "a system library it needs is missing",
		"install the browser from the system's packages (Debian/Ubuntu: sudo apt-get install chromium), which brings its libraries, or pass --browser another one"},
	{"Running as root without --no-sandbox", "it runs as root, where its sandbox cannot start",
		"run webpilot as an ordinary user"},
	{"cannot create directory", "it cannot write its profile directory",
		"check the permissions of --user-data-dir (or use --isolated)"},
}

// startReason reads why a browser did not start from its output: the
// reason and hint of the first known cause it names, else its first fatal
// line (hint ""), else "".
func startReason(output string) (reason, hint string) {
	for _, c := range startCauses {
		if i := strings.Index(output, c.says); i >= 0 {
			return c.reason + " (the browser said: " + line(output, i) + ")", c.hint
		}
	}
	if i := strings.Index(output, ":FATAL:"); i >= 0 {
		return "the browser said: " + line(output, i), ""
	}
	return "", ""
}

// line is the message of the output's line around byte i, without
// Chromium's "[pid:tid:time:LEVEL:file.cc(N)] " prefix.
func line(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	l := strings.TrimSpace(s[start:end])
	if strings.HasPrefix(l, "[") {
		if j := strings.Index(l, "] "); j >= 0 {
			l = l[j+2:]
		}
	}
	return l
}

// maxSocketPath is the longest path a unix socket may have (sun_path less
// its NUL on Linux; 104 on the BSDs and macOS, the smaller is used).
const maxSocketPath = 103

// singletonSuffix is what Chromium adds to the temporary directory for its
// ProcessSingleton socket ("/org.chromium.Chromium.XXXXXX/SingletonSocket";
// Chrome's "com.google.Chrome." prefix is shorter).
const singletonSuffix = len("/org.chromium.Chromium.XXXXXX/SingletonSocket")

// browserTempDir is the TMPDIR the browser gets: the caller's, unless that is
// so long that the browser could not make its socket there and would abort
// ("Socket path too long"); then /tmp. ok is false when the caller's is
// kept.
func browserTempDir(tmpdir string) (dir string, ok bool) {
	if tmpdir == "" || len(filepath.Clean(tmpdir))+singletonSuffix <= maxSocketPath {
		return "", false
	}
	return "/tmp", true
}

// outputNoise are lines a browser prints at every start, which tell
// nothing of why it did not start.
var outputNoise = []string{"dbus/bus.cc", "cpufreq", "zygote_linux.cc", "Fontconfig"}

// maxOutput bounds the output a start error carries.
const maxOutput = 900

// startOutput is the end of a browser's output that tells why it did not
// start: its lines but the usual noise, the last ones within maxOutput.
func startOutput(output string) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	var kept []string
	size := 0
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if l == "" || slices.ContainsFunc(outputNoise, func(n string) bool { return strings.Contains(l, n) }) {
			continue
		}
		if size+len(l)+1 > maxOutput {
			if len(kept) == 0 {
				kept = append(kept, "…"+l[len(l)-maxOutput:])
			}
			break
		}
		size += len(l) + 1
		kept = append(kept, l)
	}
	slices.Reverse(kept)
	return strings.Join(kept, "\n")
}
