package browser_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// kindsOf are the kinds of signs, in order.
func kindsOf(signs []browser.HumanSign) []string {
	var out []string
	for _, s := range signs {
		out = append(out, s.Kind)
	}
	return out
}

// TestPageWaitsForPerson: each challenge fixture gives its sign, in the
// snapshot (Snapshot.Human) and in a page call (Person.Needed) alike; an
// invisible reCAPTCHA, whose badge is all that shows, passkeys offered in
// autofill and fields that only look like a code's give none; a challenge
// passed (its response field holds a token) gives none.
func TestPageWaitsForPerson(t *testing.T) {
	e := newEnv(t, browser.Options{})
	cases := []struct {
		page  string
		signs [][2]string
	}{
		{"/human/recaptcha.html", [][2]string{{"recaptcha", "reCAPTCHA widget (iframe from google.com)"}}},
		{"/human/recaptcha.html?challenge=open", [][2]string{{"recaptcha", "reCAPTCHA widget (iframe from google.com)"}, {"recaptcha-challenge", "reCAPTCHA challenge, open (iframe from google.com)"}}},
		{"/human/hcaptcha.html", [][2]string{{"hcaptcha", "hCaptcha widget (iframe from newassets.hcaptcha.com)"}}},
		{"/human/turnstile.html", [][2]string{{"turnstile", "Cloudflare Turnstile widget (iframe from challenges.cloudflare.com)"}}},
		{"/human/cloudflare.html", [][2]string{{"cloudflare", `Cloudflare's check page ("Just a moment...")`}}},
		{"/human/otp.html", [][2]string{{"otp", "one-time code field (autocomplete=one-time-code)"}}},
		{"/human/otp-boxes.html", [][2]string{{"otp", "one-time code boxes (6 fields of one digit)"}}},
		{"/human/signin.html", [][2]string{{"login", "sign-in form (password field)"}}},
		// (a passkey's relying party is a domain name, never an address)
		{"localhost/human/passkey.html", [][2]string{{"passkey", "passkey prompt (the page waits for the person's security key or device)"}}},
		{"localhost/human/passkey-autofill.html", nil},
		{"/human/recaptcha-invisible.html", nil},
		{"/human/not-human.html", nil},
	}
	for _, c := range cases {
		if p, ok := strings.CutPrefix(c.page, "localhost"); ok {
			if err := e.do(func(ctx context.Context, h *browser.Held) error {
				_, err := h.Navigate(ctx, strings.Replace(e.base, "127.0.0.1", "localhost", 1)+p, 0)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		} else {
			e.navigate(c.page)
		}
		var snap *browser.Snapshot
		var needed []browser.HumanSign
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			if snap, err = h.Snapshot(ctx, browser.SnapshotOptions{}); err != nil {
				return err
			}
			needed, err = h.Person().Needed(ctx)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", c.page, err)
		}
		var want []browser.HumanSign
		for _, p := range c.signs {
			want = append(want, browser.HumanSign{Kind: p[0], What: p[1]})
		}
		if !slices.Equal(snap.Human, want) || !slices.Equal(needed, want) {
			t.Errorf("%s: the snapshot gives %+v and the page call %+v, want %+v", c.page, snap.Human, needed, want)
		}
	}

	// The person passes the challenge: the widget's script puts its token
	// in the response field, and the sign is gone.
	e.navigate("/human/recaptcha.html")
	e.eval(`document.getElementById("g-recaptcha-response").value = "03AFcWeA-token"; "ok"`)
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		needed, err := h.Person().Needed(ctx)
		if err == nil && len(needed) != 0 {
			t.Errorf("a passed reCAPTCHA still gives %+v", needed)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestNoPersonNeededElsewhere: no other fixture page (the eval pages, the
// widget libraries, the benchmark's pages, …) gives a sign but a sign-in
// form's, which counts only after a redirect.
func TestNoPersonNeededElsewhere(t *testing.T) {
	e := newEnv(t, browser.Options{})
	var pages []string
	root := backendtest.PagesDir()
	if err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == "human" || rel == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".html") {
			pages = append(pages, "/"+filepath.ToSlash(rel))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(pages) < 100 {
		t.Fatalf("found only %d fixture pages under %s", len(pages), root)
	}
	logins := 0
	for _, p := range pages {
		var needed []browser.HumanSign
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			if _, err := h.Navigate(ctx, e.base+p, 0); err != nil {
				return err
			}
			var err error
			needed, err = h.Person().Needed(ctx)
			return err
		})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, s := range needed {
			if s.Kind == browser.HumanLogin {
				logins++
				continue
			}
			t.Errorf("%s: a false alarm: %+v", p, s)
		}
	}
	if logins == 0 {
		t.Errorf("none of the %d pages has a password field: the sweep did not read the pages", len(pages))
	}
}
