package browser

import (
	"strings"
	"testing"
)

// A password field reads back as dots, unless it holds nothing but
// declared secrets (the result names them); a pre-filled password beside
// a typed secret stays dots.
func TestShownValue(t *testing.T) {
	mask := func(s string) string { return strings.ReplaceAll(s, "s3cret-Value", "<secret:PW>") }
	for _, tc := range []struct {
		pw    bool
		v     string
		mask  func(string) string
		want  string
		about string
	}{
		{false, "ada", mask, "ada", "another field"},
		{true, "", mask, "", "an empty password field"},
		{true, "correct-horse", nil, "••••••••", "a typed password"},
		{true, "abc", mask, "•••", "a short one"},
		{true, "s3cret-Value", mask, "s3cret-Value", "a declared secret (masked later as <secret:PW>)"},
		{true, "s3cret-Values3cret-Value", mask, "s3cret-Values3cret-Value", "secrets only"},
		{true, "hunter2s3cret-Value", mask, "••••••••", "a secret typed after a pre-filled password"},
	} {
		if got := (editState{Password: tc.pw}).shownValue(tc.v, tc.mask); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.about, got, tc.want)
		}
	}
}
