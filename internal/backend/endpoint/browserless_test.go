package endpoint_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint/farmtest"
	"github.com/webpilot-mcp/webpilot/internal/redact"
)

// endpointErr returns err's *backend.EndpointError, failing t when it has
// none, and checks that no text of it shows the token.
func endpointErr(t *testing.T, err error, token string) *backend.EndpointError {
	t.Helper()
	var ee *backend.EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("error %v (%T) is not an endpoint error", err, err)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(fmt.Sprintf("%+v", *ee), token) {
		t.Errorf("the error shows the farm's token: %v", err)
	}
	return ee
}

// On the real browserless, reached through its HTTP address (discovery) as
// through its WebSocket, Backends get browsers of their own: a tab one
// opens is not in the other's browser; closing one ends its connection and
// the farm ends that browser; the other works on.
func TestBrowserlessBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 2})
	ctx := backendtest.Context(t, 120*time.Second)
	for _, url := range []string{farm.HTTPURL(), farm.URL()} {
		f := endpoint.NewFarm(endpoint.Options{URL: url})
		a, b := f.NewBackend("a"), f.NewBackend("b")
		ta, err := a.NewTab(ctx, "about:blank")
		if err != nil {
			t.Fatalf("%s: a.NewTab: %v", redact.Endpoint(url), err)
		}
		tabs, err := b.Tabs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if hasTab(tabs, ta.ID) {
			t.Errorf("b's browser lists a's tab %s: %+v", ta.ID, tabs)
		}
		if l, err := farm.WaitLoad(ctx, "2 running", func(l farmtest.Load) bool { return l.Running == 2 }); err != nil {
			t.Fatal(err)
		} else if n, err := farm.WaitBrowsers(ctx, 2); err != nil {
			t.Errorf("farm browsers = %d (load %+v), want 2: %v", n, l, err)
		}
		info := f.Info()
		if !info.Running || !strings.Contains(info.Version, "Chrome/") || strings.Contains(info.BrowserPath, farm.Token()) {
			t.Errorf("Farm.Info = %+v, want running, the token hidden", info)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := farm.WaitLoad(ctx, "1 running", func(l farmtest.Load) bool { return l.Running == 1 }); err != nil {
			t.Fatal(err)
		}
		if _, err := b.NewTab(ctx, ""); err != nil {
			t.Errorf("b after a closed: %v", err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := farm.WaitLoad(ctx, "none running", func(l farmtest.Load) bool { return l.Running == 0 && l.Queued == 0 }); err != nil {
			t.Fatal(err)
		}
	}
}

// A full farm: a call of a session that has no browser waits its bound and
// answers FARM_FULL with the farm's load; retries resume the same place in
// the queue (the farm never holds more than one entry for the session);
// once a browser is freed, the waiting session gets it, and says it
// waited. Closing a session whose connection waits takes it out of the
// queue.
func TestBrowserlessFull(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 1, Queued: 5})
	ctx := backendtest.Context(t, 180*time.Second)
	const wait = 2 * time.Second
	f := endpoint.NewFarm(endpoint.Options{URL: farm.URL(), Wait: wait})
	t.Cleanup(func() { _ = f.Close() })
	a := f.NewBackend("a")
	if _, err := a.NewTab(ctx, ""); err != nil {
		t.Fatal(err)
	}
	b := f.NewBackend("b")
	var reports []string
	var mu sync.Mutex
	bctx := backend.WithWaitReport(ctx, func(waited, bound time.Duration, msg string) {
		mu.Lock()
		reports = append(reports, fmt.Sprintf("%v/%v %s", waited.Round(time.Second), bound, msg))
		mu.Unlock()
	})
	for try := range 3 {
		_, err := b.Tabs(bctx)
		ee := endpointErr(t, err, farm.Token())
		if ee.Reason != backend.FarmFull || ee.Phase != "queue" || !errors.Is(err, backend.ErrFarmFull) {
			t.Fatalf("try %d: %+v, want the farm full (queue)", try, ee)
		}
		if ee.Load == nil || ee.Load.Running != 1 || ee.Load.MaxConcurrent != 1 || ee.Load.Queued != 1 {
			t.Errorf("try %d: load %+v, want 1 of 1 running, 1 queued", try, ee.Load)
		}
		if ee.Waited < wait {
			t.Errorf("try %d: waited %v, want its bound %v", try, ee.Waited, wait)
		}
		if try > 0 && ee.InQueue < ee.Waited+wait/2 {
			t.Errorf("try %d: in the queue for %v: the retry did not resume the first connection's place", try, ee.InQueue)
		}
		// The farm holds one entry for b, however often it retried.
		if l, err := farm.Pressure(ctx); err != nil || l.Queued != 1 || l.Running != 1 {
			t.Errorf("try %d: farm load %+v, %v; want 1 running and 1 queued (no pile-up)", try, l, err)
		}
	}
	mu.Lock()
	if len(reports) == 0 || !strings.Contains(reports[len(reports)-1], "1 of 1 running, 1 queued") {
		t.Errorf("wait reports %q, want the farm's load", reports)
	}
	mu.Unlock()

	// A third session queues too, behind b. Closing it closes its
	// connection; browserless keeps the entry until its turn comes (and
	// then drops it), which is why a session never queues twice.
	c := f.NewBackend("c")
	if _, err := c.Tabs(ctx); err == nil || !errors.Is(err, backend.ErrFarmFull) {
		t.Fatalf("c: %v, want FARM_FULL", err)
	}
	if _, err := farm.WaitLoad(ctx, "2 queued", func(l farmtest.Load) bool { return l.Queued == 2 }); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// a goes: b's connection, still queued, gets the browser.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.NewTab(ctx, ""); err != nil {
		t.Fatalf("b once a browser was free: %v", err)
	}
	if note := b.(backend.Waiter).TakeWait(); !strings.Contains(note, "waited") || !strings.Contains(note, "queue") {
		t.Errorf("b's wait note = %q", note)
	}
	if note := b.(backend.Waiter).TakeWait(); note != "" {
		t.Errorf("a second TakeWait = %q, want it once", note)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := farm.WaitLoad(ctx, "nothing left", func(l farmtest.Load) bool { return l.Queued == 0 && l.Running == 0 }); err != nil {
		t.Fatal(err)
	}
	if n, err := farm.WaitBrowsers(ctx, 0); err != nil {
		t.Errorf("%d farm browsers left running: %v", n, err)
	}
}

