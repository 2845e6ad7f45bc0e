package mcpserver_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// The loop the server instructions teach, through MCP: navigate, read a ref
// from the snapshot, click it, and see the change.
func TestNavigateSnapshotClick(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	// The title and the URL once, in the snapshot's header.
	if !strings.HasPrefix(nav, "Loaded (HTTP 200)\n\n# Basic page — "+base+"/basic.html   (s") || strings.Count(nav, "/basic.html") != 1 {
		t.Errorf("navigate result lacks the title or the status, or says them twice:\n%s", nav)
	}
	ref := refOf(t, nav, "button", "Clicked 0 times")

	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{})
	if got := refOf(t, snap, "button", "Clicked 0 times"); got != ref {
		t.Errorf("the button's ref changed between navigate (%s) and snapshot (%s)", ref, got)
	}

	act := mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": ref})
	if !strings.HasPrefix(act, "click "+ref) {
		t.Errorf("click result does not name the ref %s:\n%s", ref, act)
	}
	if !strings.Contains(act, "Clicked 1 times") {
		t.Errorf("click diff does not show the new button text:\n%s", act)
	}

	after := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(after, `button `+ref+` "Clicked 1 times"`) {
		t.Errorf("snapshot after the click lacks button %s \"Clicked 1 times\":\n%s", ref, after)
	}
	if strings.Contains(after, "Clicked 0 times") {
		t.Errorf("snapshot after the click still shows the old text:\n%s", after)
	}

	// A second click, by selector this time, keeps counting.
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#counter", "snapshot": "none"})
	if after := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "interactive"}); !strings.Contains(after, "Clicked 2 times") {
		t.Errorf("snapshot after a click by selector lacks \"Clicked 2 times\":\n%s", after)
	}
	// Without a snapshot the navigate reply says the URL and title itself.
	if nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"}); nav != "Loaded "+base+`/basic.html — "Basic page" (HTTP 200)` {
		t.Errorf("navigate without a snapshot = %q", nav)
	}
}

// Bad input a model will send: each fails with its code and a hint, and the
// session stays usable.
func TestBadInputCodes(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 90*time.Second)

	body := mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": closedPort(t)}, "NAVIGATION_FAILED")
	if body.Diagnosis["kind"] != "connection_refused" {
		t.Errorf("unreachable URL: diagnosis %v, want kind connection_refused", body.Diagnosis)
	}
	// Port 1 is on Chromium's list of restricted ports: it never connects.
	body = mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": "http://127.0.0.1:1/"}, "NAVIGATION_FAILED")
	if body.Diagnosis["kind"] != "unsafe_port" {
		t.Errorf("port 1: diagnosis %v, want kind unsafe_port", body.Diagnosis)
	}
	for _, u := range []string{"javascript:alert(1)", "JavaScript:alert(1)", "file:///etc/passwd", "ftp://example.com/"} {
		body := mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": u}, "INVALID_ARGUMENT")
		scheme := strings.ToLower(u[:strings.Index(u, ":")])
		if !strings.Contains(strings.ToLower(body.Error.Message), scheme) {
			t.Errorf("%s: message %q does not name the scheme", u, body.Error.Message)
		}
	}

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": "e999"}, "TARGET_NOT_FOUND")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": "button"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": ""}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "   "}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#nope"}, "TARGET_NOT_FOUND")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "a"}, "AMBIGUOUS_TARGET")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "##"}, "INVALID_ARGUMENT")
	// fill or type with no value is no silent no-op (issue 28, 2).
	for _, a := range []map[string]any{{"action": "fill", "selector": "button"}, {"action": "fill", "selector": "button", "value": ""}, {"action": "type", "selector": "button"}} {
		if body := mustFail(t, ctx, cs, "browser_action", a, "INVALID_ARGUMENT"); !strings.Contains(body.Error.Hint, `{"action":"clear"}`) {
			t.Errorf("%v: hint %q does not name clear", a, body.Error.Hint)
		}
	}
	mustFail(t, ctx, cs, "browser_snapshot", map[string]any{"tab": "no-such-tab"}, "TAB_NOT_FOUND")

	// A page that answers 404 is loaded but reported.
	body = mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/missing.html"}, "NAVIGATION_FAILED")
	if body.Diagnosis["kind"] != "http_error" || body.Diagnosis["status"] != 404.0 {
		t.Errorf("404: diagnosis %v, want http_error 404", body.Diagnosis)
	}

	// Elements that cannot take the action.
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/form.html", "snapshot": "none"})
	body = mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#delete", "timeout_ms": 300}, "NOT_ACTIONABLE")
	if body.Diagnosis["failed_check"] != "enabled" {
		t.Errorf("disabled button: diagnosis %v, want failed_check enabled", body.Diagnosis)
	}
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#create", "value": "x", "timeout_ms": 300}, "NOT_ACTIONABLE")

	// A ref from a page that is no longer loaded is stale, not unknown.
	nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	ref := refOf(t, nav, "button", "Clicked 0 times")
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/form.html", "snapshot": "none"})
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": ref}, "STALE_REF")

	// Still usable after all that.
	if out := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "interactive"}); !strings.Contains(out, "Create account") {
		t.Errorf("snapshot after the failures:\n%s", out)
	}
}

