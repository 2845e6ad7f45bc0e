package recipes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

// TrustFileVersion is the format of trust.json.
const TrustFileVersion = 1

// trustLockWait bounds the wait for trust.json's lock.
const trustLockWait = 10 * time.Second

// TrustFile is trust.json: the project folders the user trusted.
type TrustFile struct {
	Version int                      `json:"version"`
	Folders map[string]TrustedFolder `json:"folders"` // by absolute, symlink-free path
}

// TrustedFolder is one trusted folder as it was when trusted.
type TrustedFolder struct {
	// SHA256 is the folder's hash (FolderHash) when trusted.
	SHA256 string `json:"sha256"`
	// Files are the SHA-256 of each recipe file by name, to say which
	// changed.
	Files     map[string]string `json:"files"`
	TrustedAt time.Time         `json:"trusted_at"`
}

// folderFile is a recipe file of a folder, as read for hashing.
type folderFile struct {
	name string // base name, <recipe>.json
	path string
	data []byte
	sum  string // hex SHA-256 of data
}

// isRecipeFileName reports whether a folder entry named name is a recipe
// file: NAME.json, not hidden (temporary files start with a dot).
func isRecipeFileName(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") && len(name) > len(".json")
}

// scanFolder reads the recipe files of dir, links followed; unless
// linksOut, a recipe file whose link leads out of dir is a *LinkError
// naming it (project folders: what is trusted is the folder's content). A
// missing dir has no files.
func scanFolder(dir string, linksOut bool) ([]folderFile, error) {
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read recipe folder: %w", err)
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return nil, fmt.Errorf("read recipe folder: %w", err)
	}
	var files []folderFile
	var escapes []string
	for _, e := range entries {
		if !isRecipeFileName(e.Name()) {
			continue
		}
		p := filepath.Join(real, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil, fmt.Errorf("recipe file %s: a link that does not resolve: %w", p, err)
			}
			if !linksOut && outside(real, target) {
				escapes = append(escapes, fmt.Sprintf("%s (links to %s)", e.Name(), target))
				continue
			}
			p = target
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("recipe file: %w", err)
		}
		if !fi.Mode().IsRegular() {
			continue // a directory named x.json
		}
		if fi.Size() > MaxFileSize {
			return nil, fmt.Errorf("recipe file %s is %d bytes; a recipe is at most %d", filepath.Join(dir, e.Name()), fi.Size(), MaxFileSize)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("recipe file: %w", err)
		}
		sum := sha256.Sum256(data)
		files = append(files, folderFile{name: e.Name(), path: filepath.Join(dir, e.Name()), data: data, sum: hex.EncodeToString(sum[:])})
	}
	if len(escapes) > 0 {
		return nil, &LinkError{Dir: dir, Files: escapes}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// outside reports whether path is not inside dir (both without links).
func outside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

// LinkError is a recipe folder with recipe files that are symbolic links
// leading out of it: such a folder is never trusted.
type LinkError struct {
	Dir   string
	Files []string // "x.json (links to /elsewhere/x.json)"
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("recipe folder %s: recipe files may not link out of the folder: %s (copy them in instead)", e.Dir, strings.Join(e.Files, ", "))
}

// FolderHash is the SHA-256 over a folder's recipe files: for each file, in
// name order, its name, a newline, the hex SHA-256 of its contents and a
// newline. sums are the files' SHA-256 by name.
func FolderHash(sums map[string]string) string {
	names := sortedKeys(sums)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\n%s\n", n, sums[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sumsOf(files []folderFile) map[string]string {
	sums := make(map[string]string, len(files))
	for _, f := range files {
		sums[f.name] = f.sum
	}
	return sums
}

// canonicalDir is dir absolute and with its links resolved (as far as it
// exists): the key of trust.json.
func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("recipe folder %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

// readTrust reads trust.json (empty when there is none).
func readTrust(path string) (*TrustFile, error) {
	tf := &TrustFile{Version: TrustFileVersion, Folders: map[string]TrustedFolder{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trusted recipe folders: %w", err)
	}
	if err := json.Unmarshal(b, tf); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it and trust the folders again)", path, err)
	}
	if tf.Folders == nil {
		tf.Folders = map[string]TrustedFolder{}
	}
	return tf, nil
}

// writeTrust writes trust.json atomically, readable by the user only.
func writeTrust(path string, tf *TrustFile) error {
	b, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return fmt.Errorf("write the trusted recipe folders: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write the trusted recipe folders: %w", err)
	}
	return writeAtomic(path, append(b, '\n'), 0o600)
}

