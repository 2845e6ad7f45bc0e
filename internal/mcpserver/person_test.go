package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// A page that waits for a person, through MCP on the default path of a
// call: in a browser nobody sees (a headless launch, a farm), a navigate
// or an action that lands on a sign that holds the task up (an open
// challenge, Cloudflare's check page, a code, a passkey, a sign-in the site
// sent the agent to) fails with HUMAN_REQUIRED, which keeps what the call
// did; a widget that only guards its form, a flow, a snapshot and a tab
// selected are notes. In the user's Chrome (the bridge) every one is a
// note that names the way out (browser_handoff, when the client has it).
// The signs are the result's _meta. Ordinary pages give nothing.
func TestPersonNeeded(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", backendtest.Pages())
	mux.HandleFunc("/members", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/human/signin.html?next=/members", http.StatusFound)
	})
	// (a code field whose label holds a secret of the client's)
	mux.HandleFunc("/leak", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Code</title><input aria-label="otp for s3cr3t-Value-42">`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	// (a passkey's relying party is a domain name, never an address)
	named := strings.Replace(base, "127.0.0.1", "localhost", 1)
	withHandoff, err := tools.Select(tools.ProfileCore, "+handoff")
	if err != nil {
		t.Fatal(err)
	}
	m := sharedManager(t)
	cs := connectServer(t, mcpserver.Options{Tools: withHandoff, Deps: &tools.Deps{Manager: m}}, nil, "")
	core := connect(t, &tools.Deps{Manager: m})
	ctx := backendtest.Context(t, 90*time.Second)
	present := backendtest.Kind() == "bridge"

	// Nothing on ordinary pages, nor on a sign-in page asked for.
	for _, u := range []string{base + "/basic.html", base + "/bench/login.html", base + "/human/signin.html", base + "/human/recaptcha-invisible.html",
		base + "/human/not-human.html", named + "/human/passkey-autofill.html"} {
		res, err := cs.CallTool(ctx, callParams("browser_navigate", map[string]any{"url": u}))
		if err != nil || res.IsError || strings.Contains(text(res), "a person is needed") || res.Meta["webpilot/human"] != nil {
			t.Errorf("%s: %v %s", u, err, textOf(res))
		}
	}

	type want struct {
		kind, what string
		fails      bool // where nobody sees the browser
	}
	check := func(c *mcp.ClientSession, tool string, args map[string]any, w want, handoff bool) string {
		t.Helper()
		if !present && w.fails {
			e := mustFail(t, ctx, c, tool, args, "HUMAN_REQUIRED")
			if !strings.Contains(e.Error.Message, "the page waits for a person: ") || !strings.Contains(e.Error.Message, w.what) || !strings.Contains(e.Error.Message, "nobody sees this browser") ||
				!strings.Contains(e.Error.Hint, "--headed") || !strings.Contains(e.Error.Hint, "webpilot pair") {
				t.Errorf("%s %v: %+v", tool, args, e)
			}
			signs, _ := e.Diagnosis["human"].([]any)
			kinds := ""
			for _, s := range signs {
				kinds += s.(map[string]any)["kind"].(string) + " "
			}
			if !strings.Contains(kinds, w.kind+" ") || e.Diagnosis["result"] == "" {
				t.Errorf("%s %v: diagnosis %v", tool, args, e.Diagnosis)
			}
			return ""
		}
		res, err := c.CallTool(ctx, callParams(tool, args))
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %s", tool, args, err, textOf(res))
		}
		out := text(res)
		first, _, _ := strings.Cut(out, "\n")
		switch {
		case present:
			if !strings.HasPrefix(first, "Note: a person is needed here: ") || !strings.Contains(first, w.what) || !strings.Contains(first, "Do not try it yourself") {
				t.Errorf("%s %v: the result does not lead with the note:\n%s", tool, args, out)
			}
			if way := `browser_handoff {"message": "`; handoff != strings.Contains(first, way) || !handoff && !strings.Contains(first, "take browser_snapshot") {
				t.Errorf("%s %v (handoff %v): the way out:\n%s", tool, args, handoff, out)
			}
		default:
			if !strings.HasPrefix(first, "Note: a person is needed here") || !strings.Contains(first, w.what) || !strings.Contains(first, "nobody sees this browser") {
				t.Errorf("%s %v: the result does not lead with the note:\n%s", tool, args, out)
			}
		}
		b, _ := json.Marshal(res.Meta)
		if !strings.Contains(string(b), `"kind":"`+w.kind+`"`) || res.StructuredContent != nil {
			t.Errorf("%s %v: _meta %s, structured content %v", tool, args, b, res.StructuredContent)
		}
		return out
	}
	check(cs, "browser_navigate", map[string]any{"url": base + "/human/recaptcha.html"}, want{"recaptcha", "reCAPTCHA widget (iframe from google.com)", false}, true)
	check(cs, "browser_navigate", map[string]any{"url": base + "/human/recaptcha.html?challenge=open"}, want{"recaptcha-challenge", "reCAPTCHA challenge, open (iframe from google.com)", true}, true)
	// (no snapshot: the page is asked in a call of its own)
	check(core, "browser_navigate", map[string]any{"url": base + "/human/turnstile.html", "snapshot": "none"}, want{"turnstile", "Cloudflare Turnstile widget (iframe from challenges.cloudflare.com)", false}, false)
	check(cs, "browser_navigate", map[string]any{"url": base + "/human/cloudflare.html"}, want{"cloudflare", `Cloudflare's check page ("Just a moment...")`, true}, true)
	check(cs, "browser_navigate", map[string]any{"url": named + "/human/passkey.html"}, want{"passkey", "passkey prompt (the page waits for the person's security key or device)", true}, true)
	// A site that sends the agent to its sign-in page.
	check(cs, "browser_navigate", map[string]any{"url": base + "/members"}, want{"login", "sign-in form (password field)", true}, true)
	// A flow that ends on a challenge: its steps' output stands.
	out := check(cs, "browser_flow", map[string]any{"steps": []any{map[string]any{"do": "navigate", "url": base + "/human/otp.html"}}},
		want{"otp", "one-time code field (autocomplete=one-time-code)", false}, true)
	if !present && !strings.Contains(out, "Flow done: 1 step(s)") {
		t.Errorf("the flow's own result is gone:\n%s", out)
	}

	// An action that lands on a one-time code's page, with and without a
	// snapshot (the page call, after a navigation; the wait's last check,
	// after a click that only changed the page).
	code := want{"otp", "one-time code field (autocomplete=one-time-code)", true}
	snap := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/human/signin.html"})
	check(cs, "browser_action", map[string]any{"action": "click", "ref": refOf(t, snap, "button", "Sign in")}, code, true)
	snap = mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/human/signin.html"})
	check(cs, "browser_action", map[string]any{"action": "click", "ref": refOf(t, snap, "button", "Sign in"), "snapshot": "none"}, code, true)
	snap = mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/human/reveal.html"})
	check(cs, "browser_action", map[string]any{"action": "click", "ref": refOf(t, snap, "button", "Send code"), "snapshot": "none"}, code, true)
	if !present {
		// (the agent did not get the snapshot the failed click took: the
		// next diff is the whole page)
		if d := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"mode": "diff"}); !strings.Contains(d, "full snapshot follows") && !strings.Contains(d, "no earlier snapshot") {
			t.Errorf("the diff after HUMAN_REQUIRED:\n%s", d)
		}
	}

	// A snapshot of such a page is a note, never a failure.
	_, _ = call(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/human/recaptcha.html?challenge=open", "snapshot": "none"})
	out = mustCall(t, ctx, cs, "browser_snapshot", nil)
	if !strings.HasPrefix(out, "Note: a person is needed here: reCAPTCHA widget (iframe from google.com); reCAPTCHA challenge, open (iframe from google.com)") || !strings.Contains(out, "# Contact us") {
		t.Errorf("the snapshot of the reCAPTCHA page:\n%s", out)
	}

	// A client the user gave a code to: the code's page is a note, also
	// where nobody sees the browser.
	coded := connect(t, &tools.Deps{Manager: m, Secrets: loadSecrets(t, "WEBPILOT_SECRET_CODE=424242")})
	out = mustCall(t, ctx, coded, "browser_navigate", map[string]any{"url": base + "/human/otp.html", "snapshot": "none"})
	if !strings.HasPrefix(out, `Note: the page asks for one-time code field (autocomplete=one-time-code): type what the user declared for it ("secret": NAME) if they did`) {
		t.Errorf("the code's page for a client with secrets:\n%s", out)
	}

	// What waits for a person names the page's words: the client's
	// secrets are masked there too, in the text and in _meta.
	leaky := connect(t, &tools.Deps{Manager: m, Secrets: loadSecrets(t, "WEBPILOT_SECRET_LEAK=s3cr3t-Value-42")})
	_, _ = call(t, ctx, leaky, "browser_navigate", map[string]any{"url": base + "/leak", "snapshot": "none"})
	res, err := leaky.CallTool(ctx, callParams("browser_snapshot", nil))
	if err != nil || res.IsError {
		t.Fatalf("snapshot of /leak: %v %s", err, textOf(res))
	}
	meta, _ := json.Marshal(res.Meta)
	if all := text(res) + string(meta); strings.Contains(all, "s3cr3t-Value-42") || !strings.Contains(string(meta), `secret:LEAK`) {
		t.Errorf("a secret in what waits for a person: %s\n%s", meta, text(res))
	}

	// A tab left on a code's page, selected again: a note only.
	_, _ = call(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/human/otp.html", "snapshot": "none"})
	list := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"})
	id := regexp.MustCompile(`\b(t\d+)\b`).FindString(list)
	mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "new", "url": base + "/basic.html"})
	out = mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "select", "tab": id})
	if !strings.HasPrefix(out, "Note: a person is needed here: one-time code field (autocomplete=one-time-code)") {
		t.Errorf("tabs select %s (of %s):\n%s", id, list, out)
	}
}

