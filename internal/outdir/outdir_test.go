package outdir_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/filelock"
	"github.com/webpilot-mcp/webpilot/internal/outdir"
)

// kb is n KiB of a byte pattern.
func kb(n int) []byte { return bytes.Repeat([]byte{'x'}, n<<10) }

// names are the entries' names, oldest first.
func names(t *testing.T, d *outdir.Dir) []string {
	t.Helper()
	es, err := d.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Past the budget, the oldest finished entry webpilot owns goes first, and
// only as many as needed; a file it did not create is neither counted nor
// removed, however old.
func TestEvictOldestOwned(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(foreign, kb(200), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(foreign, old, old)
	d := outdir.New(dir, 100<<10)
	a, err := d.Save("", "shot", "png", kb(40))
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Save("", "shot", "png", kb(40))
	if err != nil {
		t.Fatal(err)
	}
	// 80 KB used: 30 more passes 100 KB, so a (the oldest) goes, b stays.
	c, err := d.Save("", "body", "json", kb(30))
	if err != nil {
		t.Fatalf("save past the budget: %v", err)
	}
	if exists(a) || !exists(b) || !exists(c) || !exists(foreign) {
		t.Errorf("after eviction: a %v (want gone), b %v, c %v, foreign %v (want kept)", exists(a), exists(b), exists(c), exists(foreign))
	}
	if got, want := names(t, d), []string{filepath.Base(b), filepath.Base(c)}; !slices.Equal(got, want) {
		t.Errorf("manifest %q, want %q", got, want)
	}
	got, err := os.ReadFile(c)
	if err != nil || len(got) != 30<<10 {
		t.Errorf("saved file: %d bytes, %v", len(got), err)
	}
	if fi, err := os.Stat(c); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("saved file mode: %v %v", fi.Mode(), err)
	}
}

// A folder being written is never removed to make room; nor is an entry
// held for reading; when nothing can go, the write is refused with the
// numbers.
func TestBusyEntriesStay(t *testing.T) {
	dir := t.TempDir()
	d := outdir.New(dir, 100<<10)
	folder, err := d.NewFolder("", "downloads")
	if err != nil {
		t.Fatal(err)
	}
	done, err := d.Reserve(folder, 60<<10)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "big.bin"), kb(60), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := d.Save("", "shot", "png", kb(30))
	if err != nil {
		t.Fatal(err)
	}
	release, err := d.Hold(held)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Save("", "shot", "png", kb(20))
	var full *outdir.FullError
	if !errors.As(err, &full) || full.Need != 20<<10 || full.Used != 90<<10 || full.Max != 100<<10 {
		t.Fatalf("want a FullError (90 KB used, 20 KB needed), got %v", err)
	}
	if !exists(folder) || !exists(held) {
		t.Fatal("a busy entry was removed")
	}
	// Released, the screenshot is the oldest finished entry: it goes.
	release()
	if _, err := d.Save("", "shot", "png", kb(20)); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if exists(held) || !exists(folder) {
		t.Errorf("after release: held %v (want gone), folder %v (want kept)", exists(held), exists(folder))
	}
	// done records the folder's size; it may go now.
	done()
	es, _ := d.Entries()
	if i := slices.IndexFunc(es, func(e outdir.Entry) bool { return e.Name == filepath.Base(folder) }); i < 0 || es[i].Size != 60<<10 || es[i].Busy != 0 {
		t.Fatalf("the folder's entry after done: %+v", es)
	}
	if _, err := d.Save("", "shot", "png", kb(50)); err != nil {
		t.Fatalf("after the folder finished: %v", err)
	}
	if exists(folder) {
		t.Error("the finished folder was not removed to make room")
	}
	// A later file of the same call makes the folder again.
	done, err = d.Reserve(folder, 1<<10)
	if err != nil || !exists(folder) {
		t.Fatalf("reserve in a removed folder: %v (exists %v)", err, exists(folder))
	}
	done()
}

