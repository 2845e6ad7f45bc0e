package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// waitEnv is a test's session on pages served with the wait fixtures'
// dynamic paths: /wait/slow answers after 700 ms, /wait/hang not before
// the test ends.
func waitEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, browser.Options{OutputDir: t.TempDir()})
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../testdata/pages")))
	mux.HandleFunc("/wait/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(700 * time.Millisecond)
		fmt.Fprint(w, "slow done")
	})
	mux.HandleFunc("/wait/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	done := make(chan struct{})
	mux.HandleFunc("/wait/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(done); srv.Close() })
	e.base = srv.URL
	return e
}

// wait runs browser_wait's wait on the current tab.
func (e *env) wait(o browser.WaitOptions) (*browser.WaitResult, error) {
	var res *browser.WaitResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Wait(ctx, o)
		return err
	})
	return res, err
}

func (e *env) mustWait(o browser.WaitOptions) *browser.WaitResult {
	e.t.Helper()
	if o.Timeout == 0 {
		o.Timeout = backendtest.Timeout(10 * time.Second)
	}
	res, err := e.wait(o)
	if err != nil {
		e.t.Fatalf("wait %+v: %v", o.Conditions, err)
	}
	return res
}

func (e *env) click(sel string) {
	e.t.Helper()
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: sel}}); err != nil {
		e.t.Fatalf("click %s: %v", sel, err)
	}
}

// In mode any, when the content and the fallback hold at the same check,
// the content's tier wins even though the fallback is listed first; when
// only the fallback comes, it is reported.
func TestWaitTiers(t *testing.T) {
	e := waitEnv(t)
	conds := []browser.WaitCondition{
		{Target: browser.Locator{Selector: "#spinner"}, State: browser.StateHidden, Tier: 1},
		{Target: browser.Locator{Text: "Result one"}, Tier: 0},
	}
	e.navigate("/wait/tiers.html?mode=ok")
	res := e.mustWait(browser.WaitOptions{Conditions: conds})
	if res.Index != 1 || res.Tier != 0 {
		t.Errorf("results and spinner gone together: won condition %d tier %d, want 1 tier 0 (%+v)", res.Index, res.Tier, res)
	}
	if len(res.Holding) != 2 {
		t.Errorf("holding %v, want both conditions", res.Holding)
	}
	if got := e.eval(`document.querySelectorAll('#results li').length`); got != "2" {
		t.Errorf("after the wait the page has %s results, want 2", got)
	}

	e.navigate("/wait/tiers.html?mode=fail")
	res = e.mustWait(browser.WaitOptions{Conditions: conds})
	if res.Index != 0 || res.Tier != 1 {
		t.Errorf("only the spinner went: won condition %d tier %d, want 0 tier 1 (%+v)", res.Index, res.Tier, res)
	}
	if got := e.eval(`document.getElementById('error') ? 'error' : 'none'`); got != "error" {
		t.Errorf("the fallback was reported before the page failed: %s", got)
	}
}

// A wait that times out says, per condition, what was seen and what to
// try, with the page's url, title and a short snapshot.
func TestWaitTimeoutDiagnosis(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/tiers.html?mode=none")
	_, err := e.wait(browser.WaitOptions{Timeout: backendtest.Timeout(800 * time.Millisecond), Conditions: []browser.WaitCondition{
		{Target: browser.Locator{Text: "Never there"}},
		{Target: browser.Locator{Selector: "#hidden-box"}, Tier: 1},
		{URL: "*/done*", Tier: 2},
		{Target: browser.Locator{Selector: "#spinner"}, State: browser.StateDetached, Tier: 3},
	}})
	be := wantCode(t, err, browser.CodeTimeout)
	d := be.Diagnosis
	t.Logf("%s\nhint: %s\ndiagnosis: %v", be.Message, be.Hint, d)
	if u, _ := d["url"].(string); !strings.Contains(u, "/wait/tiers.html") {
		t.Errorf("diagnosis url = %v", d["url"])
	}
	if d["title"] != "Search" {
		t.Errorf("diagnosis title = %v, want Search", d["title"])
	}
	if snap, _ := d["snapshot"].(string); !strings.Contains(snap, "Loading…") || len(snap) > 1700 {
		t.Errorf("diagnosis snapshot lacks the page or is too long (%d chars):\n%s", len(snap), snap)
	}
	conds, _ := d["conditions"].([]any)
	if len(conds) != 4 {
		t.Fatalf("diagnosis conditions = %v, want 4", d["conditions"])
	}
	want := []string{`no visible text matches text "Never there"`, "exists but is hidden (display:none)", "url is " + e.base + "/wait/tiers.html?mode=none, wanted */done*", `1 element in the page matches`}
	for i, w := range want {
		c, _ := conds[i].(map[string]any)
		seen, _ := c["seen"].(string)
		if !strings.Contains(seen, w) {
			t.Errorf("condition %d: seen %q, want it to say %q", i, seen, w)
		}
		if try, _ := c["try"].(string); try == "" {
			t.Errorf("condition %d: no try in %v", i, c)
		}
		if c["tier"] != i {
			t.Errorf("condition %d: tier %v, want %d", i, c["tier"], i)
		}
	}
}

