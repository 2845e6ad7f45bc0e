package browser

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/cdp/cdptest"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// waitEntries waits until the log holds n entries whose last is finished.
func waitEntries(t *testing.T, l *netLog, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		ok := len(l.entries) == n && l.entries[n-1].finished
		l.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the log did not get %d finished entries", n)
}

// A redirect's events, handed over by the tab's loop in the browser's
// order, land on the right hops, and the ExtraInfo events, one of which
// came before its request, are matched in order.
func TestNetworkRedirectEvents(t *testing.T) {
	fs := cdptest.NewSession()
	l := newNetLog()
	tab := newTab("t1", fs, slog.New(slog.DiscardHandler))
	tab.ID, tab.link.net = "t1", l
	tab.page = newLoop(tab, fs, true)
	send := func(method, params string) { fs.Emit("Network."+method, jsonv2.Value(params)) }
	send("requestWillBeSentExtraInfo", `{"requestId":"r1","headers":{"Cookie":"a=1"}}`)
	send("requestWillBeSent", `{"requestId":"r1","timestamp":10.0,"wallTime":1700000000.5,"type":"Fetch","request":{"url":"http://a.test/a?token=x","method":"GET","headers":{"X":"1"}},"initiator":{"type":"script","stack":{"callFrames":[{"url":"","lineNumber":1},{"url":"http://a.test/","lineNumber":4}]}}}`)
	send("responseReceivedExtraInfo", `{"requestId":"r1","statusCode":302,"headers":{"Location":"/b","Set-Cookie":"a=2\nb=3"}}`)
	send("requestWillBeSent", `{"requestId":"r1","timestamp":10.2,"type":"Fetch","request":{"url":"http://a.test/b","method":"GET","headers":{}},"redirectResponse":{"url":"http://a.test/a?token=x","status":302,"statusText":"Found","headers":{"Location":"/b"}}}`)
	send("requestWillBeSentExtraInfo", `{"requestId":"r1","headers":{"Cookie":"a=2"}}`)
	send("responseReceived", `{"requestId":"r1","timestamp":10.3,"type":"Fetch","response":{"url":"http://a.test/b","status":200,"statusText":"OK","mimeType":"application/json","headers":{"Content-Type":"application/json"}}}`)
	send("responseReceivedExtraInfo", `{"requestId":"r1","statusCode":200,"headers":{"Content-Type":"application/json"}}`)
	send("dataReceived", `{"requestId":"r1","timestamp":10.4,"dataLength":20,"encodedDataLength":0}`)
	send("loadingFinished", `{"requestId":"r1","timestamp":10.5,"encodedDataLength":120}`)
	waitEntries(t, l, 2)
	defer func() {
		fs.Close()
		<-tab.page.ended
	}()

	l.mu.Lock()
	defer l.mu.Unlock()
	a, b := l.entries[0], l.entries[1]
	if a.url != "http://a.test/a?token=x" || a.status != 302 || !a.finished || a.redirectTo != b || a.endTS != 10.2 {
		t.Errorf("first hop: %+v", a)
	}
	if b.url != "http://a.test/b" || b.status != 200 || b.mime != "application/json" || b.decoded != 20 || b.encoded != 120 || b.typ != "fetch" {
		t.Errorf("second hop: %+v", b)
	}
	if a.initiator != "script http://a.test/:5" || a.wall.Unix() != 1700000000 {
		t.Errorf("first hop: initiator %q, wall %v", a.initiator, a.wall)
	}
	if fmt.Sprint(a.rawReqHeaders) != "[{Cookie a=1}]" || fmt.Sprint(b.rawReqHeaders) != "[{Cookie a=2}]" {
		t.Errorf("raw request headers: %v then %v", a.rawReqHeaders, b.rawReqHeaders)
	}
	if fmt.Sprint(a.rawRespHeaders) != "[{Location /b} {Set-Cookie a=2} {Set-Cookie b=3}]" || fmt.Sprint(b.rawRespHeaders) != "[{Content-Type application/json}]" {
		t.Errorf("raw response headers: %v then %v", a.rawRespHeaders, b.rawRespHeaders)
	}
}

