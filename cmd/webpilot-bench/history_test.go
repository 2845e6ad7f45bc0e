package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// entry is a history entry of 2 cores on linux/amd64 with rows.
func entry(commit string, rows histRows) histEntry {
	return histEntry{Commit: commit, Date: "2026-12-07T10:00:00Z", Cores: 2, OS: "linux/amd64", Rows: rows}
}

// Each row is compared with the latest earlier entry of the same machine
// shape that has it: ratios when both runs had peers, else values; more
// than 20 % worse is a regression, 20 % or better is not.
func TestCompareHistory(t *testing.T) {
	other := entry("c0", histRows{"a": {Value: 1, Unit: "ms"}})
	other.Cores = 8
	tests := []struct {
		name string
		prev []histEntry
		cur  histRows
		want []string
	}{
		{"no history", nil, histRows{"a": {Value: 50, Unit: "ms"}}, nil},
		{"value 25 % worse", []histEntry{entry("c1", histRows{"a": {Value: 40, Unit: "ms"}})},
			histRows{"a": {Value: 50, Unit: "ms"}}, []string{"REGRESSION a: 40 ms → 50 ms (+25 %)"}},
		{"value exactly 20 % worse is not", []histEntry{entry("c1", histRows{"a": {Value: 50, Unit: "ms"}})},
			histRows{"a": {Value: 60, Unit: "ms"}}, nil},
		{"value better", []histEntry{entry("c1", histRows{"a": {Value: 50, Unit: "tokens"}})},
			histRows{"a": {Value: 10, Unit: "tokens"}}, nil},
		{"ratio holds while the value doubles on a slower machine", []histEntry{entry("c1", histRows{"a": {Value: 40, Unit: "ms", Ratio: 0.5}})},
			histRows{"a": {Value: 80, Unit: "ms", Ratio: 0.52}}, nil},
		{"ratio 30 % worse while the value is the same", []histEntry{entry("c1", histRows{"a": {Value: 40, Unit: "ms", Ratio: 0.5}})},
			histRows{"a": {Value: 40, Unit: "ms", Ratio: 0.65}}, []string{"REGRESSION a: 0.50× → 0.65× (+30 %)"}},
		{"values when the earlier run had no peers", []histEntry{entry("c1", histRows{"a": {Value: 40, Unit: "ms"}})},
			histRows{"a": {Value: 60, Unit: "ms", Ratio: 0.1}}, []string{"REGRESSION a: 40 ms → 60 ms (+50 %)"}},
		{"values when this run has no peers", []histEntry{entry("c1", histRows{"a": {Value: 40, Unit: "ms", Ratio: 0.1}})},
			histRows{"a": {Value: 45, Unit: "ms"}}, nil},
		{"a millisecond is within the tables' resolution", []histEntry{entry("c1", histRows{"a": {Value: 2, Unit: "ms"}})},
			histRows{"a": {Value: 3, Unit: "ms"}}, nil},
		{"but not a command", []histEntry{entry("c1", histRows{"a": {Value: 2, Unit: "commands"}})},
			histRows{"a": {Value: 3, Unit: "commands"}}, []string{"REGRESSION a: 2 commands → 3 commands (+50 %)"}},
		{"a baseline of 0 is not compared", []histEntry{entry("c1", histRows{"a": {Value: 0, Unit: "commands"}})},
			histRows{"a": {Value: 3, Unit: "commands"}}, nil},
		{"the latest entry counts, not an older one", []histEntry{
			entry("c1", histRows{"a": {Value: 10, Unit: "MiB"}}),
			entry("c2", histRows{"a": {Value: 100, Unit: "MiB"}}),
		}, histRows{"a": {Value: 110, Unit: "MiB"}}, nil},
		{"against an older regression too", []histEntry{
			entry("c1", histRows{"a": {Value: 100, Unit: "MiB"}}),
			entry("c2", histRows{"a": {Value: 10, Unit: "MiB"}}),
		}, histRows{"a": {Value: 110, Unit: "MiB"}}, []string{"REGRESSION a: 10 MiB → 110 MiB (+1000 %)"}},
		{"a row the latest entry lacks is compared with the one before", []histEntry{
			entry("c1", histRows{"a": {Value: 100, Unit: "ms"}}),
			entry("c2", histRows{"b": {Value: 10, Unit: "ms"}}),
		}, histRows{"a": {Value: 130, Unit: "ms"}, "b": {Value: 10, Unit: "ms"}}, []string{"REGRESSION a: 100 ms → 130 ms (+30 %)"}},
		{"another machine shape is not compared", []histEntry{entry("c1", histRows{"a": {Value: 100, Unit: "ms"}}), other},
			histRows{"a": {Value: 110, Unit: "ms"}}, nil},
		{"only another machine shape", []histEntry{other}, histRows{"a": {Value: 100, Unit: "ms"}}, nil},
		{"rows in name order, fractions kept", []histEntry{entry("c1", histRows{
			"z": {Value: 10, Unit: "MiB"}, "m": {Value: 1.5, Unit: "k chars"}, "x": {Value: 7, Unit: "ms"},
		})}, histRows{"z": {Value: 13, Unit: "MiB"}, "m": {Value: 2.5, Unit: "k chars"}, "x": {Value: 7, Unit: "ms"}},
			[]string{"REGRESSION m: 1.5 k chars → 2.5 k chars (+67 %)", "REGRESSION z: 10 MiB → 13 MiB (+30 %)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, g := range compareHistory(tt.prev, entry("now", tt.cur)) {
				got = append(got, g.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("compareHistory:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// The history file is one JSON line per run, read back as written; a
// line that is not an entry is skipped and counted; a missing file is an
// empty history.
func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench", "history.jsonl")
	if got, bad, err := readHistory(path); err != nil || got != nil || bad != 0 {
		t.Fatalf("readHistory of a missing file: %v, %d bad, %v", got, bad, err)
	}
	e1 := entry("c1", histRows{"side: snapshot bench/login.html": {Value: 6, Unit: "ms", Ratio: 0.67}})
	e2 := entry("c2", histRows{"dev: tools/list size": {Value: 2651, Unit: "tokens"}})
	e2.Args = []string{"-runs", "3"}
	if err := appendHistory(path, e1); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("not json\n\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := appendHistory(path, e2); err != nil {
		t.Fatal(err)
	}
	got, bad, err := readHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 || !reflect.DeepEqual(got, []histEntry{e1, e2}) {
		t.Errorf("readHistory: %d bad, %+v; want 1 bad, %+v", bad, got, []histEntry{e1, e2})
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 4 {
		t.Errorf("history file has %d lines, want 4 (2 entries, the bad line, the blank one):\n%s", n, b)
	}
}

// writeHistory prints the regressions against the file's last run of the
// machine shape and appends the run.
func TestWriteHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := appendHistory(path, entry("c1", histRows{"a": {Value: 10, Unit: "ms"}})); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := writeHistory(&out, path, entry("c2", histRows{"a": {Value: 20, Unit: "ms"}})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nREGRESSION a: 10 ms → 20 ms (+100 %)\n") || !strings.Contains(out.String(), "commit c1") {
		t.Errorf("writeHistory printed:\n%s", out.String())
	}
	got, _, err := readHistory(path)
	if err != nil || len(got) != 2 || got[1].Commit != "c2" {
		t.Errorf("after writeHistory the file holds %+v (%v), want c1 then c2", got, err)
	}
}

// add keeps 4 significant digits and no ratio that is not a number.
func TestHistRowsAdd(t *testing.T) {
	r := histRows{}
	r.add("a", "ms", 12.34567, 0.000123456)
	r.add("d", "chars", 2226731, 0)
	r.add("b", "ms", 5, math.Inf(1))
	r.add("c", "ms", 5, math.NaN())
	want := histRows{"a": {Value: 12.35, Unit: "ms", Ratio: 0.0001235}, "d": {Value: 2227000, Unit: "chars"}, "b": {Value: 5, Unit: "ms"}, "c": {Value: 5, Unit: "ms"}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("add: %+v, want %+v", r, want)
	}
}
