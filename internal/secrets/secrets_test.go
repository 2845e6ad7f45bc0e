package secrets_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	for _, c := range []struct {
		name, file string
		env        []string
		want       string // error part, or "" for ok
		names      string
	}{
		{"file and env", "# c\n\nA=alpha-1\nB@https://b.example,c.example=beta-22\n", []string{"WEBPILOT_SECRET_C=gamma-3", "OTHER=x"}, "", "A,B,C"},
		{"value keeps = and spaces", "A= a=b c \n", nil, "", "A"},
		{"no =", "A\n", nil, "not NAME=value", ""},
		{"bad name", "1A=alpha-1\n", nil, "not a secret name", ""},
		{"short", "A=abc\n", nil, "shorter than 4", ""},
		{"twice", "A=alpha-1\n", []string{"WEBPILOT_SECRET_A=alpha-2"}, "declared twice", ""},
		{"bad origin", "A@ht!tp://x=alpha-1\n", nil, "not an origin", ""},
	} {
		s, err := secrets.Load(write(t, c.file), c.env)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		case c.want == "" && strings.Join(s.Names(), ",") != c.names:
			t.Errorf("%s: names %q, want %s", c.name, s.Names(), c.names)
		}
		if err != nil && (strings.Contains(err.Error(), "alpha") || strings.Contains(err.Error(), "beta")) {
			t.Errorf("%s: the error shows a value: %v", c.name, err)
		}
	}
	if s, err := secrets.Load(write(t, "A= a=b c \n"), nil); err == nil {
		if sec, _ := s.Lookup("A"); sec.Value != " a=b c " {
			t.Errorf("value %q, want it as written", sec.Value)
		}
	}
}

