package browser_test

import (
	"context"
	"errors"
	"fmt"
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

// Under the accept and dismiss policies a dialog is answered at once,
// never left to block the session, and the next result says what it said.
func TestDialogPolicies(t *testing.T) {
	for _, c := range []struct {
		policy               string
		confirm, prompt, say string
	}{
		{browser.DialogAccept, "confirm:true", "prompt:Ada", "accepted"},
		{browser.DialogDismiss, "confirm:false", "prompt:null", "dismissed"},
	} {
		t.Run(c.policy, func(t *testing.T) {
			e := newEnv(t, browser.Options{DialogPolicy: c.policy})
			e.navigate("/act/dialogs.html")
			for _, id := range []string{"#alert", "#confirm", "#prompt"} {
				res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: id}})
				if err != nil || res.Dialog != nil {
					t.Fatalf("click %s: %+v %v", id, res, err)
				}
			}
			if got, want := e.log(), "alert done|"+c.confirm+"|"+c.prompt; got != want {
				t.Errorf("log = %q, want %q", got, want)
			}
			var notes []string
			_ = e.do(func(ctx context.Context, h *browser.Held) error {
				tab := h.Tab()
				notes = tab.TakeNotes()
				return nil
			})
			joined := strings.Join(notes, "\n")
			if !strings.Contains(joined, `confirm dialog said "Delete everything?"; webpilot `+c.say) || !strings.Contains(joined, `alert dialog said "Hello from the page"; webpilot accepted`) {
				t.Errorf("notes = %q", notes)
			}
		})
	}
}

// Under the ask policy (the default) a dialog waits for the agent: the
// action that opened it returns at once with it, every call on the page
// reports DIALOG_OPEN, and AnswerDialog answers it.
func TestDialogAsk(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/act/dialogs.html")
	answer := func(accept bool, text *string) {
		t.Helper()
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Dialogs().Answer(ctx, accept, text)
			return err
		})
		if err != nil {
			t.Fatalf("answer: %v", err)
		}
	}
	for _, c := range []struct {
		id, typ, msg string
		accept       bool
		text         *string
		want         string
	}{
		{"#alert", "alert", "Hello from the page", true, nil, "alert done"},
		{"#confirm", "confirm", "Delete everything?", true, nil, "confirm:true"},
		{"#confirm", "confirm", "Delete everything?", false, nil, "confirm:false"},
		{"#prompt", "prompt", "Your name?", true, new("Grace"), "prompt:Grace"},
		{"#prompt", "prompt", "Your name?", false, nil, "prompt:null"},
	} {
		start := time.Now()
		res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: c.id}})
		if err != nil || res.Dialog == nil || res.Dialog.Type != c.typ || res.Dialog.Message != c.msg {
			t.Fatalf("click %s: %+v %v, want the %s dialog", c.id, res, err, c.typ)
		}
		if d := time.Since(start); d > backendtest.Timeout(5*time.Second) {
			t.Errorf("click %s took %v: it waited on the dialog", c.id, d)
		}
		_, err = e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#alert"}})
		wantCode(t, err, browser.CodeDialogOpen)
		err = e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Snapshot(ctx, browser.SnapshotOptions{})
			return err
		})
		wantCode(t, err, browser.CodeDialogOpen)
		answer(c.accept, c.text)
		if got := e.log(); !strings.HasSuffix(got, c.want) {
			t.Errorf("after answering %s: log %q, want it to end with %q", c.id, got, c.want)
		}
	}
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Dialogs().Answer(ctx, true, nil)
		return err
	})
	wantCode(t, err, browser.CodeInvalidArgument)

	// A page that asks before it is left.
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#arm"}}); err != nil {
		t.Fatal(err)
	}
	leave := func() error {
		return e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, e.base+"/basic.html", 0)
			return err
		})
	}
	if be := wantCode(t, leave(), browser.CodeDialogOpen); be != nil && !strings.Contains(be.Message, "beforeunload") {
		t.Errorf("leaving: %v", be)
	}
	answer(false, nil)
	if got := e.eval(`document.title`); got != "Dialogs" {
		t.Errorf("dismissed leaving but the page is %q", got)
	}
	wantCode(t, leave(), browser.CodeDialogOpen)
	answer(true, nil)
	// The page is being left: an evaluation may meet the old document
	// going away, so the title is polled, errors and all.
	title := func() string {
		var got string
		_ = e.do(func(ctx context.Context, h *browser.Held) error {
			tab := h.Tab()

			var err error
			got, err = browser.EvalString(ctx, tab, `document.title`)
			return err
		})
		return got
	}
	for i := 0; i < 50 && title() != "Basic page"; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if got := title(); got != "Basic page" {
		t.Errorf("accepted leaving but the page is %q", got)
	}
}