// closedPort returns an http URL on loopback where nothing listens.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

// Text with CJK, emoji, quotes, a newline and HTML metacharacters reaches the
// page exactly as sent.
func TestUnicodeFill(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	const value = "日本語 中文 한국어 👩‍💻🚀 \"double\" 'single'\nline two & <b>bold</b> > x"

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/echo.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#in", "value": value, "snapshot": "none"})
	if !strings.Contains(out, "verified") {
		t.Errorf("fill was not verified:\n%s", out)
	}
	if want := fmt.Sprintf("value %q", value); !strings.Contains(out, want) {
		t.Errorf("fill result does not carry the exact value:\n got: %s\nwant: …%s…", out, want)
	}

	// #out mirrors the field on input events. The snapshot shows its text as
	// one unquoted line with whitespace collapsed; the textbox's own line
	// quotes the value, so only #out can produce this line.
	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "full"})
	want := strings.Join(strings.Fields(value), " ")
	found := false
	for line := range strings.Lines(snap) {
		if strings.TrimSpace(line) == want {
			found = true
		}
	}
	if !found {
		t.Errorf("snapshot has no line with #out's text %q:\n%s", want, snap)
	}
	if strings.Contains(snap, "&amp;") || strings.Contains(snap, "&lt;") {
		t.Errorf("snapshot shows HTML-escaped text:\n%s", snap)
	}
	// Typing (key presses, appended) carries such text too.
	out = mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "type", "selector": "#line", "value": "ü & 😀 \"q\"", "snapshot": "none"})
	if !strings.Contains(out, `value "ü & 😀 \"q\""`) {
		t.Errorf("type result:\n%s", out)
	}
}

// Two agent sessions drive their own tabs at the same time and never see each
// other's page.
func TestParallelSessions(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 90*time.Second)
	pages := map[string]struct{ path, title, other string }{
		"a": {"/basic.html", "Basic page", "Sign up"},
		"b": {"/form.html", "Sign up", "Basic page"},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for session, p := range pages {
		wg.Go(func() {
			for i := range 3 {
				res, err := cs.CallTool(ctx, callParams("browser_navigate", map[string]any{"url": base + p.path, "session": session, "snapshot": "none"}))
				if err != nil || res.IsError {
					errs <- fmt.Errorf("session %s: navigate %d: %v %s", session, i, err, textOf(res))
					return
				}
				res, err = cs.CallTool(ctx, callParams("browser_snapshot", map[string]any{"session": session}))
				if err != nil || res.IsError {
					errs <- fmt.Errorf("session %s: snapshot %d: %v %s", session, i, err, textOf(res))
					return
				}
				snap := text(res)
				header, _, _ := strings.Cut(snap, "\n")
				if !strings.Contains(header, p.title) || strings.Contains(snap, p.other) {
					errs <- fmt.Errorf("session %s: snapshot %d shows another page (want %q):\n%s", session, i, p.title, snap)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// Sequentially too: each session's current tab is still its own page.
	for session, p := range pages {
		snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"session": session, "mode": "interactive"})
		if !strings.Contains(snap, p.title) {
			t.Errorf("session %s afterwards:\n%s", session, snap)
		}
	}
	status := mustCall(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	if !strings.Contains(status, `"a"`) || !strings.Contains(status, `"b"`) {
		t.Errorf("browser_status does not list sessions a and b:\n%s", status)
	}
	// Closing one session's tabs leaves the other's alone.
	if out := mustCall(t, ctx, cs, "browser_close", map[string]any{"session": "a"}); !strings.Contains(out, "Closed 1 tab") {
		t.Errorf("close session a: %s", out)
	}
	if snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"session": "b", "mode": "interactive"}); !strings.Contains(snap, "Sign up") {
		t.Errorf("session b after closing a:\n%s", snap)
	}
}

// Real clients negotiate older protocol versions than the SDK's latest:
// the loop works on every version the SDK supports.
func TestProtocolVersions(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			ctx := backendtest.Context(t, 60*time.Second)
			cs := connectVersion(t, &tools.Deps{Manager: sharedManager(t), DefaultSession: "proto-" + v}, v)
			if got := cs.InitializeResult(); got != nil && got.ProtocolVersion != v {
				t.Errorf("negotiated %s, asked for %s", got.ProtocolVersion, v)
			}
			nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
			ref := refOf(t, nav, "button", "Clicked 0 times")
			if act := mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": ref}); !strings.Contains(act, "Clicked 1 times") {
				t.Errorf("click on protocol %s:\n%s", v, act)
			}
		})
	}
}

