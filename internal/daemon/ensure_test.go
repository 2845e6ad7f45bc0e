package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

// fake is a stand-in daemon at the seam the proxies see: it holds the run
// lock, writes the state file, answers /health and RetirePath, and when it
// retires it removes its state and lets the lock go.
type fake struct {
	t        *testing.T
	dir      string
	srv      *httptest.Server
	lock     *filelock.Lock
	st       State
	sessions int
	mu       sync.Mutex
	retired  bool
}

func startFake(t *testing.T, dir, version, config string, sessions int) *fake {
	t.Helper()
	lock, ok, err := filelock.Try(filepath.Join(dir, RunLock))
	if err != nil || !ok {
		t.Fatalf("fake daemon: run lock: ok=%v err=%v", ok, err)
	}
	f := &fake{t: t, dir: dir, lock: lock, sessions: sessions}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.st = State{PID: os.Getpid(), Addr: strings.TrimPrefix(f.srv.URL, "http://"), Token: NewToken(), Version: version, Config: config, Started: time.Now()}
	if err := WriteState(dir, f.st); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stop)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+f.st.Token {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/health":
		_ = json.NewEncoder(w).Encode(Health{Version: f.st.Version, Sessions: f.sessions, Retiring: f.retired})
	case RetirePath:
		if f.sessions > 0 {
			_ = json.NewEncoder(w).Encode(Retired{Sessions: f.sessions})
			return
		}
		f.retired = true
		_ = json.NewEncoder(w).Encode(Retired{Retiring: true})
		go func() {
			time.Sleep(100 * time.Millisecond)
			f.stop()
		}()
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) stop() {
	_ = RemoveState(f.dir, f.st.PID)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lock.Release()
	go f.srv.Close()
}

// starter is an EnsureOptions.Start that starts a fake of version after a
// delay, counting the starts.
type starter struct {
	t       *testing.T
	dir     string
	version string
	n       atomic.Int32
}

func (s *starter) start() (<-chan error, error) {
	s.n.Add(1)
	go func() {
		time.Sleep(150 * time.Millisecond)
		startFake(s.t, s.dir, s.version, "cfg", 0)
	}()
	return make(chan error), nil
}

func opts(dir, version string, start func() (<-chan error, error), logf func(string, ...any)) EnsureOptions {
	return EnsureOptions{Dir: dir, Version: version, Config: "cfg", Start: start, Logf: logf, Timeout: 20 * time.Second}
}

// Five proxies at once start one daemon, and all get it.
func TestEnsureStartsOneDaemon(t *testing.T) {
	dir := t.TempDir()
	s := &starter{t: t, dir: dir, version: "v1"}
	var wg sync.WaitGroup
	states := make([]State, 5)
	errs := make([]error, 5)
	for i := range states {
		wg.Go(func() { states[i], errs[i] = Ensure(context.Background(), opts(dir, "v1", s.start, nil)) })
	}
	wg.Wait()
	for i := range states {
		if errs[i] != nil || states[i].Addr == "" || states[i].Addr != states[0].Addr {
			t.Errorf("proxy %d: %+v %v (first: %s)", i, states[i], errs[i], states[0].Addr)
		}
	}
	if n := s.n.Load(); n != 1 {
		t.Errorf("%d daemons started, want 1", n)
	}
}

// A state file whose run lock nobody holds is stale: a new daemon starts.
func TestEnsureStaleState(t *testing.T) {
	dir := t.TempDir()
	if err := WriteState(dir, State{PID: 1, Addr: "127.0.0.1:1", Token: "t", Version: "v1", Config: "cfg"}); err != nil {
		t.Fatal(err)
	}
	s := &starter{t: t, dir: dir, version: "v1"}
	st, err := Ensure(context.Background(), opts(dir, "v1", s.start, nil))
	if err != nil || st.Addr == "127.0.0.1:1" || s.n.Load() != 1 {
		t.Errorf("got %+v %v, %d starts; want a new daemon", st, err, s.n.Load())
	}
}

// A daemon of another version (or with other settings) is replaced when it
// has no client, and kept, with a note, while it has some.
func TestEnsureOtherVersion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sessions int
		replaced bool
		note     string
	}{
		{"idle", 0, true, "replacing the idle webpilot daemon"},
		{"busy", 2, false, "serves 2 other client(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old := startFake(t, dir, "v0", "cfg", tc.sessions)
			s := &starter{t: t, dir: dir, version: "v1"}
			var notes []string
			var mu sync.Mutex
			logf := func(f string, a ...any) {
				mu.Lock()
				notes = append(notes, fmt.Sprintf(f, a...))
				mu.Unlock()
			}
			st, err := Ensure(context.Background(), opts(dir, "v1", s.start, logf))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Version == "v1"; got != tc.replaced {
				t.Errorf("version %s; replaced=%v, want %v", st.Version, got, tc.replaced)
			}
			if tc.replaced && (s.n.Load() != 1 || !old.retired) {
				t.Errorf("starts %d, old retired %v", s.n.Load(), old.retired)
			}
			if !tc.replaced && st.Addr != old.st.Addr {
				t.Errorf("the busy old daemon was not kept: %+v", st)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(strings.Join(notes, "\n"), tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

// A daemon that exits while starting makes Ensure fail with what it
// printed.
func TestEnsureStartFailure(t *testing.T) {
	dir := t.TempDir()
	start := func() (<-chan error, error) {
		_ = os.WriteFile(filepath.Join(dir, StartErrFile), []byte("webpilot: --browser: no such file\n"), 0o600)
		ch := make(chan error, 1)
		ch <- errors.New("exit status 2")
		return ch, nil
	}
	_, err := Ensure(context.Background(), opts(dir, "v1", start, nil))
	if err == nil || !strings.Contains(err.Error(), "no such file") || !strings.Contains(err.Error(), LogFile) {
		t.Errorf("err = %v, want the daemon's own message and the log's path", err)
	}
}

// The state file is private to the user, read back whole, and removed only
// by the daemon it describes.
func TestStateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "webpilot")
	want := State{PID: 42, Addr: "127.0.0.1:5555", Token: NewToken(), Version: "v1", Config: "abc", Started: time.Now().UTC().Truncate(time.Second),
		Settings: map[string]string{"isolated": "true"}}
	if err := WriteState(dir, want); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, StateFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v, want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v %v, want 0700", di.Mode(), err)
	}
	got, err := ReadState(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v %v, want %+v", got, err, want)
	}
	if err := RemoveState(dir, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); err != nil {
		t.Errorf("another pid removed the state file: %v", err)
	}
	if err := RemoveState(dir, 42); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after removal: %v", err)
	}
	if len(want.Token) != 64 || NewToken() == want.Token {
		t.Errorf("token %q", want.Token)
	}
}
