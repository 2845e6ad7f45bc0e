package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// demoPassword is the password the simulated user types; it must appear in
// nothing webpilot writes or returns.
const demoPassword = "Pa55-demo-word"

// demoShop is a shop behind a sign-in: the sign-in form posts, the search
// is a GET form, each result links to its page. Variant "changed" renames
// every id and rewords every label (what healing must survive). It keeps who signed in
// with which password, and the last product opened.
type demoShop struct {
	base    string
	variant atomic.Value
	mu      sync.Mutex
	logins  []string // "email password"
	opened  []string // product names
}

func newDemoShop(t *testing.T) *demoShop {
	d := &demoShop{}
	d.variant.Store("")
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><meta charset=utf-8><title>%s</title></head><body><main>%s</main></body></html>", title, body)
	}
	changed := func() bool { return d.variant.Load() == "changed" }
	search := func(q string) string {
		id, label, btn := "q", "Search products", "Search"
		if changed() {
			id, label, btn = "find-box", "Search all products", "Search now"
		}
		return fmt.Sprintf(`<form action="/shop/search" role="search"><label for="%s">%s</label> <input id="%s" name="q" type="search" value="%s"> <button type="submit">%s</button></form>`,
			id, label, id, html.EscapeString(q), btn)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/shop/login", func(w http.ResponseWriter, r *http.Request) {
		ids, labels := [2]string{"email", "password"}, [2]string{"Email", "Password"}
		btn := "Sign in"
		if changed() {
			ids, labels, btn = [2]string{"user-mail", "user-secret"}, [2]string{"Your email", "Your password"}, "Sign in now"
		}
		page(w, "Sign in", fmt.Sprintf(`<h1>Sign in</h1><form method="post" action="/shop/signin">
<p><label for="%s">%s</label> <input id="%s" name="email" type="email"></p>
<p><label for="%s">%s</label> <input id="%s" name="password" type="password"></p>
<button type="submit">%s</button></form>`, ids[0], labels[0], ids[0], ids[1], labels[1], ids[1], btn))
	})
	mux.HandleFunc("/shop/signin", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		d.mu.Lock()
		d.logins = append(d.logins, r.PostForm.Get("email")+" "+r.PostForm.Get("password"))
		d.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.PostForm.Get("email"), Path: "/"})
		http.Redirect(w, r, "/shop/", http.StatusSeeOther)
	})
	mux.HandleFunc("/shop/", func(w http.ResponseWriter, r *http.Request) {
		who := ""
		if c, err := r.Cookie("who"); err == nil {
			who = c.Value
		}
		page(w, "Kettle Shop", fmt.Sprintf("<h1>Kettle Shop</h1><p>Signed in as %s</p>%s", html.EscapeString(who), search("")))
	})
	mux.HandleFunc("/shop/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		var items []string
		for _, p := range shopProducts {
			if q != "" && strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
				items = append(items, fmt.Sprintf(`<li class="result"><a href="/shop/item?id=%d">%s</a> <span>%s</span></li>`, p.ID, p.Name, p.Price))
			}
		}
		page(w, "Results for "+q, "<h1>Results</h1>"+search(q)+`<ul class="results">`+strings.Join(items, "")+"</ul>")
	})
	mux.HandleFunc("/shop/item", func(w http.ResponseWriter, r *http.Request) {
		for _, p := range shopProducts {
			if fmt.Sprint(p.ID) == r.URL.Query().Get("id") {
				d.mu.Lock()
				d.opened = append(d.opened, p.Name)
				d.mu.Unlock()
				page(w, p.Name, fmt.Sprintf(`<div id="details"><h1>%s</h1><p>Price: %s</p></div>`, p.Name, p.Price))
				return
			}
		}
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	d.base = srv.URL
	return d
}

func (d *demoShop) last() (login, opened string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.logins) > 0 {
		login = d.logins[len(d.logins)-1]
	}
	if len(d.opened) > 0 {
		opened = d.opened[len(d.opened)-1]
	}
	return login, opened
}

