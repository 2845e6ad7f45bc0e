package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

func TestMain(m *testing.M) {
	// Every walk that takes over parts of the last one is checked against
	// a whole walk of the page.
	os.Setenv("WEBPILOT_WALK_VERIFY", "1")
	code := m.Run()
	backendtest.CloseShared()
	os.Exit(code)
}

// fixtures serves testdata/pages, plus a few dynamic paths.
func fixtures(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", backendtest.Pages())
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/basic.html", http.StatusFound)
	})
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	page("/alert", `<title>Alert</title><button id="b" onclick="alert('hello there'); this.textContent='after'">go</button>
		<button id="c" onclick="this.textContent = confirm('sure?') ? 'yes' : 'no'">ask</button>`)
	page("/signin", `<title>Sign in</title><form action="/account"><label>User <input name="user" id="user"></label><button>Sign in</button></form>`)
	page("/account", `<title>Account</title><h1>Signed in</h1>`)
	page("/js-redirect", `<title>Hop</title><script>location.href = "/form.html"</script>`)
	page("/links", `<title>Links</title><a id="dl" href="/download">get file</a> <a id="nc" href="/nocontent">nothing</a>
		<a id="far" href="http://blocked.example/">far away</a> <a id="form" href="/form.html">form</a>`)
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "data")
	})
	// A form whose field and submit log errors, and whose submit downloads.
	page("/formdownload", `<title>FDL</title><form action="/download"><input id="q" name="q" aria-label="Q" oninput="console.error('field said no')">
		<button>Get</button></form><script>document.forms[0].onsubmit = () => console.error("form went wrong")</script>`)
	mux.HandleFunc("/nocontent", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	// A download that never ends (until its client goes): 64 KB at a time.
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="endless.bin"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := make([]byte, 64<<10)
		for i := 0; i < 4096; i++ { // 256 MB at most
			if _, err := w.Write(chunk); err != nil {
				return
			}
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
	})
	page("/endlesslink", `<title>Endless</title><a id="dl" href="/endless">get it</a>`)
	// Where quiet/keepalive-frame.html sends its keepalive fetches,
	// beacons and pings: answered late, so that an action waiting for
	// them would hit its bound.
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		w.WriteHeader(http.StatusNoContent)
	})
	page("/popups", `<title>Popups</title><a id="blank" href="/form.html" target="_blank">new tab</a>
		<button id="open" onclick="window.open('/basic.html', 'pop', 'width=400,height=300')">popup</button>`)
	page("/hiddenchild", `<title>H</title><script>window.__log=[]</script>
		<div id="app" onclick="__log.push('app')" style="padding:40px;border:1px solid"><p>Order #123</p>
		<div id="modal" style="display:none"><button onclick="__log.push('cancel')">Cancel order</button></div></div>`)
	page("/paths", `<title>P</title><code>/api/users</code> <button>Save</button><button>Save</button>`)
	page("/twoalerts", `<title>T</title><button id="b" onclick="alert('one'); alert('two'); document.title='done'">go</button>`)
	page("/alertstorm", `<title>S</title><button id="b" onclick="for(let i=0;i<12;i++) alert('a'+i); document.title='done'">go</button>`)
	page("/asyncconfirm", `<title>AC</title><label><input type="checkbox" id="cb" onclick="event.preventDefault(); setTimeout(()=>{ if(confirm('sure?')) this.checked=true },30)"> Subscribe</label>`)
	page("/labellink", `<title>LL</title><label style="display:inline-block;width:400px"><input type="checkbox" id="cb" style="opacity:0;position:absolute;width:0;height:0"><span>[ ]</span> I agree to the <a href="/basic.html" id="terms">Terms of Service and Privacy Policy</a></label>`)
	// A styled checkbox under its own label (TodoMVC's "Mark all as
	// complete"), and one under another field's label.
	page("/labelcover", `<title>LC</title><style>input.box{position:absolute;width:20px;height:20px;margin:0;left:10px;top:10px} input.hid{opacity:0} label.cover{position:absolute;left:0;top:0;width:45px;height:45px;background:#eee;z-index:1}</style>
		<div style="position:relative;height:60px"><input class="box hid" type="checkbox" id="all" onchange="window.__changes=(window.__changes||0)+1"><label class="cover" for="all">Mark all as complete</label></div>
		<div style="position:relative;height:60px"><input class="box" type="checkbox" id="keep"><label class="cover" for="keep">Keep me signed in</label></div>
		<div style="position:relative;height:60px"><input class="box" type="checkbox" id="other" aria-label="Other"><input id="name" aria-label="Name" style="position:absolute;left:200px"><label class="cover" for="name">Name</label></div>`)
	// A native range input, and an ARIA slider that moves by 5 with the
	// arrow keys (as a library's thumb does).
	page("/sliders", `<title>SL</title><label>Volume <input type="range" id="vol" min="0" max="10" value="3" oninput="window.__vol=this.value"></label>
		<div id="lbl">Price</div><div id="price" role="slider" tabindex="0" aria-labelledby="lbl" aria-valuemin="0" aria-valuemax="200" aria-valuenow="50" aria-valuetext="$50" style="width:30px;height:30px;background:#08f"></div>
		<script>const p=document.getElementById("price"); p.addEventListener("keydown", e => { let v=+p.getAttribute("aria-valuenow");
		if (e.key==="ArrowRight") v=Math.min(200,v+5); else if (e.key==="ArrowLeft") v=Math.max(0,v-5); else return;
		e.preventDefault(); p.setAttribute("aria-valuenow", v); p.setAttribute("aria-valuetext", "$"+v); window.__price=v; })</script>
		<div id="dlbl">Discount</div><div id="disc" role="slider" tabindex="0" aria-labelledby="dlbl" aria-valuemin="0" aria-valuemax="50" aria-valuenow="10" style="width:30px;height:30px;background:#f80"></div>
		<script>const d=document.getElementById("disc"); d.addEventListener("keydown", e => { let v=+d.getAttribute("aria-valuenow");
		if (e.key==="ArrowLeft") v=Math.min(50,v+1); else if (e.key==="ArrowRight") v=Math.max(0,v-1); else return;
		e.preventDefault(); d.setAttribute("aria-valuenow", v); })</script>`)
	page("/timefield", `<title>TF</title><label>Meeting <input type="time" id="t" oninput="window.__t=this.value"></label>`)
	// Search fields that show no choice: a header's tagline beside one,
	// a helper text and an error message under one, a key hint.
	page("/notchoices", `<title>NC</title><header style="display:flex;gap:8px"><a href="/">Acme</a><div class="search"><input role="combobox" aria-autocomplete="list" aria-label="Search products"> <kbd>/</kbd></div><p>Free shipping over $50</p></header>
		<div style="border:1px solid #999;padding:4px;width:300px"><input role="combobox" aria-label="Assignee" aria-describedby="err" style="border:0"><span id="err" style="color:red">This field is required</span></div>
		<div><div style="border:1px solid #999;padding:4px;width:300px"><input role="combobox" aria-label="Reviewer" placeholder="Pick one" style="border:0"></div><p>Reviewers get an email.</p></div>`)
	page("/formdialog", `<title>FD</title><form><input id="a" aria-label="A"><select id="s" aria-label="S" onchange="alert('changed')"><option>x</option><option>y</option></select><input id="c" aria-label="C"></form>`)
	page("/focuspress", `<title>FP</title><script>window.__log=[]</script><button id="del" onclick="__log.push('delete')">Delete</button><div id="plain">plain div</div>`)
	page("/lazy", `<title>Lazy</title><button id="more" onclick="fetch('/slowjson').then(r => r.json()).then(j => { const p = document.createElement('p'); p.textContent = 'loaded: ' + j.n; document.body.append(p) })">Load more</button>`)
	// The page act/later.html's buttons go to, 300 ms late.
	mux.HandleFunc("/slowdone", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Done</title><p id="q"></p><script>document.getElementById("q").textContent = location.search</script>`)
	})
	mux.HandleFunc("/slowjson", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"n": 42}`)
	})
	// Presentational roles that ARIA's conflict resolution overrides (a
	// focusable element, or one with a global ARIA attribute, keeps its
	// native role: Chrome shows these as link and button), and ones it
	// does not (a layout table, a plain span).
	page("/presentational", `<title>P</title><ul role="tablist"><li role="tab"><a role="presentation" href="#t1" tabindex="-1">Tab #1</a></li></ul>
		<button role="none" onclick="1">Plain button</button>
		<table role="presentation"><tr><td>layout cell</td></tr></table>
		<h2 role="presentation" aria-label="Kept heading">Kept heading</h2>
		<span role="presentation">just text</span>`)
	// ARIA the way hand-built widgets use it: list items of a menu, states
	// on custom controls and on what holds them, a listbox that says it is
	// expanded.
	page("/ariamix", `<title>ARIA</title><ul role="menu" aria-label="File"><li role="menuitem">New</li><li role="menuitem" aria-disabled="true">Save</li><li>Plain item</li></ul>
		<div role="button" tabindex="0" aria-pressed="true">Bold</div>
		<div role="checkbox" tabindex="0" aria-checked="mixed">All files</div>
		<div role="group" aria-disabled="true"><div role="button" tabindex="0">Inside a disabled group</div></div>
		<div role="combobox" tabindex="0" aria-expanded="true" aria-controls="lb">Pick</div><ul role="listbox" id="lb" aria-expanded="true"><li role="option" aria-selected="true">First</li><li role="option">Second</li></ul>
		<div role="switch" tabindex="0" aria-checked="true">Wi-Fi</div>
		<div role="tree"><div role="treeitem" aria-expanded="false" tabindex="0">Folder</div></div>
		<a href="/basic.html" aria-current="page">Current page</a>
		<span role="link" tabindex="0">Span link</span>
		<div tabindex="-1" style="width:60px;height:20px">Panel</div>`)
	// An orders table filled late, a Details button on every row.
	page("/orders", `<title>Orders</title><p id="out">none</p><table><thead><tr><th>Order</th><th>Total</th><th></th></tr></thead><tbody id="rows"></tbody></table>
		<script>setTimeout(() => { for (const [id, total] of [["A-1001", "12.00"], ["A-1002", "30.50"], ["B-2001", "7.25"]]) {
		const tr = document.createElement("tr"); tr.innerHTML = "<td>" + id + "</td><td>" + total + "</td><td><button>Details</button></td>";
		tr.querySelector("button").onclick = () => { document.getElementById("out").textContent = "details " + id }; document.getElementById("rows").append(tr) } }, 50)</script>`)
	// Inline elements around blocks (React markup), and lists in lists.
	page("/inlineblocks", `<title>IB</title><p id="p1">Total: <span><div>42 items</div></span> in the cart</p>
		<ul><li>Settings<ul><li>Privacy <button>Open</button></li><li>Display <button>Open</button></li></ul></li></ul>`)
	// Credentials in the page's URL and in its links.
	page("/tokens", `<title>Tokens</title><a href="/account?access_token=SECRETTOKEN1&amp;x=1">Account</a><script>console.error("bad")</script>`)
	// A login form: the password's value is shown as dots, as on screen.
	page("/pw", `<title>PW</title><label>User <input id="user"></label><label>Password <input type="password" id="pw"></label>`)
	// A required radio group: one invalid field, not one per button.
	page("/radios", `<title>Radios</title><form action="/account"><label>Name <input name="name" required></label>
		<fieldset><legend>Size</legend><label><input type="radio" name="size" value="s" required>S</label><label><input type="radio" name="size" value="m">M</label><label><input type="radio" name="size" value="l">L</label></fieldset><button>Order</button></form>`)
	// A form the browser validates before it submits.
	page("/validate", `<title>Validate</title><form action="/account"><label>Email <input type="email" name="email" required></label>
		<label>Age <input type="number" name="age" min="18" value="12"></label><button>Send</button>
		<button formnovalidate id="draft">Save draft</button></form>
		<form id="todo" onsubmit="event.preventDefault(); document.title = 'added ' + this.item.value; this.reset()"><input name="item" aria-label="Item" required value="milk"><button>Add</button></form>`)
	// A button that jumps away when the pointer comes over it: the press
	// that follows the move lands on what was under it.
	page("/runaway", `<title>Runaway</title><div id="under" style="position:absolute;left:0;top:0;width:600px;height:300px" onpointerdown="if(event.target===this) window.__hits=(window.__hits||[]).concat('under')">
		<button id="run" style="position:absolute;left:100px;top:100px" onmousemove="this.style.left='400px'" onclick="window.__hits=(window.__hits||[]).concat('button')">Catch me</button></div>`)
	page("/hang", `<title>Hang</title><button id="b" onclick="fetch('/hangs')">go</button>`)
	mux.HandleFunc("/hangs", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	// A click that changes the DOM for a second without a pause (no timer,
	// which a background page may have throttled).
	page("/storm", `<title>Storm</title><span id="t">0</span><button id="b" onclick="storm()">go</button><script>
		function storm() { const ch = new MessageChannel(), end = performance.now() + 5000, t = document.getElementById('t');
		ch.port1.onmessage = () => { t.textContent = performance.now(); if (performance.now() < end) ch.port2.postMessage(0) }; ch.port2.postMessage(0) }</script>`)
	page("/ticker", `<title>Ticker</title><span id="t">0</span><button id="b" onclick="this.textContent='clicked'">go</button><script>setInterval(() => { document.getElementById('t').textContent = Date.now() }, 10)</script>`)
	page("/errors", `<title>Errors</title><button id="boom" onclick="console.error('bad thing', 42); console.log('fine'); null.x">boom</button>`)
	page("/styled-check", `<title>Styled</title><label><input type="checkbox" id="hc" style="opacity:0;position:absolute;width:0;height:0;margin:0"> <span>Remember me</span></label>`)
	page("/with-frame", `<title>Framed</title><p>outer</p><iframe src="/missing"></iframe>`)
	page("/inputs", `<title>Inputs</title><label>Day <input type="date" id="day"></label>
		<label>Colour <input type="color" id="col"></label><label>Notes <textarea id="notes"></textarea></label>
		<label>One line <input id="one"></label>`)
	// Names the way component libraries draw them: icons (an icon font's
	// span of role img, an svg) beside a control's text or alone in it, a
	// title on the box around an icon-only button, a tree item with a
	// checkbox and a nested group, a button labelled elsewhere that shows
	// a date or a placeholder, calendar days with their dates in titles,
	// and the states of a sorted header, a current page, a selected option.
	page("/names", `<title>Names</title><script>window.__log=[]</script>
		<button onclick="__log.push('actions')">Actions <span role="img" aria-label="down">v</span></button>
		<button title="Settings" onclick="__log.push('settings')"><span role="img" aria-label="setting"></span></button>
		<ul><li title="Previous Page"><button onclick="__log.push('prev')"><svg aria-label="left" role="img" width="10" height="10"></svg></button></li></ul>
		<button onclick="__log.push('right')"><span role="img" aria-label="right" style="display:inline-block;width:10px;height:10px"></span></button>
		<ul role="tree" aria-multiselectable="true"><li role="treeitem" aria-expanded="true" aria-selected="false"><span role="checkbox" aria-checked="false" aria-label="Select Company" tabindex="0"></span> Company
		<ul role="group"><li role="treeitem" aria-selected="true">Engineering</li><li role="treeitem" class="node node-selected">Sales</li></ul></li></ul>
		<label for="d1">Start date</label><button id="d1" onclick="this.textContent='2026-03-20'"><span class="picker-placeholder">Pick a date</span></button>
		<table><tr><th>Sa</th><th>Su</th><th>Fr</th></tr><tr><td title="2026-02-28" class="day-cell" onclick="__log.push(this.title)">28</td><td title="2026-03-01" class="day-cell day-cell-in-view" onclick="__log.push(this.title)">1</td>
		<td title="2026-03-27" class="day-cell day-cell-in-view" onclick="__log.push(this.title)">27</td></tr></table>
		<table><tr><th aria-sort="ascending">ID</th><th aria-sort="descending">Title</th><th>Owner</th></tr><tr><td>1</td><td>A</td><td>Ann</td></tr></table>
		<nav><a href="#p1" aria-current="page">1</a> <a href="#p2">2</a></nav>
		<ul role="listbox" aria-label="People" aria-multiselectable="true"><li role="option" aria-selected="true">Ada</li><li role="option" aria-selected="false">Bob</li></ul>
		<div style="position:relative;width:200px;height:30px">Col<div onclick="1" style="position:absolute;right:0;top:0;width:10px;height:30px;cursor:col-resize"></div></div>`)
	// A modal's mask over the whole page, which closes it on a click.
	page("/mask", `<title>Mask</title><div onclick="document.title='closed'" style="position:fixed;inset:0;background:rgba(0,0,0,.4)"></div>
		<div role="dialog" aria-label="Edit" style="position:fixed;left:30%;top:30%;width:40%;height:40%;background:#fff"><button>Save</button></div>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// env is one test's agent session on the shared browser.
type env struct {
	t    *testing.T
	ctx  context.Context
	m    *browser.Manager
	s    *browser.Session
	base string
}

func newEnv(t *testing.T, opts browser.Options) *env {
	t.Helper()
	opts.Backend = backendtest.Shared(t)
	if opts.ActionTimeout == 0 {
		opts.ActionTimeout = backendtest.Timeout(5 * time.Second)
	}
	if opts.NavTimeout == 0 {
		opts.NavTimeout = backendtest.Timeout(20 * time.Second)
	}
	m := browser.NewManager(opts)
	e := &env{t: t, ctx: backendtest.Context(t, 60*time.Second), m: m, s: m.Session(t.Name()), base: fixtures(t)}
	t.Cleanup(func() {
		_ = e.s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
	})
	return e
}

// do runs fn with the session held, working on its current tab.
func (e *env) do(fn func(ctx context.Context, h *browser.Held) error) error {
	return e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().Current(ctx)
		if err != nil {
			return err
		}
		h.Use(tab)
		return fn(ctx, h)
	})
}

func (e *env) navigate(path string) browser.NavResult {
	e.t.Helper()
	var res browser.NavResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Navigate(ctx, e.base+path, 0)
		return err
	})
	if err != nil {
		e.t.Fatalf("navigate %s: %v", path, err)
	}
	return res
}

func (e *env) snapshot(mode string) string {
	e.t.Helper()
	var text string
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		snap, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: mode})
		if err == nil {
			text = snap.Text
		}
		return err
	})
	if err != nil {
		e.t.Fatalf("snapshot: %v", err)
	}
	return text
}

func (e *env) act(a browser.Action) (*browser.ActionResult, error) {
	var res *browser.ActionResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Act(ctx, a)
		return err
	})
	return res, err
}

func (e *env) eval(expr string) string {
	e.t.Helper()
	var out string
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		tab := h.Tab()

		var err error
		out, err = browser.EvalString(ctx, tab, expr)
		return err
	})
	if err != nil {
		e.t.Fatalf("eval %s: %v", expr, err)
	}
	return out
}

// refOf finds the ref of `role eN "name"` in a snapshot.
func refOf(t *testing.T, snap, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(role) + ` (e\d+) "` + regexp.QuoteMeta(name) + `"`)
	m := re.FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s %q in snapshot:\n%s", role, name, snap)
	}
	return m[1]
}

func wantCode(t *testing.T, err error, code browser.Code) *browser.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	be, ok := browser.AsError(err)
	if !ok {
		t.Fatalf("got %v (%T), want a *browser.Error with code %s", err, err, code)
	}
	if be.Code != code {
		t.Fatalf("got code %s (%s), want %s", be.Code, be.Message, code)
	}
	if be.Hint == "" {
		t.Errorf("%s error has no hint: %s", code, be.Message)
	}
	return be
}

func TestNavigateSnapshotClick(t *testing.T) {
	e := newEnv(t, browser.Options{})
	nav := e.navigate("/basic.html")
	if nav.Title != "Basic page" || nav.Status != 200 {
		t.Fatalf("navigate = %+v, want title Basic page, status 200", nav)
	}
	snap := e.snapshot(browser.ModeCompact)
	if !strings.HasPrefix(snap, "# Basic page — "+e.base+"/basic.html") {
		t.Fatalf("header wrong:\n%s", snap)
	}
	ref := refOf(t, snap, "button", "Clicked 0 times")
	res, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}})
	if err != nil {
		t.Fatalf("click %s: %v", ref, err)
	}
	if res.Ref != ref || res.MatchLevel != "exact" || res.InputMode != "cdp" {
		t.Errorf("click result = %+v", res)
	}
	after := e.snapshot(browser.ModeCompact)
	if got := refOf(t, after, "button", "Clicked 1 times"); got != ref {
		t.Errorf("the button's ref changed from %s to %s across snapshots of one document", ref, got)
	}
	// diff mode reports just the change.
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: ref}}); err != nil {
		t.Fatal(err)
	}
	diff := e.snapshot(browser.ModeDiff)
	if !strings.Contains(diff, "\n~ button "+ref+` "Clicked 2 times"`) || strings.Contains(diff, "Clicked 1 times") {
		t.Errorf("diff does not show the change as one line:\n%s", diff)
	}
}

// A diff says only what changed: its header the id (the title and the URL
// only when they changed), a changed field one "~" line, a focus move
// alone nothing; the compact snapshot still shows the focus.
func TestDiffSaysOnlyWhatChanged(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/form.html")
	snap := e.snapshot(browser.ModeCompact)
	name := refOf(t, snap, "textbox", "Name")
	if _, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Ref: name}, Value: "Ada"}); err != nil {
		t.Fatal(err)
	}
	diff := e.snapshot(browser.ModeDiff)
	lines := strings.Split(diff, "\n")
	if len(lines) != 2 || !regexp.MustCompile(`^# s\d+ diff$`).MatchString(lines[0]) || lines[1] != `~ textbox `+name+` "Name" = "Ada"` {
		t.Errorf("diff after a fill, want a bare header and one changed line:\n%s", diff)
	}
	if got := e.snapshot(browser.ModeCompact); !strings.Contains(got, `textbox `+name+` "Name" = "Ada" [focused]`) {
		t.Errorf("the compact snapshot does not show the focus:\n%s", got)
	}
	email := refOf(t, snap, "textbox", "Email")
	if _, err := e.act(browser.Action{Kind: "focus", Target: browser.Locator{Ref: email}}); err != nil {
		t.Fatal(err)
	}
	if d := e.snapshot(browser.ModeDiff); !strings.HasSuffix(d, "\n(no changes)") || strings.Count(d, "\n") != 1 {
		t.Errorf("diff after the focus moved, want no change:\n%s", d)
	}
	e.eval(`document.title = "Sign up — step 2"; history.pushState(null, "", "/form.html?step=2"); "ok"`)
	d := e.snapshot(browser.ModeDiff)
	if !regexp.MustCompile(`^# s\d+ diff · title "Sign up — step 2" · /form\.html\?step=2\n\(no changes\)$`).MatchString(d) {
		t.Errorf("diff after the title and URL changed:\n%s", d)
	}
}

