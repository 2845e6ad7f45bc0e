package redact

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://a.test/p?q=1", "https://a.test/p?q=1"},
		{"https://a.test/p?token=abc&page=2", "https://a.test/p?token=<redacted>&page=2"},
		{"https://a.test/p?access_token=a&id_token=b&refresh_token=c", "https://a.test/p?access_token=<redacted>&id_token=<redacted>&refresh_token=<redacted>"},
		{"https://a.test/p?api_key=1&apikey=2&key=3&keyword=4", "https://a.test/p?api_key=<redacted>&apikey=<redacted>&key=<redacted>&keyword=4"},
		{"https://a.test/p?client_secret=s&password=p&sig=x&signature=y&auth=z&author=me", "https://a.test/p?client_secret=<redacted>&password=<redacted>&sig=<redacted>&signature=<redacted>&auth=<redacted>&author=me"},
		{"https://a.test/p?X-Amz-Signature=abc&X-Amz-Credential=k&X-Amz-Date=1", "https://a.test/p?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>&X-Amz-Date=1"},
		{"https://a.test/p?sessionId=9&PHPSESSID=8&accessToken=7", "https://a.test/p?sessionId=<redacted>&PHPSESSID=<redacted>&accessToken=<redacted>"},
		{"https://a.test/p?to%6Ben=abc", "https://a.test/p?to%6Ben=<redacted>"},
		{"https://a.test/p?token", "https://a.test/p?token"}, // no value
		{"https://a.test/cb#access_token=xyz&state=1", "https://a.test/cb#access_token=<redacted>&state=1"},
		{"https://a.test/doc#section-2", "https://a.test/doc#section-2"},
		{"https://user:hunter2@a.test/p", "https://user:<redacted>@a.test/p"},
		{"https://user@a.test/p", "https://user@a.test/p"},
		{"https://a.test/p/with@sign?x=1", "https://a.test/p/with@sign?x=1"},
		{"wss://a.test/socket?token=t", "wss://a.test/socket?token=<redacted>"},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"Authorization", "Bearer abc.def", "Bearer <redacted>"},
		{"authorization", "Basic dXNlcjpwYXNz", "Basic <redacted>"},
		{"Authorization", "abc123", "<redacted>"},
		{"Authorization", "token=abc", "<redacted>"},
		{"Proxy-Authorization", "Basic xyz", "Basic <redacted>"},
		{"Cookie", "sid=abc; theme=dark", "sid=<redacted>; theme=<redacted>"},
		{"Set-Cookie", "sid=abc; Path=/; HttpOnly", "sid=<redacted>; Path=/; HttpOnly"},
		{"set-cookie", "sid=abc", "sid=<redacted>"},
		{"X-Api-Key", "k", "<redacted>"},
		{"X-CSRF-Token", "t", "<redacted>"},
		{"Referer", "https://a.test/?token=t", "https://a.test/?token=<redacted>"},
		{"Location", "/next?code=1&access_token=z", "/next?code=1&access_token=<redacted>"},
		{"Content-Type", "application/json", "application/json"},
		{"Accept", "*/*", "*/*"},
	} {
		if got := Header(c.name, c.value); got != c.want {
			t.Errorf("Header(%q, %q) = %q, want %q", c.name, c.value, got, c.want)
		}
	}
}

