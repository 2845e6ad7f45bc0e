package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// field is a recorded text field with that label and id.
func field(label, id, typ string) *browser.Candidates {
	return &browser.Candidates{Fingerprint: browser.Fingerprint{Tag: "input", Role: "textbox", Name: label, ID: id, Type: typ},
		CSS: []browser.CSSCandidate{{Kind: "id", Selector: "#" + id}}}
}

// A recording becomes a recipe: typed values are parameters named from
// their labels (two alike numbered), a password field and a value that is
// a declared secret become secrets by name, a text holding a secret is
// asked for at each run (no default), a typed value seen in a later
// address is that parameter there, and a wait for text showing a secret
// is left out.
func TestRecordedRecipe(t *testing.T) {
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_API_KEY=sk-live-123456"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	rec := &browser.Recorded{Steps: []browser.RecordedStep{
		{Kind: "navigate", URL: "https://shop.example/login", At: at},
		{Kind: "fill", Element: field("E-mail", "mail", "email"), Value: "ada@example.com", At: at},
		{Kind: "fill", Element: field("Password", "pw", "password"), Secret: true, At: at},
		{Kind: "fill", Element: field("API key", "key", "text"), Value: "sk-live-123456", At: at},
		{Kind: "fill", Element: field("Note", "note", "text"), Value: "key sk-live-123456 here", At: at},
		{Kind: "fill", Element: field("E-mail", "mail2", "email"), Value: "bob@example.com", At: at},
		{Kind: "wait", Text: "Welcome sk-live-123456", At: at},
		{Kind: "navigate", URL: "https://shop.example/search?q=ada%40example.com&ref=ada%40example.com.x#top", At: at},
		{Kind: "navigate", URL: "https://shop.example/u/bob%40example.com/orders", At: at},
		{Kind: "press", Key: "Enter", At: at},
		{Kind: "navigate", URL: "https://shop.example/api?key=sk-live-123456", At: at},
	}}
	r, rv, err := recordedRecipe("shop", "", rec, nil, sec)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(r.Steps)
	file, _ := r.JSON()
	t.Logf("review:\n%s\nsteps: %s", rv.text, data)
	for _, want := range []string{
		`2 fill textbox "E-mail" = $e_mail ("ada@example.com")`,
		`3 fill textbox "Password" = secret SHOP_PASSWORD`,
		`4 fill textbox "API key" = secret API_KEY`,
		`5 fill textbox "Note" = $note (holds a secret: not stored)`,
		`6 fill textbox "E-mail" = $e_mail_2 ("bob@example.com")`,
		`7 navigate https://shop.example/search?q=${e_mail}&ref=ada%40example.com.x#top`,
		`8 navigate https://shop.example/u/${e_mail_2}/orders`,
		`9 press Enter`,
		"Params: e_mail:string=ada@example.com, e_mail_2:string=bob@example.com, note:string",
		"Secrets (declare each: webpilot --secrets FILE, or WEBPILOT_SECRET_<NAME>): SHOP_PASSWORD",
		"Note: an address that held a declared secret was left out",
	} {
		if !strings.Contains(rv.text, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	if strings.Contains(string(file), "sk-live") || strings.Contains(rv.text, "sk-live") || strings.Contains(rv.text, "Welcome") {
		t.Errorf("a secret is written down:\n%s\n%s", file, rv.text)
	}
	if len(r.Steps) != 9 || len(rv.steps) != 9 || r.Site != "shop.example" {
		t.Errorf("%d steps, %d reviewed, site %q", len(r.Steps), len(rv.steps), r.Site)
	}
	// Nothing but the start page: refused.
	if _, _, err := recordedRecipe("x", "", &browser.Recorded{Steps: rec.Steps[:1]}, nil, nil); err == nil || !strings.Contains(err.Error(), "nothing was recorded") {
		t.Errorf("an empty recording: %v", err)
	}
}