func TestFillBySelectorAndSubmit(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/form.html")
	res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#name"}, Value: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "verified" || res.Value != "Ada" {
		t.Errorf("fill = %+v, want verified Ada", res)
	}
	// fill replaces what was there
	if res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#name"}, Value: "Grace"}); err != nil || res.Value != "Grace" {
		t.Fatalf("second fill = %+v, %v", res, err)
	}
	if _, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#plan"}, Value: "Pro"}); err != nil {
		t.Fatalf("fill select by label: %v", err)
	}
	if got := e.eval(`document.querySelector("#plan").value`); got != "pro" {
		t.Errorf("select value = %q, want pro", got)
	}
	snap := e.snapshot(browser.ModeCompact)
	if _, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Ref: refOf(t, snap, "button", "Create account")}}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#result").textContent`); got != "Welcome, Grace!" {
		t.Errorf("result = %q", got)
	}
	if snap := e.snapshot(browser.ModeCompact); !strings.Contains(snap, "status: Welcome, Grace!") {
		t.Errorf("snapshot lacks the status line:\n%s", snap)
	}
}

func TestTextArrivesExactly(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/echo.html")
	text := "日本語 テキスト 😀👍🏽 \"double\" 'single' & <b>not bold</b>\nsecond line\tand a tab"
	res, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#in"}, Value: text})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "verified" {
		t.Errorf("fill outcome %s", res.Outcome)
	}
	if got := e.eval(`document.querySelector("#out").textContent`); got != text {
		t.Errorf("page got %q\nwant      %q", got, text)
	}
	line := `CJK 中文 emoji 🎉 quotes "x" 'y' & done`
	if _, err := e.act(browser.Action{Kind: "type", Target: browser.Locator{Selector: "#line"}, Value: line}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`document.querySelector("#line").value`); got != line {
		t.Errorf("typed %q\nwant  %q", got, line)
	}
}

