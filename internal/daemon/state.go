// Package daemon holds what the per-user webpilot daemon (webpilot serve
// --daemon) and the stdio proxies that reach it (webpilot mcp) share: the
// state file that says where the daemon listens and with which token, the
// locks that keep it to one daemon per user, and the daemon's own HTTP
// endpoints a proxy uses (health, retire).
package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// File names in Dir.
const (
	// StateFile says where the running daemon listens: State as JSON,
	// mode 0600 (it holds the token).
	StateFile = "daemon.json"
	// RunLock is held by the running daemon for its whole life: a daemon
	// that cannot take it exits, so there is never a second one, and a
	// state file whose lock is free is stale.
	RunLock = "daemon.lock"
	// StartLock is held by a proxy while it looks for a daemon and, when
	// there is none, starts one and waits for it: two proxies started at
	// once end up with one daemon.
	StartLock = "daemon-start.lock"
	// LogFile is the daemon's log (rotated by size).
	LogFile = "daemon.log"
	// StartErrFile takes what a starting daemon prints before its log is
	// open (a bad flag, a panic); it is truncated at every start.
	StartErrFile = "daemon-start.err"
)

// State describes a running daemon.
type State struct {
	PID     int       `json:"pid"`
	Addr    string    `json:"addr"`  // host:port on loopback
	Token   string    `json:"token"` // bearer token of every request
	Version string    `json:"version"`
	Config  string    `json:"config"` // fingerprint of the settings it runs with
	Started time.Time `json:"started"`
	// Settings are the browser settings it runs with (key → text, those
	// not at their default): webpilot daemon restart starts the next one
	// with them.
	Settings map[string]string `json:"settings,omitempty"`
}

// URL is the daemon's MCP endpoint.
func (s State) URL() string { return "http://" + s.Addr + "/mcp" }

// Dir is where the state file and locks live: webpilot's folder in the
// user config dir (on Linux $XDG_CONFIG_HOME/webpilot or
// ~/.config/webpilot).
func Dir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config dir for the daemon's state file: %w", err)
	}
	return filepath.Join(base, "webpilot"), nil
}

// NewToken returns a random bearer token (64 hex digits).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// ReadState reads the state file in dir; a missing file is
// os.ErrNotExist.
func ReadState(dir string) (State, error) {
	var st State
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("read %s: %w", filepath.Join(dir, StateFile), err)
	}
	if st.Addr == "" || st.Token == "" {
		return st, fmt.Errorf("read %s: no address or token", filepath.Join(dir, StateFile))
	}
	return st, nil
}

// WriteState writes the state file in dir atomically with mode 0600 (the
// folder 0700), so no other user reads the token and no reader sees half a
// file.
func WriteState(dir string, st State) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the daemon's state dir: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, StateFile+".*")
	if err != nil {
		return fmt.Errorf("write the daemon's state file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write the daemon's state file: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write the daemon's state file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the daemon's state file: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, StateFile)); err != nil {
		return fmt.Errorf("write the daemon's state file: %w", err)
	}
	return nil
}

// RemoveState removes the state file in dir if it still describes the
// daemon with pid (a successor may have written its own).
func RemoveState(dir string, pid int) error {
	st, err := ReadState(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && st.PID != pid {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, StateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the daemon's state file: %w", err)
	}
	return nil
}
