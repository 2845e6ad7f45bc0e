package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// bigPages are the pages of the first look at a big page: the table that
// testdata/pages/bench/big-table.html builds at load, rows of 6 cells (7
// elements a row).
var bigPages = []struct {
	rows     int
	elements string
}{
	{8000, "56k"},
	{32000, "224k"},
}

// bigLimit is the time a server gets for each call of the big pages; a
// server that passes it is stopped and left out of the rest of them.
const bigLimit = 60 * time.Second

// bigRounds is at most how many interleaved rounds the big pages get (the
// peers take seconds to tens of seconds a call on them).
const bigRounds = 3

// bigCell is one server's samples of a row of the big pages, or why it has
// none: "> 60 s" or "failed".
type bigCell struct {
	vals []float64
	miss string
}

// bigRow is a row of the big pages' table: its name and a cell per server.
type bigRow struct {
	name  string
	cells []bigCell
}

// benchBig is the first look at a big page side by side: on each page of
// bigPages, in up to bigRounds interleaved rounds, each server navigates,
// then snapshots; the snapshot call is the row (the navigate and the
// result's size are shown too). A server whose call fails or passes
// bigLimit gets "failed" or "> 60 s" for it and is left out of the rest of
// the pages (a server past the limit is stopped: it is still at work); the
// others go on. Pages whose name does not contain only are left out. It
// returns the table's rows for the history.
func benchBig(stdout io.Writer, sessions []*sideSession, baseURL string, runs int, only string) ([]bigRow, error) {
	const page = "bench/big-table.html"
	if !strings.Contains(page, only) {
		return nil, nil
	}
	rounds := min(runs, bigRounds)
	var rows []bigRow
	var notes []string
	out := make([]bool, len(sessions)) // left out after a failure
	for _, p := range bigPages {
		url := fmt.Sprintf("%s/%s?rows=%d", baseURL, page, p.rows)
		name := fmt.Sprintf("%s?rows=%d (%s elements)", page, p.rows, p.elements)
		nav := bigRow{name: "navigate " + name, cells: make([]bigCell, len(sessions))}
		snap := bigRow{name: "snapshot " + name, cells: make([]bigCell, len(sessions))}
		size := bigRow{name: "snapshot size (chars) " + name, cells: make([]bigCell, len(sessions))}
		for range rounds {
			for i, s := range sessions {
				if out[i] {
					continue
				}
				fail := func(row *bigRow, err error, d float64) {
					out[i] = true
					row.cells[i].miss = "failed"
					if errors.Is(err, context.DeadlineExceeded) || d >= ms(bigLimit) {
						row.cells[i].miss = "> 60 s"
						s.close()
					}
					notes = append(notes, fmt.Sprintf("%s on %s: %s", s.srv.name, row.name, trimTo(strings.Join(strings.Fields(err.Error()), " "), 200)))
				}
				t0 := time.Now()
				tool, args := s.srv.navigate(url)
				if _, _, err := s.callWithin(bigLimit, tool, args); err != nil {
					fail(&nav, err, ms(time.Since(t0)))
					continue
				}
				nav.cells[i].vals = append(nav.cells[i].vals, ms(time.Since(t0)))
				t0 = time.Now()
				tool, args = s.srv.snapshot()
				_, text, err := s.callWithin(bigLimit, tool, args)
				if err != nil {
					fail(&snap, err, ms(time.Since(t0)))
					continue
				}
				snap.cells[i].vals = append(snap.cells[i].vals, ms(time.Since(t0)))
				size.cells[i].vals = append(size.cells[i].vals, float64(len([]rune(text))))
			}
		}
		rows = append(rows, nav, snap, size)
	}
	fmt.Fprintf(stdout, "\nfirst look at a big page — %d interleaved rounds, median client-side ms per call (limit %.0f s a call)\n\n", rounds, bigLimit.Seconds())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, sideHead("operation", "× faster peer", sessions))
	for _, r := range rows {
		format := "%.0f ms"
		if strings.HasPrefix(r.name, "snapshot size") {
			format = "%.0f"
		}
		line := r.name + "\t"
		for _, c := range r.cells {
			switch {
			case len(c.vals) > 0:
				line += fmt.Sprintf(format+"\t", median(c.vals))
			case c.miss != "":
				line += c.miss + "\t"
			default:
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line+r.ratio()+"\t")
	}
	tw.Flush()
	fmt.Fprintln(stdout, "(bench/big-table.html builds the table at load; the navigate is the navigate call (playwright-mcp's")
	fmt.Fprintln(stdout, " returns a snapshot of the page, webpilot's none), the snapshot the call after it, as the agent gets it;")
	fmt.Fprintln(stdout, " \"> 60 s\": the call passed the limit and the server was stopped; \"-\": not measured after that)")
	for _, n := range notes {
		fmt.Fprintln(stdout, "  "+n)
	}
	return rows, nil
}

// ratio is webpilot's median (the first cell) over the faster peer's, as
// "0.12"; "<0.05" when every peer passed the limit (webpilot's over the
// limit); "-" without webpilot's or any peer's.
func (r bigRow) ratio() string {
	if len(r.cells) < 2 || len(r.cells[0].vals) == 0 {
		return "-"
	}
	meds := []float64{median(r.cells[0].vals)}
	over := false
	for _, c := range r.cells[1:] {
		if len(c.vals) > 0 {
			meds = append(meds, median(c.vals))
		}
		over = over || c.miss == "> 60 s"
	}
	if len(meds) == 1 {
		if over {
			return fmt.Sprintf("<%.2f", meds[0]/ms(bigLimit))
		}
		return "-"
	}
	return overBestPeer(meds)
}
