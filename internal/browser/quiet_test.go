package browser_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Requests that outlive their page (keepalive fetches, beacons, pings) never
// hold an action: a click that sends one returns without hitting the quiet
// wait's bound, also when it changes nothing else (the second click). A
// keepalive fetch's end can come before its start: it used to be left
// pending until the bound.
func TestQuietIgnoresKeepalive(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/keepalive.html")
	for _, id := range []string{"#keep", "#beacon", "#ping"} {
		for i := range 3 {
			res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Frame: "#f", Selector: id}})
			if err != nil {
				t.Fatalf("%s click %d: %v", id, i+1, err)
			}
			if res.Busy != "" || strings.Contains(res.Note, "still busy") {
				t.Errorf("%s click %d hit the quiet wait's bound: busy %q, note %q", id, i+1, res.Busy, res.Note)
			}
		}
	}
}

// When the wait after an action hits a bound, the result says so and names
// what was still going on.
func TestQuietReportsBound(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/hang")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#b")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Busy, "1 request pending") || !strings.Contains(res.Busy, "/hangs") || !strings.Contains(res.Note, res.Busy) {
		t.Errorf("a request still running: busy %q, note %q", res.Busy, res.Note)
	}
	e.navigate("/storm")
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#b")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Busy, "kept changing") {
		t.Errorf("a page that keeps changing: busy %q, note %q", res.Busy, res.Note)
	}
}

// An action that starts a CSS transition returns when it has ended: after
// "next" on a carousel whose slide moves for 600 ms, one slide shows (the
// new one), not two, and the next click is not ignored by a carousel still
// sliding.
func TestQuietWaitsForTransitions(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/carousel.html")
	for _, want := range []string{"Slide two", "Slide three"} {
		res, err := e.act(browser.Action{Kind: "click", Target: sel(".carousel-control-next")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Busy != "" {
			// A renderer starved of frames (a loaded machine) starts
			// transitions late, and the wait's bound may come first.
			t.Logf("the slide hit a bound: %q", res.Busy)
			sleepUntilStill(t, e)
		}
		snap := e.snapshot(browser.ModeFull)
		shown := 0
		for _, s := range []string{"Slide one", "Slide two", "Slide three"} {
			if strings.Contains(snap, s) {
				shown++
			}
		}
		if !strings.Contains(snap, want) || shown != 1 {
			t.Errorf("after next: want %s alone, got\n%s", want, snap)
		}
	}

	// A modal that fades in: the action's diff shows its content.
	e.navigate("/quiet/modal.html")
	e.snapshot(browser.ModeCompact) // the diff's baseline
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#open")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != "" {
		t.Logf("the fade hit a bound: %q", res.Busy)
	}
	if diff := e.snapshot(browser.ModeDiff); !strings.Contains(diff, "Ship 3 items to Berlin?") {
		t.Errorf("the diff after opening the modal lacks its content:\n%s", diff)
	}
}

// An infinite animation (a spinner) the action started does not hold it,
// nor do transitions of colours and shadows (3 s long here: waited for,
// they would hit the bound).
func TestQuietIgnoresInfiniteAnimations(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/spinner.html")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#load")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != "" || strings.Contains(res.Note, "still busy") {
		t.Errorf("a spinner held the action: busy %q, note %q", res.Busy, res.Note)
	}
	if got := e.eval(`document.getAnimations().map(a => a.animationName || a.transitionProperty).sort().join(" ")`); got != "background-color box-shadow spinner-border" {
		t.Errorf("animations running: %q, want the spinner and the button's transitions", got)
	}
}

