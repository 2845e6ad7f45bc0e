package browser

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the work of a line diff; past it the diff falls back to
// listing the whole new snapshot.
const maxDiffCells = 4_000_000

// diffLines reports how the lines of a snapshot changed: "+ line" for added,
// "- line" for removed, with unchanged lines left out and counted.
func diffLines(prev, cur []string) string {
	if prev == nil {
		return "(no earlier snapshot of this tab: full snapshot follows)\n" + strings.Join(cur, "\n")
	}
	// Trim the common head and tail first: most changes are local.
	head := 0
	for head < len(prev) && head < len(cur) && prev[head] == cur[head] {
		head++
	}
	tail := 0
	for tail < len(prev)-head && tail < len(cur)-head && prev[len(prev)-1-tail] == cur[len(cur)-1-tail] {
		tail++
	}
	a, b := prev[head:len(prev)-tail], cur[head:len(cur)-tail]
	if len(a) == 0 && len(b) == 0 {
		return fmt.Sprintf("(no changes; %d lines)", len(cur))
	}
	if len(a)*len(b) > maxDiffCells {
		return "(too many changes to diff: full snapshot follows)\n" + strings.Join(cur, "\n")
	}
	// Longest common subsequence table, from the end.
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	var out []string
	same := head + tail
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			same++
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			out = append(out, "- "+strings.TrimLeft(a[i], " "))
			i++
		default:
			out = append(out, "+ "+strings.TrimLeft(b[j], " "))
			j++
		}
	}
	return strings.Join(out, "\n") + fmt.Sprintf("\n(%d unchanged lines not shown)", same)
}
