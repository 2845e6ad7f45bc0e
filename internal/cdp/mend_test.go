package cdp

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// A frame holding a lone surrogate, escaped or as bytes, is mended into
// one that decodes, with U+FFFD in its place; pairs, other escapes and
// well-formed frames are left as they are.
func TestMendFrame(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"v":"a\ud83d"}`, "a\uFFFD"},
		{`{"v":"\ude00b"}`, "\uFFFDb"},
		{`{"v":"\ud83d\ude00"}`, "\U0001F600"},
		{`{"v":"\ud83d\u0041"}`, "\uFFFDA"},
		{`{"v":"\\ud83d"}`, `\ud83d`},
		{`{"v":"q\"\ud83d"}`, "q\"\uFFFD"},
		{"{\"v\":\"a\xed\xa0\xbd\"}", "a\uFFFD"},
		{`{"v":"plain é"}`, "plain é"},
	} {
		var v struct {
			V string `json:"v"`
		}
		if err := jsonv2.Unmarshal(mendFrame([]byte(c.in)), &v); err != nil || v.V != c.want {
			t.Errorf("%s: %q, %v; want %q", c.in, v.V, err, c.want)
		}
	}
	ok := []byte(`{"id":1,"result":{"v":"\ud83d\ude00 \n"}}`)
	if got := mendFrame(ok); &got[0] != &ok[0] {
		t.Errorf("a well-formed frame was copied")
	}
}
