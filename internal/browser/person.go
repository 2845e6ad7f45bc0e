package browser

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// HumanSign is something on a page that waits for a person: a CAPTCHA's
// widget or challenge, Cloudflare's check page, a one-time code's field,
// or a sign-in form. The page's walker finds them (W.human) with every
// walk of a whole document.
type HumanSign struct {
	// Kind is recaptcha, hcaptcha or turnstile (a widget), recaptcha-challenge
	// or hcaptcha-challenge (its puzzle open), cloudflare, otp, passkey or
	// login (a password field: a sign-in form, which the tools count only
	// after a navigation the site sent to a sign-in page).
	Kind string `json:"kind"`
	// What says it for the agent: "reCAPTCHA challenge (iframe from
	// google.com)".
	What string `json:"what"`
}

// HumanLogin is the kind of a sign-in form's sign.
const HumanLogin = "login"

// Blocks says whether the sign holds the task up: an open challenge
// (a kind ending in "-challenge"), Cloudflare's check page, a one-time
// code, a passkey prompt or a sign-in form. A CAPTCHA's widget (the
// checkbox a person ticks before a form is sent) only guards its form.
func (s HumanSign) Blocks() bool {
	switch s.Kind {
	case "cloudflare", "otp", "passkey", HumanLogin:
		return true
	}
	return strings.HasSuffix(s.Kind, "-challenge")
}

// signsOf reads a walk's [kind, what] pairs.
func signsOf(h [][2]string) []HumanSign {
	out := make([]HumanSign, 0, len(h))
	for _, p := range h {
		out = append(out, HumanSign{Kind: p[0], What: p[1]})
	}
	return out
}

// addSigns adds to have the signs of more whose kind it lacks.
func addSigns(have []HumanSign, more [][2]string) []HumanSign {
	for _, s := range signsOf(more) {
		dup := false
		for _, h := range have {
			dup = dup || h.Kind == s.Kind
		}
		if !dup {
			have = append(have, s)
		}
	}
	return have
}

// Person is the person at the browser, as a call sees them: whether they
// can see the session's pages (Present), what on the held tab's page
// waits for them (Needed), and the tab handed over to them (Handoff).
type Person struct{ h *Held }

// Person is the person at the browser of the held session.
func (h *Held) Person() Person { return Person{h} }

// Present says whether a person can see the session's pages: in the
// user's own Chrome (a backend that hands tabs over: the bridge) or a
// launched browser with a window; not in a headless one nor in a remote
// browser (an endpoint, a farm), which nobody watches.
func (p Person) Present() bool {
	be := p.h.s.be
	if _, ok := be.(backend.Handoff); ok {
		return true
	}
	info := be.Info()
	return info.Kind == "launch" && !info.Headless
}

// Needed is what on the held tab's page (its main document) waits for a
// person now: from the walk or the check that ended the call's wait after
// an action (prewalked.final, pageView.waitHuman), else read with one page
// call; a snapshot gives the
// same in Snapshot.Human.
func (p Person) Needed(ctx context.Context) ([]HumanSign, error) {
	t := p.h.t
	if t == nil {
		return nil, nil
	}
	if pre := t.view.prewalk; pre != nil && pre.final {
		// (the walk that ended this call's wait after an action read it)
		return signsOf(pre.res.H), nil
	}
	if h := t.view.waitHuman; h != nil {
		// (…or the wait's last check did)
		return signsOf(*h), nil
	}
	if t.dialogs.err() != nil {
		// (a page behind an open dialog answers nothing until it closes;
		// the dialog is what the agent deals with first)
		return nil, nil
	}
	cctx, cancel := checkContext(ctx)
	defer cancel()
	mainID, err := t.page.mainFrameID(cctx)
	if err != nil {
		return nil, backendError("read the page", err)
	}
	var out [][2]string
	if _, err := (frameWorld{sess: t.page, frameID: mainID}).eval(cctx, fmt.Sprintf("W.human(%q)", probeName), &out); err != nil {
		return nil, backendError("read the page", fmt.Errorf("what waits for a person: %w", err))
	}
	return signsOf(out), nil
}

// Where says which browser the session works in, for a person who is not
// there: "a headless browser", "a remote browser (--cdp-endpoint)".
func (p Person) Where() string {
	switch info := p.h.s.be.Info(); {
	case info.Kind == "launch" && info.Headless:
		return "a headless browser"
	case info.Kind == "endpoint":
		return "a remote browser (--cdp-endpoint)"
	case info.Kind == "bridge":
		return "the user's Chrome"
	case info.Kind == "launch":
		return "a browser with a window"
	default:
		return "a " + info.Kind + " browser"
	}
}

// ForgetSnapshot drops the tab's last snapshot as the next diff's
// baseline, for a call whose result the agent does not get (HUMAN_REQUIRED
// after its inline snapshot was taken): the next diff is of the whole
// page.
func (t *Tab) ForgetSnapshot() {
	t.view.lastSnap, t.view.cache = nil, nil
}