// browser_tabs through MCP: new tab at a URL, list with the current marker
// and short ids, select by id and by match, close; a select without tab or
// match is INVALID_ARGUMENT.
func TestBrowserTabsTool(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})
	opened := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "new", "url": base + "/form.html"})
	if !strings.Contains(opened, `"Sign up"`) || !strings.Contains(opened, "textbox e") {
		t.Fatalf("new tab with url:\n%s", opened)
	}
	list := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"})
	if !strings.HasPrefix(list, "2 tab(s)") || !strings.Contains(list, `* `) || !strings.Contains(list, `"Basic page"`) {
		t.Fatalf("list:\n%s", list)
	}
	var basicID string
	for _, line := range strings.Split(list, "\n")[1:] {
		if strings.Contains(line, `"Basic page"`) {
			basicID = strings.Fields(strings.TrimPrefix(line, "*"))[0]
		}
	}
	if basicID != "t1" || !strings.HasPrefix(opened, "Opened tab t2 ") {
		t.Errorf("short tab ids: the first tab is %q, want t1; new tab: %.40q, want t2", basicID, opened)
	}
	// select by match: one tab (the form), two (both on this server), none.
	if got := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": "/form\\.html$/"}); !strings.HasPrefix(got, "Tab t2 is current") {
		t.Errorf("select by match: %s", got)
	}
	// The matcher of browser_wait and expect: a glob matched whole (issue 28, 1).
	if got := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": "*/basic.HTML"}); !strings.HasPrefix(got, "Tab t1 is current") {
		t.Errorf("select by glob: %s", got)
	}
	// No action lists (issue 28, 6).
	if got := mustCall(t, ctx, cs, "browser_tabs", map[string]any{}); !strings.HasPrefix(got, "2 tab(s)") {
		t.Errorf("browser_tabs without an action:\n%s", got)
	}
	if body := mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": base}, "AMBIGUOUS_TARGET"); len(body.Error.Suggestions) != 2 {
		t.Errorf("ambiguous match: candidates %q, want 2", body.Error.Suggestions)
	}
	mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "match": "nowhere.example"}, "TAB_NOT_FOUND")
	mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "tab": "t1", "match": "basic"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "list", "match": "basic"}, "INVALID_ARGUMENT")
	if got := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "tab": basicID}); !strings.Contains(got, basicID+" is current") {
		t.Errorf("select: %s", got)
	}
	if snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{}); !strings.HasPrefix(snap, "# Basic page") {
		t.Errorf("after select the snapshot shows %q", strings.SplitN(snap, "\n", 2)[0])
	}
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "close"})
	if list := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"}); !strings.HasPrefix(list, "1 tab(s)") || strings.Contains(list, `"Basic page"`) {
		t.Errorf("after close:\n%s", list)
	}
	mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "select"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_tabs", map[string]any{"action": "close", "tab": "nope"}, "TAB_NOT_FOUND")
}

