// Package logfile holds a log file that rotates by size: when a write
// would take it past its bound, the file becomes NAME.1 (NAME.1 becomes
// NAME.2, and so on, the oldest dropped) and a fresh NAME is started, so a
// server that runs for days keeps a bounded log.
package logfile

import (
	"fmt"
	"os"
	"sync"
)

// Defaults for Open.
const (
	DefaultMaxBytes = 10 << 20 // one file's bound
	DefaultKeep     = 3        // rotated files kept beside the current one
)

// File is a size-rotated log file; its Write is safe for concurrent use.
type File struct {
	mu   sync.Mutex
	path string
	max  int64
	keep int
	f    *os.File
	size int64
}

// Open opens (or creates, mode 0600) the log at path for appending, rotated
// when it would pass maxBytes, keeping keep older files (zero values: the
// defaults).
func Open(path string, maxBytes int64, keep int) (*File, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	l := &File{path: path, max: maxBytes, keep: keep}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log file: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its
// bound (a record is never split between two files).
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate shifts NAME.k to NAME.k+1 (dropping NAME.keep), NAME to NAME.1,
// and starts a fresh NAME.
func (l *File) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("rotate log file: %w", err)
	}
	l.f = nil
	_ = os.Remove(fmt.Sprintf("%s.%d", l.path, l.keep))
	for k := l.keep - 1; k >= 1; k-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", l.path, k), fmt.Sprintf("%s.%d", l.path, k+1))
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("rotate log file: %w", err)
	}
	return l.open()
}

// Close closes the current file.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