// A file bigger than the whole budget is refused at once; a folder that is
// not webpilot's is refused.
func TestReserveRefusals(t *testing.T) {
	dir := t.TempDir()
	d := outdir.New(dir, 50<<10)
	folder, err := d.NewFolder("", "downloads")
	if err != nil {
		t.Fatal(err)
	}
	var full *outdir.FullError
	if _, err := d.Reserve(folder, 80<<10); !errors.As(err, &full) {
		t.Fatalf("80 KB in a 50 KB budget: %v", err)
	}
	foreign := filepath.Join(dir, "photos")
	if err := os.Mkdir(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{foreign, filepath.Join(folder, "sub"), "/tmp"} {
		if _, err := d.Reserve(f, 1); err == nil {
			t.Errorf("Reserve(%s) was allowed", f)
		}
	}
}

// An entry another live process is writing stays; once that process is gone
// (its presence lock free), the entry may go.
func TestOtherProcessBusy(t *testing.T) {
	dir := t.TempDir()
	pid := os.Getpid() + 100000
	other := filepath.Join(dir, "downloads-other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "part.bin"), kb(60), 0o600); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"version": 1, "entries": []map[string]any{{"name": "downloads-other", "size": 0, "created": time.Now().Add(-time.Hour), "busy": pid}}}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, outdir.ManifestFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	lock, ok, err := filelock.Try(filepath.Join(dir, fmt.Sprintf(".webpilot-busy-%d.lock", pid)))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	d := outdir.New(dir, 100<<10)
	var full *outdir.FullError
	if _, err := d.Save("", "shot", "png", kb(50)); !errors.As(err, &full) || full.Used != 60<<10 {
		t.Fatalf("while the other process writes (60 KB so far): %v", err)
	}
	lock.Release()
	if _, err := d.Save("", "shot", "png", kb(50)); err != nil || exists(other) {
		t.Fatalf("after the other process ended: %v, its folder still there: %v", err, exists(other))
	}
}

// Hold on a path that webpilot does not own, or outside the directory,
// holds nothing and fails nothing; a damaged manifest starts afresh
// without removing anything.
func TestHoldForeignAndDamagedManifest(t *testing.T) {
	dir := t.TempDir()
	d := outdir.New(dir, 10<<10)
	for _, p := range []string{filepath.Join(dir, "mine-not.txt"), "/etc/passwd", filepath.Join(dir, "..", "x")} {
		release, err := d.Hold(p)
		if err != nil {
			t.Errorf("Hold(%s): %v", p, err)
		}
		release()
	}
	keep := filepath.Join(dir, "keep.bin")
	if err := os.WriteFile(keep, kb(20), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, outdir.ManifestFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save("", "shot", "png", kb(5)); err != nil {
		t.Fatal(err)
	}
	if !exists(keep) {
		t.Error("a file named nowhere in the manifest was removed")
	}
	// A manifest naming a path outside the directory is not followed.
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, kb(1), 0o600); err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"version": 1, "entries": []map[string]any{{"name": "../" + filepath.Base(filepath.Dir(outside)) + "/victim", "size": 1 << 30, "created": time.Now().Add(-time.Hour)}}}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, outdir.ManifestFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save("", "shot", "png", kb(5)); err != nil {
		t.Fatal(err)
	}
	if !exists(outside) {
		t.Error("a manifest entry outside the directory was removed")
	}
}

// A process's presence lock (.webpilot-busy-<pid>.lock) lives only while it
// has busy entries: once the last is done, no such file stays behind.
func TestPresenceLockGoesWhenIdle(t *testing.T) {
	dir := t.TempDir()
	d := outdir.New(dir, 1<<20)
	folder, err := d.NewFolder("", "downloads")
	if err != nil {
		t.Fatal(err)
	}
	done, err := d.Reserve(folder, 10)
	if err != nil {
		t.Fatal(err)
	}
	presence := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".webpilot-busy-*"))
		return m
	}
	if len(presence()) == 0 {
		t.Fatal("no presence lock while an entry is busy")
	}
	done()
	release, err := d.Hold(filepath.Join(folder, "x"))
	if err != nil {
		t.Fatal(err)
	}
	release()
	if p := presence(); len(p) != 0 {
		t.Errorf("presence locks left once nothing is busy: %v", p)
	}
}

// Two directories on one path (two processes) number their entries alike:
// a folder or file made in the same second as the other's gets the next
// number instead of failing.
func TestTwoWritersSameSecond(t *testing.T) {
	path := t.TempDir()
	a, b := outdir.New(path, 1<<20), outdir.New(path, 1<<20)
	seen := map[string]bool{}
	for i := range 3 {
		for _, d := range []*outdir.Dir{a, b} {
			f, err := d.NewFolder("", "trace")
			if err != nil {
				t.Fatalf("round %d: NewFolder: %v", i, err)
			}
			p, err := d.Save("", "shot", "png", []byte("x"))
			if err != nil {
				t.Fatalf("round %d: Save: %v", i, err)
			}
			for _, x := range []string{f, p} {
				if seen[x] {
					t.Fatalf("%s made twice", x)
				}
				seen[x] = true
			}
		}
	}
}
