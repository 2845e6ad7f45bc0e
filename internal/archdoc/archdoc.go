// Package archdoc keeps the numbers of ARCHITECTURE.md and docs/*.md that the code knows
// true. Such a number is written inside a marked span,
//
//	<!-- gen:tools.core.count -->16<!-- /gen -->
//
// and a test in the package that can compute it (the owner of the key's
// first word, see [Owners]) calls [Check] with what the code has now: a
// span that says something else is an error naming both and the command
// that rewrites it (the test's -update flag, which makes Check rewrite the
// spans instead). A key may appear in several spans; each is checked.
//
// It is pure text: it knows neither browsers nor MCP, and imports nothing of
// webpilot's.
package archdoc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// File is the document's name at the module root.
const File = "ARCHITECTURE.md"

// Owners maps a key's first word (before the first dot) to the test that
// computes the keys starting with it.
var Owners = map[string]string{
	"tools": "go test ./internal/mcpserver -run TestArchitectureNumbers -update",
	"cdp":   "go test ./internal/browser -run TestArchitectureNumbers -update",
}

// span matches one generated span: the key, then the text up to the end
// marker (never across another span).
var span = regexp.MustCompile(`<!-- gen:([a-z0-9_.\-]+) -->(.*?)<!-- /gen -->`)

// Span is one marked number in the document.
type Span struct {
	Key, Text string
	Line      int
}

// Spans lists the document's spans in order.
func Spans(doc string) []Span {
	var out []Span
	for _, m := range span.FindAllStringSubmatchIndex(doc, -1) {
		out = append(out, Span{Key: doc[m[2]:m[3]], Text: doc[m[4]:m[5]], Line: 1 + strings.Count(doc[:m[0]], "\n")})
	}
	return out
}

// Path finds ARCHITECTURE.md at the root of the module holding the working
// directory (the directory with go.mod, looking upwards).
func Path() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, File), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("archdoc: no go.mod above the working directory")
		}
		dir = up
	}
}

// Check compares the spans of the document at path, and of the pages in
// the docs folder beside it (docs/*.md), whose keys start with owner+"."
// with got, the values the code computes (keys in full). A span with
// another value, or with a key of the owner that got lacks, is an error;
// with update the differing spans are rewritten instead (and only an
// unknown key is an error). Keys of got with no span are fine: the
// documents need not print every number.
func Check(path, owner string, got map[string]string, update bool) error {
	pages, err := filepath.Glob(filepath.Join(filepath.Dir(path), "docs", "*.md"))
	if err != nil {
		return err
	}
	var probs []string
	for _, p := range append([]string{path}, pages...) {
		if err := checkFile(p, owner, got, update); err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "\n"))
	}
	return nil
}

// checkFile is Check for one document.
func checkFile(path, owner string, got map[string]string, update bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := string(b)
	name := File
	if filepath.Base(path) != File {
		name = filepath.Join("docs", filepath.Base(path))
	}
	cmd := Owners[owner]
	var probs []string
	for _, s := range Spans(doc) {
		if !strings.HasPrefix(s.Key, owner+".") {
			continue
		}
		want, ok := got[s.Key]
		switch {
		case !ok:
			probs = append(probs, fmt.Sprintf("%s:%d: gen:%s is no number the code computes (known: %s)", name, s.Line, s.Key, strings.Join(keys(got), ", ")))
		case s.Text != want && !update:
			probs = append(probs, fmt.Sprintf("%s:%d: %s says %q for %s, the code has %q; run %s", name, s.Line, name, s.Text, s.Key, want, cmd))
		}
	}
	if len(probs) > 0 {
		return errors.New(strings.Join(probs, "\n"))
	}
	if !update {
		return nil
	}
	out := Rewrite(doc, owner, got)
	if out == doc {
		return nil
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// Rewrite sets every span of the owner's keys that got has to its value.
func Rewrite(doc, owner string, got map[string]string) string {
	return span.ReplaceAllStringFunc(doc, func(m string) string {
		sm := span.FindStringSubmatch(m)
		v, ok := got[sm[1]]
		if !ok || !strings.HasPrefix(sm[1], owner+".") {
			return m
		}
		return "<!-- gen:" + sm[1] + " -->" + v + "<!-- /gen -->"
	})
}

// Int writes n as the document writes numbers: 2,995.
func Int(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Int(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
