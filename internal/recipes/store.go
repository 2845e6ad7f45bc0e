package recipes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Source is where a recipe comes from.
type Source string

// The sources of recipes.
const (
	// SourceUser is the user's recipe folder (--recipes): always usable.
	SourceUser Source = "user"
	// SourceProject is the project folder ./.webpilot/recipes of the
	// working directory: usable only while trusted.
	SourceProject Source = "project"
)

// ProjectSubdir is the project recipe folder, relative to the working
// directory.
var ProjectSubdir = filepath.Join(".webpilot", "recipes")

// ErrNotFound is the error (wrapped) for a recipe no folder has.
var ErrNotFound = errors.New("no such recipe")

// DefaultUserDir is the user's recipe folder: <user config dir>/webpilot/
// recipes.
func DefaultUserDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config dir: %w", err)
	}
	return filepath.Join(dir, "webpilot", "recipes"), nil
}

// DefaultTrustFile is where trusted project folders are recorded:
// <user config dir>/webpilot/trust.json.
func DefaultTrustFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config dir: %w", err)
	}
	return filepath.Join(dir, "webpilot", "trust.json"), nil
}

// Store finds, loads and saves recipes in the user's folder and the
// project's. Names are unique per folder; when both folders have a name,
// the project's recipe wins while its folder is trusted, and the user's is
// used otherwise (List shows both, the losing one Shadowed).
type Store struct {
	UserDir    string // the user's recipes
	ProjectDir string // the project's recipes; "" for none
	TrustFile  string // trust.json
	// Now is the clock of trust records; nil: time.Now.
	Now func() time.Time
}

// NewStore is the store of userDir ("" for DefaultUserDir) and the project
// folder of workDir ("" for none), with the default trust file.
func NewStore(userDir, workDir string) (*Store, error) {
	s := &Store{UserDir: userDir}
	var err error
	if s.UserDir == "" {
		if s.UserDir, err = DefaultUserDir(); err != nil {
			return nil, err
		}
	}
	if s.UserDir, err = filepath.Abs(s.UserDir); err != nil {
		return nil, fmt.Errorf("recipe folder: %w", err)
	}
	if workDir != "" {
		if s.ProjectDir, err = filepath.Abs(filepath.Join(workDir, ProjectSubdir)); err != nil {
			return nil, fmt.Errorf("project recipe folder: %w", err)
		}
	}
	if s.TrustFile, err = DefaultTrustFile(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Entry is one recipe file of a folder.
type Entry struct {
	Name   string // the file's name less .json
	Source Source
	Path   string
	// Trusted: the recipe may run (a user recipe, or a project recipe of a
	// trusted folder).
	Trusted bool
	// Shadowed: the other folder's recipe of the same name is the one
	// used.
	Shadowed bool
	Recipe   *Recipe // nil when Err is set
	Err      error   // the file does not check: a *ValidationError, or why it could not be read
}

// Listing is every recipe of a store.
type Listing struct {
	// Entries are sorted by name, the project's before the user's.
	Entries []Entry
	// ProjectErr is why the project's recipes may not run (an
	// *UntrustedError or a *LinkError); nil when trusted or absent.
	ProjectErr error
}

// LoadDir reads and checks every recipe file of dir (NAME.json, links
// followed; a missing dir has none).
func LoadDir(dir string) ([]Entry, error) {
	files, err := scanFolder(dir, true)
	if err != nil {
		return nil, err
	}
	return entriesOf(files, ""), nil
}

func entriesOf(files []folderFile, src Source) []Entry {
	out := make([]Entry, 0, len(files))
	for _, f := range files {
		e := Entry{Name: f.name[:len(f.name)-len(".json")], Source: src, Path: f.path}
		if r, err := Parse(f.path, f.data); err != nil {
			e.Err = err
		} else {
			r.Source = src
			e.Recipe = r
		}
		out = append(out, e)
	}
	return out
}

// List lists the recipes of both folders.
func (s *Store) List() (*Listing, error) {
	l := &Listing{}
	// The user's own folder may link recipes from elsewhere (a dotfiles
	// repository).
	userFiles, err := scanFolder(s.UserDir, true)
	if err != nil {
		return nil, err
	}
	user := entriesOf(userFiles, SourceUser)
	for i := range user {
		user[i].Trusted = true
	}
	var project []Entry
	if s.ProjectDir != "" {
		// A project folder that cannot be checked (a link out of it, an
		// unreadable trust.json) is untrusted; the user's recipes stay
		// usable.
		st, err := checkTrust(s.TrustFile, s.ProjectDir)
		project = entriesOf(st.files, SourceProject)
		for i := range project {
			project[i].Trusted = err == nil && st.Trusted
		}
		switch {
		case err != nil:
			l.ProjectErr = err
		case len(project) > 0:
			l.ProjectErr = st.Err()
		}
	}
	byName := map[string]int{}
	for i, e := range project {
		byName[e.Name] = i
	}
	for i, e := range user {
		if j, ok := byName[e.Name]; ok {
			if project[j].Trusted {
				user[i].Shadowed = true
			} else {
				project[j].Shadowed = true
			}
		}
	}
	l.Entries = append(project, user...)
	sort.SliceStable(l.Entries, func(i, j int) bool { return l.Entries[i].Name < l.Entries[j].Name })
	return l, nil
}

// Load finds the recipe named name: the project's while its folder is
// trusted, else the user's. A project recipe of an untrusted folder (and
// no user recipe of its name) is an *UntrustedError; a file that does not
// check, a *ValidationError; no recipe, ErrNotFound (wrapped).
func (s *Store) Load(name string) (*Recipe, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: %q is not a recipe name (lower-case letters, digits, - _ and .)", ErrNotFound, name)
	}
	file := name + ".json"
	var projectErr error
	if s.ProjectDir != "" {
		st, err := checkTrust(s.TrustFile, s.ProjectDir)
		if err != nil {
			if _, serr := os.Lstat(filepath.Join(s.ProjectDir, file)); serr == nil {
				projectErr = err
			}
		}
		for _, f := range st.files {
			if f.name != file {
				continue
			}
			if err != nil {
				projectErr = err
				break
			}
			if !st.Trusted {
				projectErr = st.Err()
				break
			}
			r, err := Parse(f.path, f.data)
			if err != nil {
				return nil, err
			}
			r.Source = SourceProject
			return r, nil
		}
	}
	path := filepath.Join(s.UserDir, file)
	r, err := LoadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if projectErr != nil {
			return nil, projectErr
		}
		where := s.UserDir
		if s.ProjectDir != "" {
			where += " and " + s.ProjectDir
		}
		return nil, fmt.Errorf("%w %q (looked in %s)", ErrNotFound, name, where)
	}
	if err != nil {
		return nil, err
	}
	r.Source = SourceUser
	return r, nil
}

