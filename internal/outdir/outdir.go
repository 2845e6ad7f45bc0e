// Package outdir keeps webpilot's output directory: the files and folders
// webpilot writes there (screenshots, saved bodies, downloads), a manifest
// of what it owns, and a size budget kept by removing the oldest finished
// entries it owns. It never removes an entry that is still being written or
// read, and never anything it did not create.
//
// Several webpilot processes may share one directory: the manifest is
// changed under a file lock, and an entry busy in another process stays
// while that process lives (each process holds a presence lock while it
// has busy entries).
package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

// Names in the output directory.
const (
	// ManifestFile records the entries webpilot owns.
	ManifestFile = ".webpilot-manifest.json"
	// lockFile guards the manifest.
	lockFile = ".webpilot-manifest.lock"
	// presencePrefix names a process's presence lock: held while the
	// process has busy entries, so that others know it lives.
	presencePrefix = ".webpilot-busy-"
)

// Entry is one file or folder webpilot created directly in the directory.
type Entry struct {
	Name    string    `json:"name"`
	Size    int64     `json:"size"`
	Created time.Time `json:"created"`
	// Owner is the client the entry was written for ("": any client of
	// the process; see OwnerOf).
	Owner string `json:"owner,omitempty"`
	// Busy is the pid of the process writing or reading it; 0 when done.
	Busy int `json:"busy,omitempty"`
}

type manifest struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// FullError says that what is to be written does not fit the budget, even
// after removing every finished entry webpilot owns.
type FullError struct {
	Dir             string
	Used, Need, Max int64
}

func (e *FullError) Error() string {
	return fmt.Sprintf("the output directory %s holds %s of webpilot's files that cannot be removed now (being written or read); %s more would pass its %s budget",
		e.Dir, Size(e.Used), Size(e.Need), Size(e.Max))
}

// Dir is an output directory with its budget. Its methods are safe for
// concurrent use.
type Dir struct {
	path string
	max  int64
	seq  atomic.Int64

	mu       sync.Mutex     // guards holds and presence
	holds    map[string]int // entry name → this process's writers and readers
	presence *filelock.Lock
	swept    sync.Once // stale presence locks removed
}

