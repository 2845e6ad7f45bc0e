package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// namedClient connects a go-sdk client called name over Streamable HTTP,
// counting the progress notifications it gets.
func namedClient(t *testing.T, ctx context.Context, base, name string, progress *progressLog) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress.add(r.Params.Message)
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// progressLog keeps the progress messages a client got.
type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progressLog) add(m string) {
	p.mu.Lock()
	p.msgs = append(p.msgs, m)
	p.mu.Unlock()
}

func (p *progressLog) has(part string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.msgs {
		if strings.Contains(m, part) {
			return true
		}
	}
	return false
}

// pending is a tool call running in the background.
type pending struct {
	done chan struct{}
	res  *mcp.CallToolResult
	err  error
}

// start calls tool in the background, with a progress token.
func start(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		params := callParams(tool, args)
		params.Meta = mcp.Meta{"progressToken": tool + strconv.FormatInt(time.Now().UnixNano(), 36)}
		p.res, p.err = cs.CallTool(ctx, params)
	}()
	return p
}

// result waits for the call's answer: its text and whether it failed,
// with the error code.
func (p *pending) result(t *testing.T) (string, string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(backendtest.Timeout(60 * time.Second)):
		t.Fatal("the call never answered")
	}
	if p.err != nil {
		t.Fatalf("protocol error: %v", p.err)
	}
	out := text(p.res)
	if !p.res.IsError {
		return out, ""
	}
	var body errorBody
	if b, err := json.Marshal(p.res.StructuredContent); err != nil || json.Unmarshal(b, &body) != nil || body.Error.Code == "" {
		t.Fatalf("an error result without its code: %s", out)
	}
	return out, body.Error.Code
}

// running says whether the call is still waiting.
func (p *pending) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// person plays the person at the browser: they press the popup's own
// buttons, found by what the rows say.
type person struct {
	t        *testing.T
	popup    *backendtest.ExtensionPage
	answered []string // the questions answered, by id
}

// until evaluates expr in the popup until done takes its value, and
// gives that value; else the test fails with what the popup shows.
func (p *person) until(ctx context.Context, what, expr string, done func(v string) bool) string {
	p.t.Helper()
	for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		v, err := p.popup.Eval(ctx, expr)
		if err == nil && done(v) {
			return v
		}
		if time.Now().After(deadline) {
			html, _ := p.popup.Eval(ctx, `document.body.innerText`)
			asks, _ := p.popup.Eval(ctx, `chrome.runtime.sendMessage({type: "approvals"})`)
			p.t.Fatalf("the popup never showed %s: %v %s\n%s\nquestions and rules: %s", what, err, v, html, asks)
		}
	}
}

// press clicks the first button the expression (a function of the document
// returning a button or null) finds, waiting for it to appear.
func (p *person) press(ctx context.Context, what, find string) {
	p.t.Helper()
	expr := `(() => { const b = (` + find + `)(document); if (!b || b.disabled) return false; b.click(); return true })()`
	p.until(ctx, what, expr, func(v string) bool { return v == "true" })
}

// answer presses answer (once, always, deny) on the question that starts
// with text, one not answered before (the popup may still show a question
// just answered until it redraws).
func (p *person) answer(ctx context.Context, text, answer string) {
	p.t.Helper()
	done, _ := json.Marshal(p.answered)
	expr := fmt.Sprintf(`(() => { const done = %s; const r = [...document.querySelectorAll("#asklist .ask")].find((r) => !done.includes(r.dataset.ask) && r.querySelector(".q").textContent.startsWith(%q));
		const b = r && r.querySelector("button.answer-%s"); if (!b || b.disabled) return ""; b.click(); return r.dataset.ask })()`, done, text, answer)
	var id string
	p.until(ctx, "the question "+text+" to answer "+answer, expr, func(v string) bool { return json.Unmarshal([]byte(v), &id) == nil && id != "" })
	p.answered = append(p.answered, id)
}