// hidden (and detached) with a text target wait for the text to go.
func TestWaitTextGone(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/gone.html")
	e.click("#go")
	res := e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Loading data"}, State: browser.StateHidden}}})
	if res.Index != 0 {
		t.Errorf("won %d, want 0", res.Index)
	}
	if got := e.eval(`document.body.innerText.includes('Loading data') ? 'still there' : 'gone'`); got != "gone" {
		t.Errorf("the wait ended while the text was %s", got)
	}
	// The text is gone from the DOM too: detached holds at once; attached
	// times out.
	e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Loading data"}, State: browser.StateDetached}}})
	_, err := e.wait(browser.WaitOptions{Timeout: backendtest.Timeout(500 * time.Millisecond),
		Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Loading data"}, State: browser.StateAttached}}})
	wantCode(t, err, browser.CodeTimeout)
}

// url and title conditions see a client-side navigation (pushState), as a
// glob and as a regular expression.
func TestWaitURL(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/nav.html")
	e.click("#next")
	res := e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{URL: "*/wait/done?step=1"}}})
	if res.Index != 0 {
		t.Errorf("won %d, want 0", res.Index)
	}
	if got := e.eval(`location.pathname + location.search`); got != "/wait/done?step=1" {
		t.Errorf("the wait ended at %s", got)
	}
	e.click("#next")
	res = e.mustWait(browser.WaitOptions{All: true, Conditions: []browser.WaitCondition{{URL: `/done\?step=2$/`}, {Title: "/^step 2$/i"}}})
	if res.Index != -1 {
		t.Errorf("mode all: index %d, want -1", res.Index)
	}
	if got := e.eval(`document.title`); got != "Step 2" {
		t.Errorf("the wait ended with title %q", got)
	}
}

// Mode all waits for every condition; one that never holds is a timeout
// that says how many held.
func TestWaitAll(t *testing.T) {
	e := waitEnv(t)
	both := []browser.WaitCondition{{Target: browser.Locator{Selector: "#a"}}, {Target: browser.Locator{Selector: "#b"}}}
	e.navigate("/wait/all.html")
	e.click("#go")
	e.mustWait(browser.WaitOptions{All: true, Conditions: both})
	if got := e.eval(`[a.hidden, b.hidden].join()`); got != "false,false" {
		t.Errorf("mode all ended with hidden = %s", got)
	}

	e.navigate("/wait/all.html?only=a")
	e.click("#go")
	_, err := e.wait(browser.WaitOptions{All: true, Conditions: both, Timeout: backendtest.Timeout(1500 * time.Millisecond)})
	be := wantCode(t, err, browser.CodeTimeout)
	if !strings.Contains(be.Message, "1 of the 2 conditions held") {
		t.Errorf("message %q does not say how many held", be.Message)
	}
	conds, _ := be.Diagnosis["conditions"].([]any)
	if c, _ := conds[1].(map[string]any); !strings.Contains(fmt.Sprint(c["seen"]), "hidden") {
		t.Errorf("condition 1 seen %v, want it hidden", c["seen"])
	}
	// And mode any is met by the one that shows.
	if res := e.mustWait(browser.WaitOptions{Conditions: both}); res.Index != 0 {
		t.Errorf("mode any: won %d, want 0", res.Index)
	}
}

// network_idle waits for a fetch the page started after its load; a
// request that never ends is named in the diagnosis.
func TestWaitNetworkIdle(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/net.html")
	e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{NetworkIdle: true}}})
	if got := e.eval(`document.getElementById('out').textContent`); got != "slow done" {
		t.Errorf("network idle before the fetch ended: #out = %q", got)
	}

	e.navigate("/wait/net.html?hang=1")
	_, err := e.wait(browser.WaitOptions{Timeout: backendtest.Timeout(1500 * time.Millisecond), Conditions: []browser.WaitCondition{{NetworkIdle: true}}})
	be := wantCode(t, err, browser.CodeTimeout)
	conds, _ := be.Diagnosis["conditions"].([]any)
	c, _ := conds[0].(map[string]any)
	if seen := fmt.Sprint(c["seen"]); !strings.Contains(seen, "1 request still in flight") || !strings.Contains(seen, "/wait/hang") {
		t.Errorf("seen %q, want the hanging request named", seen)
	}
}

