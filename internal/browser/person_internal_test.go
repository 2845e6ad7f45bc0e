package browser

import (
	"slices"
	"testing"
)

// A wait's check carries what waits for a person at [12] (W.quiet); a
// check from before the walker had it, or a shorter answer, reads none.
func TestQuietFromReadsHuman(t *testing.T) {
	head := []any{3.0, 12.5, 0.0, 0.0, "", []any{}, "http://x/", "X", 0.0, 0.0, true, true}
	for _, c := range []struct {
		name string
		m    []any
		read bool
		want [][2]string
	}{
		{"signs", append(slices.Clone(head), []any{[]any{"otp", "one-time code field"}, []any{"login", "sign-in form"}}), true, [][2]string{{"otp", "one-time code field"}, {"login", "sign-in form"}}},
		{"none", append(slices.Clone(head), []any{}), true, nil},
		{"not read", head, false, nil},
		{"not an array", append(slices.Clone(head), nil), false, nil},
	} {
		st := quietFrom(c.m)
		if st.humanRead != c.read || !slices.Equal(st.human, c.want) {
			t.Errorf("%s: read %v %v, want %v %v", c.name, st.humanRead, st.human, c.read, c.want)
		}
		if !st.framed || !st.settled || st.url != "http://x/" {
			t.Errorf("%s: the rest of the check: %+v", c.name, st)
		}
	}
}