// TrustState is whether a project folder is trusted now.
type TrustState struct {
	Dir     string // canonical path
	Trusted bool
	// Known: the folder was trusted once (and changed since when not
	// Trusted).
	Known bool
	// Changed are the files that differ from when the folder was trusted:
	// "x.json (edited)", "y.json (added)", "z.json (removed)".
	Changed []string
	files   []folderFile
}

// UntrustedError is a project folder whose recipes may not run: never
// trusted, or changed since.
type UntrustedError struct {
	Dir     string
	Changed []string // as TrustState.Changed; empty: never trusted
}

func (e *UntrustedError) Error() string {
	if len(e.Changed) > 0 {
		return fmt.Sprintf("the project recipes in %s changed since you trusted them (%s); review them, then run `%s`", e.Dir, strings.Join(e.Changed, ", "), e.Hint())
	}
	return fmt.Sprintf("the project recipes in %s are not trusted; review them, then run `%s`", e.Dir, e.Hint())
}

// Hint is the command that trusts the folder.
func (e *UntrustedError) Hint() string { return "webpilot recipe trust " + shellQuote(e.Dir) }

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Err is the state as an error: nil when trusted, else an *UntrustedError.
func (st TrustState) Err() error {
	if st.Trusted {
		return nil
	}
	return &UntrustedError{Dir: st.Dir, Changed: st.Changed}
}

// checkTrust compares dir's recipe files with what trustFile recorded.
func checkTrust(trustFile, dir string) (TrustState, error) {
	cdir, err := canonicalDir(dir)
	if err != nil {
		return TrustState{}, err
	}
	st := TrustState{Dir: cdir}
	files, err := scanFolder(cdir, false)
	if err != nil {
		return st, err
	}
	st.files = files
	tf, err := readTrust(trustFile)
	if err != nil {
		return st, err
	}
	rec, ok := tf.Folders[cdir]
	if !ok {
		return st, nil
	}
	st.Known = true
	sums := sumsOf(files)
	if FolderHash(sums) == rec.SHA256 {
		st.Trusted = true
		return st, nil
	}
	for _, n := range sortedKeys(sums) {
		switch old, had := rec.Files[n]; {
		case !had:
			st.Changed = append(st.Changed, n+" (added)")
		case old != sums[n]:
			st.Changed = append(st.Changed, n+" (edited)")
		}
	}
	for _, n := range sortedKeys(rec.Files) {
		if _, ok := sums[n]; !ok {
			st.Changed = append(st.Changed, n+" (removed)")
		}
	}
	if len(st.Changed) == 0 {
		st.Changed = []string{"trust.json's record does not match"}
	}
	return st, nil
}

// trustFolder records dir's recipe files as trusted in trustFile and
// returns the files trusted.
func trustFolder(trustFile, dir string, now time.Time) (string, []string, error) {
	cdir, err := canonicalDir(dir)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(cdir)
	if err != nil {
		return "", nil, fmt.Errorf("trust recipe folder: %w", err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("trust recipe folder: %s is not a folder", cdir)
	}
	files, err := scanFolder(cdir, false)
	if err != nil {
		return "", nil, err
	}
	sums := sumsOf(files)
	if err := updateTrust(trustFile, cdir, sums, now); err != nil {
		return "", nil, err
	}
	return cdir, sortedKeys(sums), nil
}

// updateTrust records sums as the trusted state of the canonical dir cdir.
// Writers hold trust.json's lock file (trust.json.lock) so that two
// updates do not lose one another.
func updateTrust(trustFile, cdir string, sums map[string]string, now time.Time) error {
	if err := os.MkdirAll(filepath.Dir(trustFile), 0o700); err != nil {
		return fmt.Errorf("write the trusted recipe folders: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), trustLockWait)
	defer cancel()
	lock, err := filelock.Acquire(ctx, trustFile+".lock")
	if err != nil {
		return fmt.Errorf("lock the trusted recipe folders: %w", err)
	}
	defer lock.Release()
	tf, err := readTrust(trustFile)
	if err != nil {
		return err
	}
	tf.Version = TrustFileVersion
	tf.Folders[cdir] = TrustedFolder{SHA256: FolderHash(sums), Files: sums, TrustedAt: now.UTC().Truncate(time.Second)}
	return writeTrust(trustFile, tf)
}

// writeAtomic writes data to path through a temporary file in the same
// folder renamed over it, so that readers see the old file or the new one.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// sumOf is the hex SHA-256 of data.
func sumOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
