package browser_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// stepLine is a recorded step in a few words, for comparing.
func stepLine(st browser.RecordedStep) string {
	el := ""
	if st.Element != nil {
		el = st.Element.Fingerprint.Tag
		if st.Element.Fingerprint.Name != "" {
			el += " " + fmt.Sprintf("%q", st.Element.Fingerprint.Name)
		}
	}
	switch st.Kind {
	case "navigate", "tab":
		return st.Kind + " " + st.URL
	case "fill":
		if st.Secret {
			return "fill " + el + " = (secret)"
		}
		return "fill " + el + " = " + st.Value
	case "press":
		return "press " + st.Key + " " + el
	case "select":
		return "select " + el + " = " + strings.Join(st.Values, ",")
	case "wait":
		return "wait " + st.Text
	case "scroll":
		return "scroll " + st.Direction
	}
	return st.Kind + " " + el
}

// What the user does in a recorded tab becomes steps: typed text merged
// into one fill per field (a password never read), clicks on what was
// pressed (not the span inside the button), a choice, a check, a key, the
// address the user typed; navigations a click caused are no steps of
// their own.
func TestRecordUser(t *testing.T) {
	e := newEnv(t, browser.Options{RecordHeadless: true})
	e.navigate("/recipes/detail.html?id=42")
	err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.StartRecording(ctx, browser.RecordOptions{Name: "buy", Secret: []string{"Gift note"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := backendtest.NewUser(e.ctx, e.m.Backend(), "/recipes/detail.html")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	ctx := e.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(u.Type(ctx, "input[name=qty]", "3"))
	must(u.Type(ctx, "textarea[name=note]", "for Ada"))
	must(u.Click(ctx, "button[type=submit]", 1))
	must(u.Click(ctx, "h1", 2))
	must(u.Go(ctx, e.base+"/recipes/search.html"))
	must(u.WaitFor(ctx, `location.pathname.endsWith("/search.html") && document.readyState === "complete" && document.querySelector("#q")`))
	must(u.Type(ctx, "#q", "kettle"))
	must(u.Press(ctx, "Enter"))
	must(u.Click(ctx, "a[data-probe=link-42]", 1))
	must(u.WaitFor(ctx, `location.pathname.endsWith("/detail.html") && document.readyState === "complete"`))
	must(u.Type(ctx, "input[name=qty]", "2"))

	var rec *browser.Recorded
	err = e.do(func(ctx context.Context, h *browser.Held) error {
		var err error
		rec, err = h.StopRecording(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range rec.Steps {
		got = append(got, stepLine(st))
	}
	t.Logf("steps:\n%s\nnotes: %q", strings.Join(got, "\n"), rec.Notes)
	want := []string{
		"navigate " + e.base + "/recipes/detail.html?id=42",
		`fill input "Quantity" = 13`,
		`fill textarea "Gift note" = (secret)`,
		`click button "Add to cart"`,
		`dblclick h1 "Blue Kettle"`,
		"navigate " + e.base + "/recipes/search.html",
		`fill input "Search products" = kettle`,
		`press Enter input "Search products"`,
		`click a "Blue Kettle"`,
		`fill input "Quantity" = 12`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rec.EndedBy != "agent" {
		t.Errorf("ended by %q", rec.EndedBy)
	}
	for _, st := range rec.Steps {
		if strings.Contains(st.Value, "Ada") {
			t.Errorf("the secret field's value was read: %+v", st)
		}
	}
}
