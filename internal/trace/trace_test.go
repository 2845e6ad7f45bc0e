package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func step(tool string, img int) Step {
	return Step{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Tool: tool, Target: "selector=#go", OK: true,
		Args: `{"selector":"#go"}`, Result: "clicked", URL: "https://example.com/", Title: "Example", Image: bytes.Repeat([]byte{0xff}, img)}
}

func read(t *testing.T, path string) *Data {
	t.Helper()
	d, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every string is masked, and what comes from the page or the agent is
// escaped: it cannot open a tag or end the data block.
func TestFileMasksAndEscapes(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir, "s/1", time.Time{}, Options{Mask: func(s string) string { return strings.ReplaceAll(s, "hunter2", "<secret:PW>") }})
	s := step("browser_fill_form", 10)
	s.Args = `{"value":"hunter2"}`
	s.Result = `</script><script>alert(1)</script> hunter2`
	s.Title = `<img src=x onerror=alert(1)> hunter2`
	s.URL = "https://example.com/?p=hunter2"
	s.OK, s.Code, s.Error = false, "TIMEOUT", "waited for hunter2"
	if err := f.Add(s); err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(f.Path()); !strings.HasPrefix(base, "s_1-") || !strings.HasSuffix(base, ".html") || filepath.Dir(f.Path()) != dir {
		t.Errorf("file %s: want s_1-<time>.html in %s", f.Path(), dir)
	}
	raw, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"hunter2", "<script>alert", "<img src=x", "</script><script"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Errorf("the file holds %q", bad)
		}
	}
	d := read(t, f.Path())
	if len(d.Steps) != 1 || d.Steps[0].Result != `</script><script>alert(1)</script> <secret:PW>` || d.Steps[0].Code != "TIMEOUT" || !d.Steps[0].HasImage {
		t.Errorf("read back: %+v", d.Steps)
	}
	if sum := d.Summary(); !strings.Contains(sum, "browser_fill_form selector=#go → TIMEOUT: waited for <secret:PW> @ https://example.com/?p=<secret:PW>") {
		t.Errorf("summary:\n%s", sum)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".trace-*")); len(m) != 0 {
		t.Errorf("temp files left: %v", m)
	}
}

// A file keeps at most MaxSteps steps and MaxBytes bytes: older
// screenshots go first, then older steps, and the file says so.
func TestFileBounds(t *testing.T) {
	tests := []struct {
		name                string
		maxSteps, maxBytes  int
		add, img            int
		steps, images       int
		cutSteps, cutImages int
	}{
		{name: "within", add: 3, img: 100, steps: 3, images: 3},
		{name: "steps", maxSteps: 4, add: 7, img: 10, steps: 4, images: 4, cutSteps: 3},
		{name: "bytes: images first", maxBytes: 14_000, add: 5, img: 3000, steps: 5, images: 2, cutImages: 3},
		{name: "bytes: then steps", maxBytes: 7_000, add: 40, img: 0, steps: 0, images: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFile(t.TempDir(), "s", time.Time{}, Options{MaxSteps: tc.maxSteps, MaxBytes: tc.maxBytes})
			for range tc.add {
				if err := f.Add(step("browser_action", tc.img)); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(f.Path())
			if err != nil {
				t.Fatal(err)
			}
			d := read(t, f.Path())
			if tc.maxBytes > 0 && len(raw) > tc.maxBytes {
				t.Errorf("file is %d bytes, over %d", len(raw), tc.maxBytes)
			}
			images := bytes.Count(raw, []byte(`src="data:image/jpeg;base64,`))
			if tc.steps > 0 && (len(d.Steps) != tc.steps || images != tc.images || d.CutSteps != tc.cutSteps || d.CutImages != tc.cutImages) {
				t.Errorf("%d steps, %d images, cut %d steps %d images; want %d, %d, %d, %d", len(d.Steps), images, d.CutSteps, d.CutImages, tc.steps, tc.images, tc.cutSteps, tc.cutImages)
			}
			if tc.steps == 0 && (d.CutSteps == 0 || len(d.Steps) >= tc.add) {
				t.Errorf("%d steps kept, %d cut: want steps dropped", len(d.Steps), d.CutSteps)
			}
			if last := d.Steps[len(d.Steps)-1].N; last != tc.add {
				t.Errorf("the newest step is #%d, want #%d", last, tc.add)
			}
			if (d.CutSteps > 0 || d.CutImages > 0) != bytes.Contains(raw, []byte("were left out")) {
				t.Error("the file does not say what was left out")
			}
		})
	}
}