// A farm whose queue is full too turns the connection away (HTTP 429):
// FARM_FULL at once, with the status.
func TestBrowserlessQueueFull(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 1, Queued: 1})
	ctx := backendtest.Context(t, 120*time.Second)
	f := endpoint.NewFarm(endpoint.Options{URL: farm.URL(), Wait: time.Second})
	t.Cleanup(func() { _ = f.Close() })
	if _, err := f.NewBackend("a").NewTab(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewBackend("b").Tabs(ctx); !errors.Is(err, backend.ErrFarmFull) {
		t.Fatalf("b: %v, want FARM_FULL (queued)", err)
	}
	_, err := f.NewBackend("c").Tabs(ctx)
	ee := endpointErr(t, err, farm.Token())
	if ee.Reason != backend.FarmFull || ee.Status != 429 || ee.Phase != "handshake" {
		t.Errorf("c: %+v, want the farm full, HTTP 429 at the handshake", ee)
	}
	if l, err := farm.Pressure(ctx); err != nil || l.Queued != 1 {
		t.Errorf("farm load %+v, %v; want 1 queued", l, err)
	}
}

// Connect failures are told apart: a wrong token (401, through discovery
// and through the WebSocket), nothing listening (refused), an endpoint that
// accepts and never answers (timeout, at discovery or the handshake). The
// token is never in the error.
func TestEndpointFailuresToldApart(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{})
	ctx := backendtest.Context(t, 60*time.Second)
	bad := "wrongtoken123"
	for _, url := range []string{
		strings.Replace(farm.URL(), farm.Token(), bad, 1),
		strings.Replace(farm.HTTPURL(), farm.Token(), bad, 1),
	} {
		b := endpoint.New(endpoint.Options{URL: url, Wait: 5 * time.Second})
		_, err := b.Tabs(ctx)
		ee := endpointErr(t, err, bad)
		if ee.Reason != backend.EndpointAuth || ee.Status != 401 {
			t.Errorf("%s: %+v, want auth 401", redact.Endpoint(url), ee)
		}
		_ = b.Close()
	}
	if l, err := farm.Pressure(ctx); err != nil || l.Running != 0 || l.Queued != 0 {
		t.Errorf("after refused tokens the farm has %+v, %v; want nothing", l, err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	b := endpoint.New(endpoint.Options{URL: "ws://" + closed + "/?token=" + bad})
	_, err = b.Tabs(ctx)
	if ee := endpointErr(t, err, bad); ee.Reason != backend.EndpointRefused {
		t.Errorf("closed port: %+v, want refused", ee)
	}
	_ = b.Close()

	// A listener that takes connections and says nothing.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	for _, c := range []struct{ url, phase string }{
		{"http://" + silent.Addr().String() + "/?token=" + bad, "discovery"},
		{"ws://" + silent.Addr().String() + "/?token=" + bad, "handshake"},
	} {
		b := endpoint.New(endpoint.Options{URL: c.url, Wait: time.Second})
		// A connect that is not held (discovery) is waited for until the
		// call must answer.
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := b.Tabs(cctx)
		cancel()
		if ee := endpointErr(t, err, bad); ee.Reason != backend.EndpointTimeout || ee.Phase != c.phase {
			t.Errorf("%s: %+v, want a timeout at %s", c.phase, ee, c.phase)
		}
		_ = b.Close()
	}
}

// The farm restarted mid-session: the connection drops with every browser;
// the next call connects again and gets a new one.
func TestBrowserlessRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	farm := farmtest.StartBrowserless(t, farmtest.BrowserlessOptions{Concurrent: 2})
	ctx := backendtest.Context(t, 120*time.Second)
	f := endpoint.NewFarm(endpoint.Options{URL: farm.URL()})
	t.Cleanup(func() { _ = f.Close() })
	a := f.NewBackend("a")
	ta, err := a.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	farm.Restart(syscall.SIGKILL)
	tabs, err := a.Tabs(ctx)
	if err != nil {
		t.Fatalf("the call after the restart: %v", err)
	}
	if hasTab(tabs, ta.ID) {
		t.Errorf("the tab of the browser before the restart is listed: %+v", tabs)
	}
	if _, err := farm.WaitLoad(ctx, "1 running", func(l farmtest.Load) bool { return l.Running == 1 }); err != nil {
		t.Fatal(err)
	}
}
