package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// bigPage writes a page of n clickable elements: buttons, links, inputs
// with labels and onclick divs, in rows of a few containers, the shape of
// long product lists and data grids.
func bigPage(w http.ResponseWriter, n int, fixed bool) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<!doctype html><title>Big " + strconv.Itoa(n) + "</title><h1>Big page</h1><main><div id=list>")
	for i := 0; i < n; i++ {
		if fixed && i == n-5 {
			// (a box kept at the end of the list but shown on screen)
			b.WriteString(`<div style="position:fixed;right:8px;bottom:8px;background:#fff"><button>Chat with us</button></div>`)
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "<button>Buy %d</button>", i)
		case 1:
			fmt.Fprintf(&b, "<a href=\"/item/%d\">Item %d</a>", i, i)
		case 2:
			fmt.Fprintf(&b, "<label>Qty %d <input name=q%d></label>", i, i)
		case 3:
			fmt.Fprintf(&b, "<div onclick=\"void 0\">Open %d</div>", i)
		}
		if i%20 == 19 {
			b.WriteString("<br>\n")
		}
	}
	b.WriteString("</div></main><p id=end>the end</p>")
	_, _ = w.Write([]byte(b.String()))
}

// bigTable writes a table of n rows of six cells (a link, text, a
// number, a date, a status and a button): 8,000 rows are about 56,000
// elements, the shape of an order list or a log.
func bigTable(w http.ResponseWriter, n int, hero bool) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<!doctype html><title>Orders " + strconv.Itoa(n) + "</title><h1>Orders</h1><p>Every order of the year.</p>")
	if hero {
		// (the table starts three screens down)
		b.WriteString(`<div style="height:300vh">A tall banner</div>`)
	}
	b.WriteString("" +
		"<table><caption>Orders</caption><thead><tr><th>Order<th>Customer<th>Total<th>Date<th>Status<th>Action</thead><tbody>")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<tr><td><a href=\"/order/%d\">#%d</a><td>Customer %d<td>$%d.%02d<td>2026-%02d-%02d<td>%s<td><button>Open %d</button>",
			i, 10000+i, i%997, i%500, i%100, 1+i%12, 1+i%28, []string{"paid", "shipped", "open"}[i%3], i)
	}
	b.WriteString("</tbody></table><p id=end>the end</p>")
	_, _ = w.Write([]byte(b.String()))
}

// bigServer serves /big?n=N (clickable elements) and /table?n=N (rows).
func bigServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/evil-csp" {
			// Agent patterns cannot run in a worker here.
			w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; worker-src 'none'")
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<title>CSP</title><div hidden>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</div><button id="go">go</button>`))
			return
		}
		if r.URL.Path == "/block" {
			// A disabled button, and a page that stops answering a
			// moment after it loads (its main thread busy for 10 s).
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<title>Block</title><button id="b" disabled>Go</button>` +
				`<script>setTimeout(() => { const end = Date.now() + 10000; while (Date.now() < end); }, 1000)</script>`))
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Path == "/table" {
			bigTable(w, n, r.URL.Query().Has("hero"))
			return
		}
		bigPage(w, n, r.URL.Query().Has("fixed"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBigPageTimes prints the time of a first and a second snapshot of
// generated pages of 5k to 40k clickable elements (WEBPILOT_BENCH=1): the
// walk must grow linearly.
func TestBigPageTimes(t *testing.T) {
	if os.Getenv("WEBPILOT_BENCH") == "" {
		t.Skip("a measurement, not a test (WEBPILOT_BENCH=1)")
	}
	e := newEnv(t, browser.Options{})
	e.ctx = backendtest.Context(t, 600*time.Second)
	base := bigServer(t)
	sizes := []int{5000, 10000, 20000, 40000}
	if s := os.Getenv("WEBPILOT_BENCH_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, _ := strconv.Atoi(f)
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, base+"/big?n="+strconv.Itoa(n), 0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for run := 0; run < 2; run++ {
			start := time.Now()
			var snap *browser.Snapshot
			err := e.do(func(ctx context.Context, h *browser.Held) error {

				var err error
				snap, err = h.Snapshot(ctx, browser.SnapshotOptions{MaxChars: 20000})
				return err
			})
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			fmt.Printf("n=%6d run %d: %7.0f ms  refs %d chars %d\n", n, run, float64(time.Since(start).Milliseconds()), snap.Refs, snap.TotalChars)
		}
	}
}

// prompt runs fn on the env's tab with its own deadline and fails the test
// when it errs or takes longer than within.
func (e *env) prompt(what string, within time.Duration, fn func(ctx context.Context, h *browser.Held) error) {
	e.t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, within+backendtest.Timeout(2*time.Second))
	defer cancel()
	err := e.s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		h.Use(tab)
		return fn(ctx, h)
	})
	if err != nil {
		e.t.Fatalf("%s: %v (after %v)", what, err, time.Since(start))
	}
	if d := time.Since(start); d > within {
		e.t.Errorf("%s took %v, want under %v", what, d, within)
	}
}