// New is the directory at path with a budget of maxBytes (≤ 0: no budget).
// Nothing is created until the first write.
func New(path string, maxBytes int64) *Dir {
	return &Dir{path: path, max: maxBytes, holds: make(map[string]int)}
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Max is the budget in bytes (≤ 0: none).
func (d *Dir) Max() int64 { return d.max }

// name is a fresh entry name: kind-YYYYMMDD-HHMMSS-n, plus ext.
func (d *Dir) name(kind, ext string) string {
	n := fmt.Sprintf("%s-%s-%d", kind, time.Now().Format("20060102-150405"), d.seq.Add(1))
	if ext = strings.TrimPrefix(ext, "."); ext != "" {
		n += "." + ext
	}
	return n
}

// fresh calls create with a new name after kind (and ext) until it does
// not find it taken: another process (a second daemon, a test binary)
// writing to the same directory in the same second numbers its own the
// same way.
func (d *Dir) fresh(kind, ext string, create func(name string) error) error {
	var err error
	for range 1000 {
		if err = create(d.name(kind, ext)); !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return err
}

// Save writes data to a new file named after kind (and ext) for owner (a
// client; "" for any), making room for it first; the path is returned.
func (d *Dir) Save(owner, kind, ext string, data []byte) (string, error) {
	var path string
	err := d.update(func(m *manifest) error {
		if err := d.makeRoom(m, int64(len(data)), ""); err != nil {
			return err
		}
		var name string
		var f *os.File
		err := d.fresh(kind, ext, func(n string) error {
			name, path = n, filepath.Join(d.path, n)
			var err error
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			return err
		})
		if err != nil {
			return fmt.Errorf("save %s: %w", name, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return fmt.Errorf("save %s: %w", name, err)
		}
		m.Entries = append(m.Entries, Entry{Name: name, Size: int64(len(data)), Created: time.Now().UTC(), Owner: owner})
		return nil
	})
	return path, err
}

// NewFolder creates a fresh folder named after kind for one call's files
// (for owner, as Save), which go in through Reserve; its path is returned.
func (d *Dir) NewFolder(owner, kind string) (string, error) {
	var path string
	err := d.update(func(m *manifest) error {
		var name string
		err := d.fresh(kind, "", func(n string) error {
			name, path = n, filepath.Join(d.path, n)
			return os.Mkdir(path, 0o700)
		})
		if err != nil {
			return fmt.Errorf("create folder %s: %w", name, err)
		}
		m.Entries = append(m.Entries, Entry{Name: name, Created: time.Now().UTC(), Owner: owner})
		return nil
	})
	return path, err
}

// Reserve makes room for n more bytes in the folder at path, made by
// NewFolder, removing older finished entries if needed (a *FullError when
// they cannot make room). The folder is busy until done is called, which
// records its size. A folder that was removed to make room since is made
// again.
func (d *Dir) Reserve(folder string, n int64) (done func(), err error) {
	name := d.entryOf(folder)
	if name == "" || name != filepath.Base(folder) || !validName(name) {
		return nil, fmt.Errorf("output directory: %s is not a folder of its own", folder)
	}
	err = d.update(func(m *manifest) error {
		if !slices.ContainsFunc(m.Entries, func(e Entry) bool { return e.Name == name }) {
			if _, err := os.Lstat(folder); err == nil {
				return fmt.Errorf("output directory: %s is not webpilot's", folder)
			}
			if err := os.Mkdir(folder, 0o700); err != nil {
				return fmt.Errorf("create folder %s: %w", name, err)
			}
			m.Entries = append(m.Entries, Entry{Name: name, Created: time.Now().UTC()})
		}
		if err := d.makeRoom(m, n, name); err != nil {
			return err
		}
		if err := d.hold(name); err != nil {
			return err
		}
		for i := range m.Entries {
			if m.Entries[i].Name == name {
				m.Entries[i].Busy = os.Getpid()
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = d.update(func(m *manifest) error {
				last := d.release(name)
				for i := range m.Entries {
					if m.Entries[i].Name == name {
						m.Entries[i].Size = treeSize(folder)
						if last {
							m.Entries[i].Busy = 0
						}
					}
				}
				return nil
			})
		})
	}, nil
}

// Hold keeps the owned entry that holds path from being removed until
// release is called (a file being read, an upload). A path that is not in
// an owned entry holds nothing.
func (d *Dir) Hold(path string) (release func(), err error) {
	name := d.entryOf(path)
	if name == "" {
		return func() {}, nil
	}
	owned := false
	err = d.update(func(m *manifest) error {
		for i := range m.Entries {
			if m.Entries[i].Name == name {
				if err := d.hold(name); err != nil {
					return err
				}
				owned = true
				m.Entries[i].Busy = os.Getpid()
			}
		}
		return nil
	})
	if err != nil || !owned {
		return func() {}, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = d.update(func(m *manifest) error {
				if d.release(name) {
					for i := range m.Entries {
						if m.Entries[i].Name == name {
							m.Entries[i].Busy = 0
						}
					}
				}
				return nil
			})
		})
	}, nil
}

// Entries are the entries webpilot owns now, oldest first.
func (d *Dir) Entries() ([]Entry, error) {
	var out []Entry
	err := d.update(func(m *manifest) error {
		out = slices.Clone(m.Entries)
		return nil
	})
	return out, err
}

// OwnerOf is the owner of the entry that holds path, as Save or NewFolder
// recorded it: "" for a path outside the directory, an entry webpilot did
// not write (a file the user put there) or one written for any client.
func (d *Dir) OwnerOf(path string) (string, error) {
	name := d.entryOf(path)
	if name == "" {
		return "", nil
	}
	var owner string
	err := d.update(func(m *manifest) error {
		for _, e := range m.Entries {
			if e.Name == name {
				owner = e.Owner
			}
		}
		return nil
	})
	return owner, err
}

// entryOf is the name of the directory's top-level entry that holds path,
// or "" when path is not inside the directory.
func (d *Dir) entryOf(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	root, err := filepath.Abs(d.path)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		// (a path with the links of the directory's own path resolved)
		real, rerr := filepath.EvalSymlinks(root)
		if rerr != nil || real == root {
			return ""
		}
		if rel, err = filepath.Rel(real, abs); err != nil || rel == "." || !filepath.IsLocal(rel) {
			return ""
		}
	}
	return strings.Split(filepath.ToSlash(rel), "/")[0]
}

// hold counts one more holder of name in this process and keeps the
// process's presence lock.
func (d *Dir) hold(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.presence == nil {
		l, ok, err := filelock.Try(filepath.Join(d.path, fmt.Sprintf("%s%d.lock", presencePrefix, os.Getpid())))
		if err != nil {
			return fmt.Errorf("output directory: %w", err)
		}
		if ok {
			d.presence = l
		}
	}
	d.holds[name]++
	return nil
}

// release drops one holder of name; true when none is left.
func (d *Dir) release(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.holds[name] > 1 {
		d.holds[name]--
		return false
	}
	delete(d.holds, name)
	if len(d.holds) == 0 && d.presence != nil {
		// Nothing busy left: the presence lock goes with its file (under
		// the manifest lock, like its making and the sweep), so that no
		// .webpilot-busy file outlives a process that exits cleanly.
		_ = os.Remove(filepath.Join(d.path, fmt.Sprintf("%s%d.lock", presencePrefix, os.Getpid())))
		d.presence.Release()
		d.presence = nil
	}
	return true
}

// busy reports whether e is being written or read now.
func (d *Dir) busy(e Entry) bool {
	if e.Busy == 0 {
		return false
	}
	if e.Busy == os.Getpid() {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.holds[e.Name] > 0
	}
	p := filepath.Join(d.path, fmt.Sprintf("%s%d.lock", presencePrefix, e.Busy))
	if _, err := os.Lstat(p); err != nil {
		return false // that process never held one, or is gone and swept
	}
	return filelock.Held(p)
}

// update runs fn on the manifest under the directory's lock and writes the
// manifest back when fn succeeds.
func (d *Dir) update(fn func(*manifest) error) error {
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return fmt.Errorf("create the output directory: %w", err)
	}
	l, err := acquire(filepath.Join(d.path, lockFile))
	if err != nil {
		return err
	}
	defer l.Release()
	d.swept.Do(d.sweep)
	m, err := d.load()
	if err != nil {
		return err
	}
	fnErr := fn(m)
	if err := d.store(m); err != nil {
		return err
	}
	return fnErr
}

