package clientconf

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Name is the name of webpilot's entry in every client's server list.
const Name = "webpilot"

// Options say what setup does.
type Options struct {
	// Bin is the absolute path of the webpilot the clients start, or
	// "npx" (with Args NPX[1:]) for one that runs from npm.
	Bin string
	// Args are its arguments (nil: Args).
	Args []string
	// Skill is SKILL.md's text, written where a client reads skills (nil:
	// none).
	Skill []byte
	// Remove takes webpilot's entries (and its skill) back out.
	Remove bool
	// Only names the clients to set up (their IDs); none means every
	// client found. A client named here is set up even when it looks
	// absent (its files are made).
	Only []string
}

// Change is one file setup writes or removes.
type Change struct {
	Client string // the client's Name ("" for a skill several share)
	File   string
	// Before is what the file holds (nil: absent); After what it will
	// hold (nil with Delete: removed).
	Before, After []byte
	Delete        bool
	// Skill: the file is webpilot's SKILL.md.
	Skill bool
	// Note says why nothing changes, or what to do after.
	Note string
}

// Changed says whether the change writes anything.
func (c Change) Changed() bool {
	if c.Delete {
		return c.Before != nil
	}
	return !bytes.Equal(c.Before, c.After)
}

// Found is a client setup looked for: whether it is there.
type Found struct {
	Client Client
	There  bool
}

// Plan works out what setup (or setup --remove) changes for the clients
// of e, without writing anything.
func Plan(e Env, o Options) ([]Found, []Change, error) {
	if o.Args == nil {
		o.Args = Args
	}
	if !o.Remove && !filepath.IsAbs(o.Bin) && o.Bin != NPX[0] {
		return nil, nil, fmt.Errorf("the program's path %q is not absolute", o.Bin)
	}
	all := Clients(e)
	for _, id := range o.Only {
		if !slices.ContainsFunc(all, func(c Client) bool { return c.ID == id }) {
			return nil, nil, fmt.Errorf("no client is called %q (clients: %s)", id, IDs(e))
		}
	}
	var found []Found
	var changes []Change
	skills := map[string]bool{}
	for _, c := range all {
		named := slices.Contains(o.Only, c.ID)
		if len(o.Only) > 0 && !named {
			continue
		}
		there := isDir(c.Dir)
		found = append(found, Found{Client: c, There: there})
		if !there && !named {
			continue
		}
		ch, err := entryChange(c, o)
		if err != nil {
			return found, changes, fmt.Errorf("%s (%s): %w", c.Name, c.File, err)
		}
		changes = append(changes, ch)
		if c.Skills == "" || o.Skill == nil && !o.Remove {
			continue
		}
		path := filepath.Join(c.Skills, Name, "SKILL.md")
		if skills[path] {
			continue // a directory several clients read
		}
		skills[path] = true
		changes = append(changes, skillChange(c, path, o))
	}
	return found, changes, nil
}

// entryChange is the change of c's server list.
func entryChange(c Client, o Options) (Change, error) {
	before, err := readFile(c.File)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Client: c.Name, File: c.File, Before: before, Note: c.Note}
	switch {
	case c.Format == TOML && o.Remove:
		ch.After, err = DeleteTOMLTable(before, strings.Join(append(c.Path, Name), "."))
	case c.Format == TOML:
		body := "command = " + tomlString(o.Bin) + "\nargs = [" + quoteAll(o.Args) + "]\n"
		ch.After, err = SetTOMLTable(before, strings.Join(append(c.Path, Name), "."), body)
	case o.Remove:
		ch.After, err = DeleteJSON(before, c.Path, Name)
		if err == nil && len(c.Path) > 0 {
			// A server list left empty goes too: setup made it, most likely.
			if v, ok, _ := GetJSON(ch.After, c.Path[:len(c.Path)-1], c.Path[len(c.Path)-1]); ok {
				if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
					ch.After, err = DeleteJSON(ch.After, c.Path[:len(c.Path)-1], c.Path[len(c.Path)-1])
				}
			}
		}
	default:
		ch.After, err = SetJSON(before, c.Path, Name, c.Entry(o.Bin, o.Args))
	}
	if o.Remove && before == nil {
		ch.After = nil
	}
	if err == nil && o.Remove && before != nil && !bytes.Equal(before, ch.After) && shell(c, ch.After) {
		// Nothing is left but what setup made around the entry: the file
		// setup wrote goes with it.
		ch.Delete = true
	}
	return ch, err
}

