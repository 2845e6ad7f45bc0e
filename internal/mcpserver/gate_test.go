package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// browser_flow enters the site gate: while the site is busy a flow waits
// its turn, is refused SITE_BUSY queue_full when the queue is full and
// queue_timeout when its wait runs out, and a flow on another site does not
// wait at all.
func TestFlowSiteGate(t *testing.T) {
	t.Parallel()
	base := fixtures(t) // http://127.0.0.1:PORT: site 127.0.0.1
	other := strings.Replace(base, "127.0.0.1", "localhost", 1)
	gate, err := recipes.NewGate(recipes.GateOptions{Runs: 1, Queue: 1, Wait: backendtest.Timeout(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	m := sharedManager(t)
	client := func() func(args map[string]any) (string, bool) {
		cs := connectServer(t, mcpserver.Options{Deps: &tools.Deps{Manager: m, Gate: gate}}, nil, "")
		ctx := backendtest.Context(t, 60*time.Second)
		return func(args map[string]any) (string, bool) { return call(t, ctx, cs, "browser_flow", args) }
	}
	// Each call in a session of its own: calls of one session wait for
	// each other before the gate.
	n := 0
	flowOn := func(url string) map[string]any {
		n++
		return map[string]any{"session": fmt.Sprintf("gate-%d", n), "steps": []any{
			map[string]any{"do": "navigate", "url": url + "/basic.html", "snapshot": "none"},
		}}
	}
	queued, refused, elsewhere, later := client(), client(), client(), client()
	// Another run holds the site.
	held, err := gate.Enter(context.Background(), "127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}

	// One flow waits in the queue (the queue holds one) ...
	var wg sync.WaitGroup
	wg.Add(1)
	var queuedOut string
	var queuedErr bool
	queuedArgs := flowOn(base)
	go func() {
		defer wg.Done()
		queuedOut, queuedErr = queued(queuedArgs)
	}()
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; time.Sleep(5 * time.Millisecond) {
		if st := gate.Status(); len(st) == 1 && st[0].Queued == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flow never queued: %+v", gate.Status())
		}
	}
	// ... the next is refused at once,
	out, isErr := refused(flowOn(base))
	if !isErr || !strings.Contains(out, `"SITE_BUSY"`) || !strings.Contains(out, `"reason":"queue_full"`) || !strings.Contains(out, `"site":"127.0.0.1"`) {
		t.Errorf("a flow beyond the queue: %s", out)
	}
	// ... a flow on another site runs meanwhile,
	if out, isErr := elsewhere(flowOn(other)); isErr || !strings.HasPrefix(out, "Flow done: 1 step(s)") {
		t.Errorf("a flow on another site: %s", out)
	}
	// ... and the queued one gives up when its wait runs out.
	wg.Wait()
	if !queuedErr || !strings.Contains(queuedOut, `"reason":"queue_timeout"`) {
		t.Errorf("the queued flow: %s", queuedOut)
	}
	// Once the site is free, flows run.
	held()
	if out, isErr := later(flowOn(base)); isErr || !strings.HasPrefix(out, "Flow done") {
		t.Errorf("a flow once the site is free: %s", out)
	}
	if strings.Contains(out, "site gate") {
		t.Errorf("a flow that did not wait says it did: %s", out)
	}
	// A flow that waited for its turn says how long (issue 28, 6).
	held, err = gate.Enter(context.Background(), "127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	waiter := client()
	waiterArgs := flowOn(base)
	go func() {
		defer wg.Done()
		queuedOut, queuedErr = waiter(waiterArgs)
	}()
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; time.Sleep(5 * time.Millisecond) {
		if st := gate.Status(); len(st) == 1 && st[0].Queued == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flow never queued: %+v", gate.Status())
		}
	}
	time.Sleep(200 * time.Millisecond) // the turn it waits for: longer than the shortest wait noted
	held()
	wg.Wait()
	if queuedErr || !strings.Contains(queuedOut, "Note: waited ") || !strings.Contains(queuedOut, "at the site gate for 127.0.0.1") {
		t.Errorf("a flow that waited at the gate:\n%s", queuedOut)
	}
	if st := gate.Status(); len(st) != 0 {
		t.Errorf("gate status after the runs: %+v", st)
	}
}
