package recipes_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

func TestSite(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://www.shop.example.co.uk/search?q=1", "example.co.uk"},
		{"http://a.b.example.com:8080/", "example.com"},
		{"https://foo.github.io/x", "foo.github.io"},
		{"http://127.0.0.1:4567/page", "127.0.0.1"},
		{"http://[::1]:80/", "::1"},
		{"http://localhost:3000/", "localhost"},
		{"shop.example.com", "example.com"},
		{"shop.example.com:443", "example.com"},
		{"WWW.Example.COM.", "example.com"},
		{"about:blank", ""},
		{"data:text/html,hi", ""},
	} {
		if got := recipes.Site(c.in); got != c.want {
			t.Errorf("Site(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestGateOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o  recipes.GateOptions
		ok bool
	}{
		{recipes.GateOptions{}, true},
		{recipes.GateOptions{Runs: 16, Queue: 100, Wait: 10 * time.Minute}, true},
		{recipes.GateOptions{Runs: 17}, false},
		{recipes.GateOptions{Runs: -1}, false},
		{recipes.GateOptions{Queue: 101}, false},
		{recipes.GateOptions{Queue: -1}, false},
		{recipes.GateOptions{Wait: time.Millisecond}, false},
		{recipes.GateOptions{Wait: 11 * time.Minute}, false},
	} {
		if err := c.o.Check(); (err == nil) != c.ok {
			t.Errorf("Check(%+v) = %v, want ok %v", c.o, err, c.ok)
		}
		if _, err := recipes.NewGate(c.o); (err == nil) != c.ok {
			t.Errorf("NewGate(%+v) = %v, want ok %v", c.o, err, c.ok)
		}
	}
}

func siteBusy(t *testing.T, err error, reason string) {
	t.Helper()
	be, ok := toolerr.As(err)
	if !ok || be.Code != toolerr.CodeSiteBusy || be.Diagnosis["reason"] != reason || be.Diagnosis["site"] != "example.com" || be.Hint == "" {
		t.Errorf("got %v (%+v), want SITE_BUSY %s on example.com with a hint", err, be, reason)
	}
}

// Ten runs on one site at once with the defaults: one runs, eight wait
// their turn in order, the tenth is refused (queue_full); another site is
// not delayed; a short bound in the queue gives queue_timeout; the queue
// drains in order as runs end.
func TestGateOneSite(t *testing.T) {
	g, err := recipes.NewGate(recipes.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := g.Enter(ctx, "example.com", 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	releases := make(chan func(), 8)
	for i := 1; i <= 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := g.Enter(ctx, "example.com", 0)
			if err != nil {
				t.Errorf("queued run %d: %v", i, err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			releases <- rel
		}()
		// Queue in a known order.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			if st := g.Status(); len(st) == 1 && st[0].Queued == i {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d did not queue: %+v", i, g.Status())
			}
		}
	}
	if st := g.Status(); len(st) != 1 || st[0] != (recipes.SiteStatus{Site: "example.com", Running: 1, Queued: 8}) {
		t.Fatalf("status %+v, want example.com 1 running 8 queued", st)
	}
	_, err = g.Enter(ctx, "example.com", 0)
	siteBusy(t, err, recipes.ReasonQueueFull)

	// Another site does not wait.
	start := time.Now()
	other, err := g.Enter(ctx, "example.org", 0)
	if err != nil {
		t.Fatalf("another site: %v", err)
	}
	other()
	t.Logf("another site entered in %v", time.Since(start))

	// The runs take their turns in order as each ends.
	first()
	for range 8 {
		select {
		case rel := <-releases:
			rel()
		case <-time.After(10 * time.Second):
			t.Fatal("a queued run never got its turn")
		}
	}
	wg.Wait()
	for i, n := range order {
		if n != i+1 {
			t.Fatalf("turn order %v, want 1..8", order)
		}
	}
	if st := g.Status(); len(st) != 0 {
		t.Errorf("status after every run ended: %+v, want none", st)
	}
}

func TestGateQueueTimeout(t *testing.T) {
	g, err := recipes.NewGate(recipes.GateOptions{Wait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rel, err := g.Enter(ctx, "example.com", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Enter(ctx, "example.com", 150*time.Millisecond)
	siteBusy(t, err, recipes.ReasonQueueTimeout)
	if st := g.Status(); len(st) != 1 || st[0].Queued != 0 {
		t.Errorf("a timed-out run stays queued: %+v", g.Status())
	}
	// A cancelled wait leaves the queue too, with the context's error.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := g.Enter(cctx, "example.com", 0); err != context.Canceled {
		t.Errorf("cancelled wait: %v", err)
	}
	rel()
	rel() // a second call does nothing
	next, err := g.Enter(ctx, "example.com", 0)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	next()
	if st := g.Status(); len(st) != 0 {
		t.Errorf("status %+v, want none", st)
	}
}

// Two runs per site with Runs 2.
func TestGateTwoRuns(t *testing.T) {
	g, err := recipes.NewGate(recipes.GateOptions{Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Enter(context.Background(), "example.com", 0)
	b, _ := g.Enter(context.Background(), "example.com", 0)
	if a == nil || b == nil {
		t.Fatal("two runs should enter")
	}
	defer a()
	defer b()
	if st := g.Status(); st[0].Running != 2 {
		t.Errorf("status %+v", st)
	}
}
