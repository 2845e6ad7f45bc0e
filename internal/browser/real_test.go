package browser_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// otherSite serves testdata/pages on localhost: another site than the
// fixtures' 127.0.0.1, so its frames run out of process.
func otherSite(t *testing.T) string {
	t.Helper()
	return serveLocalhost(t, backendtest.Pages())
}

// serveLocalhost serves h at http://localhost:PORT (a site other than
// 127.0.0.1's) until the test ends, and returns that origin.
func serveLocalhost(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://localhost:" + port
}

// find runs browser_find's search on the current tab.
func (e *env) find(o browser.FindOptions) string {
	e.t.Helper()
	var out string
	if err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		out, err = h.Find(ctx, o)
		return err
	}); err != nil {
		e.t.Fatalf("find %+v: %v", o, err)
	}
	return out
}

// A Bootstrap 4 modal (.modal.fade, opened by data-toggle through jQuery)
// fades in after the click. Once it is on screen, snapshots and find list
// it, and they agree with the hit test: a click behind it is covered by the
// modal, a click in it works, and after it has faded out it is gone from the
// snapshot again.
func TestBootstrapModalFadesIn(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/real/bs4-modal.html")
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "link", Name: "Logout", Exact: true}}); err != nil {
		t.Fatal(err)
	}
	// Shown: faded in, and its dialog done sliding down (Bootstrap moves
	// it with a transform transition of its own).
	shown := `(() => { const m = document.getElementById('logoutModal'); return m.classList.contains('show') && getComputedStyle(m).opacity === '1' && !m.hasAttribute('aria-hidden') && getComputedStyle(m.querySelector('.modal-dialog')).transform === 'none' ? 'yes' : 'no' })()`
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for e.eval(shown) != "yes" {
		if time.Now().After(deadline) {
			t.Fatal("the modal never finished fading in")
		}
		time.Sleep(20 * time.Millisecond)
	}
	snap := e.snapshot(browser.ModeCompact)
	for _, want := range []string{`dialog "Ready to Leave?" [modal]`, `button e3 "Cancel"`, `Select "Logout" below`} {
		if !strings.Contains(snap, want) {
			t.Errorf("the modal on screen is missing %q from the snapshot:\n%s", want, snap)
		}
	}
	if got := e.find(browser.FindOptions{Text: "Ready to Leave"}); !strings.Contains(got, "Ready to Leave?") || strings.Contains(got, "0 match") {
		t.Errorf("find does not see the modal:\n%s", got)
	}
	// An annotated screenshot labels what the snapshot lists, on the
	// modal's buttons where they are on screen, and leaves the DOM as it was.
	before := e.eval(`document.documentElement.outerHTML`)
	ann := e.mustShot(browser.ShotOptions{Format: browser.FormatPNG, Annotate: true})
	for _, l := range ann.Labels {
		if !regexp.MustCompile(`(^|\s)` + l.Ref + `(\s|:|$)`).MatchString(snap) {
			t.Errorf("label %s is not a ref of the snapshot:\n%s", l, snap)
		}
	}
	// The navbar's Logout link is behind the backdrop: no label on it
	// (issue 28, 6).
	if l, ok := labelOf(ann.Labels, "Logout"); ok {
		t.Errorf("a label on the link behind the modal: %+v", l)
	}
	for name, sel := range map[string]string{"Cancel": "#logoutModal .btn-secondary", "Logout now": "#doLogout"} {
		if l, ok := labelOf(ann.Labels, name); !ok || !near(l, e.rect(sel), 0, 0, 1) {
			t.Errorf("the modal's %q: label %+v (found %v), want on %v", name, l, ok, e.rect(sel))
		}
	}
	if after := e.eval(`document.documentElement.outerHTML`); after != before {
		t.Error("the annotated screenshot changed the page's DOM")
	}
	// The hit test agrees: the page behind the modal is covered by it.
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "link", Name: "Logout", Exact: true}, Timeout: 300 * time.Millisecond})
	if be := wantCode(t, err, browser.CodeNotActionable); be != nil {
		if cover, _ := be.Diagnosis["covered_by"].(string); !strings.Contains(cover, "logoutModal") {
			t.Errorf("covered_by = %v, want the modal", be.Diagnosis)
		}
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "link", Name: "Logout now"}}); err != nil {
		t.Fatal(err)
	}
	gone := `(() => { const m = document.getElementById('logoutModal'); return getComputedStyle(m).display === 'none' ? 'yes' : 'no' })()`
	deadline = time.Now().Add(backendtest.Timeout(5 * time.Second))
	for e.eval(gone) != "yes" {
		if time.Now().After(deadline) {
			t.Fatal("the modal never faded out")
		}
		time.Sleep(20 * time.Millisecond)
	}
	snap = e.snapshot(browser.ModeCompact)
	if strings.Contains(snap, "Ready to Leave") || !strings.Contains(snap, "Signed out") {
		t.Errorf("after the modal closed:\n%s", snap)
	}
}

