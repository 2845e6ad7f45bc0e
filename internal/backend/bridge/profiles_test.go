package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
)

// connect admits a fake extension of profile id with name ("" sends no
// profile_name, as an older extension does) and returns it with its hello
// answer.
func connect(t *testing.T, s *bridge.Server, id, name string) (*fakeExt, map[string]any) {
	t.Helper()
	f, err := dial(t, s, "chrome-extension://"+extID)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := bridge.Proof(secret, f.nonce)
	if err != nil {
		t.Fatal(err)
	}
	hello := map[string]any{"type": "hello", "protocol": bridge.ProtocolVersion, "extension_version": "0.1.0", "profile_id": id,
		"user_agent": "Mozilla/5.0 Chrome/156.0.0.0 Safari/537.36", "proof": proof}
	if name != "" {
		hello["profile_name"] = name
	}
	f.send(t, hello)
	return f, f.read(t)
}

func waitProfiles(t *testing.T, s *bridge.Server, n int) []bridge.Hello {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hs := s.Profiles()
		if len(hs) == n {
			return hs
		}
		if time.Now().After(deadline) {
			t.Fatalf("profiles = %+v, want %d", hs, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSeveralProfilesAreAdmittedAndSelected(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	for _, p := range []struct{ id, name string }{
		{"1a2b3c4d00000000", "chrome-1a2b"},
		{"9f00aaaa11111111", "Edge Work"},
		{"9f01bbbb22222222", ""}, // an older extension: no name
	} {
		if _, m := connect(t, s, p.id, p.name); m["type"] != "welcome" {
			t.Fatalf("profile %s: %v", p.id, m)
		}
	}
	hs := waitProfiles(t, s, 3)
	names := []string{hs[0].ProfileName, hs[1].ProfileName, hs[2].ProfileName}
	if fmt.Sprint(names) != "[chrome-1a2b chrome-9f01 Edge Work]" {
		t.Errorf("profile names = %q, want the sent names and one derived from the id, sorted", names)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// No selector with several connected: refused at once, with the choices.
	_, err := s.Relay(ctx, "")
	var pe *bridge.ProfileError
	if !errors.Is(err, bridge.ErrAmbiguousProfile) || !errors.As(err, &pe) || len(pe.Connected) != 3 {
		t.Fatalf("Relay(\"\") = %v, want ErrAmbiguousProfile listing 3 profiles", err)
	}
	for _, want := range []string{"3 browser profiles are connected", "chrome-1a2b (id 1a2b3c4d)", "Edge Work (id 9f00aaaa)", "chrome-9f01 (id 9f01bbbb)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ambiguity message %q lacks %q", err, want)
		}
	}
	if _, err := s.Current(""); !errors.Is(err, bridge.ErrAmbiguousProfile) {
		t.Errorf("Current(\"\") = %v, want ErrAmbiguousProfile", err)
	}

	cases := []struct {
		sel, want string // want: the profile id chosen; "" an ambiguity
	}{
		{"chrome-1a2b", "1a2b3c4d00000000"},
		{"EDGE WORK", "9f00aaaa11111111"},
		{"9f01bbbb22222222", "9f01bbbb22222222"},
		{"1a", "1a2b3c4d00000000"},
		{"9F00", "9f00aaaa11111111"},
		{"9f0", ""},
	}
	for _, c := range cases {
		r, err := s.Relay(ctx, c.sel)
		if c.want == "" {
			if !errors.Is(err, bridge.ErrAmbiguousProfile) || !strings.Contains(err.Error(), `"9f0" matches 2 connected profiles`) {
				t.Errorf("Relay(%q) = %v, want an ambiguity between the two 9f0 ids", c.sel, err)
			}
			continue
		}
		if err != nil || r.Hello().ProfileID != c.want {
			t.Errorf("Relay(%q) = %v, %v; want profile %s", c.sel, r, err, c.want)
		}
		if cur, err := s.Current(c.sel); err != nil || cur != r {
			t.Errorf("Current(%q) = %v, %v; want the relay Relay gave", c.sel, cur, err)
		}
	}

	// A profile that is not connected: waited for, then named with the
	// ones that are.
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	_, err = s.Relay(short, "home")
	if !errors.Is(err, bridge.ErrDisconnected) || errors.Is(err, bridge.ErrAmbiguousProfile) ||
		!strings.Contains(err.Error(), `"home" is not connected (connected: chrome-1a2b (id 1a2b3c4d)`) {
		t.Errorf("Relay(home) = %v, want not connected, with the connected ones", err)
	}
	if _, err := s.Current("home"); !errors.Is(err, bridge.ErrDisconnected) {
		t.Errorf("Current(home) = %v, want ErrDisconnected", err)
	}
}

func TestSelectedProfileIsWaitedFor(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	if _, m := connect(t, s, "aaaa0000", "work"); m["type"] != "welcome" {
		t.Fatal(m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		r, err := s.Relay(ctx, "home")
		if err == nil && r.Hello().ProfileID != "bbbb0000" {
			err = fmt.Errorf("got profile %s", r.Hello().ProfileID)
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Relay(home) returned before home connected: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, m := connect(t, s, "bbbb0000", "home"); m["type"] != "welcome" {
		t.Fatal(m)
	}
	if err := <-got; err != nil {
		t.Errorf("Relay(home) once it connected: %v", err)
	}
}

func TestProfileDuplicatesNamesAndCap(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	if _, m := connect(t, s, "p0", "work"); m["type"] != "welcome" {
		t.Fatal(m)
	}
	// The same profile id twice: refused as a duplicate.
	f, m := connect(t, s, "p0", "work")
	if m["type"] != "refused" || m["reason"] != "duplicate" || !strings.Contains(m["message"].(string), "already connected") {
		t.Errorf("same profile id again: %v", m)
	}
	if code := f.read(t)["close_code"]; code != float64(4003) {
		t.Errorf("close code %v, want 4003", code)
	}
	// Another profile with the same name (and a name to clean): told apart.
	if _, m := connect(t, s, "p1", "  Work "); m["type"] != "welcome" {
		t.Fatal(m)
	}
	if _, m := connect(t, s, "p2", "a/b<c>"); m["type"] != "welcome" {
		t.Fatal(m)
	}
	hs := waitProfiles(t, s, 3)
	var names []string
	for _, h := range hs {
		names = append(names, h.ProfileName)
	}
	if fmt.Sprint(names) != "[a-b-c- work Work-2]" {
		t.Errorf("names = %q, want the cleaned name and the second work as Work-2", names)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r, err := s.Relay(ctx, "work-2"); err != nil || r.Hello().ProfileID != "p1" {
		t.Errorf("Relay(work-2) = %v, %v", r, err)
	}
	// Up to MaxProfiles; one more is refused and told which are connected.
	for i := 3; i < bridge.MaxProfiles; i++ {
		if _, m := connect(t, s, fmt.Sprintf("p%d", i), ""); m["type"] != "welcome" {
			t.Fatalf("profile %d: %v", i, m)
		}
	}
	waitProfiles(t, s, bridge.MaxProfiles)
	f, m = connect(t, s, "p99", "one-too-many")
	if m["type"] != "refused" || m["reason"] != "duplicate" || !strings.Contains(m["message"].(string), fmt.Sprintf("%d browser profiles are connected", bridge.MaxProfiles)) {
		t.Errorf("profile over the cap: %v", m)
	}
	if code := f.read(t)["close_code"]; code != float64(4003) {
		t.Errorf("close code %v, want 4003", code)
	}
}

func TestBackendAmbiguousProfile(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	// Long enough for a new connection to settle (400 ms).
	b := bridge.New(s, bridge.BackendOptions{ConnectWait: time.Second})
	for _, p := range []struct{ id, name string }{{"1a2b0000", "chrome-1a2b"}, {"9f000000", "edge-9f00"}} {
		f, m := connect(t, s, p.id, p.name)
		if m["type"] != "welcome" {
			t.Fatal(m)
		}
		go func() { // the extension: answers tabs.list with one tab
			for {
				m := f.read(t)
				if m["op"] == nil {
					return
				}
				f.send(t, map[string]any{"id": m["id"], "result": map[string]any{"tabs": []any{map[string]any{"tabId": 7, "url": "https://" + p.name + "/"}}}})
			}
		}()
	}
	waitProfiles(t, s, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := b.Tabs(ctx)
	var pe *backend.ProfileError
	if !errors.Is(err, backend.ErrAmbiguousProfile) || !errors.As(err, &pe) || len(pe.Profiles) != 2 || pe.Profiles[0].Name != "chrome-1a2b" || pe.Profiles[1].ID != "9f000000" {
		t.Fatalf("Tabs without a profile = %v, want a ProfileError listing both", err)
	}
	var used []string
	edge := b.For(func() backend.Scope {
		return backend.Scope{Profile: "edge-9f00", Used: func(id string) { used = append(used, id) }}
	})
	tabs, err := edge.Tabs(ctx)
	if err != nil || len(tabs) != 1 || tabs[0].URL != "https://edge-9f00/" {
		t.Errorf("Tabs on edge-9f00 = %+v, %v", tabs, err)
	}
	if fmt.Sprint(used) != "[9f000000]" {
		t.Errorf("profiles reported used = %v, want [9f000000]", used)
	}
	_, err = on(b, "home").Tabs(ctx)
	if !errors.Is(err, backend.ErrBridgeDisconnected) || !strings.Contains(err.Error(), `"home" is not connected`) {
		t.Errorf("Tabs on a profile not connected = %v, want BRIDGE_DISCONNECTED naming it", err)
	}
	info := b.Info()
	if len(info.Profiles) != 2 || info.BrowserProfile != "" || info.Profiles[1].Name != "edge-9f00" || info.Profiles[1].Browser != "Chrome/156.0.0.0" {
		t.Errorf("Info = %+v, want both profiles listed", info)
	}
}

// Tab ids are per browser: a Done pressed for tab 7 of one profile ends
// that profile's hand-off only, never the one of tab 7 of another.
func TestHandoffsAreKeptPerProfile(t *testing.T) {
	s := listen(t, bridge.Options{Secret: secret})
	b := bridge.New(s, bridge.BackendOptions{ConnectWait: time.Second})
	exts := map[string]*fakeExt{}
	for _, p := range []struct{ id, name string }{{"aaaa0000", "work"}, {"bbbb0000", "home"}} {
		f, m := connect(t, s, p.id, p.name)
		if m["type"] != "welcome" {
			t.Fatal(m)
		}
		exts[p.name] = f
		go func() { // the extension: answers every request
			for {
				m := f.read(t)
				if m["op"] == nil {
					return
				}
				f.send(t, map[string]any{"id": m["id"], "result": map[string]any{}})
			}
		}()
	}
	waitProfiles(t, s, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	work, err := on(b, "work").(backend.Handoff).StartHandoff(ctx, "7", "log in")
	if err != nil {
		t.Fatal(err)
	}
	home, err := on(b, "home").(backend.Handoff).StartHandoff(ctx, "7", "log in")
	if err != nil {
		t.Fatal(err)
	}
	exts["home"].send(t, map[string]any{"event": "handoff.done", "params": map[string]any{"tabId": 7}})
	select {
	case <-home:
	case <-ctx.Done():
		t.Fatal("Done in home did not end home's hand-off")
	}
	select {
	case <-work:
		t.Error("Done for tab 7 in home ended work's hand-off of its own tab 7")
	case <-time.After(200 * time.Millisecond):
	}
	if err := on(b, "work").(backend.Handoff).EndHandoff(ctx, "7"); err != nil {
		t.Errorf("EndHandoff: %v", err)
	}
}

// on is the backend as a session on the browser profile sel sees it.
func on(b *bridge.Backend, sel string) backend.Backend {
	return b.For(func() backend.Scope { return backend.Scope{Profile: sel} })
}