// acquire takes the manifest lock, waiting up to 10 s.
func acquire(path string) (*filelock.Lock, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, ok, err := filelock.Try(path)
		if err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		if ok {
			return l, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("output directory: the manifest lock %s stayed taken for 10 s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sweep removes the presence locks of processes that are gone.
func (d *Dir) sweep() {
	des, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, de := range des {
		if n := de.Name(); strings.HasPrefix(n, presencePrefix) && strings.HasSuffix(n, ".lock") && n != fmt.Sprintf("%s%d.lock", presencePrefix, os.Getpid()) {
			if p := filepath.Join(d.path, n); !filelock.Held(p) {
				_ = os.Remove(p)
			}
		}
	}
}

// load reads the manifest, dropping entries that are gone from disk.
func (d *Dir) load() (*manifest, error) {
	m := &manifest{Version: 1}
	b, err := os.ReadFile(filepath.Join(d.path, ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("read the output manifest: %w", err)
	}
	if err := json.Unmarshal(b, m); err != nil {
		// A damaged manifest loses track of entries: they are kept (never
		// removed as not ours) and a fresh manifest starts.
		return &manifest{Version: 1}, nil
	}
	m.Entries = slices.DeleteFunc(m.Entries, func(e Entry) bool {
		if !validName(e.Name) {
			return true
		}
		_, err := os.Lstat(filepath.Join(d.path, e.Name))
		return errors.Is(err, fs.ErrNotExist)
	})
	return m, nil
}

// store writes the manifest atomically.
func (d *Dir) store(m *manifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("encode the output manifest: %w", err)
	}
	tmp, err := os.CreateTemp(d.path, ManifestFile+".*")
	if err != nil {
		return fmt.Errorf("write the output manifest: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(d.path, ManifestFile))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write the output manifest: %w", err)
	}
	return nil
}

// makeRoom removes the oldest finished entries (never keep, never a busy
// one) until need more bytes fit the budget; a *FullError when they
// cannot.
func (d *Dir) makeRoom(m *manifest, need int64, keep string) error {
	if d.max <= 0 {
		return nil
	}
	var used int64
	for i, e := range m.Entries {
		if d.busy(e) {
			// Its size grows while it is written.
			m.Entries[i].Size = treeSize(filepath.Join(d.path, e.Name))
		}
		used += m.Entries[i].Size
	}
	if used+need <= d.max {
		return nil
	}
	order := slices.Clone(m.Entries)
	slices.SortStableFunc(order, func(a, b Entry) int { return a.Created.Compare(b.Created) })
	gone := map[string]bool{}
	for _, e := range order {
		if used+need <= d.max {
			break
		}
		if e.Name == keep || d.busy(e) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.path, e.Name)); err != nil {
			continue
		}
		gone[e.Name] = true
		used -= e.Size
	}
	m.Entries = slices.DeleteFunc(m.Entries, func(e Entry) bool { return gone[e.Name] })
	if used+need <= d.max {
		return nil
	}
	return &FullError{Dir: d.path, Used: used, Need: need, Max: d.max}
}

// validName is a plain name directly in the directory.
func validName(name string) bool {
	return name != "" && name == filepath.Base(name) && filepath.IsLocal(name) && !strings.HasPrefix(name, ".webpilot-")
}

// treeSize is the size of the regular files at or under path (symbolic
// links are not followed).
func treeSize(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if de.Type().IsRegular() {
			if fi, err := de.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Size is n bytes for a reader: 512 B, 3.4 KB, 12.0 MB.
func Size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