// recordClient is a client of a server with the recipe tools, whose
// manager lets the headless test browser record (the rig's flag), with
// the PASSWORD secret declared and a trace kept.
func recordClient(t *testing.T) (*mcp.ClientSession, *recipes.Store, *browser.Manager, string) {
	cs, store, m, traceDir, _ := recordClientLog(t)
	return cs, store, m, traceDir
}

// recordClientLog is recordClient with its debug log (server and browser).
func recordClientLog(t *testing.T) (*mcp.ClientSession, *recipes.Store, *browser.Manager, string, func() string) {
	t.Helper()
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	readLog := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return logBuf.String()
	}
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_PASSWORD=" + demoPassword + "-2"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := &recipes.Store{UserDir: filepath.Join(dir, "recipes"), TrustFile: filepath.Join(dir, "trust.json")}
	uploads, err := filepath.Abs("../../testdata/pages")
	if err != nil {
		t.Fatal(err)
	}
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t), RecordHeadless: true, UploadRoots: []string{uploads}, Logger: logger})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(10*time.Second))
		defer cancel()
		for _, name := range m.SessionNames() {
			_ = m.Session(name).Do(ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	traceDir := filepath.Join(dir, "traces")
	rec := trace.New(trace.Options{Dir: traceDir, Mask: sec.Mask})
	sel, err := tools.Select(tools.ProfileFull, "")
	if err != nil {
		t.Fatal(err)
	}
	cs := connectServer(t, mcpserver.Options{Tools: sel, Logger: logger, Deps: &tools.Deps{Manager: m, Recipes: store, Secrets: sec, Trace: rec, TraceMask: sec.Mask, Logger: logger}}, nil, "")
	return cs, store, m, traceDir, readLog
}

// The user shows a task (sign in, search, open the first result) in a
// recorded tab; the recipe has the steps, the typed values as parameters
// named from their fields, the password as a secret; it replays with other
// parameters, and heals when every id and label changed. No password
// appears in the result, the recipe file or the trace.
func TestRecipeRecordDemonstration(t *testing.T) {
	t.Parallel()
	shop := newDemoShop(t)
	cs, store, m, traceDir, readLog := recordClientLog(t)
	ctx := backendtest.Context(t, 120*time.Second)

	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "shop-order", "url": shop.base + "/shop/login", "message": "Sign in, search, open the first result"})
	if !strings.Contains(out, `Recording "shop-order" in tab t1`) {
		t.Fatalf("start: %s", out)
	}
	mustFail(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "again"}, "INVALID_ARGUMENT")

	u, err := backendtest.NewUser(ctx, m.Backend(), shop.base+"/shop/login")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(u.Type(ctx, "#email", "ada@example.com"))
	must(u.Type(ctx, "#password", demoPassword))
	must(u.Click(ctx, "button[type=submit]", 1))
	must(u.WaitFor(ctx, `location.pathname === "/shop/" && document.readyState === "complete"`))
	must(u.Type(ctx, "#q", "kettle"))
	must(u.Press(ctx, "Enter"))
	must(u.WaitFor(ctx, `location.pathname === "/shop/search" && document.querySelector("ul.results a")`))
	must(u.Click(ctx, "ul.results > li:first-child > a", 1))
	must(u.WaitFor(ctx, `location.pathname === "/shop/item" && document.readyState === "complete"`))

	if st := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "status"}); !strings.Contains(st, "step(s) so far") {
		t.Errorf("status while recording: %s", st)
	}
	out = mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop"})
	stopOut := out
	t.Logf("stop:\n%s", out)
	for _, want := range []string{
		"1 navigate " + shop.base + "/shop/login",
		`2 fill textbox "Email" = $email ("ada@example.com")`,
		`3 fill textbox "Password" = secret PASSWORD`,
		`4 click button "Sign in"`,
		`5 fill searchbox "Search products" = $search_products ("kettle")`,
		`6 press Enter in searchbox "Search products"`,
		`7 click link "Blue Kettle" (by place: item 1 of 2)`,
		"Params: email:string=ada@example.com, search_products:string=kettle",
		"Secrets (declare each", "PASSWORD",
		"Not saved yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the review lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\n8 ") {
		t.Errorf("more steps than the user took:\n%s", out)
	}
	// The trace shows the recording like a run.
	m1 := regexp.MustCompile(`Trace: (\S+\.html)`).FindStringSubmatch(out)
	if m1 == nil {
		t.Fatalf("no trace in the result:\n%s", out)
	}
	td, err := trace.ReadFile(m1[1])
	if err != nil {
		t.Fatal(err)
	}
	sum := td.Summary()
	if len(td.Steps) != 7 || !strings.Contains(sum, "user fill") || !strings.Contains(sum, `click link "Blue Kettle"`) {
		t.Errorf("the recording's trace:\n%s", sum)
	}
	traceFile, _ := os.ReadFile(m1[1])
	out = mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "save", "description": "Sign in and open the first search result"})
	if !strings.Contains(out, "Saved recipe shop-order") {
		t.Fatalf("save: %s", out)
	}
	file, err := os.ReadFile(filepath.Join(store.UserDir, "shop-order.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), `"secret": "PASSWORD"`) || !strings.Contains(string(file), `"value": "$email"`) || !strings.Contains(string(file), `"candidates"`) {
		t.Errorf("the recipe file:\n%s", file)
	}

	// Replayed with other parameters (and the declared secret).
	out = mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "shop-order", "params": map[string]any{"email": "bob@example.com", "search_products": "steel"}})
	t.Logf("run:\n%s", out)
	if login, opened := shop.last(); login != "bob@example.com "+demoPassword+"-2" || opened != "Steel Kettle" {
		t.Errorf("the replay signed in as %q and opened %q", login, opened)
	}
	// Every id and label changed: the replay heals.
	shop.variant.Store("changed")
	out = mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "shop-order", "params": map[string]any{"email": "cy@example.com", "search_products": "teapot"}})
	t.Logf("run on the changed shop:\n%s", out)
	if login, opened := shop.last(); login != "cy@example.com "+demoPassword+"-2" || opened != "Green Teapot" {
		t.Errorf("the healed replay signed in as %q and opened %q", login, opened)
	}
	if !strings.Contains(out, "healed") {
		t.Errorf("the replay on the changed shop healed nothing:\n%s", out)
	}

	// The password is nowhere webpilot wrote.
	log := readLog()
	if !strings.Contains(log, "tool=recipe_record") {
		t.Errorf("the debug log has no recipe_record calls: the check below would prove nothing")
	}
	leaks := []string{string(file), string(traceFile), stopOut, out, log}
	_ = filepath.Walk(traceDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			leaks = append(leaks, string(b))
		}
		return nil
	})
	for i, l := range leaks {
		if strings.Contains(l, demoPassword) {
			t.Errorf("the password is in output %d", i)
		}
	}
}

