package recipes

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recipeJSON is a small recipe named name for site.
func recipeJSON(name, site string) string {
	return `{"name": "` + name + `", "site": "` + site + `", "steps": [{"do": "navigate", "url": "https://` + site + `/"}, {"do": "snapshot"}]}`
}

// testStore is a store in temporary folders: a user folder, a project
// folder (created) and a trust file.
func testStore(t *testing.T) *Store {
	t.Helper()
	root := t.TempDir()
	s := &Store{
		UserDir:    filepath.Join(root, "user"),
		ProjectDir: filepath.Join(root, "work", ProjectSubdir),
		TrustFile:  filepath.Join(root, "config", "trust.json"),
	}
	if err := os.MkdirAll(s.ProjectDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, dir, file, data string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func untrusted(t *testing.T, err error) *UntrustedError {
	t.Helper()
	var ue *UntrustedError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an *UntrustedError", err)
	}
	if !strings.Contains(err.Error(), "webpilot recipe trust "+ue.Dir) {
		t.Errorf("no trust hint in %q", err)
	}
	return ue
}

func TestTrust(t *testing.T) {
	s := testStore(t)
	write(t, s.ProjectDir, "proj.json", recipeJSON("proj", "example.com"))
	write(t, s.ProjectDir, "README.md", "not a recipe") // not hashed

	// Never trusted: refused, listed as untrusted.
	_, err := s.Load("proj")
	if ue := untrusted(t, err); len(ue.Changed) != 0 {
		t.Errorf("Changed = %v for a folder never trusted", ue.Changed)
	}
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Trusted || l.Entries[0].Source != SourceProject || l.Entries[0].Recipe == nil {
		t.Errorf("List = %+v", l.Entries)
	}
	untrusted(t, l.ProjectErr)

	// Trusted: loads.
	dir, files, err := s.Trust(s.ProjectDir)
	if err != nil {
		t.Fatalf("Trust: %v", err)
	}
	if !reflect.DeepEqual(files, []string{"proj.json"}) {
		t.Errorf("trusted files = %v", files)
	}
	r, err := s.Load("proj")
	if err != nil || r.Source != SourceProject {
		t.Fatalf("Load after trust: %v, %+v", err, r)
	}
	fi, err := os.Stat(s.TrustFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file: %v, mode %v", err, fi.Mode())
	}
	var tf TrustFile
	b, _ := os.ReadFile(s.TrustFile)
	if err := json.Unmarshal(b, &tf); err != nil || tf.Folders[dir].SHA256 == "" || len(tf.Folders[dir].Files) != 1 {
		t.Errorf("trust file: %v\n%s", err, b)
	}
	// A README changes nothing.
	write(t, s.ProjectDir, "README.md", "still not a recipe")
	if _, err := s.Load("proj"); err != nil {
		t.Errorf("Load after editing a non-recipe file: %v", err)
	}

	// Edited: untrusted again, naming the file.
	write(t, s.ProjectDir, "proj.json", recipeJSON("proj", "evil.example"))
	_, err = s.Load("proj")
	if ue := untrusted(t, err); !reflect.DeepEqual(ue.Changed, []string{"proj.json (edited)"}) {
		t.Errorf("Changed = %v", ue.Changed)
	}
	if _, _, err := s.Trust(s.ProjectDir); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("proj"); err != nil {
		t.Fatalf("Load after trusting again: %v", err)
	}

	// Added: untrusted again.
	write(t, s.ProjectDir, "more.json", recipeJSON("more", "example.com"))
	_, err = s.Load("proj")
	if ue := untrusted(t, err); !reflect.DeepEqual(ue.Changed, []string{"more.json (added)"}) {
		t.Errorf("Changed = %v", ue.Changed)
	}
	if _, _, err := s.Trust(s.ProjectDir); err != nil {
		t.Fatal(err)
	}

	// Removed: untrusted again.
	os.Remove(filepath.Join(s.ProjectDir, "more.json"))
	_, err = s.Load("proj")
	if ue := untrusted(t, err); !reflect.DeepEqual(ue.Changed, []string{"more.json (removed)"}) {
		t.Errorf("Changed = %v", ue.Changed)
	}
}

func TestTrustSymlinks(t *testing.T) {
	s := testStore(t)
	outside := t.TempDir()
	write(t, outside, "evil.json", recipeJSON("evil", "example.com"))
	write(t, s.ProjectDir, "real.json", recipeJSON("real", "example.com"))
	if err := os.Symlink(filepath.Join(outside, "evil.json"), filepath.Join(s.ProjectDir, "evil.json")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	var le *LinkError
	if _, _, err := s.Trust(s.ProjectDir); !errors.As(err, &le) || !strings.Contains(err.Error(), "evil.json (links to ") {
		t.Fatalf("Trust with a link out: %v, want a *LinkError naming evil.json", err)
	}
	if _, err := s.Load("evil"); !errors.As(err, &le) {
		t.Errorf("Load of the link: %v, want a *LinkError", err)
	}
	l, err := s.List()
	if err != nil || !errors.As(l.ProjectErr, &le) {
		t.Errorf("List: %v, ProjectErr %v", err, l.ProjectErr)
	}

	// A link inside the folder is fine.
	os.Remove(filepath.Join(s.ProjectDir, "evil.json"))
	if err := os.Symlink("real.json", filepath.Join(s.ProjectDir, "alias.json")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Trust(s.ProjectDir); err != nil {
		t.Fatalf("Trust with a link inside: %v", err)
	}
	// alias.json holds the recipe "real": its name does not match.
	if _, err := s.Load("alias"); err == nil || !strings.Contains(err.Error(), `name: "real" does not match the file name "alias.json"`) {
		t.Errorf("Load(alias): %v", err)
	}
	if _, err := s.Load("real"); err != nil {
		t.Errorf("Load(real): %v", err)
	}

	// The trusted folder reached through a link to it is the same folder.
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(s.ProjectDir, link); err != nil {
		t.Fatal(err)
	}
	s2 := *s
	s2.ProjectDir = link
	if _, err := s2.Load("real"); err != nil {
		t.Errorf("Load through a link to the folder: %v", err)
	}
}

func TestShadowing(t *testing.T) {
	s := testStore(t)
	write(t, s.UserDir, "both.json", recipeJSON("both", "user.example"))
	write(t, s.UserDir, "mine.json", recipeJSON("mine", "user.example"))
	write(t, s.ProjectDir, "both.json", recipeJSON("both", "project.example"))

	// Untrusted project: the user's recipe is used.
	r, err := s.Load("both")
	if err != nil || r.Site != "user.example" || r.Source != SourceUser {
		t.Fatalf("Load(both) untrusted: %v, %+v", err, r)
	}
	l, _ := s.List()
	got := func() []string {
		var out []string
		for _, e := range l.Entries {
			out = append(out, string(e.Source)+":"+e.Name+":"+map[bool]string{true: "trusted", false: "untrusted"}[e.Trusted]+map[bool]string{true: ":shadowed"}[e.Shadowed])
		}
		return out
	}
	if want := []string{"project:both:untrusted:shadowed", "user:both:trusted", "user:mine:trusted"}; !reflect.DeepEqual(got(), want) {
		t.Errorf("List = %v, want %v", got(), want)
	}

	// Trusted: the project's wins.
	if _, _, err := s.Trust(s.ProjectDir); err != nil {
		t.Fatal(err)
	}
	r, err = s.Load("both")
	if err != nil || r.Site != "project.example" || r.Source != SourceProject {
		t.Fatalf("Load(both) trusted: %v, %+v", err, r)
	}
	l, _ = s.List()
	if want := []string{"project:both:trusted", "user:both:trusted:shadowed", "user:mine:trusted"}; !reflect.DeepEqual(got(), want) {
		t.Errorf("List = %v, want %v", got(), want)
	}

	if _, err := s.Load("nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load(nothing) = %v, want ErrNotFound", err)
	}
	// An invalid file is listed with its problems, and Load says them.
	write(t, s.UserDir, "bad.json", `{"name": "bad", "site": "example.com", "steps": [{"do": "action", "selector": ""}]}`)
	if _, err := s.Load("bad"); err == nil || !strings.Contains(err.Error(), `bad.json: step 1 (action): "selector": must be a non-empty string`) {
		t.Errorf("Load(bad) = %v", err)
	}
	l, _ = s.List()
	if l.Entries[0].Name != "bad" || l.Entries[0].Err == nil {
		t.Errorf("List: %+v", l.Entries[0])
	}
}

func TestSave(t *testing.T) {
	s := testStore(t)
	r, err := Parse("", []byte(recipeJSON("site-a", "a.example")))
	if err != nil {
		t.Fatal(err)
	}
	path, err := s.Save(r)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	if path != filepath.Join(s.UserDir, "site-a.json") {
		t.Errorf("path = %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("file: %v %v", err, fi.Mode())
	}
	first, _ := os.ReadFile(path)
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a .bak without a previous version: %v", err)
	}

	// Saving again keeps the previous version.
	r.Description = "second"
	r.Steps[1].Candidates = json.RawMessage(`{"css": ["#x"]}`)
	if _, err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	bak, _ := os.ReadFile(path + ".bak")
	if string(bak) != string(first) {
		t.Errorf(".bak = %s, want the first version %s", bak, first)
	}
	got, err := s.Load("site-a")
	if err != nil || got.Description != "second" || string(got.Steps[1].Candidates) != `{"css": ["#x"]}` && !strings.Contains(string(got.Steps[1].Candidates), `"#x"`) {
		t.Errorf("Load after save: %v, %+v", err, got)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(s.UserDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"site-a.json", "site-a.json.bak"}) {
		t.Errorf("folder holds %v", names)
	}

	// A file that is not a recipe is never overwritten.
	write(t, s.UserDir, "notes.json", `{"todo": ["buy socks"]}`)
	n, _ := Parse("", []byte(recipeJSON("notes", "a.example")))
	if _, err := s.Save(n); err == nil || !strings.Contains(err.Error(), "is not a recipe file; not overwritten") {
		t.Errorf("Save over a non-recipe: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.UserDir, "notes.json")); string(b) != `{"todo": ["buy socks"]}` {
		t.Errorf("notes.json = %s", b)
	}
	// An invalid recipe is not written.
	r.Output = []string{"nothing"}
	if _, err := s.Save(r); err == nil || !strings.Contains(err.Error(), `output: "nothing" is not a save_as name`) {
		t.Errorf("Save of an invalid recipe: %v", err)
	}
	r.Output = nil

	// Project recipes: refused while the folder is untrusted; saving into a
	// trusted one keeps it trusted.
	write(t, s.ProjectDir, "proj.json", recipeJSON("proj", "p.example"))
	p, _ := Parse("", []byte(recipeJSON("proj", "p.example")))
	p.Source = SourceProject
	if _, err := s.Save(p); err == nil {
		t.Error("Save into an untrusted project folder worked")
	} else {
		untrusted(t, err)
	}
	if _, _, err := s.Trust(s.ProjectDir); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.Load("proj")
	if err != nil {
		t.Fatal(err)
	}
	loaded.Description = "healed"
	if _, err := s.Save(loaded); err != nil {
		t.Fatalf("Save into the trusted project folder: %v", err)
	}
	again, err := s.Load("proj")
	if err != nil || again.Description != "healed" {
		t.Errorf("Load after a project save: %v, %+v", err, again)
	}
	if _, err := os.Stat(filepath.Join(s.ProjectDir, "proj.json.bak")); err != nil {
		t.Errorf("project .bak: %v", err)
	}
}

// Folders trusted at the same time are all recorded.
func TestTrustConcurrent(t *testing.T) {
	trustFile := filepath.Join(t.TempDir(), "trust.json")
	var dirs []string
	for range 8 {
		d := filepath.Join(t.TempDir(), "recipes")
		write(t, d, "r.json", recipeJSON("r", "example.com"))
		dirs = append(dirs, d)
	}
	errs := make(chan error, len(dirs))
	for _, d := range dirs {
		go func() {
			s := &Store{UserDir: t.TempDir(), ProjectDir: d, TrustFile: trustFile}
			_, _, err := s.Trust(d)
			errs <- err
		}()
	}
	for range dirs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		s := &Store{UserDir: t.TempDir(), ProjectDir: d, TrustFile: trustFile}
		if st, err := s.ProjectTrust(); err != nil || !st.Trusted {
			t.Errorf("%s: trusted %v, %v", d, st.Trusted, err)
		}
	}
}

// A trust.json that does not read leaves the project untrusted and the
// user's recipes usable.
func TestTrustFileBroken(t *testing.T) {
	s := testStore(t)
	write(t, s.UserDir, "mine.json", recipeJSON("mine", "example.com"))
	write(t, s.ProjectDir, "proj.json", recipeJSON("proj", "example.com"))
	write(t, filepath.Dir(s.TrustFile), filepath.Base(s.TrustFile), "{broken")
	l, err := s.List()
	if err != nil || l.ProjectErr == nil || !strings.Contains(l.ProjectErr.Error(), "trust.json") {
		t.Fatalf("List: %v, ProjectErr %v", err, l.ProjectErr)
	}
	if len(l.Entries) != 2 || l.Entries[0].Name != "mine" || !l.Entries[0].Trusted || l.Entries[1].Trusted {
		t.Errorf("entries: %+v", l.Entries)
	}
	if _, err := s.Load("mine"); err != nil {
		t.Errorf("Load(mine): %v", err)
	}
	if _, err := s.Load("proj"); err == nil {
		t.Error("Load(proj) worked with a broken trust.json")
	}
}

// The user's own folder may link recipes from elsewhere.
func TestUserFolderLinks(t *testing.T) {
	s := testStore(t)
	outside := t.TempDir()
	write(t, outside, "dot.json", recipeJSON("dot", "example.com"))
	os.MkdirAll(s.UserDir, 0o755)
	if err := os.Symlink(filepath.Join(outside, "dot.json"), filepath.Join(s.UserDir, "dot.json")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	l, err := s.List()
	if err != nil || len(l.Entries) != 1 || l.Entries[0].Recipe == nil {
		t.Fatalf("List: %v, %+v", err, l)
	}
	if _, err := s.Load("dot"); err != nil {
		t.Errorf("Load: %v", err)
	}
}