// Sessions recorded at once keep a file each.
func TestRecorderSessions(t *testing.T) {
	dir := t.TempDir()
	r := New(Options{Dir: dir})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 10 {
				s := step(fmt.Sprintf("tool-%d", i), 10)
				s.Target = fmt.Sprint(j)
				if _, err := r.Record(fmt.Sprintf("s%d", i), s); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i := range 4 {
		d := read(t, r.Path(fmt.Sprintf("s%d", i)))
		if len(d.Steps) != 10 || d.Session != fmt.Sprintf("s%d", i) {
			t.Fatalf("s%d: %d steps of session %s", i, len(d.Steps), d.Session)
		}
		for j, s := range d.Steps {
			if s.Tool != fmt.Sprintf("tool-%d", i) || s.Target != fmt.Sprint(j) || s.N != j+1 {
				t.Errorf("s%d step %d: %+v", i, j, s)
			}
		}
	}
}

// Recent keeps the last RecentPerSession actions per session, newest last.
func TestRecent(t *testing.T) {
	var r Recent
	r.Mask = func(s string) string { return strings.ReplaceAll(s, "pw", "***") }
	for i := range 25 {
		r.Add("a", "browser_action", fmt.Sprintf("pw %d", i), "ok", time.Now())
	}
	r.Add("b", "browser_navigate", "url=x", "TIMEOUT", time.Now())
	a := r.List("a")
	if len(a) != RecentPerSession || a[0].Target != "*** 5" || a[len(a)-1].Target != "*** 24" {
		t.Errorf("a: %d actions, first %+v, last %+v", len(a), a[0], a[len(a)-1])
	}
	if b := r.List("b"); len(b) != 1 || b[0].Outcome != "TIMEOUT" {
		t.Errorf("b: %+v", b)
	}
	if c := r.List("c"); c == nil || len(c) != 0 {
		t.Errorf("c: %#v, want an empty list", c)
	}
	for i := range recentSessions + 5 {
		r.Add(fmt.Sprintf("s%d", i), "t", "", "ok", time.Now())
	}
	if len(r.byID) > recentSessions {
		t.Errorf("%d sessions kept, over %d", len(r.byID), recentSessions)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, page := range []string{"<html></html>", `<script type="application/json" id="webpilot-trace">{"steps":[`, `<script type="application/json" id="webpilot-trace">nope</script>`} {
		if _, err := Parse([]byte(page)); err == nil {
			t.Errorf("%q parsed", page)
		}
	}
}

// A recorder keeps at most maxOpenFiles files in memory; one let go
// stays on disk and its session starts a new file.
func TestRecorderLetsGo(t *testing.T) {
	dir := t.TempDir()
	r := New(Options{Dir: dir})
	for i := range maxOpenFiles + 1 {
		if _, err := r.Record(fmt.Sprintf("s%d", i), step("t", 0)); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.files) != maxOpenFiles || r.Path("s0") != "" || r.Path("s1") == "" {
		t.Fatalf("%d files open, s0 %q, s1 %q", len(r.files), r.Path("s0"), r.Path("s1"))
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "s0-*.html")); len(files) != 1 {
		t.Errorf("s0's file on disk: %v", files)
	}
}