func TestMask(t *testing.T) {
	s, err := secrets.Load("", []string{`WEBPILOT_SECRET_PW=pa55!&"<> x`, "WEBPILOT_SECRET_LONG=pa55!&\"<> x-and-more"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{`v="pa55!&"<> x"`, `v="<secret:PW>"`},
		{"pw=pa55%21%26%22%3C%3E+x&u=1", "pw=<secret:PW>&u=1"},
		{"pa55!%26%22%3C%3E%20x", "<secret:PW>"},
		{`{"pw":"pa55!\u0026\"\u003c\u003e x"}`, `{"pw":"<secret:PW>"}`},
		{`{"pw":"pa55!&\"<> x"}`, `{"pw":"<secret:PW>"}`},
		{`"{\"pw\":\"pa55!&\\\"<> x\"}"`, `"{\"pw\":\"<secret:PW>\"}"`},
		{`<p title="pa55!&amp;&quot;<> x">pa55!&amp;"&lt;&gt; x</p>`, `<p title="<secret:PW>"><secret:PW></p>`},
		{"pa55!&\"<> x-and-more", "<secret:LONG>"},
		{"nothing here", "nothing here"},
	} {
		if got := s.Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var nilSet *secrets.Set
	if nilSet.Mask("x") != "x" || nilSet.Len() != 0 || nilSet.Names() != nil {
		t.Error("a nil set masks nothing and has no names")
	}
	var buf bytes.Buffer
	log := slog.New(s.Handler(slog.NewTextHandler(&buf, nil)))
	log.With("pre", `pa55!&"<> x`).Info(`typed pa55!&"<> x`, "v", `pa55!&"<> x`, "err", errors.New(`bad pa55!&"<> x`), slog.Group("g", "w", "pa55%21%26%22%3C%3E+x"))
	if strings.Contains(buf.String(), "pa55!") || strings.Count(buf.String(), "<secret:PW>") != 5 {
		t.Errorf("the log: %s", buf.String())
	}
}

func TestCheck(t *testing.T) {
	s, err := secrets.Load(write(t, "BANK@https://bank.example,shop.example=bank-pass\nANY=any-pass\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	bank, _ := s.Lookup("BANK")
	anyS, _ := s.Lookup("ANY")
	for _, c := range []struct {
		sec  secrets.Secret
		url  string
		want bool
	}{
		{bank, "https://bank.example/login", true},
		{bank, "https://www.bank.example/login", false},
		{bank, "http://shop.example/pay", true},
		{bank, "http://bank.example/login", false},
		{bank, "https://bank.example.evil.test/login", false},
		{bank, "about:blank", false},
		{anyS, "https://anywhere.test/", true},
	} {
		err := c.sec.Check(c.url)
		if (err == nil) != c.want {
			t.Errorf("%s on %s: %v, want allowed %v", c.sec.Name, c.url, err, c.want)
		}
		if be, ok := toolerr.As(err); err != nil && (!ok || be.Code != toolerr.CodeOriginBlocked || strings.Contains(be.Message, "bank-pass")) {
			t.Errorf("%s on %s: %v, want ORIGIN_BLOCKED without the value", c.sec.Name, c.url, err)
		}
	}
}

// BenchmarkMask is the cost of masking a 100 KB result (a large snapshot)
// with three secrets declared: what every tool result pays.
func BenchmarkMask(b *testing.B) {
	s, err := secrets.Load("", []string{`WEBPILOT_SECRET_A=pa55!&"<>word`, "WEBPILOT_SECRET_B=tok-0123456789abcdef", "WEBPILOT_SECRET_C=correct horse battery"})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("button e12 \"Add to cart\" in \"Blue Kettle €25\"\n", 2200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = s.Mask(text)
	}
}

// InPage gives the forms of the secrets that may be typed on the page,
// longest first, and never one limited to other origins.
func TestInPage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "secrets")
	if err := os.WriteFile(file, []byte("BANK@bank.example=Hunter2Long\nANY=abcdEFGH1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := secrets.Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	forms := func(u string) []string {
		var out []string
		for _, sh := range s.InPage(u) {
			out = append(out, sh.Name+"="+sh.Form)
		}
		return out
	}
	if got, want := strings.Join(forms("https://bank.example"), " "), "BANK=HUNTER2LONG BANK=Hunter2Long BANK=hunter2long ANY=ABCDEFGH1 ANY=abcdEFGH1 ANY=abcdefgh1"; got != want {
		t.Errorf("on the bank: %s, want %s", got, want)
	}
	for _, u := range []string{"https://evil.example", "", "null"} {
		if got := strings.Join(forms(u), " "); got != "ANY=ABCDEFGH1 ANY=abcdEFGH1 ANY=abcdefgh1" {
			t.Errorf("on %q: %s", u, got)
		}
	}
	var none *secrets.Set
	if none.InPage("https://bank.example") != nil {
		t.Error("a nil set hides something")
	}
}

// Fragment finds a secret shown whole, in parts, across white space or
// case-changed, and not a short run of its characters.
func TestFragment(t *testing.T) {
	s, err := secrets.Load("", []string{"WEBPILOT_SECRET_TOKEN=Zq7Wx9Pk3Lm5Rt8Yv2Nb", "WEBPILOT_SECRET_PIN=Ab12cd"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, want string }{
		{"your token: Zq7Wx9Pk3Lm5Rt8Yv2Nb.", "TOKEN"},
		{"Zq7Wx9Pk3L | m5Rt8Yv2Nb", "TOKEN"},
		{"ends in ...Rt8Yv2Nb", "TOKEN"},
		{"ZQ7W X9PK3", "TOKEN"},
		{"Zq7Wx9 is not enough", ""},
		{"pin Ab 12 cd", "PIN"},
		{"Ab12c", ""},
		{"", ""},
	} {
		if got := s.Fragment(c.text); got != c.want {
			t.Errorf("Fragment(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// Mask hides a secret shown in parts too: each run made of pieces a third
// of its length (at least 6 characters) reads as the secret, in any case;
// shorter pieces and other text stay.
func TestMaskFragments(t *testing.T) {
	s, err := secrets.Load("", []string{"WEBPILOT_SECRET_TOKEN=Zq7Wx9Pk3Lm5Rt8Yv2Nb", "WEBPILOT_SECRET_PIN=Ab12cd",
		"WEBPILOT_SECRET_LOGIN=alice@example.com", "WEBPILOT_SECRET_PHRASE=Correct-Horse-Battery"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		// (pieces of a value that does not read as random, and pieces of
		// letters alone, are ordinary text)
		"mail alice@example.com at example.com": "mail <secret:LOGIN> at example.com",
		"a Battery and a horse":                 "a Battery and a horse",
		"Horse-Battery":                         "<secret:PHRASE>",
		"Strength of Zq7Wx9Pk3L | m5Rt8Yv2Nb":   "Strength of <secret:TOKEN> | <secret:TOKEN>",
		"ends in …Rt8Yv2Nb.":                    "ends in …<secret:TOKEN>.",
		"ZQ7WX9PK3L":                            "ZQ7WX9PK3L",
		"the whole Zq7Wx9Pk3Lm5Rt8Yv2Nb here":   "the whole <secret:TOKEN> here",
		"Zq7Wx9 is too short to tell":           "Zq7Wx9 is too short to tell",
		"pin Ab12cd and Ab12c":                  "pin <secret:PIN> and Ab12c",
		"über Zq7Wx9Pk3L€":                      "über <secret:TOKEN>€",
		"":                                      "",
	} {
		if got := s.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// A value the page shows in groups (a card number, a phone number) is
// masked over its whole span.
func TestMaskSpaced(t *testing.T) {
	s, err := secrets.Load("", []string{"WEBPILOT_SECRET_CARD=4242424242424242", "WEBPILOT_SECRET_PHONE=5550100"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"card 4242 4242 4242 4242, ok": "card <secret:CARD>, ok",
		"card 4242-4242-4242-4242":     "card <secret:CARD>",
		"call 555-0100 or 555 0100":    "call <secret:PHONE> or <secret:PHONE>",
		"4242 4242 4242 4241 is other": "4242 4242 4242 4241 is other",
		"4242424242424242":             "<secret:CARD>",
	} {
		if got := s.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}