func TestClientSideRedirectIsFollowed(t *testing.T) {
	e := newEnv(t, browser.Options{})
	res := e.navigate("/js-redirect")
	if res.Title != "Sign up" || !strings.HasSuffix(res.URL, "/form.html") {
		t.Errorf("navigate through a script redirect = %+v", res)
	}
}

// Clicks that start a navigation without a new document (a download, a
// 204) settle at once, not after the navigation timeout.
func TestNavigationWithoutDocumentSettles(t *testing.T) {
	e := newEnv(t, browser.Options{NavTimeout: backendtest.Timeout(20 * time.Second)})
	e.navigate("/links")
	for _, sel := range []string{"#nc", "#dl"} {
		start := time.Now()
		res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}})
		if err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
		if res.Navigated || res.Note != "" {
			t.Errorf("click %s = %+v", sel, res)
		}
		if d := time.Since(start); d > backendtest.Timeout(15*time.Second) {
			t.Errorf("click %s waited %v: the navigation timeout, not the end of the navigation", sel, d)
		}
	}
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#form"}})
	if err != nil || !res.Navigated || res.Title != "Sign up" {
		t.Errorf("click on a link = %+v, %v", res, err)
	}
}

// The origin policy holds for every way a tab can load a document.
func TestOriginPolicyInTheBrowser(t *testing.T) {
	blocked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<title>Secret</title>secret"))
	}))
	defer blocked.Close()
	bu := strings.Replace(blocked.URL, "127.0.0.1", "localhost", 1) // another origin than the fixtures
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(blocked.URL, "http://"))
	// Written host:port, as a user would; the loopback is one host by any name.
	e := newEnv(t, browser.Options{BlockedOrigins: []string{"localhost:" + port, "blocked.example"}})
	for _, u := range []string{bu + "/", strings.Replace(bu, "localhost", "localhost.", 1) + "/", strings.Replace(bu, "localhost", "LOCALHOST", 1) + "/",
		blocked.URL + "/", "http://2130706433:" + port + "/", "http://0x7f.1:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, u, 0)
			return err
		})
		wantCode(t, err, browser.CodeOriginBlocked)
	}
	// A server redirect to the blocked host.
	e.m2redirect(t, bu)
	e.noNotesLeft(t, "a redirect")
	// A link click.
	e.navigate("/links")
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#far"}})
	wantCode(t, err, browser.CodeOriginBlocked)
	e.noNotesLeft(t, "a link click")
	// A script navigation.
	e.navigate("/basic.html")
	e.eval(`(location.href = "` + bu + `/", "")`)
	time.Sleep(300 * time.Millisecond)
	if got := e.eval(`document.title`); got == "Secret" {
		t.Errorf("a script navigation reached the blocked origin")
	}
}

// noNotesLeft checks that an error that reported a refused load left no
// note of it for a later result.
func (e *env) noNotesLeft(t *testing.T, after string) {
	t.Helper()
	_ = e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		if n := tab.TakeNotes(); len(n) > 0 {
			t.Errorf("after %s was refused, notes left for the next call: %q", after, n)
		}
		return nil
	})
}

func (e *env) m2redirect(t *testing.T, target string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+"/", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, srv.URL+"/", 0)
		return err
	})
	wantCode(t, err, browser.CodeOriginBlocked)
}

// A reload waits for the main document, and its status is the main
// document's, not an iframe's.
func TestReloadReportsTheMainDocument(t *testing.T) {
	e := newEnv(t, browser.Options{})
	if res := e.navigate("/with-frame"); res.Status != 200 {
		t.Fatalf("navigate = %+v", res)
	}
	var res browser.NavResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.History(ctx, "reload", 0)
		return err
	})
	if err != nil || res.Status != 200 || res.Title != "Framed" {
		t.Errorf("reload = %+v, %v", res, err)
	}
}

func TestFillSpecialInputs(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/inputs")
	for _, c := range []struct{ sel, value, want string }{
		{"#day", "2026-12-31", "2026-12-31"},
		{"#col", "#ff8800", "#ff8800"},
		{"#notes", "one\r\ntwo", "one\ntwo"},
		{"#one", "a\nb", "a b"},
	} {
		res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: c.sel}, Value: c.value})
		if err != nil {
			t.Errorf("fill %s: %v", c.sel, err)
			continue
		}
		if res.Outcome != "verified" || res.Value != c.want {
			t.Errorf("fill %s = %+v, want verified %q", c.sel, res, c.want)
		}
	}
	_, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#day"}, Value: "next tuesday"})
	wantCode(t, err, browser.CodeInvalidArgument)
}

