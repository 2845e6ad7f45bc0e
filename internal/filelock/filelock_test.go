package filelock

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A lock is exclusive across holders, also within one process, and
// free again once released.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	l, ok, err := Try(path)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, ok2, err := Try(path); ok2 || err != nil {
		t.Errorf("second holder got the lock: %v %v", ok2, err)
	}
	if !Held(path) {
		t.Error("Held = false while held")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx, path); err == nil {
		t.Error("Acquire got a held lock")
	}
	l.Release()
	if Held(path) {
		t.Error("Held = true after release")
	}
}