// JSON request bodies show token-like keys' values as <redacted>, at any
// depth and whatever their type; the rest stays as written; a body that
// is not JSON is left alone.
func TestRedactJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"user":"ada","password":"hunter2"}`, `{"user":"ada","password":"<redacted>"}`},
		{`{"login": {"access_token": "abc\"def", "scope": "read"}, "n": 2}`, `{"login": {"access_token": "<redacted>", "scope": "read"}, "n": 2}`},
		{`{"auth": {"user": "ada"}}`, `{"auth": "<redacted>"}`},
		{`[{"api_key": 12345, "ok": true}, {"secret": ["a", "b"], "x": 1}]`, `[{"api_key": "<redacted>", "ok": true}, {"secret": "<redacted>", "x": 1}]`},
		{`{"session": {"id": "s1", "data": [1, 2]}, "name": "password"}`, `{"session": "<redacted>", "name": "password"}`},
		{`{"pwd":null,"key":"k"}`, `{"pwd":"<redacted>","key":"<redacted>"}`},
		{`not json {"password": "x"`, `not json {"password": "x"`},
	} {
		if got := JSON(c.in); got != c.want {
			t.Errorf("JSON(%s)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// URLs in text read from a page lose their credentials, the rest of the
// text as it was.
func TestRedactURLsIn(t *testing.T) {
	for in, want := range map[string]string{
		"see [reset](/reset?token=abc123&x=1) now":            "see [reset](/reset?token=<redacted>&x=1) now",
		"go to https://ex.com/a?api_key=K1&page=2, then back": "go to https://ex.com/a?api_key=<redacted>&page=2, then back",
		`<a href="https://u:pw@ex.com/p?session=S9">x</a>`:    `<a href="https://u:<redacted>@ex.com/p?session=<redacted>">x</a>`,
		"plain text, no links":                                "plain text, no links",
		"https://ex.com/?q=kettle&page=3":                     "https://ex.com/?q=kettle&page=3",
	} {
		if got := URLsIn(in); got != want {
			t.Errorf("URLsIn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Error: 401\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc\nnext", "Error: 401\nAuthorization: Bearer <redacted>\nnext"},
		{"authorization=token ghp_abcdefgh12345", "authorization=token <redacted>"},
		{"Cookie: SESSDATA=abc; bili_jct=def\nrest", "Cookie: <redacted>\nrest"},
		{"set-cookie: sid=1; Path=/", "set-cookie: <redacted>"},
		{`{"access_token": "abc123", "user": "ann"}`, `{"access_token": "<redacted>", "user": "ann"}`},
		{"csrf_token=q1w2e3&page=2", "csrf_token=<redacted>&page=2"},
		{"api_key: sk-live-1234 failed", "api_key: <redacted> failed"},
		{"fetch https://x.test/cb?code=1&token=zz failed", "fetch https://x.test/cb?code=1&token=<redacted> failed"},
		{"calling with bearer abcdefghijk now", "calling with bearer <redacted> now"},
		// no credential: as written
		{"author: Ann; inside: yes; consider=this", "author: Ann; inside: yes; consider=this"},
		{"the token provided was refused", "the token provided was refused"},
		{"exit code 2", "exit code 2"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// The gaps of issue 47, 13: one-time codes, PINs and an OAuth answer's
// code in pairs (not a code without the OAuth parameters: a promo or
// country code), and the password fields of text/plain and multipart
// bodies.
func TestRedactCodesAndBodies(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"otp=123456&user=ada", "otp=<redacted>&user=ada"},
		{"pin=1234&x=1", "pin=<redacted>&x=1"},
		{"mfa_code=99&otp_code=11&passcode=7", "mfa_code=<redacted>&otp_code=<redacted>&passcode=<redacted>"},
		{"code=4/0AbCdEf&state=xyz&scope=email", "code=<redacted>&state=xyz&scope=email"},
		{"code=SUMMER10&qty=2", "code=SUMMER10&qty=2"},
		{"pinned=1&spin=2", "pinned=1&spin=2"},
	} {
		if got := Pairs(c.in); got != c.want {
			t.Errorf("Pairs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got, want := URL("https://app.example/cb?code=abc123&state=s1"), "https://app.example/cb?code=<redacted>&state=s1"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	if got, want := Lines("user=ada\r\npassword=Corr3ct-H0rse\r\nnote=a=b\r\n"), "user=ada\r\npassword=<redacted>\r\nnote=a=b\r\n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	body := "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nCorr3ct-H0rse\r\n--XyZ\r\nContent-Disposition: form-data; name=\"otp\"\r\n\r\n123456\r\n--XyZ--\r\n"
	got := Multipart(body, `multipart/form-data; boundary="XyZ"`)
	if strings.Contains(got, "Corr3ct") || strings.Contains(got, "123456") || !strings.Contains(got, "\r\n\r\nada\r\n") || strings.Count(got, "<redacted>") != 2 || !strings.HasSuffix(got, "--XyZ--\r\n") {
		t.Errorf("Multipart =\n%s", got)
	}
	if got := Multipart(body, "multipart/form-data"); got != body {
		t.Errorf("no boundary: changed")
	}
}

// A browser endpoint's URL (a farm's) hides every query value, whatever
// its name, besides the password; one that does not parse is hidden but
// for its scheme. The placeholder is URL's.
func TestRedactEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"ws://127.0.0.1:9222/devtools/browser/abc": "ws://127.0.0.1:9222/devtools/browser/abc",
		"wss://u:p@farm.example/?token=t&x=1":      "wss://u:<redacted>@farm.example/?token=<redacted>&x=<redacted>",
		"http://farm.example:3000?token=secret":    "http://farm.example:3000?token=<redacted>",
		"http://user@farm.example":                 "http://user@farm.example",
		"ws://%zz":                                 "ws://<redacted>",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
	// In an error's text: the URL as given, and its secrets alone.
	raw := "wss://u:pass1234@farm.example/?token=tok-5678&launch=x"
	msg := "dial " + raw + ": 401 (token tok-5678, password pass1234, launch x)"
	want := "dial wss://u:<redacted>@farm.example/?token=<redacted>&launch=<redacted>: 401 (token <redacted>, password <redacted>, launch x)"
	if got := EndpointIn(msg, raw); got != want {
		t.Errorf("EndpointIn = %q, want %q", got, want)
	}
}

// TestEndpointInHidesAPieceOfThePlaceholder: a credential that happens to
// be a piece of the placeholder ("dact" of "<redacted>") is still hidden.
func TestEndpointInHidesAPieceOfThePlaceholder(t *testing.T) {
	got := EndpointIn("dial failed: token dact refused", "wss://farm.example/?token=dact")
	if strings.Contains(strings.ReplaceAll(got, Redacted, ""), "dact") {
		t.Errorf("EndpointIn = %q, the token shows", got)
	}
}
