package browser

import (
	"fmt"
	"strings"
	"testing"
)

func TestPageMatcher(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"*/done*", "http://a.test/done?x=1", true},
		{"*/done*", "http://a.test/step1", false},
		{"*/DONE", "http://a.test/done", true},
		{"http://a.test/*/edit", "http://a.test/items/3/edit", true},
		{"http://a.test/*/edit", "http://a.test/items/3/edit/more", false},
		{"search?q=a", "http://a.test/search?q=a&page=2", true}, // ? is plain: a part
		{"Step", "step 2", true},
		{`/done\?step=2$/`, "http://a.test/done?step=2", true},
		{`/done\?step=2$/`, "http://a.test/done?step=21", false},
		{"/^step 2$/i", "Step 2", true},
		{"/^step 2$/", "Step 2", false},
		{"a.b*", "axb", false}, // . is literal in a glob
	} {
		m, err := pageMatcher(0, "url", c.pat)
		if err != nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if got := m(c.s); got != c.want {
			t.Errorf("%s on %s = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
	if _, err := pageMatcher(2, "title", "/(/"); err == nil || !strings.Contains(err.Error(), "conditions[2]") {
		t.Errorf("bad regex: %v", err)
	}
}

func TestCheckWait(t *testing.T) {
	for _, c := range []struct {
		name string
		o    WaitOptions
		say  string // "" for valid
	}{
		{"empty", WaitOptions{}, "conditions is empty"},
		{"nothing", WaitOptions{Conditions: []WaitCondition{{Tier: 2}}}, "conditions[0]: nothing to wait for"},
		{"two kinds", WaitOptions{Conditions: []WaitCondition{{URL: "x"}, {NetworkIdle: true, Download: true}}}, "conditions[1]: give one thing"},
		{"role attached", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Role: "button"}, State: StateAttached}}}, "role target"},
		{"name without role", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Name: "Save"}}}}, "conditions[0]: name goes with role"},
		{"two targets", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Text: "a", Selector: "b"}}}}, "conditions[0]: give only one"},
		{"within alone", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Within: "#x"}}}}, "conditions[0]"},
		{"state on time", WaitOptions{Conditions: []WaitCondition{{Time: 5, State: StateHidden}}}, "state goes with a target"},
		{"negative tier", WaitOptions{Conditions: []WaitCondition{{URL: "x", Tier: -1}}}, "tier"},
		{"valid", WaitOptions{Conditions: []WaitCondition{{Target: Locator{Text: "a"}, State: StateHidden}, {URL: "*/x"}, {Download: true}}}, ""},
	} {
		conds, err := checkWait(c.o)
		switch {
		case c.say == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.say != "" && (err == nil || !strings.Contains(err.Error(), c.say)):
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.say)
		case c.say != "":
			if be, ok := AsError(err); !ok || be.Code != CodeInvalidArgument {
				t.Errorf("%s: %v is not INVALID_ARGUMENT", c.name, err)
			}
		case conds[0].State != StateHidden || !conds[0].every || conds[1].kind != "url":
			t.Errorf("%s: compiled %+v %+v", c.name, conds[0], conds[1])
		}
	}
}

// The request table of network_idle: ends before starts, requests left
// out, and a full map never reads as idle.
func TestRequestTableIdle(t *testing.T) {
	newTracker := newRequestTable
	start := func(r *requestTable, id, typ, url string) { r.start(id, typ, url) }
	end := func(r *requestTable, id string) { r.end(id) }
	idle := func(r *requestTable) bool { ok, _, _ := r.idle(0); return ok }

	r := newTracker()
	start(r, "1", "Fetch", "https://x.test/a")
	if idle(r) {
		t.Error("idle with a fetch in flight")
	}
	end(r, "1")
	if !idle(r) {
		t.Error("not idle after the fetch ended")
	}
	// An end before its start cancels the start.
	end(r, "2")
	start(r, "2", "XHR", "https://x.test/b")
	if !idle(r) || len(r.ended) != 0 {
		t.Errorf("an early end: idle %v, ended %v", idle(r), r.ended)
	}
	// Left-out requests: their ends are not kept as early ends.
	for i := range 2 * maxTracked {
		id := fmt.Sprint("es", i)
		start(r, id, "EventSource", "https://x.test/stream")
		end(r, id)
	}
	if len(r.ended) != 0 || !idle(r) {
		t.Errorf("ends of left-out requests kept: %d", len(r.ended))
	}
	// A full map: the requests past it still hold idleness off until as
	// many ends have come.
	r = newTracker()
	for i := range maxTracked + 2 {
		start(r, fmt.Sprint("q", i), "Fetch", "https://x.test/q")
	}
	for i := range maxTracked {
		end(r, fmt.Sprint("q", i))
	}
	if idle(r) {
		t.Error("idle while two requests past the map's bound are in flight")
	}
	end(r, fmt.Sprint("q", maxTracked))
	end(r, fmt.Sprint("q", maxTracked+1))
	if !idle(r) {
		t.Error("not idle once every request ended")
	}
}

// The quiet wait's view of the table: only the requests of the types it
// waits for that started after its mark, and whether any started.
func TestRequestTableQuiet(t *testing.T) {
	r := newRequestTable()
	r.start("old", "Fetch", "https://x.test/old")
	mark := r.quietMark()
	if started, inflight := r.quietSince(mark); started || len(inflight) != 0 {
		t.Fatalf("before anything: started %v, in flight %v", started, inflight)
	}
	r.start("img", "Image", "https://x.test/a.png")
	r.start("ping", "Ping", "https://x.test/beacon")
	if started, _ := r.quietSince(mark); started {
		t.Error("an image or a ping counts as started")
	}
	r.start("x", "XHR", "https://x.test/api")
	r.start("d", "Fetch", "data:text/plain,hi")
	started, inflight := r.quietSince(mark)
	if !started || len(inflight) != 1 || inflight["x"] != "https://x.test/api" {
		t.Errorf("after an XHR: started %v, in flight %v", started, inflight)
	}
	r.end("x")
	r.end("old")
	if started, inflight := r.quietSince(mark); !started || len(inflight) != 0 {
		t.Errorf("after its end: started %v, in flight %v", started, inflight)
	}
}
