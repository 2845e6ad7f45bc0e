package backendtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// StuckServer is an HTTP server whose every request hangs until the client
// gives it up: Started is closed when the first request arrives, Aborted
// when the client has given up a request (the browser stopped loading).
type StuckServer struct {
	URL     string
	Started <-chan struct{}
	Aborted <-chan struct{}
}

// NewStuckServer starts a StuckServer, closed when t ends.
func NewStuckServer(t testing.TB) *StuckServer {
	started, aborted := make(chan struct{}), make(chan struct{})
	var once, onceAbort sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(started) })
		select {
		case <-r.Context().Done():
			onceAbort.Do(func() { close(aborted) })
		case <-time.After(30 * time.Second):
			w.Write([]byte("<title>Slow</title>late"))
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return &StuckServer{URL: srv.URL, Started: started, Aborted: aborted}
}

// CancelWhenStarted cancels once the server has a request (and a moment
// more, for the browser to be busy with it), or after a bound.
func (s *StuckServer) CancelWhenStarted(cancel func()) {
	go func() {
		select {
		case <-s.Started:
			time.Sleep(200 * time.Millisecond)
		case <-time.After(Timeout(10 * time.Second)):
		}
		cancel()
	}()
}
