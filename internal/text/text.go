package text

import (
	"fmt"
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
// other. Suggestions ("did you mean") rank candidates by it.
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