// TestSnapshotHugePage: a page of 200,000 elements snapshots within the
// call's deadline (a first look, or cut at the walk's time budget, and
// saying so, when a whole walk does not finish), and the tab answers the
// next call promptly.
func TestSnapshotHugePage(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.ctx = backendtest.Context(t, 180*time.Second)
	base := bigServer(t)
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, base+"/big?n=200000", backendtest.Timeout(60*time.Second))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	limit := backendtest.Timeout(15 * time.Second)
	snap, took, err := e.snapshotWithin(limit, browser.SnapshotOptions{MaxChars: 20000})
	if err != nil {
		t.Fatalf("snapshot of 200,000 elements: %v (after %v)", err, took)
	}
	if took > limit {
		t.Errorf("snapshot took %v, past the call's %v", took, limit)
	}
	if snap.Stopped == 0 && snap.Refs < 200000 && snap.Look[1] < 200000 {
		t.Errorf("snapshot has %d refs and does not say it was cut or a first look", snap.Refs)
	}
	if snap.Stopped > 0 && !strings.Contains(snap.Text, "walk stopped after") {
		t.Errorf("a cut walk is not reported:\n%.500s", snap.Text)
	}
	if !strings.Contains(snap.Text, "Buy 0") {
		t.Errorf("the start of the page is missing:\n%.500s", snap.Text)
	}
	t.Logf("snapshot: %v, %d refs, stopped %d, %d chars", took, snap.Refs, snap.Stopped, snap.TotalChars)
	// A short call reading the whole page: the walk stops at its budget
	// and the snapshot says so.
	short := 5 * time.Second
	snap, took, err = e.snapshotWithin(short, browser.SnapshotOptions{Mode: browser.ModeFull, MaxChars: 20000})
	if err != nil {
		t.Fatalf("snapshot in %v: %v (after %v)", short, err, took)
	}
	if snap.Stopped == 0 || !strings.Contains(snap.Text, "walk stopped after "+commas(snap.Stopped)+" elements at the time budget") {
		t.Errorf("a walk cut at %v is not reported (stopped %d):\n%.400s", short, snap.Stopped, snap.Text)
	}
	t.Logf("short snapshot: %v, %d refs, stopped %d", took, snap.Refs, snap.Stopped)
	e.prompt("a scoped snapshot after it", backendtest.Timeout(5*time.Second), func(ctx context.Context, h *browser.Held) error {

		s, err := h.Snapshot(ctx, browser.SnapshotOptions{Scope: browser.Locator{Selector: "#end"}})
		if err == nil && !strings.Contains(s.Text, "the end") {
			t.Errorf("scoped snapshot:\n%s", s.Text)
		}
		return err
	})
}

// open navigates the env's tab to an absolute URL.
func (e *env) open(url string) {
	e.t.Helper()
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, url, 0)
		return err
	})
	if err != nil {
		e.t.Fatalf("navigate %s: %v", url, err)
	}
}