// A condition in a frame: by frame (same origin), and text looked for in
// every frame (a cross-site one too).
func TestWaitInFrame(t *testing.T) {
	e := waitEnv(t)
	other := serveLocalhost(t, http.FileServer(http.Dir("../../testdata/pages")))
	e.navigate("/wait/frame.html?xsite=" + url.QueryEscape(other))
	res := e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Frame ready", Frame: "#child"}}}})
	if res.Index != 0 {
		t.Errorf("won %d", res.Index)
	}
	res = e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Cross ready"}}}})
	if res.Index != 0 {
		t.Errorf("won %d", res.Index)
	}
	// Text only in a frame is not found when frame names the other one.
	_, err := e.wait(browser.WaitOptions{Timeout: backendtest.Timeout(700 * time.Millisecond),
		Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Cross ready", Frame: "#child"}}}})
	wantCode(t, err, browser.CodeTimeout)
}

// Bad conditions are refused before anything waits.
func TestWaitBadInput(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/tiers.html")
	cases := []struct {
		name  string
		conds []browser.WaitCondition
		say   string
	}{
		{"empty", nil, "conditions is empty"},
		{"nothing", []browser.WaitCondition{{Target: browser.Locator{Text: "x"}}, {Tier: 1}}, "conditions[1]: nothing to wait for"},
		{"two things", []browser.WaitCondition{{URL: "*/a", Title: "b"}}, "conditions[0]"},
		{"bad url regex", []browser.WaitCondition{{URL: "/(/"}}, "not a valid regular expression"},
		{"bad text regex", []browser.WaitCondition{{Target: browser.Locator{Text: "/(/"}}}, "not a valid regular expression"},
		{"bad selector", []browser.WaitCondition{{Target: browser.Locator{Selector: "##"}}}, "not a valid CSS selector"},
		{"bad state", []browser.WaitCondition{{Target: browser.Locator{Text: "x"}, State: "gone"}}, "state"},
		{"state without target", []browser.WaitCondition{{URL: "x", State: "hidden"}}, "state goes with a target"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.wait(browser.WaitOptions{Conditions: c.conds, Timeout: backendtest.Timeout(3 * time.Second)})
			be := wantCode(t, err, browser.CodeInvalidArgument)
			if !strings.Contains(be.Message, c.say) {
				t.Errorf("message %q does not say %q", be.Message, c.say)
			}
		})
	}
}

// download waits for a download begun after the wait started; none is a
// timeout that says so.
func TestWaitDownload(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/dl.html")
	_, err := e.wait(browser.WaitOptions{Timeout: backendtest.Timeout(300 * time.Millisecond), Conditions: []browser.WaitCondition{{Download: true}}})
	be := wantCode(t, err, browser.CodeTimeout)
	conds, _ := be.Diagnosis["conditions"].([]any)
	if c, _ := conds[0].(map[string]any); !strings.Contains(fmt.Sprint(c["seen"]), "no download began") {
		t.Errorf("seen %v, want no download", c["seen"])
	}
	e.click("#export")
	res := e.mustWait(browser.WaitOptions{Conditions: []browser.WaitCondition{{Download: true}}})
	if len(res.Downloads) != 1 || res.Downloads[0].Name != "report.csv" || res.Downloads[0].State != "completed" {
		t.Errorf("downloads = %+v, want report.csv completed", res.Downloads)
	}
}

// A wait whose call is cancelled ends then, not at its timeout.
func TestWaitCancelled(t *testing.T) {
	e := waitEnv(t)
	e.navigate("/wait/tiers.html")
	ctx, cancel := context.WithCancel(e.ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	var err error
	_ = e.s.Do(e.ctx, func(_ context.Context, h *browser.Held) error {
		tab, terr := h.Tabs().Current(ctx)
		if terr != nil {
			err = terr
			return nil
		}
		_, err = h.On(tab).Wait(ctx, browser.WaitOptions{Timeout: 90 * time.Second, Conditions: []browser.WaitCondition{{Target: browser.Locator{Text: "Never"}}}})
		return nil
	})
	if err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
	if be, ok := browser.AsError(err); ok && be.Diagnosis != nil {
		t.Errorf("a cancelled wait reported its own timeout: %v", be)
	}
	if ctx.Err() == nil {
		t.Errorf("the wait ended before its call was cancelled: %v", err)
	}
}