// control presses Pause, Resume or Stop for the agent named name.
func (p *person) control(ctx context.Context, name, action string) {
	p.t.Helper()
	p.press(ctx, action+" for "+name, fmt.Sprintf(`(d) => { const r = [...d.querySelectorAll("#agentlist .agent")].find((r) => r.querySelector(".name").textContent === %q); return r && r.querySelector("button.%s") }`, name, action))
}

// agentState waits for the agent's row to show state.
func (p *person) agentState(ctx context.Context, name, state string) {
	p.t.Helper()
	p.press(ctx, "the agent "+name+" "+state, fmt.Sprintf(`(d) => { const r = [...d.querySelectorAll("#agentlist .agent")].find((r) => r.querySelector(".name").textContent === %q && r.classList.contains(%q)); return r ? {click() {}, disabled: false} : null }`, name, state))
}

// TestPersonApprovesSites: in the person's own Chrome (the extension), two
// clients of one server ask before they use a site: the person allows once,
// always or denies in the popup, each call waiting with progress; a denial
// is remembered and revoked there; binding one of their tabs always asks.
// From the popup's Agents list they pause, resume and stop a client. On a
// launched browser nothing asks.
func TestPersonApprovesSites(t *testing.T) {
	base := fixtures(t)
	suffix := strconv.FormatInt(time.Now().UnixNano()%1e6, 36)
	nameA, nameB := "agent-a-"+suffix, "agent-b-"+suffix
	m := browser.NewManager(browser.Options{Backend: backendtest.New(t), Approve: browser.ApproveAsk})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	sel, err := tools.Select(tools.ProfileCore, "+tabs,+handoff")
	if err != nil {
		t.Fatal(err)
	}
	srv := serveHTTPWith(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m}}, mcpserver.HTTPOptions{})
	ctx := backendtest.Context(t, 4*time.Minute)
	progA := &progressLog{}
	a := namedClient(t, ctx, srv.base, nameA, progA)
	progB := &progressLog{}
	b := namedClient(t, ctx, srv.base, nameB, progB)
	page := base + "/basic.html"
	if backendtest.Kind() != "bridge" {
		// A launched or remote browser is nobody's own: nothing asks.
		mustCall(t, ctx, a, "browser_navigate", map[string]any{"url": page})
		mustCall(t, ctx, b, "browser_navigate", map[string]any{"url": page})
		return
	}
	popup, err := backendtest.OpenExtensionPage(ctx, m.Backend(), "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = popup.Close(context.Background()) })
	you := &person{t: t, popup: popup, answered: []string{}}

	// A asks for 127.0.0.1; its call waits, with progress, until allowed once.
	nav := start(ctx, a, "browser_navigate", map[string]any{"url": page})
	you.answer(ctx, nameA+" wants to use 127.0.0.1", "once")
	if out, code := nav.result(t); code != "" || !strings.Contains(out, "basic.html") {
		t.Fatalf("A's navigate after Allow once: %s %s", code, out)
	}
	if !progA.has("waiting for the person to answer in their browser whether " + nameA + " may use 127.0.0.1") {
		t.Errorf("A's waiting call told no progress: %q", progA.msgs)
	}
	// Once holds for A's session: its next calls there do not ask.
	mustCall(t, ctx, a, "browser_navigate", map[string]any{"url": page + "?again"})
	mustCall(t, ctx, a, "browser_snapshot", map[string]any{})

	// B asks for the same site: the person denies; the denial is a rule.
	nav = start(ctx, b, "browser_navigate", map[string]any{"url": page})
	you.answer(ctx, nameB+" wants to use 127.0.0.1", "deny")
	if out, code := nav.result(t); code != "USER_DENIED" || !strings.Contains(out, nameB) {
		t.Fatalf("B's navigate after Deny: %s %s", code, out)
	}
	mustFail(t, ctx, b, "browser_navigate", map[string]any{"url": page + "?retry"}, "USER_DENIED")

	// A asks for another site (localhost) and is allowed always.
	other := strings.Replace(base, "127.0.0.1", "localhost", 1) + "/basic.html"
	nav = start(ctx, a, "browser_navigate", map[string]any{"url": other})
	you.answer(ctx, nameA+" wants to use localhost", "always")
	if out, code := nav.result(t); code != "" {
		t.Fatalf("A's navigate after Always: %s %s", code, out)
	}
	status := mustCall(t, ctx, a, "browser_status", map[string]any{})
	if !strings.Contains(status, "localhost allowed for "+nameA) || !strings.Contains(status, "127.0.0.1 denied for "+nameB) {
		t.Errorf("browser_status does not show the person's rules:\n%s", status)
	}

	// The person revokes B's denial in the popup: B is asked again.
	you.press(ctx, "Revoke", fmt.Sprintf(`(d) => d.querySelector('#rulelist button.revoke[data-client=%q][data-site="127.0.0.1"]')`, nameB))
	you.press(ctx, "the rule gone", fmt.Sprintf(`(d) => d.querySelector('#rulelist button.revoke[data-client=%q][data-site="127.0.0.1"]') ? null : {click() {}}`, nameB))
	nav = start(ctx, b, "browser_navigate", map[string]any{"url": page})
	you.answer(ctx, nameB+" wants to use 127.0.0.1", "once")
	if out, code := nav.result(t); code != "" {
		t.Fatalf("B's navigate after the revoke and Allow once: %s %s", code, out)
	}

	// A call that stops waiting (cancelled by its client) withdraws its
	// question.
	cctx, cancel := context.WithCancel(ctx)
	gone := start(cctx, b, "browser_navigate", map[string]any{"url": other})
	you.press(ctx, "B's question on localhost", fmt.Sprintf(`(d) => [...d.querySelectorAll("#asklist .ask .q")].some((q) => q.textContent.startsWith(%q)) ? {click() {}} : null`, nameB+" wants to use localhost"))
	cancel()
	<-gone.done
	you.press(ctx, "B's question withdrawn", fmt.Sprintf(`(d) => [...d.querySelectorAll("#asklist .ask .q")].some((q) => q.textContent.startsWith(%q)) ? null : {click() {}}`, nameB+" wants to use localhost"))

	// Binding one of the person's tabs always asks, even on a site A may
	// always use: denied, then allowed.
	userTab, err := backendtest.OpenUserTab(ctx, m.Backend(), strings.Replace(base, "127.0.0.1", "localhost", 1)+"/form.html?user="+suffix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backendtest.CloseUserTab(context.Background(), m.Backend(), userTab) })
	bind := start(ctx, a, "browser_tabs", map[string]any{"action": "bind", "match": "user=" + suffix})
	you.answer(ctx, nameA+" wants to use your tab", "deny")
	if out, code := bind.result(t); code != "USER_DENIED" {
		t.Fatalf("bind after Deny: %s %s", code, out)
	}
	bind = start(ctx, a, "browser_tabs", map[string]any{"action": "bind", "match": "user=" + suffix})
	you.answer(ctx, nameA+" wants to use your tab", "once")
	if out, code := bind.result(t); code != "" {
		t.Fatalf("bind after Allow once: %s %s", code, out)
	}
	mustCall(t, ctx, a, "browser_tabs", map[string]any{"action": "unbind"})

	// The live view: both agents by name; Pause holds A's calls until
	// Resume.
	you.agentState(ctx, nameA, "running")
	you.agentState(ctx, nameB, "running")
	you.press(ctx, "B working on 127.0.0.1", fmt.Sprintf(`(d) => { const r = [...d.querySelectorAll("#agentlist .agent")].find((r) => r.querySelector(".name").textContent === %q); return r && [...r.querySelectorAll(".ses")].some((s) => s.textContent.includes("— on 127.0.0.1")) ? {click() {}} : null }`, nameB))
	you.control(ctx, nameA, "pause")
	you.agentState(ctx, nameA, "paused")
	snap := start(ctx, a, "browser_snapshot", map[string]any{})
	mustCall(t, ctx, b, "browser_snapshot", map[string]any{}) // B goes on meanwhile
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); !progA.has("paused by the person"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("A's call while paused told no progress (it ran: %v): %q", !snap.running(), progA.msgs)
		}
	}
	if !snap.running() {
		out, _ := snap.result(t)
		t.Fatalf("A's call ran while A was paused:\n%s", out)
	}
	you.control(ctx, nameA, "resume")
	if out, code := snap.result(t); code != "" {
		t.Fatalf("A's call after Resume: %s %s", code, out)
	}

	// Stop cuts B's call running (a hand-off waiting for the user) and
	// closes its tabs; its calls fail.
	ho := start(ctx, b, "browser_handoff", map[string]any{"message": "Stop test " + suffix})
	for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); !progB.has("waiting for the user"); time.Sleep(50 * time.Millisecond) {
		if !ho.running() || time.Now().After(deadline) {
			out, _ := ho.result(t)
			t.Fatalf("B's hand-off did not wait: %s", out)
		}
	}
	you.control(ctx, nameB, "stop")
	if out, code := ho.result(t); code != "STOPPED_BY_USER" {
		t.Fatalf("B's running hand-off after Stop: %s %s", code, out)
	}
	mustFail(t, ctx, b, "browser_snapshot", map[string]any{}, "STOPPED_BY_USER")
	you.agentState(ctx, nameB, "stopped")
	for deadline := time.Now().Add(backendtest.Timeout(20 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		if tabs, err := m.Backend().Tabs(ctx); err == nil && !hasURL(tabs, page) {
			break // B's tabs on 127.0.0.1 are closed (A's are on localhost)
		} else if time.Now().After(deadline) {
			t.Fatalf("B's tabs are still open after Stop: %v %v", tabs, err)
		}
	}
	mustCall(t, ctx, a, "browser_snapshot", map[string]any{}) // A goes on
	you.control(ctx, nameB, "resume")
	you.agentState(ctx, nameB, "running")
}