// snapshotWithin takes a snapshot in a call of d and says how long it took.
func (e *env) snapshotWithin(d time.Duration, opts browser.SnapshotOptions) (*browser.Snapshot, time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, d)
	defer cancel()
	var snap *browser.Snapshot
	err := e.s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		snap, err = h.On(tab).Snapshot(ctx, opts)
		return err
	})
	return snap, time.Since(start), err
}

// TestWalkStoppedAtDeadline: an evaluation in the walker's world that is
// still running when its call's time ends is stopped in the page
// (Runtime.terminateExecution), so the next call on the tab works at once.
func TestWalkStoppedAtDeadline(t *testing.T) {
	if backendtest.Kind() == "bridge" {
		t.Skip("chrome.debugger refuses Runtime.terminateExecution to extensions (untrusted clients): over the bridge, walks stop at their own time budget and patterns run in a worker")
	}
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	start := time.Now()
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		return browser.EvalWalkerWorld(ctx, tab, "(() => { for (;;) {} })()")
	})
	if err == nil {
		t.Fatal("an endless script returned")
	}
	if d := time.Since(start); d > backendtest.Timeout(2*time.Second) {
		t.Errorf("the endless script's call took %v", d)
	}
	e.prompt("a snapshot after the stopped script", backendtest.Timeout(3*time.Second), func(ctx context.Context, h *browser.Held) error {

		s, err := h.Snapshot(ctx, browser.SnapshotOptions{})
		if err == nil && !strings.Contains(s.Text, "Basic page") {
			t.Errorf("snapshot:\n%s", s.Text)
		}
		return err
	})
	if got := e.eval("document.title"); got != "Basic page" {
		t.Errorf("title = %q", got)
	}
}

// TestSnapshotMaxCharsClamped: max_chars above the cap is lowered to it,
// and the result says so.
func TestSnapshotMaxCharsClamped(t *testing.T) {
	e := newEnv(t, browser.Options{})
	base := bigServer(t)
	e.open(base + "/big?n=8000")
	var snap *browser.Snapshot
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		snap, err = h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull, MaxChars: 1_000_000_000})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(snap.Text)); n > browser.MaxSnapshotChars+1000 {
		t.Errorf("snapshot text is %d chars, want at most about %d", n, browser.MaxSnapshotChars)
	}
	if !strings.Contains(snap.Text, "max_chars 1,000,000,000 lowered to 100,000") || snap.NextOffset == 0 {
		t.Errorf("the clamp is not reported (next offset %d):\n%.400s", snap.NextOffset, snap.Text)
	}
}

// commas formats n with thousands separators, as snapshots do.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestActionWithinCallDeadline: an action whose call ends before its own
// action timeout (the element never becomes actionable, and the page stops
// answering) answers by the call's deadline, not handleTimeout after it.
func TestActionWithinCallDeadline(t *testing.T) {
	e := newEnv(t, browser.Options{ActionTimeout: 30 * time.Second})
	base := bigServer(t)
	e.open(base + "/block")
	call := 3 * time.Second
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, call)
	defer cancel()
	err := e.s.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		_, err = h.On(tab).Act(ctx, browser.Action{Kind: "click", Target: browser.Locator{Selector: "#b"}})
		return err
	})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a click on a disabled button succeeded")
	}
	if took > call+500*time.Millisecond {
		t.Errorf("the action answered after %v, past its call's %v: %v", took, call, err)
	}
	t.Logf("answered after %v: %v", took, err)
}

// TestSnapshotWithinCallDeadline: a snapshot of a page whose main thread is
// busy (with its own script) answers TIMEOUT by its call's deadline.
func TestSnapshotWithinCallDeadline(t *testing.T) {
	e := newEnv(t, browser.Options{})
	base := bigServer(t)
	e.open(base + "/block")
	time.Sleep(1500 * time.Millisecond) // the page is busy now
	call := 3 * time.Second
	_, took, err := e.snapshotWithin(call, browser.SnapshotOptions{})
	wantCode(t, err, browser.CodeTimeout)
	t.Logf("answered after %v: %v", took, err)
	if took > call {
		t.Errorf("the snapshot answered after %v, past its call's %v", took, call)
	}
}