func TestPressKeys(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/keys.html")
	if _, err := e.act(browser.Action{Kind: "press", Target: browser.Locator{Selector: "#k"}, Key: "Control+Shift+R"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.act(browser.Action{Kind: "press", Target: browser.Locator{Selector: "#k"}, Key: "Enter"}); err != nil {
		t.Fatal(err)
	}
	log := e.eval(`Array.from(document.querySelectorAll("#log li")).map(li => li.textContent).join("|")`)
	for _, want := range []string{"key=R ctrl=true shift=true", "key=Enter", "enter"} {
		if !strings.Contains(log, want) {
			t.Errorf("key log %q lacks %q", log, want)
		}
	}
	_, err := e.act(browser.Action{Kind: "press", Key: "Hyper+Q"})
	wantCode(t, err, browser.CodeInvalidArgument)
}

func TestParallelSessionsAreIsolated(t *testing.T) {
	shared := newEnv(t, browser.Options{})
	pages := map[string]string{"a": "/basic.html", "b": "/form.html"}
	titles := map[string]string{"a": "Basic page", "b": "Sign up"}
	var wg sync.WaitGroup
	tabs := make(map[string][]string)
	var mu sync.Mutex
	errs := make(chan error, 2)
	for name, path := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := shared.m.Session(t.Name() + "/" + name)
			defer s.Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
			err := s.Do(shared.ctx, func(ctx context.Context, h *browser.Held) error {
				tab, err := h.Tabs().Current(ctx)
				if err != nil {
					return err
				}
				if _, err := h.On(tab).Navigate(ctx, shared.base+path, 0); err != nil {
					return err
				}
				for range 3 {
					snap, err := h.On(tab).Snapshot(ctx, browser.SnapshotOptions{})
					if err != nil {
						return err
					}
					if !strings.HasPrefix(snap.Text, "# "+titles[name]+" — ") {
						return fmt.Errorf("session %s sees %q", name, strings.SplitN(snap.Text, "\n", 2)[0])
					}
				}
				// Short ids (t1, …) are per session; the browser's ids tell
				// the tabs apart.
				mu.Lock()
				tabs[name] = h.Tabs().IDs()
				if len(tabs[name]) == 1 {
					tabs[name][0] = tab.TargetID()
				}
				mu.Unlock()
				return nil
			})
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(tabs["a"]) != 1 || len(tabs["b"]) != 1 || tabs["a"][0] == tabs["b"][0] {
		t.Errorf("sessions' tabs = %v, want one distinct tab each", tabs)
	}
}

func TestNavigationErrors(t *testing.T) {
	e := newEnv(t, browser.Options{BlockedOrigins: []string{"blocked.example"}})
	nav := func(url string) error {
		return e.do(func(ctx context.Context, h *browser.Held) error {

			_, err := h.Navigate(ctx, url, 0)
			return err
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tests := []struct {
		url  string
		code browser.Code
		kind string
	}{
		{closed, browser.CodeNavigationFailed, "connection_refused"},
		{"http://127.0.0.1:1/", browser.CodeNavigationFailed, "unsafe_port"},
		{"http://does-not-exist.invalid/", browser.CodeNavigationFailed, "dns_error"},
		{e.base + "/missing", browser.CodeNavigationFailed, "http_error"},
		{"javascript:alert(1)", browser.CodeInvalidArgument, ""},
		{"file:///etc/passwd", browser.CodeInvalidArgument, ""},
		{"chrome://settings", browser.CodeInvalidArgument, ""},
		{"", browser.CodeInvalidArgument, ""},
		{"http://blocked.example/", browser.CodeOriginBlocked, ""},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			be := wantCode(t, nav(tc.url), tc.code)
			if tc.kind != "" && be.Diagnosis["kind"] != tc.kind {
				t.Errorf("diagnosis = %v, want kind %s", be.Diagnosis, tc.kind)
			}
		})
	}
	// A redirect is followed; the final URL is reported.
	if res := e.navigate("/redirect"); !strings.HasSuffix(res.URL, "/basic.html") || res.Status != 200 {
		t.Errorf("redirect = %+v", res)
	}
}

func TestHistory(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/basic.html")
	e.navigate("/form.html")
	hist := func(dir string) browser.NavResult {
		var res browser.NavResult
		err := e.do(func(ctx context.Context, h *browser.Held) error {

			var err error
			res, err = h.History(ctx, dir, 0)
			return err
		})
		if err != nil {
			t.Fatalf("go %s: %v", dir, err)
		}
		return res
	}
	if r := hist("back"); r.Title != "Basic page" {
		t.Errorf("back → %+v", r)
	}
	if r := hist("forward"); r.Title != "Sign up" {
		t.Errorf("forward → %+v", r)
	}
	if r := hist("reload"); r.Title != "Sign up" {
		t.Errorf("reload → %+v", r)
	}
}

func TestTargetErrors(t *testing.T) {
	e := newEnv(t, browser.Options{ActionTimeout: backendtest.Timeout(700 * time.Millisecond)})
	e.navigate("/form.html")
	snap := e.snapshot(browser.ModeCompact)
	click := func(tg browser.Locator) error {
		_, err := e.act(browser.Action{Kind: "click", Target: tg})
		return err
	}
	wantCode(t, click(browser.Locator{Ref: "e999"}), browser.CodeTargetNotFound)
	wantCode(t, click(browser.Locator{Ref: "bogus"}), browser.CodeInvalidArgument)
	wantCode(t, click(browser.Locator{Selector: "   "}), browser.CodeInvalidArgument)
	wantCode(t, click(browser.Locator{}), browser.CodeInvalidArgument)
	wantCode(t, click(browser.Locator{Selector: "#nope"}), browser.CodeTargetNotFound)
	wantCode(t, click(browser.Locator{Selector: "[[["}), browser.CodeInvalidArgument)
	amb := wantCode(t, click(browser.Locator{Selector: "button"}), browser.CodeAmbiguousTarget)
	if len(amb.Suggestions) < 2 {
		t.Errorf("ambiguous target lists %v", amb.Suggestions)
	}
	na := wantCode(t, click(browser.Locator{Ref: refOf(t, snap, "button", "Delete")}), browser.CodeNotActionable)
	if na.Diagnosis["failed_check"] != "enabled" {
		t.Errorf("disabled button: diagnosis %v", na.Diagnosis)
	}
	_, err := e.act(browser.Action{Kind: "fill", Target: browser.Locator{Selector: "#subscribe"}, Value: "x"})
	wantCode(t, err, browser.CodeNotActionable)

	// A ref from before a navigation is stale afterwards.
	ref := refOf(t, snap, "textbox", "Name")
	e.navigate("/form.html")
	wantCode(t, click(browser.Locator{Ref: ref}), browser.CodeStaleRef)

	// A node removed from the page makes its ref stale.
	snap = e.snapshot(browser.ModeCompact)
	ref = refOf(t, snap, "textbox", "Name")
	e.eval(`(document.querySelector("#name").remove(), "")`)
	wantCode(t, click(browser.Locator{Ref: ref}), browser.CodeStaleRef)
}

func TestCoveredElementIsNotActionable(t *testing.T) {
	e := newEnv(t, browser.Options{ActionTimeout: backendtest.Timeout(700 * time.Millisecond)})
	e.navigate("/basic.html")
	e.eval(`(() => { const d = document.createElement("div"); d.id = "overlay";
		d.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.3);z-index:10"; document.body.append(d); return "" })()`)
	_, err := e.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#counter"}})
	be := wantCode(t, err, browser.CodeNotActionable)
	if !strings.Contains(be.Message, "div#overlay") {
		t.Errorf("message does not name the cover: %s", be.Message)
	}
	// Removing the overlay while the click waits lets it through.
	e.eval(`(setTimeout(() => document.querySelector("#overlay").remove(), 200), "")`)
	e2 := *e
	if _, err := e2.act(browser.Action{Kind: "click", Target: browser.Locator{Selector: "#counter"}, Timeout: backendtest.Timeout(5 * time.Second)}); err != nil {
		t.Fatalf("click after the overlay went: %v", err)
	}
	if got := e.eval(`document.querySelector("#counter").textContent`); got != "Clicked 1 times" {
		t.Errorf("counter = %q", got)
	}
}

func TestSnapshotPaging(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/long.html")
	var full string
	var total int
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		snap, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull})
		if err != nil {
			return err
		}
		full, total = snap.Text[strings.Index(snap.Text, "\n")+1:], snap.TotalChars
		runes := []rune(full)
		offset, pages := 0, 0
		for {
			pages++
			if pages > 20 {
				return errors.New("paging did not end")
			}
			snap, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeFull, MaxChars: 5000, Offset: offset})
			if err != nil {
				return err
			}
			body := snap.Text[strings.Index(snap.Text, "\n")+1:]
			if snap.NextOffset == 0 {
				if pages == 1 {
					return errors.New("a 5,000-char window did not cut a long page")
				}
				body = body[:max(0, strings.LastIndex(body, "\n(end;"))]
			} else {
				if !strings.Contains(body, fmt.Sprintf("browser_snapshot with offset=%d continues", snap.NextOffset)) {
					return fmt.Errorf("cut page lacks the continuation:\n%s", body[max(0, len(body)-200):])
				}
				body = body[:strings.LastIndex(body, "\n… cut at char")]
			}
			br := []rune(body)
			if len(br) > 5000 {
				return fmt.Errorf("page of %d chars exceeds max_chars", len(br))
			}
			if offset+len(br) > len(runes) || string(runes[offset:offset+len(br)]) != body {
				return fmt.Errorf("page at offset %d is not that part of the whole snapshot", offset)
			}
			if snap.NextOffset == 0 {
				if rest := strings.TrimSpace(string(runes[offset+len(br):])); rest != "" {
					return fmt.Errorf("the last page left out %q", rest)
				}
				break
			}
			if gap := strings.TrimSpace(string(runes[offset+len(br) : snap.NextOffset])); gap != "" {
				return fmt.Errorf("paging skipped %q", gap)
			}
			offset = snap.NextOffset
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total < 20_000 {
		t.Errorf("long.html snapshot is only %d chars; the fixture should exceed the default cap", total)
	}
}