// Stop pressed by the user ends the recording: on the bridge the
// extension's popup entry; without the extension the banner in the page,
// which is no step itself. What the user typed last is kept.
func TestRecipeRecordUserStops(t *testing.T) {
	t.Parallel()
	shop := newDemoShop(t)
	cs, _, m, _ := recordClient(t)
	ctx := backendtest.Context(t, 90*time.Second)
	// The message tells this recording's popup entry from those of the
	// other tests' recordings on the shared browser.
	const message = "Search the shop, then press Stop (user-stops test)"
	mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "shop-search", "url": shop.base + "/shop/", "message": message})
	u, err := backendtest.NewUser(ctx, m.Backend(), shop.base+"/shop/")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.Type(ctx, "#q", "mug"); err != nil {
		t.Fatal(err)
	}
	// A hand-off now would be recorded as part of the task.
	if e := mustFail(t, ctx, cs, "browser_handoff", map[string]any{"message": "Sign in", "until": map[string]any{"url": "*/done*"}}, "INVALID_ARGUMENT"); !strings.Contains(e.Error.Message, "recording") {
		t.Errorf("a hand-off while recording: %+v", e.Error)
	}
	if backendtest.Kind() == "bridge" {
		p, err := backendtest.OpenExtensionPage(ctx, m.Backend(), "popup.html")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = p.Close(context.Background()) }()
		var v string
		for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if v, err = p.Eval(ctx, `(() => { const row = [...document.querySelectorAll("#handofflist .handoff")].find((r) => r.textContent.includes("(user-stops test)"));
				const b = row && row.querySelector("button.done"); if (!b) return "none"; const txt = row.textContent; b.click(); return txt; })()`); err == nil && v != `"none"` {
				break
			}
		}
		var row string
		_ = json.Unmarshal([]byte(v), &row)
		if !strings.HasPrefix(row, "Recording — "+message) || !strings.HasSuffix(row, "Stop") {
			t.Errorf("the popup's entry: %s (%v)", v, err)
		}
	} else {
		// The banner's Stop, at the right end of the banner.
		if err := u.PressBannerStop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var st string
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st = mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "status"}); strings.Contains(st, "ended") {
			break
		}
	}
	if !strings.Contains(st, "the user pressed Stop") {
		t.Fatalf("status after Stop: %s", st)
	}
	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop"})
	t.Logf("stop:\n%s", out)
	if !strings.Contains(out, "the user pressed Stop") || !strings.Contains(out, `2 fill searchbox "Search products" = $search_products ("mug")`) || strings.Contains(out, "3 ") {
		t.Errorf("the recording the user stopped:\n%s", out)
	}
}

