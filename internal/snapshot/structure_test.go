package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

// options makes n options with refs, the k-th selected when k >= 0.
func options(n, k int) []*Node {
	var out []*Node
	for i := range n {
		o := &Node{R: "option", N: fmt.Sprintf("Bin %03d", i+1), Ref: fmt.Sprintf("e%d", i+10)}
		if i == k {
			o.S = []string{"selected"}
		}
		out = append(out, o)
	}
	return out
}

// A list or table says how much of it is shown when the page says how
// much there is; a long run of options is folded to its first ones and
// the selected one, saying how many are left out and how to reach them.
func TestSizesAndFoldedOptions(t *testing.T) {
	row := func(cells ...string) *Node {
		r := &Node{R: "row"}
		for _, c := range cells {
			r.C = append(r.C, &Node{R: "cell", N: c})
		}
		return r
	}
	for _, c := range []struct {
		name string
		mode string
		n    *Node
		want []string
		not  []string
	}{
		{name: "virtual listbox", mode: ModeCompact, n: &Node{R: "listbox", N: "Customer", Ref: "e1", SZ: 1000, C: options(13, -1)},
			want: []string{`listbox e1 "Customer" (13 of 1,000 shown):`}},
		{name: "whole listbox", mode: ModeCompact, n: &Node{R: "listbox", N: "Customer", Ref: "e1", SZ: 13, C: options(13, -1)},
			want: []string{`listbox e1 "Customer":`}, not: []string{"shown"}},
		{name: "no set size", mode: ModeCompact, n: &Node{R: "listbox", N: "Customer", Ref: "e1", C: options(13, -1)},
			want: []string{`listbox e1 "Customer":`}, not: []string{"shown"}},
		{name: "grid rows", mode: ModeCompact, n: &Node{R: "grid", RC: 61, CC: 2, C: []*Node{row("A", "B"), row("1", "2")}},
			want: []string{`grid 2×2 (61 rows in all):`}},
		{name: "grid rows and columns", mode: ModeCompact, n: &Node{R: "grid", RC: 61, CC: 9, C: []*Node{row("A", "B")}},
			want: []string{`grid 1×2 (61×9 in all):`}},
		{name: "long listbox", mode: ModeCompact, n: &Node{R: "listbox", N: "Bin", Ref: "e1", C: options(1000, 500)},
			want: []string{`option e29 "Bin 020"`, `option e510 "Bin 501" [selected]`, `… 979 more options (mode=full shows them; any is found by role and name: {"role":"option","name":…})`},
			not:  []string{`"Bin 021"`}},
		{name: "long listbox in full", mode: ModeFull, n: &Node{R: "listbox", N: "Bin", Ref: "e1", C: options(1000, -1)},
			want: []string{`option e1009 "Bin 1000"`}, not: []string{"more options"}},
		{name: "short listbox", mode: ModeCompact, n: &Node{R: "listbox", N: "Bin", Ref: "e1", C: options(25, -1)},
			want: []string{`option e34 "Bin 025"`}, not: []string{"more options"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := strings.Join((&Renderer{Mode: c.mode}).Lines([]*Node{c.n}), "\n")
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("%q in:\n%s", w, out)
				}
			}
		})
	}
}