// shell says whether b holds nothing (an empty object, or no TOML).
func shell(c Client, b []byte) bool {
	if c.Format == TOML {
		return strings.TrimSpace(string(b)) == ""
	}
	root, err := parseRoot(b)
	return err == nil && (root == nil || len(root.members) == 0)
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tomlString(a)
	}
	return strings.Join(q, ", ")
}

// skillChange is the change of webpilot's SKILL.md at path. A SKILL.md
// there that is not webpilot's (another name in its front matter) is left
// alone.
func skillChange(c Client, path string, o Options) Change {
	ch := Change{File: path, Skill: true}
	ch.Client = c.Name
	if filepath.Base(filepath.Dir(c.Skills)) == ".agents" {
		ch.Client = "" // the directory several clients read
	}
	before, err := readFile(path)
	if err != nil {
		ch.Note = err.Error()
		return ch
	}
	ch.Before = before
	if before != nil && !ours(before) {
		ch.After, ch.Note = before, "another skill called webpilot is there: left as it is"
		return ch
	}
	if o.Remove {
		ch.Delete = true
		return ch
	}
	ch.After = o.Skill
	return ch
}

// ours says whether a SKILL.md is webpilot's (any version).
func ours(b []byte) bool {
	head, _, _ := bytes.Cut(b, []byte("\n---"))
	return bytes.Contains(head, []byte("\nname: webpilot\n")) || bytes.HasPrefix(head, []byte("name: webpilot\n"))
}

// readFile is the file's bytes, nil when it does not exist.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Backup is the suffix of the copy setup keeps of a file it changes.
const Backup = ".webpilot-backup"

// Apply writes the changes that change something: each file is written
// whole to a temporary file beside it and renamed over it (a crash leaves
// the old file or the new one, never half of one), after a copy of what
// it held goes to FILE.webpilot-backup. A file's mode is kept; a new one
// is readable by the user only. A removed skill's own folder (webpilot/)
// goes when it is left empty; a client's folder never does.
func Apply(changes []Change) error {
	for _, c := range changes {
		if !c.Changed() {
			continue
		}
		if c.Delete {
			if err := os.Remove(c.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if c.Skill {
				_ = os.Remove(filepath.Dir(c.File)) // webpilot's own folder, when empty
			}
			continue
		}
		mode := fs.FileMode(0o600)
		if st, err := os.Stat(c.File); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(c.File), 0o700); err != nil {
			return err
		}
		if c.Before != nil {
			if err := os.WriteFile(c.File+Backup, c.Before, mode); err != nil {
				return fmt.Errorf("back up %s: %w", c.File, err)
			}
		}
		if err := writeAtomic(c.File, c.After, mode); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes b to path through a temporary file renamed over it.
func writeAtomic(path string, b []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone after the rename; cleans up a failure
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Diff shows what a change does to its file as a unified diff of the
// lines that differ, with up to three lines of context.
func Diff(c Change) string {
	before, after := c.Before, c.After
	if c.Delete {
		after = nil
	}
	a, b := lines(before), lines(after)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
		return ""
	}
	if c.Skill && (before == nil || c.Delete) {
		// webpilot's own file, whole: its size says enough.
		if c.Delete {
			return fmt.Sprintf("(removes %s, %d lines)\n", c.File, len(a))
		}
		return fmt.Sprintf("(writes %s, %d lines)\n", c.File, len(b))
	}
	from, to := c.File, c.File
	if before == nil {
		from = "/dev/null"
	}
	if c.Delete {
		to = "/dev/null"
	}
	ctx := 3
	s := max(0, pre-ctx)
	ea, eb := min(len(a), len(a)-suf+ctx), min(len(b), len(b)-suf+ctx)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ -%d,%d +%d,%d @@\n", from, to, s+1, ea-s, s+1, eb-s)
	for _, l := range a[s:pre] {
		out.WriteString(" " + l + "\n")
	}
	for _, l := range a[pre : len(a)-suf] {
		out.WriteString("-" + l + "\n")
	}
	for _, l := range b[pre : len(b)-suf] {
		out.WriteString("+" + l + "\n")
	}
	for _, l := range a[len(a)-suf : ea] {
		out.WriteString(" " + l + "\n")
	}
	return out.String()
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
