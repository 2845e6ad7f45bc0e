package backend

import (
	"context"
	"fmt"
)

// Lazy is the start on first use that the launch and endpoint backends
// share: a resource (a launched browser, a connection) made when a call
// first needs it and made again once it is gone, one start at a time.
//
// Get returns the live resource at once; otherwise it waits for the start
// slot (honouring its ctx and the backend's closing), looks again (a start
// that finished meanwhile is used, its error not remembered: the next call
// tries again), and runs Renew. Stop takes the slot for good: it waits out
// a start in progress, and every later Get fails with what Current says of
// a closed backend. The zero Lazy is not usable: make it with NewLazy.
type Lazy[T comparable] struct {
	// Current is the live resource, the zero T when there is none, and an
	// error (ErrClosed, wrapped) once the backend is closed.
	Current func() (T, error)
	// Renew replaces a dead resource, or none, with a new one; it runs
	// holding the start slot.
	Renew func(ctx context.Context) (T, error)
	// Waiting says what a caller waits for, for the error of a ctx that
	// ends first: "launch: waiting for the browser to start".
	Waiting string
	// Name prefixes ErrClosed when the backend closes during the wait:
	// "launch".
	Name string
	// Closing ends when the backend starts to close.
	Closing context.Context

	slot chan struct{} // capacity 1: held through a start; Stop keeps it
}

// NewLazy returns a Lazy with its start slot; set its fields before use.
func NewLazy[T comparable]() *Lazy[T] {
	return &Lazy[T]{slot: make(chan struct{}, 1)}
}

// Get returns the live resource, starting one when there is none.
func (l *Lazy[T]) Get(ctx context.Context) (T, error) {
	var zero T
	if v, err := l.Current(); v != zero || err != nil {
		return v, err
	}
	select {
	case l.slot <- struct{}{}:
	case <-ctx.Done():
		return zero, fmt.Errorf("%s: %w", l.Waiting, ctx.Err())
	case <-l.Closing.Done():
		return zero, fmt.Errorf("%s: %w", l.Name, ErrClosed)
	}
	defer func() { <-l.slot }()
	if v, err := l.Current(); v != zero || err != nil {
		return v, err
	}
	return l.Renew(ctx)
}

// Stop waits out a start in progress and keeps any other from starting;
// the backend's Close calls it once, after Closing has ended.
func (l *Lazy[T]) Stop() { l.slot <- struct{}{} }
