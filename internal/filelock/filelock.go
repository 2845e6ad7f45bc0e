// Package filelock is an exclusive advisory lock on a file that the system
// drops when its holder ends, so that a killed process never leaves it stuck.
package filelock

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Lock is an exclusive advisory lock on a file, held until Release or the
// process ends (the system drops it then, so a killed holder never leaves
// it stuck).
type Lock struct{ f *os.File }

// Try takes the lock on path without waiting; ok is false when another
// holder has it.
func Try(path string) (l *Lock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("open lock %s: %w", path, err)
	}
	got, err := lockFile(f)
	if err != nil || !got {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, false, nil
	}
	return &Lock{f: f}, true, nil
}

// Acquire waits for the lock on path until ctx ends.
func Acquire(ctx context.Context, path string) (*Lock, error) {
	for {
		l, ok, err := Try(path)
		if err != nil || ok {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for lock %s: %w", path, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Held reports whether another holder has the lock on path now.
func Held(path string) bool {
	l, ok, err := Try(path)
	if err != nil {
		return false
	}
	if ok {
		l.Release()
	}
	return !ok
}

// Release gives the lock up.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlockFile(l.f)
	_ = l.f.Close()
	l.f = nil
}