// browser_find and a scoped browser_snapshot through MCP: the refs they
// give are the snapshot's, and a bad search is INVALID_ARGUMENT.
func TestFindAndScopeTools(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/form.html"})
	ref := refOf(t, nav, "button", "Create account")
	found := mustCall(t, ctx, cs, "browser_find", map[string]any{"role": "button", "name": "/^create/i"})
	if !strings.Contains(found, `button `+ref+` "Create account"`) || !strings.Contains(found, "# 1 match") {
		t.Errorf("browser_find:\n%s", found)
	}
	scoped := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"scope": "#signup", "mode": "full"})
	if !strings.Contains(scoped, `button `+ref+` "Create account"`) || strings.Contains(scoped, "Sign up\n") {
		t.Errorf("scoped snapshot:\n%s", scoped)
	}
	mustFail(t, ctx, cs, "browser_find", map[string]any{}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_snapshot", map[string]any{"scope": "#nothing-here"}, "TARGET_NOT_FOUND")
}

// The dialog flow through MCP: an action that opens a confirm says so,
// other calls report DIALOG_OPEN, browser_dialog answers it; and an action
// targeted by role and name reports the ref it acted on.
func TestDialogAndLocatorTools(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/act/dialogs.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "role": "button", "name": "Confirm"})
	if !strings.Contains(out, `A confirm dialog opened and waits for an answer: "Delete everything?"`) || !strings.Contains(out, "click e") {
		t.Errorf("click that opens a confirm:\n%s", out)
	}
	body := mustFail(t, ctx, cs, "browser_snapshot", map[string]any{}, "DIALOG_OPEN")
	if !strings.Contains(body.Error.Message, "Delete everything?") || !strings.Contains(body.Error.Hint, "browser_dialog") {
		t.Errorf("DIALOG_OPEN body: %+v", body)
	}
	mustFail(t, ctx, cs, "browser_dialog", map[string]any{"action": "dismiss", "text": "no"}, "INVALID_ARGUMENT")
	out = mustCall(t, ctx, cs, "browser_dialog", map[string]any{"action": "accept"})
	if !strings.Contains(out, `Accepted the confirm dialog "Delete everything?"`) {
		t.Errorf("browser_dialog: %s", out)
	}
	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "full"})
	if !strings.Contains(snap, "confirm:true") {
		t.Errorf("the page did not get OK:\n%s", snap)
	}
	mustFail(t, ctx, cs, "browser_dialog", map[string]any{"action": "accept"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "text": "nothing like this at all"}, "TARGET_NOT_FOUND")
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "ref": "e1", "text": "x"}, "INVALID_ARGUMENT")
}

// browser_fill_form through MCP: fields by role and selector, submitted
// with Enter; a failing field reports what was completed and skipped.
func TestFillFormTool(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/act/form.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_fill_form", map[string]any{
		"fields": []map[string]any{
			{"role": "textbox", "name": "Email", "value": "ada@example.com"},
			{"selector": "#news", "value": "true"},
			{"role": "combobox", "name": "Country", "value": "Germany"},
		},
		"submit": "event", "snapshot": "none",
	})
	if !strings.Contains(out, "Filled 3 field(s)") || !strings.Contains(out, `= "Germany"`) || !strings.Contains(out, "Submitted (event): verified") || !strings.Contains(out, "/act/done.html?email=ada%40example.com") {
		t.Errorf("fill_form:\n%s", out)
	}
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/act/form.html", "snapshot": "none"})
	body := mustFail(t, ctx, cs, "browser_fill_form", map[string]any{
		"fields": []map[string]any{
			{"selector": "#email", "value": "ada@example.com"},
			{"selector": "#country", "value": "Atlantis"},
			{"selector": "#bio", "value": "x"},
		},
	}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "field 2 of 3") || body.Diagnosis["skipped"] == nil || body.Diagnosis["completed"] == nil {
		t.Errorf("failure body: %+v", body)
	}
	mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "upload", "selector": "#avatar", "files": []string{"/etc/hostname"}}, "INVALID_ARGUMENT")
}
