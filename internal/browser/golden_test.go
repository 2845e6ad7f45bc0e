package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/cdp/cdptest"
)

var (
	update = flag.Bool("update", false, "rewrite the expected sections of testdata/snapshot/*.txtar")
	record = flag.Bool("record", false, "re-record the cdp/ sections of testdata/snapshot/*.txtar from page.html in a real browser")
)

// fixtureOrigin replaces the test server's origin in recorded replies.
const fixtureOrigin = "http://fixture.test"

var goldenModes = []string{ModeFull, ModeCompact, ModeInteractive}

// TestSnapshotGolden renders recorded CDP replies in every mode and compares
// with the expected text. Each txtar case holds a comment, page.html, the
// recorded cdp/ replies and one section per mode; the golden diff in a change
// is the review of its token cost. -record refreshes the replies from
// page.html (needs Chromium); -update rewrites the expected sections.
func TestSnapshotGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/snapshot/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if *record {
				recordCase(t, ar)
			}
			changed := *record
			for _, mode := range goldenModes {
				got := renderRecorded(t, ar, mode)
				want, ok := section(ar, mode)
				if *update {
					if !ok || want != got {
						setSection(ar, mode, got)
						changed = true
					}
					continue
				}
				if !ok {
					t.Errorf("%s: no %q section (run with -update)", file, mode)
					continue
				}
				if got != want {
					t.Errorf("%s, mode %s: got\n%s\nwant\n%s", file, mode, got, want)
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

// renderRecorded replays a case's cdp/ replies through a scripted session.
func renderRecorded(t *testing.T, ar *txtar.Archive, mode string) string {
	t.Helper()
	fs := cdptest.NewSession()
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "cdp/"); ok {
			fs.Reply(strings.TrimSuffix(name, ".json"), string(f.Data))
		}
	}
	m := NewManager(Options{Backend: nopBackend{}})
	s := m.Session("golden")
	tab := newTab("t1", fs, slog.New(slog.DiscardHandler))
	snap, err := s.Snapshot(context.Background(), tab, SnapshotOptions{Mode: mode})
	if err != nil {
		t.Fatalf("snapshot %s: %v", mode, err)
	}
	return snap.Text + "\n"
}

// recordCase loads page.html in a real browser and stores the replies the
// snapshot reads.
func recordCase(t *testing.T, ar *txtar.Archive) {
	t.Helper()
	page, ok := section(ar, "page.html")
	if !ok {
		t.Fatal("case has no page.html")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	m := NewManager(Options{Backend: backendtest.Shared(t)})
	s := m.Session("record")
	ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(30*time.Second))
	defer cancel()
	err := s.Do(ctx, func(ctx context.Context) error {
		defer s.CloseTabs(context.WithoutCancel(ctx))
		tab, err := s.CurrentTab(ctx)
		if err != nil {
			return err
		}
		if _, err := s.Navigate(ctx, tab, srv.URL+"/page.html", 0); err != nil {
			return err
		}
		for _, method := range []string{"Page.getFrameTree", "Accessibility.getFullAXTree"} {
			var raw json.RawMessage
			if err := tab.t.Call(ctx, method, struct{}{}, &raw); err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, bytes.ReplaceAll(raw, []byte(srv.URL), []byte(fixtureOrigin)), "", " "); err != nil {
				return err
			}
			setSection(ar, "cdp/"+method+".json", buf.String()+"\n")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v", err)
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