// A demonstration on real widgets (Bootstrap 5 from its npm files): a
// dropdown's item and a modal that fades in and out. The recording has the
// four clicks the user made, no more, and replays to the same end.
func TestRecipeRecordRealWidgets(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _, m, _ := recordClient(t)
	ctx := backendtest.Context(t, 120*time.Second)
	page := base + "/widgets/bs5-widgets.html"
	mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "bs5-plan", "url": page})
	u, err := backendtest.NewUser(ctx, m.Backend(), page)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(u.Click(ctx, ".dropdown-toggle", 1))
	must(u.WaitFor(ctx, `document.querySelector(".dropdown-menu.show")`))
	must(u.Click(ctx, `[data-out="archive"]`, 1))
	must(u.WaitFor(ctx, `document.getElementById("out").textContent === "archive"`))
	must(u.Click(ctx, `[data-bs-target="#confirm"]`, 1))
	// The user waits for the modal to have faded in before clicking in it.
	must(u.WaitFor(ctx, `document.getElementById("confirm").classList.contains("show") && getComputedStyle(document.querySelector("#confirm .modal-dialog")).transform === "none"`))
	must(u.Click(ctx, "#confirmBtn", 1))
	must(u.WaitFor(ctx, `document.getElementById("out").textContent === "plan pro" && getComputedStyle(document.getElementById("confirm")).display === "none"`))
	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop", "save": true})
	t.Logf("stop:\n%s", out)
	for _, want := range []string{`2 click button "Actions"`, `3 click link "Archive"`, `4 click button "Change plan"`, `5 click button "Switch to Pro"`, "Saved recipe bs5-plan"} {
		if !strings.Contains(out, want) {
			t.Errorf("the recording lacks %q", want)
		}
	}
	if strings.Contains(out, "\n6 ") {
		t.Errorf("more steps than the user's four clicks:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "bs5-plan"})
	t.Logf("run:\n%s", out)
	if got := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `document.getElementById("out").textContent`}); !strings.Contains(got, "plan pro") {
		t.Errorf("after the replay the page says %s\n%s", got, out)
	}
}