// The buffer keeps the newest NetworkCap requests, counts the dropped ones
// and forgets their request ids.
func TestNetworkBufferCap(t *testing.T) {
	l := newNetLog()
	tab := &Tab{ID: "t1"}
	var batch []netEvent
	for i := range NetworkCap + 100 {
		var ev netEvent
		raw := fmt.Sprintf(`{"requestId":"r%d","timestamp":%d,"type":"XHR","request":{"url":"http://a.test/%d","method":"GET"}}`, i, i, i)
		if err := jsonv2.Unmarshal([]byte(raw), &ev); err != nil {
			t.Fatal(err)
		}
		ev.kind = evSent
		batch = append(batch, ev)
	}
	// and a data: URL, which is not recorded.
	batch = append(batch, netEvent{kind: evSent, RequestID: "d", Request: batch[0].Request})
	batch[len(batch)-1].Request = &struct {
		URL         string       `json:"url"`
		URLFragment string       `json:"urlFragment"`
		Method      string       `json:"method"`
		Headers     jsonv2.Value `json:"headers"`
		HasPostData bool         `json:"hasPostData"`
		PostData    string       `json:"postData"`
	}{URL: "data:image/png;base64,AAAA", Method: "GET"}
	for i := range batch {
		l.apply(tab, nil, &batch[i])
	}
	if len(l.entries) != NetworkCap || l.dropped != 100 || l.entries[0].seq != 101 || l.entries[NetworkCap-1].seq != NetworkCap+100 {
		t.Fatalf("%d entries (n%d…n%d), %d dropped", len(l.entries), l.entries[0].seq, l.entries[len(l.entries)-1].seq, l.dropped)
	}
	if len(l.chains) != NetworkCap {
		t.Errorf("%d request ids followed, want %d", len(l.chains), NetworkCap)
	}
	// A late event of a dropped request changes nothing.
	l.apply(tab, nil, &netEvent{kind: evFinished, RequestID: "r3", Timestamp: 1000})
	for _, e := range l.entries {
		if e.finished {
			t.Fatalf("a dropped request's end finished %s", e.url)
		}
	}
	m := NewManager(Options{Backend: nopBackend{}})
	s := &Session{name: "x", m: m, pol: m.DefaultPolicy(), link: &sessionLink{net: l}}
	s.tabs = newTabSet(s)
	h := &Held{s: s}
	list, err := h.Network().List(NetworkQuery{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if list.Matched != NetworkCap || list.Dropped != 100 || len(list.Requests) != 3 || list.Requests[2].ID != fmt.Sprintf("n%d", NetworkCap+100) {
		t.Errorf("list: %+v", list)
	}
	_, err = h.Network().Request(context.Background(), NetworkGet{ID: "n5"})
	if be, ok := AsError(err); !ok || be.Code != CodeInvalidArgument || !strings.Contains(be.Message, "no longer") || len(be.Suggestions) != 5 {
		t.Errorf("a dropped id: %v", err)
	}
	if n := h.Network().Clear(); n != NetworkCap || len(l.chains) != 0 {
		t.Errorf("clear: %d, %d ids still followed", n, len(l.chains))
	}
}

// bodyWindow pages a body as window pages a snapshot.
func TestBodyWindow(t *testing.T) {
	body := strings.Repeat("line ü€😀 xx\n", 500) + "tail without a break " + strings.Repeat("é", 300)
	for _, c := range []struct{ offset, max int }{{0, 100}, {0, 10_000}, {13, 7}, {0, 26}, {0, 27}, {0, 28}, {1, 26}, {2, 25}, {100, 1000}, {6000, 10_000}, {6200, 50}, {1 << 20, 10}} {
		got, next := bodyWindow([]byte(body), c.offset, c.max)
		want, wantNext := text.Window(body, c.offset, c.max)
		if got != want || next != wantNext {
			t.Errorf("bodyWindow(%d, %d) = %q…, %d; window gives %q…, %d", c.offset, c.max, shorten(got, 40), next, shorten(want, 40), wantNext)
		}
	}
}