// React 18 attaches a listener for every event type, drop and dragover
// included, to the app's root: the root is neither a drop zone nor
// clickable, while an element with its own drop listeners stays a drop zone
// and React's buttons still work.
func TestReactRootIsNoDropZone(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/real/react-root.html")
	snap := e.snapshot(browser.ModeCompact)
	if strings.Count(snap, "dropzone") != 1 || !strings.Contains(snap, "dropzone e2: Drop files here") {
		t.Errorf("want one drop zone, the element with drop listeners:\n%s", snap)
	}
	if strings.Contains(snap, "clickable") || !strings.HasPrefix(strings.Split(snap, "\n")[1], "main:") {
		t.Errorf("the React root shows as a control:\n%s", snap)
	}
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Add one"}})
	if err != nil || res.Ref != "e1" {
		t.Fatalf("click: %+v %v", res, err)
	}
	if got := e.eval(`document.getElementById('count').textContent`); got != "Clicked 1 times" {
		t.Errorf("count = %q", got)
	}
}

// A role+name or text target without frame is looked for in every frame,
// same-origin and cross-site: unique across all of them, or refused with
// the candidates of every frame.
func TestTargetsInEveryFrame(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/frame-buttons.html?xsite=" + otherSite(t))
	// The cross-site frame may attach a moment after the load.
	status := func(frame string) string {
		return e.eval(`(() => { const f = document.getElementById('` + frame + `'); try { return f.contentDocument.getElementById('status').textContent } catch (e) { return 'cross' } })()`)
	}
	for _, c := range []struct {
		tg    browser.Locator
		frame string // "": the page
	}{
		{browser.Locator{Role: "button", Name: "Pay here"}, "same"},
		{browser.Locator{Text: "Pay there"}, "cross"}, // before the status repeats it
		{browser.Locator{Role: "button", Name: "Pay there"}, "cross"},
	} {
		res, err := e.act(browser.Action{Kind: "click", Target: c.tg})
		if err != nil {
			t.Fatalf("click %s: %v", c.tg.Describe(), err)
		}
		if !strings.HasPrefix(res.Ref, "f") {
			t.Errorf("click %s: ref %q, want a frame's ref", c.tg.Describe(), res.Ref)
		}
	}
	if got := status("same"); got != "paid: Pay here" {
		t.Errorf("same-origin frame status = %q", got)
	}
	snap := e.snapshot(browser.ModeFull)
	if !strings.Contains(snap, "paid: Pay there") {
		t.Errorf("the cross-site frame's button was not clicked:\n%s", snap)
	}
	// "Save draft" is in the page and in the same-origin frame.
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Save draft"}})
	if be := wantCode(t, err, browser.CodeAmbiguousTarget); be != nil {
		joined := strings.Join(be.Suggestions, "\n")
		if len(be.Suggestions) != 2 || !strings.Contains(joined, `button e`) || !strings.Contains(joined, `button f`) {
			t.Errorf("candidates = %q, want the page's and the frame's button", be.Suggestions)
		}
	}
	// Nothing anywhere: the nearest candidates come from every frame.
	_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Pay later"}})
	if be := wantCode(t, err, browser.CodeTargetNotFound); be != nil && !strings.Contains(strings.Join(be.Suggestions, "\n"), "Pay here") {
		t.Errorf("suggestions = %q", be.Suggestions)
	}
	// frame still narrows the search to one frame.
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Role: "button", Name: "Save draft", Frame: "#same"}})
	if err != nil || !strings.HasPrefix(res.Ref, "f") {
		t.Fatalf("click in frame #same: %+v %v", res, err)
	}
	if got := status("same"); got != "draft saved (frame)" {
		t.Errorf("same-origin frame status = %q", got)
	}
}