// A recording of form widgets, a wait, a scroll that loads more and a new
// tab replays: the file chosen is a parameter the run gives, the choice,
// the checks and the item picked are made again, and the run goes on in
// the tab the page opened.
//
// Not parallel: the replayed scroll loads more only if the page fires
// scroll events, which a tab in the background does not (on the bridge the
// sessions of parallel tests share one agent window, one tab in front).
func TestRecipeRecordReplaysWidgets(t *testing.T) {
	base := fixtures(t)
	cs, store, m, _ := recordClient(t)
	ctx := backendtest.Context(t, 120*time.Second)
	page := base + "/record/order.html"
	mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "order-form", "url": page})
	followed := func() bool {
		return strings.Contains(mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"}), "help.html")
	}
	if err := backendtest.OrderDemonstration(ctx, m.Backend(), base, followed); err != nil {
		t.Fatal(err)
	}
	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop", "save": true})
	t.Logf("stop:\n%s", out)
	for _, want := range []string{`select combobox "Size" = Medium`, `check checkbox "Gift wrap"`, `check radio "Express"`, `upload into file "Photo" = $file`,
		`wait for text "Order saved"`, "scroll down", `click button "Item 8"`, `switch to the tab at /record/help.html`, `click button "Got it"`, `switch to the tab at /record/order.html`, `click button "Item 9"`, "Saved recipe order-form"} {
		if !strings.Contains(out, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	file, _ := os.ReadFile(filepath.Join(store.UserDir, "order-form.json"))
	photo, _ := filepath.Abs("../../testdata/pages/form.html")
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "close", "tab": "t2"})
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "close", "tab": "t1"})
	out = mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "order-form", "params": map[string]any{"file": photo}})
	t.Logf("run:\n%s", out)
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": "help.html"})
	if got := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `document.getElementById("ok").textContent`}); !strings.Contains(got, "Thanks") {
		t.Errorf("the run did not press Got it in the new tab: %s\n%s\n%s", got, out, file)
	}
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": "order.html"})
	state := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `[document.getElementById("size").value, document.getElementById("gift").checked, document.getElementById("d-exp").checked, document.getElementById("photo").files[0]?.name, document.getElementById("status").dataset.picked].join("|")`})
	if !strings.Contains(state, "Medium|true|true|form.html|Item 9") {
		t.Errorf("the replayed form: %s", state)
	}
}

// A demonstration on a React 18 root (React's own files), whose root
// listens to every event: the user's two clicks are two steps, and the
// replay counts two again.
func TestRecipeRecordReactRoot(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _, m, _ := recordClient(t)
	ctx := backendtest.Context(t, 90*time.Second)
	page := base + "/real/react-root.html"
	mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "start", "name": "react-two", "url": page})
	u, err := backendtest.NewUser(ctx, m.Backend(), page)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for _, f := range []func() error{
		func() error { return u.WaitFor(ctx, `document.getElementById("count")`) },
		func() error { return u.Click(ctx, "#root button", 1) },
		func() error {
			return u.WaitFor(ctx, `document.getElementById("count").textContent === "Clicked 1 times"`)
		},
		func() error { return u.Click(ctx, "#root button", 1) },
		func() error {
			return u.WaitFor(ctx, `document.getElementById("count").textContent === "Clicked 2 times"`)
		},
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	out := mustCall(t, ctx, cs, "recipe_record", map[string]any{"action": "stop", "save": true})
	if !strings.Contains(out, `2 click button "Add one"`) || !strings.Contains(out, `3 click button "Add one"`) || strings.Contains(out, "\n4 ") {
		t.Errorf("the recording of two clicks:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "recipe_run", map[string]any{"name": "react-two"})
	if got := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `document.getElementById("count").textContent`}); !strings.Contains(got, "Clicked 2 times") {
		t.Errorf("after the replay the page says %s\n%s", got, out)
	}
}