// In the user's Chrome, the way out the note names works: browser_handoff
// with its one argument shows the tab to the person, who passes the
// challenge and presses Done in the extension's popup; the result says
// what changed since the snapshot before, and nothing waits for a person
// any more. Where nobody sees the browser, the hand-off is refused (the
// HUMAN_REQUIRED of TestPersonNeeded is the answer there).
func TestPersonHandoffResumesWithDiff(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	sel, err := tools.Select(tools.ProfileCore, "+handoff")
	if err != nil {
		t.Fatal(err)
	}
	m := sharedManager(t)
	cs := connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m}}, nil, "")
	ctx := backendtest.Context(t, 90*time.Second)
	page := base + "/human/recaptcha.html?challenge=open&case=handoff"
	ask := map[string]any{"message": "Please solve the challenge on this page, then press Done"}
	if backendtest.Kind() != "bridge" {
		mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": page}, "HUMAN_REQUIRED")
		mustFail(t, ctx, cs, "browser_handoff", ask, "INVALID_ARGUMENT")
		return
	}
	first := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": page})
	if !strings.Contains(first, `browser_handoff {"message": "Please solve the challenge on this page, then press Done"}`) {
		t.Fatalf("the note does not name the hand-off:\n%s", first)
	}
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, callParams("browser_handoff", ask))
		done <- outcome{res, err}
	}()

	// The person: the widget takes their answer (its token in the response
	// field, a tick drawn beside it), then they press Done.
	popup, err := backendtest.OpenExtensionPage(ctx, m.Backend(), "popup.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = popup.Close(context.Background()) })
	user, err := backendtest.NewUser(ctx, m.Backend(), "case=handoff")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(user.Close)
	if err := user.Eval(ctx, `document.getElementById("g-recaptcha-response").value = "03AFcWeA-token";
		document.getElementById("challenge").style.visibility = "hidden";
		document.querySelector(".g-recaptcha").insertAdjacentHTML("afterend", "<p>You are verified</p>")`, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		// (its own row: other tests' hand-offs may be in the popup too)
		v, err := popup.Eval(ctx, `(() => { const r = [...document.querySelectorAll("#handofflist .handoff")].find((r) => r.querySelector(".msg").textContent === "Please solve the challenge on this page, then press Done");
			const b = r && r.querySelector("button.done"); if (!b) return false; b.click(); return true })()`)
		if err == nil && v == "true" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the popup never offered Done: %v %s", err, v)
		}
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(backendtest.Timeout(30 * time.Second)):
		t.Fatal("the hand-off did not end after Done")
	}
	if o.err != nil || o.res.IsError {
		t.Fatalf("hand-off: %v %s", o.err, textOf(o.res))
	}
	out := text(o.res)
	if !strings.HasPrefix(out, "The user pressed Done after") || !strings.Contains(out, "What changed while the user had the tab follows") ||
		!strings.Contains(out, "+ You are verified") || strings.Contains(out, "a person is needed") || o.res.Meta["webpilot/human"] != nil {
		t.Errorf("the hand-off's result:\n%s", out)
	}
}
