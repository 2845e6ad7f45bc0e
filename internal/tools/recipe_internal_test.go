package tools

import "testing"

// A value is a parameter only when it is one $name or ${name}: "$$ecret"
// is the literal "$ecret" and "$1abc" a literal too (issue 28, 5: no
// password may pass for a parameter).
func TestWholeParam(t *testing.T) {
	for v, want := range map[string]string{"$pw": "pw", "${pw}": "pw", "$$ecret": "", "$1abc": "", "pre$pw": "", "$pw!": ""} {
		got := ""
		if m := wholeParam.FindStringSubmatch(v); m != nil {
			got = m[1] + m[2]
		}
		if got != want {
			t.Errorf("%q: param %q, want %q", v, got, want)
		}
	}
}
