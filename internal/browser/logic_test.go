package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp/cdptest"
)

// nopBackend satisfies backend.Backend for tests that never reach a browser.
type nopBackend struct{ backend.Backend }

func TestNormalizeURL(t *testing.T) {
	m := NewManager(Options{Backend: nopBackend{}, BlockedOrigins: []string{"*.ads.test"}})
	files := NewManager(Options{Backend: nopBackend{}, AllowedOrigins: []string{"file://", "example.com"}})
	tests := []struct {
		m    *Manager
		in   string
		want string
		code Code
	}{
		{m, "https://example.com/a?b=1#c", "https://example.com/a?b=1#c", ""},
		{m, "example.com", "https://example.com", ""},
		{m, "example.com/path?q=1", "https://example.com/path?q=1", ""},
		{m, "localhost:8080/x", "http://localhost:8080/x", ""},
		{m, "127.0.0.1:3000", "http://127.0.0.1:3000", ""},
		{m, "  https://example.com  ", "https://example.com", ""},
		{m, "about:blank", "about:blank", ""},
		{m, "data:text/html,<p>hi</p>", "data:text/html,<p>hi</p>", ""},
		{m, "", "", CodeInvalidArgument},
		{m, "javascript:alert(1)", "", CodeInvalidArgument},
		{m, "JavaScript:alert(1)", "", CodeInvalidArgument},
		{m, "file:///etc/passwd", "", CodeInvalidArgument},
		{m, "chrome://settings", "", CodeInvalidArgument},
		{m, "not a url at all", "", CodeInvalidArgument},
		{m, "https://tracker.ads.test/x", "", CodeOriginBlocked},
		{m, "https://ads.test/x", "", CodeOriginBlocked},
		{files, "file:///tmp/x.html", "file:///tmp/x.html", ""},
		{files, "https://example.com/", "https://example.com/", ""},
		{files, "https://other.test/", "", CodeOriginBlocked},
	}
	for _, tc := range tests {
		got, err := tc.m.NormalizeURL(tc.in)
		if tc.code != "" {
			be, ok := AsError(err)
			if !ok || be.Code != tc.code || be.Hint == "" {
				t.Errorf("NormalizeURL(%q) = %q, %v; want code %s with a hint", tc.in, got, err, tc.code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		in      string
		key     string
		mods    int64
		text    string
		code    string // checked when set
		keyCode int64  // checked when set
		shift   bool   // the key itself needs Shift
		bad     bool
	}{
		{in: "Enter", key: "Enter", text: "\r", code: "Enter", keyCode: 13},
		{in: "enter", key: "Enter", text: "\r"},
		{in: "Tab", key: "Tab"},
		{in: "Space", key: " ", text: " ", code: "Space", keyCode: 32},
		{in: "a", key: "a", text: "a", code: "KeyA", keyCode: 65},
		{in: "A", key: "A", text: "A", code: "KeyA", keyCode: 65, shift: true},
		// Control+A names the A key: Control+a, as a keyboard sends it.
		{in: "Control+A", key: "a", mods: modCtrl, text: "a", code: "KeyA", keyCode: 65},
		{in: "Control+Shift+R", key: "R", mods: modCtrl | modShift, text: "R", code: "KeyR", keyCode: 82, shift: true},
		{in: "Shift+a", key: "A", mods: modShift, text: "A", code: "KeyA", keyCode: 65, shift: true},
		{in: "Shift+1", key: "!", mods: modShift, text: "!", code: "Digit1", keyCode: 49, shift: true},
		{in: "Shift+/", key: "?", mods: modShift, text: "?", code: "Slash", keyCode: 191, shift: true},
		{in: "!", key: "!", text: "!", code: "Digit1", keyCode: 49, shift: true},
		{in: "Meta+ArrowLeft", key: "ArrowLeft", mods: modMeta},
		{in: "F5", key: "F5", code: "F5", keyCode: 116},
		{in: "Control++", key: "+", mods: modCtrl, text: "+", code: "Equal", keyCode: 187, shift: true},
		{in: "+", key: "+", text: "+", code: "Equal", keyCode: 187, shift: true},
		{in: "Control+-", key: "-", mods: modCtrl, text: "-", code: "Minus", keyCode: 189},
		{in: "Hyper+Q", bad: true},
		{in: "Blorp", bad: true},
		{in: "日", bad: true},
	}
	for _, tc := range tests {
		k, mods, err := parseKey(tc.in)
		if tc.bad {
			if be, ok := AsError(err); !ok || be.Code != CodeInvalidArgument {
				t.Errorf("parseKey(%q) = %+v, %v; want INVALID_ARGUMENT", tc.in, k, err)
			}
			continue
		}
		if err != nil || k.key != tc.key || mods != tc.mods || k.text != tc.text || k.shift != tc.shift {
			t.Errorf("parseKey(%q) = key %q mods %d text %q shift %v, %v; want %q %d %q %v", tc.in, k.key, mods, k.text, k.shift, err, tc.key, tc.mods, tc.text, tc.shift)
		}
		if (tc.code != "" && k.code != tc.code) || (tc.keyCode != 0 && k.keyCode != tc.keyCode) {
			t.Errorf("parseKey(%q) = code %q keyCode %d; want %q %d", tc.in, k.code, k.keyCode, tc.code, tc.keyCode)
		}
	}
}

// TestCharKey checks the US keyboard table: every printable ASCII character
// has a key, with its code, Windows key code and Shift need.
func TestCharKey(t *testing.T) {
	want := map[rune]struct {
		code    string
		keyCode int64
		shift   bool
	}{
		' ': {"Space", 32, false},
		'a': {"KeyA", 65, false}, 'B': {"KeyB", 66, true}, 'z': {"KeyZ", 90, false}, 'Z': {"KeyZ", 90, true},
		'0': {"Digit0", 48, false}, '1': {"Digit1", 49, false}, '9': {"Digit9", 57, false},
		'!': {"Digit1", 49, true}, '@': {"Digit2", 50, true}, '#': {"Digit3", 51, true}, '$': {"Digit4", 52, true},
		'%': {"Digit5", 53, true}, '^': {"Digit6", 54, true}, '&': {"Digit7", 55, true}, '*': {"Digit8", 56, true},
		'(': {"Digit9", 57, true}, ')': {"Digit0", 48, true},
		'`': {"Backquote", 192, false}, '~': {"Backquote", 192, true},
		'-': {"Minus", 189, false}, '_': {"Minus", 189, true},
		'=': {"Equal", 187, false}, '+': {"Equal", 187, true},
		'[': {"BracketLeft", 219, false}, '{': {"BracketLeft", 219, true},
		']': {"BracketRight", 221, false}, '}': {"BracketRight", 221, true},
		'\\': {"Backslash", 220, false}, '|': {"Backslash", 220, true},
		';': {"Semicolon", 186, false}, ':': {"Semicolon", 186, true},
		'\'': {"Quote", 222, false}, '"': {"Quote", 222, true},
		',': {"Comma", 188, false}, '<': {"Comma", 188, true},
		'.': {"Period", 190, false}, '>': {"Period", 190, true},
		'/': {"Slash", 191, false}, '?': {"Slash", 191, true},
	}
	for r := rune(0x20); r < 0x7f; r++ {
		k, ok := charKey(r)
		if !ok {
			t.Errorf("charKey(%q): no key", r)
			continue
		}
		if k.key != string(r) || k.text != string(r) || k.code == "" || k.keyCode == 0 {
			t.Errorf("charKey(%q) = %+v; want key and text %q, a code and a key code", r, k, string(r))
		}
		if w, ok := want[r]; ok && (k.code != w.code || k.keyCode != w.keyCode || k.shift != w.shift) {
			t.Errorf("charKey(%q) = code %q keyCode %d shift %v; want %q %d %v", r, k.code, k.keyCode, k.shift, w.code, w.keyCode, w.shift)
		}
		if upper := r >= 'A' && r <= 'Z'; (r >= 'a' && r <= 'z' || upper) && k.shift != upper {
			t.Errorf("charKey(%q).shift = %v", r, k.shift)
		}
	}
	for _, r := range []rune{'\n', '\t', 0x7f, 'é', '日'} {
		if k, ok := charKey(r); ok {
			t.Errorf("charKey(%q) = %+v; want no key", r, k)
		}
	}
}

// TestDispatchShiftedKey: a character that needs Shift is typed with Shift
// held, as a keyboard sends it; one that does not, without.
func TestDispatchShiftedKey(t *testing.T) {
	type ev struct {
		Type                  string `json:"type"`
		Key                   string `json:"key"`
		Code                  string `json:"code"`
		Text                  string `json:"text"`
		Modifiers             int64  `json:"modifiers"`
		WindowsVirtualKeyCode int64  `json:"windowsVirtualKeyCode"`
	}
	events := func(text string, mods int64) []ev {
		t.Helper()
		fs := cdptest.NewSession()
		fs.Reply("Input.dispatchKeyEvent", `{}`)
		tab := &Tab{page: &loop{Caller: fs}}
		for _, r := range text {
			k, ok := charKey(r)
			if !ok {
				t.Fatalf("charKey(%q): no key", r)
			}
			if err := dispatchKey(t.Context(), tab, k, mods, string(r)); err != nil {
				t.Fatal(err)
			}
		}
		var out []ev
		for _, c := range fs.Calls() {
			var e ev
			if err := jsonv2.Unmarshal(c.Params, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
		return out
	}
	got := events("B!b", 0)
	want := []ev{
		{"rawKeyDown", "Shift", "ShiftLeft", "", modShift, 16},
		{"keyDown", "B", "KeyB", "B", modShift, 66},
		{"keyUp", "B", "KeyB", "", modShift, 66},
		{"keyUp", "Shift", "ShiftLeft", "", 0, 16},
		{"rawKeyDown", "Shift", "ShiftLeft", "", modShift, 16},
		{"keyDown", "!", "Digit1", "!", modShift, 49},
		{"keyUp", "!", "Digit1", "", modShift, 49},
		{"keyUp", "Shift", "ShiftLeft", "", 0, 16},
		{"keyDown", "b", "KeyB", "b", 0, 66},
		{"keyUp", "b", "KeyB", "", 0, 66},
	}
	if !slices.Equal(got, want) {
		t.Errorf("typing B!b sent\n%+v\nwant\n%+v", got, want)
	}
	// With Shift held by the caller (pressKey of Shift+1), no second Shift.
	got = events("!", modShift)
	want = []ev{
		{"keyDown", "!", "Digit1", "!", modShift, 49},
		{"keyUp", "!", "Digit1", "", modShift, 49},
	}
	if !slices.Equal(got, want) {
		t.Errorf("! with Shift held sent\n%+v\nwant\n%+v", got, want)
	}
}

func TestRefTable(t *testing.T) {
	rt := newRefTable()
	fp := func(role, name string) []string { return []string{"button", "", "", "", "", role, name} }
	main := rt.frame("F0", true, nil, "D1")
	a := rt.refFor(main, 10, fp("button", "Go"))
	b := rt.refFor(main, 11, fp("link", "Home"))
	if a != "e1" || b != "e2" || rt.refFor(main, 10, fp("button", "Go!")) != "e1" {
		t.Fatalf("refs = %s %s", a, b)
	}
	if e, err := rt.lookup("e1"); err != nil || e.wid != 10 || e.name() != "Go!" {
		t.Errorf("lookup e1 = %+v, %v", e, err)
	}
	child := rt.frame("F1", false, nil, "C1")
	if r := rt.refFor(child, 10, fp("button", "In frame")); r != "f1e1" {
		t.Errorf("child frame ref = %s", r)
	}
	if e, err := rt.lookup("f1e1"); err != nil || e.frame != child {
		t.Errorf("lookup f1e1 = %+v, %v", e, err)
	}
	main = rt.frame("F0", true, nil, "D2") // a new document: old refs are stale, numbers go on
	if _, err := rt.lookup("e1"); !hasCode(err, CodeStaleRef) {
		t.Errorf("old ref after navigation: %v", err)
	}
	if _, err := rt.lookup("f1e1"); err != nil {
		t.Errorf("a child frame keeps its refs when the main document changes only in the table: %v", err)
	}
	if c := rt.refFor(main, 10, fp("button", "Go")); c != "e3" {
		t.Errorf("new document reuses numbers: %s", c)
	}
	if _, err := rt.lookup("e9"); !hasCode(err, CodeTargetNotFound) {
		t.Errorf("never-issued ref: %v", err)
	}
	if _, err := rt.lookup("f7e1"); !hasCode(err, CodeTargetNotFound) {
		t.Errorf("ref of an unknown frame: %v", err)
	}
	for _, bad := range []string{"x1", "e", "e-1", "e0", "", "f1", "fe1", "fxe1"} {
		if _, err := rt.lookup(bad); !hasCode(err, CodeInvalidArgument) {
			t.Errorf("lookup(%q) = %v", bad, err)
		}
	}
}

func hasCode(err error, c Code) bool {
	be, ok := AsError(err)
	return ok && be.Code == c
}

func TestRenderHelpers(t *testing.T) {
	if got := quote(`say "hi" \ bye`); got != `"say \"hi\" \\ bye"` {
		t.Errorf("quote = %s", got)
	}
	if got := clean("  a \n\t b  "); got != "a b" {
		t.Errorf("clean = %q", got)
	}
	if got := shorten(strings.Repeat("x", 400), 300); !strings.HasSuffix(got, "…(+200 chars)") || len([]rune(got)) != 200+len([]rune("…(+200 chars)")) {
		t.Errorf("shorten = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %s", n, got)
		}
	}
}

func TestCheckUploadPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	own, client, out := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	symlink := func(target, link string) string {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		return link
	}
	hardlink := func(target, link string) string {
		if err := os.Link(target, link); err != nil {
			t.Fatal(err)
		}
		return link
	}
	plain := write(filepath.Join(own, "docs", "a.txt"))
	secret := write(filepath.Join(own, ".ssh", "id_ed25519"))
	env := write(filepath.Join(own, ".env"))
	clientDot := write(filepath.Join(client, ".config", "c.json"))
	outside := write(filepath.Join(t.TempDir(), "b.txt"))
	link := symlink(outside, filepath.Join(own, "link.txt"))
	// A hard link in the working directory to a file elsewhere, and one in
	// the output directory.
	hard := hardlink(outside, filepath.Join(own, "hard.txt"))
	outHard := hardlink(write(filepath.Join(t.TempDir(), "c.txt")), filepath.Join(out, "c.txt"))
	outPlain := write(filepath.Join(out, "shot.png"))
	inHome := write(filepath.Join(home, "notes.txt"))
	inProject := write(filepath.Join(home, "project", "a.txt"))
	// An output directory that is a link to /etc, and a root that is a link
	// to a real directory.
	etcLink := symlink("/etc", filepath.Join(t.TempDir(), "out"))
	ownLink := symlink(own, filepath.Join(t.TempDir(), "own"))
	for _, c := range []struct {
		name        string
		file        string
		own, client []string
		out         string
		why         string // "" = allowed; else a part of the error message
	}{
		{"in an own root", plain, []string{own}, nil, "", ""},
		{"under a dot-directory of an own root", secret, []string{own}, nil, "", "outside the directories"},
		{"a dot-file of an own root", env, []string{own}, nil, "", "outside the directories"},
		{"a dot-file of a client root", clientDot, []string{own}, []string{client}, "", ""},
		{"outside every root", outside, []string{own}, []string{client}, "", "outside the directories"},
		{"a link out of the root", link, []string{own}, nil, "", "outside the directories"},
		{"the root is /", plain, []string{"/"}, nil, "", "no directory they may come from"},
		{"a client root / beside an own root", "/etc/hostname", []string{own}, []string{"/"}, "", "outside the directories"},
		{"the root is home", inHome, []string{home}, nil, "", "no directory they may come from"},
		{"a client root that is home", inHome, []string{own}, []string{home}, "", "outside the directories"},
		{"a root above home", inProject, []string{filepath.Dir(home)}, nil, "", "no directory they may come from"},
		{"a project under home", inProject, []string{filepath.Join(home, "project")}, nil, "", ""},
		{"an output dir linked to /etc", "/etc/hostname", []string{etcLink, own}, nil, etcLink, "outside the directories"},
		{"a path through an output dir linked to /etc", filepath.Join(etcLink, "hostname"), []string{etcLink}, nil, etcLink, "no directory they may come from"},
		{"a root that is a link", plain, []string{ownLink}, nil, "", "no directory they may come from"},
		// A root below a linked parent (as under macOS's /var and /tmp).
		{"a root below a linked parent", plain, []string{filepath.Join(ownLink, "docs")}, nil, "", ""},
		{"a hard link in the working dir", hard, []string{own}, nil, out, "2 hard links"},
		{"a hard link in the output dir", outHard, []string{own, out}, nil, out, ""},
		{"a plain file in the output dir", outPlain, []string{own, out}, nil, out, ""},
		{"no roots", plain, nil, nil, "", "no directory they may come from"},
		{"a directory", filepath.Join(own, "docs"), []string{own}, nil, "", "not a regular file"},
		{"missing", filepath.Join(own, "none.txt"), []string{own}, nil, "", "no file"},
	} {
		got, err := checkUploadPaths([]string{c.file}, c.own, c.client, c.out, nil)
		if (c.why == "") != (err == nil) {
			t.Errorf("%s: %v, %v; want allowed=%v", c.name, got, err, c.why == "")
			continue
		}
		if err != nil {
			e, ok := AsError(err)
			if !ok || e.Code != CodeInvalidArgument || e.Hint == "" {
				t.Errorf("%s: %v, want INVALID_ARGUMENT with a hint", c.name, err)
			} else if !strings.Contains(e.Message, c.why) {
				t.Errorf("%s: %q, want %q in it", c.name, e.Message, c.why)
			}
		}
	}
	// The probe: webpilot started in /, a relative path into /etc.
	t.Chdir("/")
	if got, err := checkUploadPaths([]string{"etc/hostname"}, []string{out, "/"}, nil, out, nil); err == nil {
		t.Errorf("started in /, etc/hostname uploads: %v", got)
	}
	for _, c := range []struct {
		dir, why string
	}{
		{"/", "root of the filesystem"},
		{home, "home directory"},
		{filepath.Dir(home), "holds the home directory"},
		{etcLink, "symbolic link (to /etc)"},
		{plain, "not a directory"},
		{filepath.Join(home, "project"), ""},
	} {
		_, why := UploadRootProblem(c.dir)
		if (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("UploadRootProblem(%s) = %q, want %q", c.dir, why, c.why)
		}
	}
}
