package logfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/logfile"
)

// Writes past the bound rotate: the files stay under it, the oldest go,
// no record is split or lost among those kept.
func TestRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "webpilot.log")
	l, err := logfile.Open(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := fmt.Fprintf(l, "record %02d 0123456789\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, name := range []string{"webpilot.log.2", "webpilot.log.1", "webpilot.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(b) > 100 {
			t.Errorf("%s has %d bytes, over the bound of 100", name, len(b))
		}
		all = append(all, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	if _, err := os.Stat(filepath.Join(dir, "webpilot.log.3")); !os.IsNotExist(err) {
		t.Errorf("a third rotated file was kept: %v", err)
	}
	// 21-byte records, 4 to a file: 30 records end as 4 + 4 + 2, the last
	// 10, in order, whole.
	if len(all) != 10 {
		t.Fatalf("%d records kept, want 10: %q", len(all), all)
	}
	for i, rec := range all {
		if want := fmt.Sprintf("record %02d 0123456789", 20+i); rec != want {
			t.Errorf("record %d = %q, want %q", i, rec, want)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode: %v %v", st.Mode(), err)
	}
}

// An existing file's size counts; concurrent writers never interleave a
// record or lose one.
func TestAppendsAndConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.log")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 90)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := logfile.Open(path, 1000, 5)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				fmt.Fprintf(l, "g%d-%02d\n", g, i)
			}
		})
	}
	wg.Wait()
	l.Close()
	n := 0
	for _, name := range []string{"w.log", "w.log.1", "w.log.2"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if len(line) == 5 && line[0] == 'g' {
				n++
			}
		}
	}
	if n != 200 {
		t.Errorf("%d records kept, want 200", n)
	}
	if _, err := l.Write([]byte("late\n")); err == nil {
		t.Error("a write after Close succeeded")
	}
}
