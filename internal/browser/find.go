package browser

import (
	"context"
	"fmt"
	"github.com/webpilot-mcp/webpilot/internal/snapshot"
	"net/url"
	"regexp"
	"strings"
)

// FindOptions say what browser_find looks for. Each of Text, Role and Name
// that is set must match; a value written /like this/ (optionally /…/i) is
// a regular expression, any other is a case-insensitive substring (Role is
// compared whole).
type FindOptions struct {
	Text  string // in the name, value or text
	Role  string
	Name  string
	Limit int // matches shown (default 20)
	// Within limits the search to a container: its ref, a CSS selector, or
	// a role and a text it holds (row "A-1002"), as a target's within.
	Within string
}

// scope is the container Within names, as a snapshot scope.
func (o FindOptions) scope() Locator {
	w := strings.TrimSpace(o.Within)
	switch {
	case w == "":
		return Locator{}
	case IsRef(w):
		return Locator{Ref: w}
	}
	if m := withinRole.FindStringSubmatch(w); m != nil {
		return Locator{Role: m[1], contains: m[2]}
	}
	return Locator{Selector: w}
}

// DefaultFindLimit is how many matches browser_find shows by default.
const DefaultFindLimit = 20

// Find searches the live page (frames included) and returns the matches as
// snapshot lines with refs, each with its nearest landmark and heading.
func (h *Held) Find(ctx context.Context, o FindOptions) (string, error) {
	t := h.t
	if err := t.dialogs.err(); err != nil {
		return "", err
	}
	if o.Text == "" && o.Role == "" && o.Name == "" {
		return "", &Error{Code: CodeInvalidArgument, Message: "give text, role or name to look for",
			Hint: `e.g. {"role": "button", "name": "/add to cart/i"} or {"text": "Total"}`}
	}
	text, err := matcher("text", o.Text)
	if err != nil {
		return "", err
	}
	name, err := matcher("name", o.Name)
	if err != nil {
		return "", err
	}
	if o.Limit <= 0 {
		o.Limit = DefaultFindLimit
	}
	defer t.releaseObjects(ctx)
	ictx, cancel := innerContext(ctx)
	defer cancel()
	pt, err := t.view.collect(ictx, o.scope(), false) // (the whole page: find reads what is off screen too)
	if err != nil {
		if we, ok := AsError(err); ok && o.Within != "" {
			we.Message = "within: " + we.Message
		}
		return "", err
	}
	base := pt.url
	r := &snapshot.Renderer{Mode: ModeFull}
	r.Base, _ = parseURL(base)
	role := strings.ToLower(strings.TrimSpace(o.Role))

	var found []string
	total := 0
	heading := ""
	var walk func(ns []*snapshot.Node, where []string)
	walk = func(ns []*snapshot.Node, where []string) {
		for _, n := range ns {
			ok := true
			var line string
			if n.T != nil {
				ok = role == "" && name == nil && text != nil && text(*n.T)
				line = snapshot.MarkPageLine(*n.T)
			} else {
				if role != "" && !strings.EqualFold(n.R, role) {
					ok = false
				}
				if ok && name != nil && !name(n.N) {
					ok = false
				}
				if ok && text != nil && !text(n.N) && (n.V == nil || !text(*n.V)) {
					ok = false
				}
				if ok {
					line = findLine(r, n)
				}
			}
			if ok && line != "" {
				total++
				if len(found) < o.Limit {
					ctx := strings.Join(where, " › ")
					if heading != "" {
						if ctx != "" {
							ctx += " › "
						}
						ctx += heading
					}
					// A line is a line: a 20 MB text node is cut
					// like any long text.
					line = shorten(line, MaxFindLine)
					if ctx != "" {
						line += "   (in " + shorten(ctx, MaxFindLine/2) + ")"
					}
					found = append(found, line)
				}
			}
			if n.R == "heading" {
				heading = strings.Repeat("#", max(1, min(n.L, 6))) + " " + shorten(n.N, 60)
			}
			sub := where
			if snapshot.IsChrome(n.R) || n.R == "main" || n.R == "dialog" || n.R == "alertdialog" || n.R == "form" || n.R == "iframe" || n.R == "region" || n.R == "search" {
				label := n.R
				if n.N != "" {
					label += " " + quote(shorten(n.N, 40))
				}
				sub = append(append([]string{}, where...), label)
			}
			walk(n.C, sub)
		}
	}
	walk(pt.items, nil)

	// The whole answer within MaxFindChars: the lines that fit, then how
	// many more matched.
	size := 0
	for i, l := range found {
		size += len(l) + 1
		if size > MaxFindChars && i > 0 {
			found = found[:i]
			break
		}
	}
	var b strings.Builder
	what := describeFind(o)
	fmt.Fprintf(&b, "# %d match(es) for %s on %s — %s", total, what, orUntitled(shorten(pt.title, MaxEcho)), Echo(h.s.ShowURL(pt.url)))
	if total > len(found) {
		fmt.Fprintf(&b, " (first %d shown; narrow the search or raise limit)", len(found))
	}
	b.WriteByte('\n')
	if pt.stopped > 0 {
		b.WriteString(stoppedNote(pt.stopped) + "\n")
	}
	if total == 0 {
		b.WriteString("(nothing matches; try a shorter text, another role, or browser_snapshot)")
	}
	b.WriteString(strings.Join(found, "\n"))
	return strings.TrimRight(b.String(), "\n"), nil
}

// findLine renders one found element as its snapshot line.
func findLine(r *snapshot.Renderer, n *snapshot.Node) string {
	switch {
	case n.Ref != "":
		return r.Control(n)
	case n.R == "heading":
		return strings.Repeat("#", max(1, min(n.L, 6))) + " " + n.N
	case n.N != "":
		return n.R + " " + quote(n.N) + r.ValueStates(n)
	}
	return ""
}

// describeFind says what was looked for, each value echoed within MaxEcho.
func describeFind(o FindOptions) string {
	var parts []string
	if o.Role != "" {
		parts = append(parts, "role "+Echo(o.Role))
	}
	if o.Name != "" {
		parts = append(parts, "name "+Echo(o.Name))
	}
	if o.Text != "" {
		parts = append(parts, "text "+Echo(o.Text))
	}
	return strings.Join(parts, ", ")
}

// Bounds of browser_find's answer: one match's line (longer text is cut
// with "…(+N chars)"), and the whole answer (the matches past it are
// counted, not shown).
const (
	MaxFindLine  = 500
	MaxFindChars = 20_000
)

func orUntitled(s string) string {
	if s == "" {
		return "(untitled)"
	}
	return s
}

// matcher compiles a search value: /re/ or /re/i is a regular expression,
// anything else a case-insensitive substring. An empty value matches
// nothing and returns nil.
func matcher(field, v string) (func(string) bool, error) {
	if v == "" {
		return nil, nil
	}
	if len(v) >= 2 && strings.HasPrefix(v, "/") {
		end := strings.LastIndex(v, "/")
		if end > 0 {
			pat, flags := v[1:end], v[end+1:]
			if flags == "" || flags == "i" {
				if flags == "i" {
					pat = "(?i)" + pat
				}
				re, err := regexp.Compile(pat)
				if err != nil {
					return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s %s is not a valid regular expression: %v", field, v, err),
						Hint: "use RE2 syntax between slashes, e.g. /sign ?in/i; or plain text for a substring"}
				}
				return re.MatchString, nil
			}
		}
	}
	low := strings.ToLower(v)
	return func(s string) bool { return strings.Contains(strings.ToLower(s), low) }, nil
}

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