// A first look at a big page (compact and interactive snapshots, the
// diff after an action) reads what is on screen and near it, says what it
// left and where, and shows a box positioned onto the screen from far down
// a long list; the refs it gives stay when the rest is read (mode=full),
// and after a scroll the look follows the screen.
func TestFirstLook(t *testing.T) {
	e := newEnv(t, browser.Options{NavTimeout: backendtest.Timeout(60 * time.Second)})
	e.ctx = backendtest.Context(t, 300*time.Second)
	base := bigServer(t)
	look := func(mode string) (*browser.Snapshot, string) {
		t.Helper()
		var snap *browser.Snapshot
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			snap, err = h.Snapshot(ctx, browser.SnapshotOptions{Mode: mode, MaxChars: 100_000})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return snap, snap.Text
	}
	nav := func(u string) {
		t.Helper()
		if err := e.do(func(ctx context.Context, h *browser.Held) error { _, err := h.Navigate(ctx, u, 0); return err }); err != nil {
			t.Fatal(err)
		}
	}
	nav(base + "/table?n=8000")
	snap, text := look(browser.ModeCompact)
	if snap.Look[1] < 50_000 || snap.Look[0] == 0 || snap.Look[0] > 2_000 {
		t.Fatalf("a first look at 8,000 rows read %d of %d elements:\n%s", snap.Look[0], snap.Look[1], text)
	}
	for _, want := range []string{"(a first look at a big page: ", `table "Orders" 8001×6:`, `button e`, `"Open 0"`, "rows below the screen not read in this first look", "the end"} {
		if !strings.Contains(text, want) {
			t.Errorf("the first look lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"Open 7990"`) || strings.Contains(text, "rows above") {
		t.Errorf("the first look at the top of the page reads its end:\n%s", text)
	}
	ref := refOf(t, text, "button", "Open 5")
	_, full := look(browser.ModeFull)
	if got := refOf(t, full, "button", "Open 5"); got != ref {
		t.Errorf("Open 5 is %s in the first look and %s in the whole page", ref, got)
	}
	if !strings.Contains(full, `"Open 500"`) || strings.Contains(full, "first look") {
		t.Errorf("mode=full does not read the whole page")
	}
	// A diff after the whole page is not a list of the rows the look left.
	if _, d := look(browser.ModeDiff); !strings.Contains(d, "the page follows, not a diff") || strings.Contains(d, "- ") {
		t.Errorf("a diff of a first look against the whole page:\n%.1500s", d)
	}
	// After a scroll to the middle, the look reads the rows there.
	e.eval(`(scrollTo(0, document.body.scrollHeight / 2), "")`)
	_, mid := look(browser.ModeInteractive)
	if !strings.Contains(mid, "rows above the screen not read") || !strings.Contains(mid, "rows below the screen not read") || !strings.Contains(mid, `"Open 4000"`) {
		t.Errorf("the look after a scroll to the middle:\n%s", mid)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: refOf(t, mid, "button", "Open 4000")}}); err != nil {
		t.Errorf("a click by a ref of the look after a scroll: %v", err)
	}
	// A long table wholly below the screen is not read whole.
	nav(base + "/table?n=8000&hero")
	snap, text = look(browser.ModeCompact)
	if snap.Look[0] == 0 || snap.Look[0] > 200 || !strings.Contains(text, "7,999 rows below the screen not read") {
		t.Errorf("a first look at a table below the screen read %d elements:\n%.2000s", snap.Look[0], text)
	}
	// A box kept at the end of a long list but shown on screen.
	nav(base + "/big?n=40000&fixed")
	snap, text = look(browser.ModeCompact)
	if snap.Look[0] == 0 || !strings.Contains(text, `button e`) || !strings.Contains(text, `"Chat with us"`) || !strings.Contains(text, "elements below the screen not read") {
		t.Errorf("the first look at a long list with a fixed box:\n%s", text)
	}
	// A page under the threshold is read whole.
	nav(base + "/table?n=500")
	if snap, text = look(browser.ModeCompact); snap.Look[1] != 0 || strings.Contains(text, "first look") {
		t.Errorf("a 500-row table was given a first look:\n%s", text)
	}
}
