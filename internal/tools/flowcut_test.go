package tools

import (
	"strings"
	"testing"
)

// A flow's result is bounded, at a line end when there is one, and says
// what was left out and how to read it.
func TestCutOutput(t *testing.T) {
	lines := strings.Repeat("0123456789\n", 100) // 1,100 chars
	for _, tc := range []struct {
		name     string
		text     string
		max      int
		wantKeep int // runes kept before the note; -1: untouched
	}{
		{"under the bound", "short", 10, -1},
		{"at the bound", "0123456789", 10, -1},
		{"cut at a line end", lines, 105, 98},
		{"one long line is cut in it", strings.Repeat("é", 50), 20, 20},
	} {
		got := cutOutput(tc.text, tc.max)
		if tc.wantKeep < 0 {
			if got != tc.text {
				t.Errorf("%s: changed to %q", tc.name, got)
			}
			continue
		}
		kept, note, ok := strings.Cut(got, "\n… ")
		if !ok || len([]rune(kept)) != tc.wantKeep || !strings.Contains(note, "run that step alone (with offset)") {
			t.Errorf("%s: kept %d runes (want %d), note %q", tc.name, len([]rune(kept)), tc.wantKeep, note)
		}
	}
}
