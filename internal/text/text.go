package text

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Head returns the first n characters of s (all of s when it has fewer) and
// how many characters follow them. It never splits a UTF-8 character.
func Head(s string, n int) (head string, more int) {
	n = max(n, 0)
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i], utf8.RuneCountInString(s[i:])
}

// Cut returns s when it has at most n characters, else its first n-1
// characters and "…", n characters in all: for short labels and echoes of
// a value in a message, where the width counts and the size left out does
// not.
func Cut(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	head, _ := Head(s, n-1)
	return head + "…"
}

// Clip returns s when it has at most n characters, else its first two
// thirds of n and "…(+K chars)", K being the characters left out: for
// values and page text a result repeats back, where the reader should know
// how much is missing.
func Clip(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	head, more := Head(s, n*2/3)
	return head + fmt.Sprintf("…(+%d chars)", more)
}

// Distance is the Levenshtein distance between a and b, counted in bytes:
// the insertions, deletions and substitutions that turn one into the
// other. Nearest ranks "did you mean" suggestions by it.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest ranks the names a mistyped s may have meant, for "did you
// mean" suggestions: nearest first, at most n of them (all when n <= 0).
// Letter case aside, a name that holds s or is held by it counts as one
// edit away (max_char for max_chars); any other counts its Distance from s
// and is kept when at most max(2, len(s)/3) edits away. Ties go by name,
// so that the answer does not depend on the order names come in. An empty
// s is near nothing.
func Nearest(s string, names []string, n int) []string {
	if s == "" {
		return nil
	}
	type cand struct {
		name string
		d    int
	}
	ls := strings.ToLower(s)
	limit := max(2, len(s)/3)
	var cs []cand
	for _, name := range names {
		ln := strings.ToLower(name)
		d := Distance(ls, ln)
		if ln != "" && (strings.Contains(ln, ls) || strings.Contains(ls, ln)) {
			d = min(d, 1)
		}
		if d <= limit {
			cs = append(cs, cand{name, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	if n > 0 && len(cs) > n {
		cs = cs[:n]
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// Clean collapses whitespace runs to one space.
func Clean(s string) string {
	if s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Quote writes s in double quotes, escaping quotes and backslashes.
func Quote(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// Commas formats n with thousands separators.
func Commas(n int) string {
	s := strconv.Itoa(n)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Window returns up to max runes of body from offset, ending at a line break
// when one is near, and the offset to continue from (0 at the end).
func Window(body string, offset, max int) (string, int) {
	runes := []rune(body)
	if offset >= len(runes) {
		return "", 0
	}
	if offset < 0 {
		offset = 0
	}
	end := len(runes)
	if max > 0 && offset+max < end {
		end = offset + max
		// prefer to cut after a whole line
		for i := end - 1; i > offset+max/2; i-- {
			if runes[i] == '\n' {
				end = i + 1
				break
			}
		}
	}
	next := 0
	if end < len(runes) {
		next = end
	}
	return strings.TrimSuffix(string(runes[offset:end]), "\n"), next
}
