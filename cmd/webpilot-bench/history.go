package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// regressionLimit is how much worse than before a row may get before the
// bench prints it as a regression: 20 %.
const regressionLimit = 0.20

// histRow is one row of a bench run: webpilot's value in unit ("ms",
// "tokens", "MiB", "commands", …) and, when the peers ran beside it,
// webpilot's over the best peer's (0: no peer). Lower is better for both.
type histRow struct {
	Value float64 `json:"v"`
	Unit  string  `json:"unit,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
}

// histRows are a run's rows by name (section: row).
type histRows map[string]histRow

// add records a row; a ratio of 0, NaN or ±Inf is none.
func (r histRows) add(name, unit string, value, ratio float64) {
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) || ratio < 0 {
		ratio = 0
	}
	r[name] = histRow{Value: round4(value), Unit: unit, Ratio: round4(ratio)}
}

// round4 keeps 4 significant digits (the history holds no more noise than
// that; a ratio of 0.0003 stays one).
func round4(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return r
}

// histEntry is one run of the bench, one line of the history file.
// Entries are compared only with entries of the same machine shape (Cores
// and OS).
type histEntry struct {
	Commit string   `json:"commit"`          // git rev-parse --short HEAD, "" outside a repository
	Dirty  bool     `json:"dirty,omitempty"` // the tree differed from the commit
	Date   string   `json:"date"`            // RFC 3339, UTC
	Cores  int      `json:"cores"`           // runtime.NumCPU
	OS     string   `json:"os"`              // GOOS/GOARCH
	Runs   int      `json:"runs"`            // -runs
	Cold   int      `json:"cold"`            // -cold
	Args   []string `json:"args,omitempty"`  // the bench's command line
	Rows   histRows `json:"rows"`
}

// sameShape reports whether e ran on a machine of the shape of o.
func (e histEntry) sameShape(o histEntry) bool { return e.Cores == o.Cores && e.OS == o.OS }

// regression is a row more than regressionLimit worse than in the
// earlier entry it is compared with: before and after are ratios to the
// best peer when both runs had peers ("×"), else webpilot's values (unit).
type regression struct {
	row           string
	before, after float64
	unit          string
}

// String is the line the bench prints: "REGRESSION row: before → after (+N %)".
func (g regression) String() string {
	num := func(x float64) string {
		switch {
		case g.unit == "×":
			return fmt.Sprintf("%.2f×", x)
		case x >= 100 || x == math.Trunc(x):
			return fmt.Sprintf("%.0f %s", x, g.unit)
		}
		return fmt.Sprintf("%.1f %s", x, g.unit)
	}
	return fmt.Sprintf("REGRESSION %s: %s → %s (+%.0f %%)", g.row, num(g.before), num(g.after), (g.after/g.before-1)*100)
}

// minDelta is the smallest change of a value in unit that counts: a
// millisecond for times (their resolution in the tables), else none.
func minDelta(unit string) float64 {
	if unit == "ms" {
		return 1
	}
	return 0
}

// compareHistory compares each row of cur with the same row in the latest
// entry of prev (oldest first) of cur's machine shape that has it: the
// ratios to the best peer when both have one (they hold across a noisy
// machine), else the values. It returns the rows more than
// regressionLimit worse (a value must also have moved by more than
// minDelta of its unit; a baseline of 0 is not compared), by name.
func compareHistory(prev []histEntry, cur histEntry) []regression {
	var out []regression
	names := make([]string, 0, len(cur.Rows))
	for name := range cur.Rows {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		now := cur.Rows[name]
		for i := len(prev) - 1; i >= 0; i-- {
			was, ok := prev[i].Rows[name]
			if !ok || !prev[i].sameShape(cur) {
				continue
			}
			g := regression{row: name, before: was.Value, after: now.Value, unit: now.Unit}
			delta := minDelta(now.Unit)
			if was.Ratio > 0 && now.Ratio > 0 {
				g.before, g.after, g.unit, delta = was.Ratio, now.Ratio, "×", 0
			}
			if g.before > 0 && g.after > g.before*(1+regressionLimit) && g.after-g.before > delta {
				out = append(out, g)
			}
			break
		}
	}
	return out
}

// readHistory reads the history file's entries, oldest first; a missing
// file has none. Lines that are not an entry are skipped and counted.
func readHistory(path string) (entries []histEntry, bad int, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("bench: history: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e histEntry
		if err := json.Unmarshal(line, &e); err != nil || e.Rows == nil {
			bad++
			continue
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("bench: history %s: %w", path, err)
	}
	return entries, bad, nil
}

// appendHistory appends e to the history file as one line of JSON,
// creating the file and its directory when missing.
func appendHistory(path string, e histEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("bench: history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("bench: history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("bench: history: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("bench: history %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: history %s: %w", path, err)
	}
	return nil
}

// gitCommit is the short commit of HEAD and whether the tree differs from
// it (the history file left aside); "" outside a repository or without
// git.
func gitCommit(history string) (string, bool) {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "", false
	}
	args := []string{"diff", "--quiet", "HEAD", "--", ":/"}
	if !filepath.IsAbs(history) && filepath.IsLocal(history) {
		args = append(args, ":(exclude)"+filepath.ToSlash(history))
	}
	// git diff --quiet exits 1 when the tree differs, 128 on an error.
	var exit *exec.ExitError
	err = exec.Command("git", args...).Run()
	return strings.TrimSpace(string(out)), errors.As(err, &exit) && exit.ExitCode() == 1
}

// newHistEntry is the entry of this run, with rows.
func newHistEntry(history string, runs, cold int, args []string, rows histRows) histEntry {
	commit, dirty := gitCommit(history)
	return histEntry{
		Commit: commit,
		Dirty:  dirty,
		Date:   time.Now().UTC().Format(time.RFC3339),
		Cores:  runtime.NumCPU(),
		OS:     runtime.GOOS + "/" + runtime.GOARCH,
		Runs:   runs,
		Cold:   cold,
		Args:   args,
		Rows:   rows,
	}
}

// writeHistory reads the history at path, compares cur with it, appends
// cur, and prints what was done and every regression.
func writeHistory(stdout io.Writer, path string, cur histEntry) error {
	prev, bad, err := readHistory(path)
	if err != nil {
		return err
	}
	regs := compareHistory(prev, cur)
	if err := appendHistory(path, cur); err != nil {
		return err
	}
	same, last := 0, histEntry{}
	for _, e := range prev {
		if e.sameShape(cur) {
			same, last = same+1, e
		}
	}
	fmt.Fprintf(stdout, "\nhistory: %d rows appended to %s (%s, %d cores %s); ", len(cur.Rows), path, cur.label(), cur.Cores, cur.OS)
	switch {
	case same == 0:
		fmt.Fprintln(stdout, "no earlier run of this machine shape to compare with")
	case len(regs) == 0:
		fmt.Fprintf(stdout, "against the %d earlier runs of this machine shape (the last: %s), no row is more than %.0f %% worse\n", same, last.label(), regressionLimit*100)
	default:
		fmt.Fprintf(stdout, "against the %d earlier runs of this machine shape (the last: %s), %d rows are more than %.0f %% worse (ratios to the best peer where both runs had peers):\n", same, last.label(), len(regs), regressionLimit*100)
	}
	if bad > 0 {
		fmt.Fprintf(stdout, "(%d lines of %s are not entries and were skipped)\n", bad, path)
	}
	for _, g := range regs {
		fmt.Fprintln(stdout, g)
	}
	return nil
}

// label names e in a line: "commit abc1234 (with changes) of 2026-12-07".
func (e histEntry) label() string {
	s := "commit " + cmp.Or(e.Commit, "unknown")
	if e.Dirty {
		s += " with changes"
	}
	return s + " of " + strings.Replace(e.Date[:min(len(e.Date), 16)], "T", " ", 1)
}