// Later pages of a diff come from the same diff; the baseline of a diff is
// the compact view whatever mode came before, and of the same document.
func TestDiffBaselineAndPaging(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	e.snapshot(browser.ModeInteractive)
	if d := e.snapshot(browser.ModeDiff); !strings.HasSuffix(d, "\n(no changes)") {
		t.Errorf("diff after an interactive snapshot of an unchanged page:\n%s", d)
	}
	e.navigate("/long.html")
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		first, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeDiff, MaxChars: 2000})
		if err != nil {
			return err
		}
		if first.NextOffset == 0 {
			t.Fatalf("a diff from basic to long was not cut at 2,000 chars:\n%s", first.Text)
		}
		// Another document: its lines are not a diff against the old page's.
		if !strings.Contains(first.Text, "(another page since the last snapshot: full snapshot follows)") || strings.Contains(first.Text, "\n- ") {
			t.Errorf("a diff across documents:\n%s", first.Text)
		}
		second, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeDiff, MaxChars: 2000, Offset: first.NextOffset})
		if err != nil {
			return err
		}
		if second.TotalChars != first.TotalChars || strings.Contains(second.Text, "past the end") {
			t.Errorf("the second page is not from the same diff (%d vs %d chars):\n%s", second.TotalChars, first.TotalChars, second.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// data: URLs open on a launched browser; through the extension Chrome
// cannot open them in an existing tab, which is refused at once
// (NAVIGATION_FAILED, kind unsupported) with a hint.
func TestDataURL(t *testing.T) {
	e := newEnv(t, browser.Options{})
	var res browser.NavResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Navigate(ctx, "data:text/html,<title>Inline</title><p>hi</p>", 0)
		return err
	})
	switch backendtest.Kind() {
	case "bridge":
		be := wantCode(t, err, browser.CodeNavigationFailed)
		if !strings.Contains(be.Message, "data: URLs cannot be opened") || be.Diagnosis["kind"] != "unsupported" {
			t.Errorf("message: %s, diagnosis %v", be.Message, be.Diagnosis)
		}
	default:
		if err != nil || res.Title != "Inline" || res.Status != 0 {
			t.Errorf("data: URL = %+v, %v", res, err)
		}
	}
}

// The origin policy holds inside frames too: a frame's first load and a
// navigation inside an out-of-process (cross-site) frame.
func TestOriginPolicyInFrames(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("a third loopback host: %v", err)
	}
	blocked := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<title>Secret</title><p>SECRET-TEXT</p>"))
	}))
	blocked.Listener.Close()
	blocked.Listener = ln
	blocked.Start()
	defer blocked.Close()
	child := serveLocalhost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<p>child-ok</p><button onclick="location.href='%s/'">go</button>`, blocked.URL)
	}))
	parent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Frames</title><iframe title="xsite" src="%s/"></iframe><iframe title="direct" src="%s/"></iframe>`, child, blocked.URL)
	}))
	defer parent.Close()

	// Every loopback address is one host to the policy: the rule names the
	// blocked server's port.
	_, bport, _ := net.SplitHostPort(ln.Addr().String())
	e := newEnv(t, browser.Options{BlockedOrigins: []string{"127.0.0.2:" + bport}})
	err = e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Navigate(ctx, parent.URL+"/", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var snap string
	for i := 0; i < 40 && !strings.Contains(snap, "child-ok"); i++ {
		time.Sleep(100 * time.Millisecond)
		snap = e.snapshot(browser.ModeFull)
	}
	if !strings.Contains(snap, "child-ok") || strings.Contains(snap, "SECRET-TEXT") {
		t.Fatalf("frames loaded wrongly:\n%s", snap)
	}
	ref := regexp.MustCompile(`button (f\d+e\d+) "go"`).FindStringSubmatch(snap)
	if ref == nil {
		t.Fatalf("no frame button:\n%s", snap)
	}
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref[1]}}); err != nil {
		var be *browser.Error
		if !errors.As(err, &be) || be.Code != browser.CodeOriginBlocked {
			t.Fatalf("click in the frame: %v", err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if snap := e.snapshot(browser.ModeFull); strings.Contains(snap, "SECRET-TEXT") {
		t.Errorf("a navigation inside a cross-site frame reached the blocked origin:\n%s", snap)
	}
}
