package mcpserver

import (
	"fmt"
	"testing"
)

// TestLineScan: the scan of an oversize line finds the top-level id and
// method however the line is cut into chunks (a member name, an id or an
// escape split across reads).
func TestLineScan(t *testing.T) {
	for _, c := range []struct {
		line         string
		id           any
		notification bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, int64(7), false},
		{` { "id" : "a\"b" , "method" : "x" } `, `a"b`, false},
		{`{"method":"x","params":{"id":1,"s":"\"id\":2"},"id":-3}`, int64(-3), false},
		{`{"\u006d\u0065thod":"x","\u0069d":"k"}`, "k", false},
		{`{"method":"x","params":["id",{"id":5}]}`, nil, true},
		{`{"method":"x","id":null}`, nil, false},
		{`{"method":"x","id":{"n":1}}`, nil, false},
		{`{"method":"x","id":true}`, nil, false},
		{`{"method":"x","id":2.5}`, nil, false},
		{`{"id":4,"result":{}}`, nil, false},
		{`{"method":"x"} trailing`, nil, false},
		{`[{"method":"x","id":1}]`, nil, false},
		{`{"method":"x","params":{`, nil, false},
	} {
		whole := new(lineScan)
		whole.feed([]byte(c.line))
		id, n := whole.verdict()
		if fmt.Sprint(id) != fmt.Sprint(c.id) || n != c.notification {
			t.Errorf("%s: verdict %v %v, want %v %v", c.line, id, n, c.id, c.notification)
		}
		for cut := 1; cut < len(c.line); cut++ {
			s := new(lineScan)
			s.feed([]byte(c.line[:cut]))
			s.feed([]byte(c.line[cut:]))
			if sid, sn := s.verdict(); fmt.Sprint(sid) != fmt.Sprint(id) || sn != n {
				t.Errorf("%s cut at %d: verdict %v %v, want %v %v", c.line, cut, sid, sn, id, n)
			}
		}
	}
}

// TestCancelledAnswersDropped: the answer to a request cancelled while it
// ran is dropped, alone or from a batch's array of answers, once; a
// cancellation of a request already answered, or of initialize, changes
// nothing.
func TestCancelledAnswersDropped(t *testing.T) {
	p := newPending()
	read := func(line string) {
		t.Helper()
		msgs := messages([]byte(line))
		if len(msgs) == 0 {
			t.Fatalf("%s does not decode", line)
		}
		p.noteRequests(msgs, line[0] == '[')
	}
	read(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	read(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}`)
	read(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`)
	read(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	read(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"i"}}`)
	read(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	read(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":"i","result":{}}`, `{"jsonrpc":"2.0","id":"i","result":{}}`},
		{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{}}]`, `[{"jsonrpc":"2.0","id":"b","result":{}}]`},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, ``},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`}, // forgotten once dropped
	} {
		out, _ := p.noteAnswers([]byte(c.line))
		if string(out) != c.want {
			t.Errorf("noteAnswers(%s) = %q, want %q", c.line, out, c.want)
		}
	}
	if len(p.live) != 0 || len(p.cancelled) != 0 || len(p.ids) != 0 {
		t.Errorf("left behind: live %v, cancelled %v, calls %v", p.live, p.cancelled, p.ids)
	}
}
