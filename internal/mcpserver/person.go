package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// personNeeded is the one place that tells the agent what on a page waits
// for a person (browser.HumanSign), for every call that left its tab on a
// page: a result with Snapshot set (navigate, an action, a form, the
// mouse, a flow, a tab selected or opened, a hand-off's end) or one whose
// tool read the page itself (Human: browser_snapshot). The signs come from
// the inline snapshot snap, else from Person.Needed. A sign-in form counts
// only after a navigation the site sent to a sign-in page
// (tools.Result.Redirected). res is the result so far, own its text before
// the inline snapshot.
//
// Where a person sees the browser (the user's Chrome, a headed launch),
// the result leads with a note that names the way out (the browser_handoff
// call, when the client has it). Where nobody does (headless, a remote
// browser), a sign that holds the task up (HumanSign.Blocks: an open
// challenge, Cloudflare's check page, a code, a passkey, a sign-in) fails
// a navigate, an action, a form or a mouse call with HUMAN_REQUIRED, whose
// diagnosis keeps the call's own result (the call did happen); anything
// else is a note: a widget that only guards its form, a flow (its steps'
// output stands), a tab selected, a hand-off, a snapshot. A code or a
// sign-in is a note for a client with declared secrets: it may have been
// given what to type. The signs are also the result's _meta
// (metaHuman).
func personNeeded(ctx context.Context, h *browser.Held, t tools.Tool, res *tools.Result, own string, snap *browser.Snapshot, env *tools.Env) error {
	fail := !slices.Contains([]tools.Group{tools.GroupTabs, tools.GroupHandoff, tools.GroupFlow, tools.GroupRecipes}, t.Group)
	var signs []browser.HumanSign
	switch {
	case res.Snapshot == "" && len(res.Human) > 0:
		// (the tool read the page itself: told, never failed)
		signs, fail = res.Human, false
	case res.Snapshot == "" || h.Tab() == nil:
		return nil
	case snap != nil:
		signs = snap.Human
	case res.Snapshot != "none":
		// (the inline snapshot failed, and said so: the page cannot be
		// read now)
		return nil
	default:
		// (a page that cannot be read now says nothing here: the call's
		// own result stands)
		signs, _ = h.Person().Needed(ctx)
	}
	signs = slices.DeleteFunc(slices.Clone(signs), func(s browser.HumanSign) bool { return s.Kind == browser.HumanLogin && !res.Redirected })
	res.Human = nil
	if len(signs) == 0 {
		return nil
	}
	res.Human = signs
	whats := make([]string, len(signs))
	typed, blocks := true, false // typed: only what a declared secret can answer
	for i, s := range signs {
		whats[i] = s.What
		typed = typed && (s.Kind == "otp" || s.Kind == browser.HumanLogin)
		blocks = blocks || s.Blocks()
	}
	what := strings.Join(whats, "; ")
	lead := func(note string) error {
		res.Text = "Note: " + note + "\n\n" + res.Text
		return nil
	}
	switch {
	case typed && env.Secrets.Len() > 0:
		return lead("the page asks for " + what + `: type what the user declared for it ("secret": NAME) if they did; otherwise a person is needed here.`)
	case h.Person().Present():
		way := `hand the tab to the user: browser_handoff {"message": "` + personTask(signs) + `, then press Done"}; its result shows what changed`
		if !env.Handoff {
			way = "ask the user to do it in the browser, then take browser_snapshot to see what changed (browser_handoff, with --caps +handoff, shows them the tab and waits for them)"
		}
		return lead("a person is needed here: " + what + ". Do not try it yourself" + passes(signs) + ": " + way + ".")
	case !blocks:
		return lead("a person is needed here to send this page's form: " + what + "; nobody sees this browser (" + h.Person().Where() + "), so reading the page works and sending the form will not: tell the user if the task needs it.")
	case !fail:
		return lead("a person is needed here: " + what + "; nobody sees this browser (" + h.Person().Where() + "): tell the user.")
	}
	diag := map[string]any{"human": signs, "result": strings.TrimSpace(own)}
	if snap != nil {
		diag["url"], diag["title"] = snap.URL, snap.Title
	}
	// The agent does not see the snapshot taken for this result: the
	// next diff is of the whole page.
	h.Tab().ForgetSnapshot()
	return &browser.Error{Code: browser.CodeHumanRequired,
		Message:     "the page waits for a person: " + what + "; nobody sees this browser (" + h.Person().Where() + "), so the task cannot go on here" + passes(signs),
		Hint:        "do not try to solve it: tell the user; a person can do it in their own Chrome (webpilot pair, then this task there) or in a browser with a window (webpilot started with --headed), where browser_handoff shows them the tab",
		Suggestions: []string{"the user's own Chrome: `webpilot pair`, then the task again", "a browser with a window: webpilot started with --headed, then browser_handoff"},
		Diagnosis:   diag}
}

// passes says, for Cloudflare's check page, that it often lets a browser
// through on its own.
func passes(signs []browser.HumanSign) string {
	for _, s := range signs {
		if s.Kind == "cloudflare" {
			return ` (Cloudflare's check often passes by itself within seconds: browser_wait {"title": …} for the site's own title first)`
		}
	}
	return ""
}

// personTask is what the user is asked to do about signs, for a hand-off's
// message.
func personTask(signs []browser.HumanSign) string {
	switch signs[0].Kind {
	case "otp":
		return "Please enter the one-time code"
	case browser.HumanLogin:
		return "Please sign in"
	case "cloudflare":
		return "Please get past the site's check"
	case "passkey":
		return "Please confirm with your passkey"
	}
	return "Please solve the challenge on this page"
}

// metaHuman is the _meta key under which a result lists what on its page
// waits for a person (tools.Result.Human), for programs: not the
// structured content, which some clients show in place of the text.
const metaHuman = "webpilot/human"
