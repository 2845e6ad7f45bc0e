package backend_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

type res struct{ n int }

// A Lazy starts once for concurrent callers, starts again once the
// resource is gone, keeps no error, and stops for good.
func TestLazy(t *testing.T) {
	closing, closeNow := context.WithCancel(context.Background())
	var mu sync.Mutex
	var cur *res
	var closed bool
	var starts atomic.Int32
	fail := true
	l := backend.NewLazy[*res]()
	l.Waiting, l.Name, l.Closing = "test: waiting", "test", closing
	l.Current = func() (*res, error) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return nil, fmt.Errorf("test: %w", backend.ErrClosed)
		}
		return cur, nil
	}
	l.Renew = func(ctx context.Context) (*res, error) {
		n := starts.Add(1)
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		if fail {
			fail = false
			return nil, errors.New("boom")
		}
		cur = &res{int(n)}
		return cur, nil
	}
	ctx := context.Background()
	if _, err := l.Get(ctx); err == nil || err.Error() != "boom" {
		t.Fatalf("first start: %v", err)
	}
	var wg sync.WaitGroup
	got := make([]*res, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = l.Get(ctx) })
	}
	wg.Wait()
	for _, r := range got {
		if r == nil || r != got[0] {
			t.Fatalf("concurrent Gets got %v", got)
		}
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("%d starts, want 2 (one failed, one shared)", n)
	}
	mu.Lock()
	cur = nil // gone: the next Get starts again
	mu.Unlock()
	if r, err := l.Get(ctx); err != nil || r == got[0] {
		t.Errorf("after the resource went: %v, %v", r, err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	mu.Lock()
	cur = nil
	mu.Unlock()
	l.Stop()
	if _, err := l.Get(done); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v", err)
	}
	closeNow()
	if _, err := l.Get(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("after Stop and closing: %v", err)
	}
	mu.Lock()
	closed = true
	mu.Unlock()
	if _, err := l.Get(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("closed: %v", err)
	}
}