// ProjectTrust is whether the project folder is trusted now.
func (s *Store) ProjectTrust() (TrustState, error) {
	if s.ProjectDir == "" {
		return TrustState{}, errors.New("no project recipe folder")
	}
	return checkTrust(s.TrustFile, s.ProjectDir)
}

// Trust records dir's recipe files, as they are now, as trusted; it
// returns the folder's canonical path and the files trusted. A folder with
// recipe files linking out of it is refused (*LinkError).
func (s *Store) Trust(dir string) (string, []string, error) {
	return trustFolder(s.TrustFile, dir, s.now())
}

// Save writes r to <folder>/<name>.json atomically (a temporary file
// renamed over it), keeping the file it replaces as <name>.json.bak. The
// folder is the project's when r came from it (it must be trusted; the
// trust record then takes the new file, so that webpilot's own writes keep
// the folder trusted), else the user's (created, files 0644). r must check
// (a *ValidationError otherwise), and a file there that is not a recipe, or
// a link, is never overwritten. It returns the path written.
func (s *Store) Save(r *Recipe) (string, error) {
	if r.Version == 0 {
		r.Version = FormatVersion
	}
	data, err := r.JSON()
	if err != nil {
		return "", err
	}
	dir := s.UserDir
	var st TrustState
	if r.Source == SourceProject {
		if s.ProjectDir == "" {
			return "", errors.New("save recipe: no project recipe folder")
		}
		if st, err = checkTrust(s.TrustFile, s.ProjectDir); err != nil {
			return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
		}
		if !st.Trusted {
			return "", fmt.Errorf("save recipe %s: %w", r.Name, st.Err())
		}
		dir = st.Dir
	}
	path := filepath.Join(dir, r.Name+".json")
	if _, err := Parse(path, data); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("save recipe %s: %s is not a regular file (a link or a folder); not overwritten", r.Name, path)
	default:
		old, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
		}
		if !looksLikeRecipe(old) {
			return "", fmt.Errorf("save recipe %s: %s is not a recipe file; not overwritten (move it away first)", r.Name, path)
		}
		bak := path + ".bak"
		if bfi, err := os.Lstat(bak); err == nil && !bfi.Mode().IsRegular() {
			return "", fmt.Errorf("save recipe %s: %s is not a regular file; not overwritten", r.Name, bak)
		}
		if err := writeAtomic(bak, old, 0o644); err != nil {
			return "", fmt.Errorf("save recipe %s: keep the previous version: %w", r.Name, err)
		}
	}
	if err := writeAtomic(path, data, 0o644); err != nil {
		return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
	}
	if r.Source == SourceProject {
		sums := sumsOf(st.files)
		sums[r.Name+".json"] = sumOf(data)
		if err := updateTrust(s.TrustFile, st.Dir, sums, s.now()); err != nil {
			return "", fmt.Errorf("save recipe %s: %w", r.Name, err)
		}
	}
	r.Path = path
	return path, nil
}

// looksLikeRecipe reports whether data is a recipe file, well formed or
// not: a JSON object with a name and steps.
func looksLikeRecipe(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, name := m["name"]
	_, steps := m["steps"]
	return name && steps
}
