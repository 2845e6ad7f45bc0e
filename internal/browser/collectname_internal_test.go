package browser

import (
	"regexp"
	"strings"
	"testing"
)

// validFieldName accepts what the pattern it replaces accepted, and only
// that: letters and digits of any script, _ . -, 1 to 40 runes.
func TestValidFieldName(t *testing.T) {
	re := regexp.MustCompile(`^[\p{L}\p{N}_.-]{1,40}$`)
	for _, s := range []string{
		"", "title", "price_2", "a.b-c", "Größe", "名前", "٣", "Ⅻ", "½", "x y", "x/y", "$", "a\n",
		strings.Repeat("a", 40), strings.Repeat("a", 41), strings.Repeat("é", 40), strings.Repeat("é", 41),
		"\xff", "a\xffb", "\u0301", "a\u0301", "🙂", "\u00a0", "_", "-", ".",
	} {
		if got, want := validFieldName(s), re.MatchString(s); got != want {
			t.Errorf("validFieldName(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}
