package browser

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/snapshot/*.txtar")

// Origins the goldens show instead of the test servers'.
const (
	fixtureOrigin = "http://fixture.test"
	otherOrigin   = "http://other.test"
)

var goldenModes = []string{ModeFull, ModeCompact, ModeInteractive}

// TestSnapshotGolden snapshots pages in a real browser, in every mode, and
// compares with the expected text. Each txtar case holds a comment, the page
// (a page.html section, or a url section naming a path under
// testdata/pages, where {{other}} is the origin of a second, cross-site
// server) and one section per mode; the golden diff in a change is the
// review of its token cost. -update rewrites the expected sections.
func TestSnapshotGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/snapshot/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	srv, other := goldenServers(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := snapshotCase(t, ar, srv, other)
			changed := false
			for _, mode := range goldenModes {
				want, ok := section(ar, mode)
				if *update {
					if !ok || want != got[mode] {
						setSection(ar, mode, got[mode])
						changed = true
					}
					continue
				}
				if !ok {
					t.Errorf("%s: no %q section (run with -update)", file, mode)
					continue
				}
				if got[mode] != want {
					t.Errorf("%s, mode %s: got\n%s\nwant\n%s", file, mode, got[mode], want)
				}
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// goldenServers serves testdata/pages (and each case's page.html) on
// 127.0.0.1 and again on localhost: another site, so its frames are
// out-of-process.
func goldenServers(t *testing.T) (srv, other string) {
	t.Helper()
	h := http.FileServer(http.Dir("../../testdata/pages"))
	s1 := httptest.NewServer(h)
	t.Cleanup(s1.Close)
	ln, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	s2 := httptest.NewUnstartedServer(h)
	s2.Listener.Close()
	s2.Listener = ln
	s2.Start()
	t.Cleanup(s2.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return s1.URL, "http://localhost:" + port
}

var snapID = regexp.MustCompile(`\(s\d+ ·`)

// snapshotCase loads the case's page in a fresh tab and renders every mode.
func snapshotCase(t *testing.T, ar *txtar.Archive, srv, other string) map[string]string {
	t.Helper()
	target := ""
	if path, ok := section(ar, "url"); ok {
		target = srv + strings.ReplaceAll(strings.TrimSpace(path), "{{other}}", other)
	} else if page, ok := section(ar, "page.html"); ok {
		ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		}))
		t.Cleanup(ps.Close)
		srv = ps.URL
		target = ps.URL + "/page.html"
	} else {
		t.Fatal("case has neither url nor page.html")
	}
	m := NewManager(Options{Backend: backendtest.Shared(t)})
	s := m.Session("golden-" + t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(60*time.Second))
	defer cancel()
	out := make(map[string]string)
	err := s.Do(ctx, func(ctx context.Context, h *Held) error {
		defer h.Tabs().CloseAll(context.WithoutCancel(ctx))
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		if _, err := h.On(tab).Navigate(ctx, target, 0); err != nil {
			return err
		}
		if strings.Contains(target, other) || strings.Contains(target, "frames") {
			waitFrames(ctx, s, tab)
		}
		for _, mode := range goldenModes {
			snap, err := h.On(tab).Snapshot(ctx, SnapshotOptions{Mode: mode})
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", mode, err)
			}
			text := strings.ReplaceAll(snap.Text, srv, fixtureOrigin)
			text = strings.ReplaceAll(text, other, otherOrigin)
			out[mode] = snapID.ReplaceAllString(text, "(s1 ·") + "\n"
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// waitFrames waits until every iframe of the page has a loaded document.
func waitFrames(ctx context.Context, s *Session, tab *Tab) {
	for i := 0; i < 50; i++ {
		var done bool
		_ = tab.evalValue(ctx, `Array.from(document.querySelectorAll("iframe")).every(f => { try { return !f.src || (f.contentDocument ? f.contentDocument.readyState === "complete" : true) } catch (e) { return true } })`, &done)
		if done {
			time.Sleep(200 * time.Millisecond)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}