// sleepUntilStill waits until the page runs no animation, so that a test
// can go on after an action that hit the wait's bound.
func sleepUntilStill(t *testing.T, e *env) {
	t.Helper()
	for range 100 {
		if e.eval(`String(document.getAnimations().length)`) == "0" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the page kept animating")
}

// What a click sets off for the next frame (a requestAnimationFrame
// callback) is done when the action returns, also now that the wait's
// start window ends once the page has drawn that frame: the result's title
// and the diff show it, click after click. A page that draws no frames
// (a tab in the background) is not waited on for one.
func TestQuietSeesTheNextFrame(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/frame.html")
	visible := e.eval(`document.visibilityState`) == "visible"
	e.snapshot(browser.ModeCompact)
	for i := 1; i <= 3; i++ {
		res, err := e.act(browser.Action{Kind: "click", Target: sel("#draw")})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Drawn %d", i)
		if visible && res.Title != want {
			t.Errorf("click %d: the title at the action's end is %q, want %q (the frame's change)", i, res.Title, want)
		}
		if !visible && res.Busy != "" {
			t.Errorf("click %d on a page that draws no frames: busy %q", i, res.Busy)
		}
		if d := e.snapshot(browser.ModeDiff); visible && !strings.Contains(d, fmt.Sprintf("status: drawn in a frame %d", i)) {
			t.Errorf("click %d: the diff lacks the frame's change:\n%s", i, d)
		}
	}
}

// The wait after an action ends as soon as the page has settled — nothing
// changed since the frame after the input and no short timer or channel
// message is queued — but never while the page still has such work queued:
// a chain of short timers, a render in slices (as React's scheduler queues
// it) and a change two animation frames on are waited for, click after
// click, and the diff shows their end.
func TestQuietWaitsForQueuedWork(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/chain.html")
	e.snapshot(browser.ModeCompact)
	for i := 1; i <= 3; i++ {
		for _, c := range []struct{ id, want string }{
			{"#timers", "timers done, run %d"},
			{"#slices", "slices done, run %d"},
			{"#frames", "frames done, run %d"},
			{"#once", "once, run %d"},
		} {
			run := 4*(i-1) + map[string]int{"#timers": 1, "#slices": 2, "#frames": 3, "#once": 4}[c.id]
			if _, err := e.act(browser.Action{Kind: "click", Target: sel(c.id)}); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf(c.want, run)
			if d := e.snapshot(browser.ModeDiff); !strings.Contains(d, "status: "+want) {
				t.Errorf("%s, round %d: the diff lacks %q:\n%s", c.id, i, want, d)
			}
		}
	}
}

// A read ahead after a navigation walks the page in the background, and
// the snapshot after it is the one a walk then would give. The walk kept
// stands only while nothing it depends on has changed, mutation or not: a
// value set by a script (no event), the focus moved by a script, the
// page's scroll.
func TestReadAhead(t *testing.T) {
	e := newEnv(t, browser.Options{})
	ahead := func(path string) {
		t.Helper()
		var done <-chan struct{}
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Navigate(ctx, path, 0)
			done = h.Session().ReadAhead(h.Tab())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	ahead(e.base + "/form.html")
	plain := e.snapshot(browser.ModeCompact)
	ahead(e.base + "/form.html")
	if again := e.snapshot(browser.ModeCompact); stripHead(again) != stripHead(plain) {
		t.Errorf("the snapshot after a read ahead differs from one without:\n%s\n---\n%s", again, plain)
	}
	for _, c := range []struct {
		name, path, between string
		stands              bool
	}{
		{"nothing", "/form.html", `0`, true},
		{"a value set by a script", "/form.html", `document.querySelector("#name").value = "Zed"`, false},
		{"a box checked by a script", "/form.html", `document.querySelector("input[type=checkbox]").checked = true`, false},
		{"focus moved by a script", "/form.html", `document.querySelector("#name").focus()`, false},
		{"the page scrolled", "/long.html", `scrollTo(0, 400)`, false},
	} {
		e.navigate(c.path)
		var stands bool
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			stands, err = browser.WalkStands(ctx, h.Tab(), c.between)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if stands != c.stands {
			t.Errorf("%s: the kept walk stands: %v, want %v", c.name, stands, c.stands)
		}
	}
}

// stripHead is a snapshot without its header line (its id differs) and
// with its refs as e# (a new load gives new ones).
func stripHead(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return regexp.MustCompile(`\be\d+\b`).ReplaceAllString(s, "e#")
}

// The wait's first check after an input needs the page's next frame after
// that input, not after the check: a frame the page began after the input,
// before the check, counts (no frame more is waited for); one that began
// before the input does not, and neither does one with no input seen.
func TestQuietFrameAfterInputCounts(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/settle.html")
	const input = `document.getElementById("q").dispatchEvent(new Event("input", {bubbles: true}))`
	const frame = `new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))`
	for _, c := range []struct {
		name, before string
		waits        bool
	}{
		{"a frame after the input", input + `; ` + frame, false},
		{"the input after a frame", frame + `.then(() => { ` + input + ` })`, true},
		{"no input", frame, true},
	} {
		var frames int
		var drawn bool
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			frames, drawn, err = browser.FramesWhileChecking(ctx, h.Tab(), c.before)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !drawn || (frames > 0) != c.waits {
			t.Errorf("%s: the check saw a frame drawn: %t, and the page began %d frames while it ran; want a frame drawn and, waiting for one: %t", c.name, drawn, frames, c.waits)
		}
	}
}