// hasURL says whether a tab shows a URL that starts with prefix.
func hasURL(tabs []backend.TabInfo, prefix string) bool {
	for _, t := range tabs {
		if strings.HasPrefix(t.URL, prefix) {
			return true
		}
	}
	return false
}

// TestPersonLiveStdio: a server on stdio (webpilot mcp --standalone) shows
// its one client in the live view by the name it gave; the person's
// answer and Stop reach it as they reach the daemon's clients.
func TestPersonLiveStdio(t *testing.T) {
	base := fixtures(t)
	name := "stdio-agent-" + strconv.FormatInt(time.Now().UnixNano()%1e6, 36)
	m := browser.NewManager(browser.Options{Backend: backendtest.New(t), Approve: browser.ApproveAsk})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	srv := mcpserver.New(mcpserver.Options{Name: "webpilot", Version: "test", Deps: &tools.Deps{Manager: m}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.RunStdio(context.Background(), inR, outW) }()
	ctx := backendtest.Context(t, 2*time.Minute)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		<-done
	})
	if backendtest.Kind() != "bridge" {
		// A launched or remote browser has no live view and never asks.
		mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
		return
	}
	popup, err := backendtest.OpenExtensionPage(ctx, m.Backend(), "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = popup.Close(context.Background()) })
	you := &person{t: t, popup: popup, answered: []string{}}
	nav := start(ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	you.answer(ctx, name+" wants to use 127.0.0.1", "once")
	if out, code := nav.result(t); code != "" {
		t.Fatalf("navigate after Allow once: %s %s", code, out)
	}
	you.agentState(ctx, name, "running")
	you.control(ctx, name, "stop")
	mustFail(t, ctx, cs, "browser_snapshot", map[string]any{}, "STOPPED_BY_USER")
	you.agentState(ctx, name, "stopped")
	you.control(ctx, name, "resume")
	you.agentState(ctx, name, "running")
	// Its session was closed by Stop: the next call starts afresh, on a
	// page of no site.
	if out := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{}); !strings.Contains(out, "about:blank") {
		t.Errorf("after Stop and Resume:\n%s", out)
	}
}
