package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
)

// pairTTL is how long a pairing code is valid.
const pairTTL = 5 * time.Minute

// codeAlphabet leaves out look-alikes (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// runPair prints a one-time code, waits for the extension to present it,
// and stores the secret they agree on.
func runPair(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webpilot pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("bridge-port", bridge.DefaultPort, "loopback port the extension connects to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	code := newCode()
	// A running daemon pairs on its own bridge listener, so that it takes
	// the extension at once (and, with --backend auto, uses this Chrome).
	if dir, err := daemon.Dir(); err == nil {
		if st, err := daemon.Find(ctx, dir); err == nil {
			return pairThroughDaemon(ctx, st, code, stdout)
		} else if !errors.Is(err, daemon.ErrNotRunning) {
			return fmt.Errorf("pair: %w", err)
		}
	}
	srv, err := bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", *port), ExtensionID: extension.ID, ServerVersion: version})
	if err != nil {
		return fmt.Errorf("pair: %w (another webpilot, or another program, holds the bridge port: stop it or pass --bridge-port, then pair again)", err)
	}
	defer srv.Close()
	done := srv.ArmPairing(code, pairTTL)
	printCode(stdout, code)
	select {
	case secret, ok := <-done:
		if !ok {
			return fmt.Errorf("pair: the code expired; run `webpilot pair` again")
		}
		path, err := writeSecret(secret)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Paired. The secret is stored in %s (readable by you only).\nNo webpilot daemon runs now: the next MCP client that starts webpilot (backend auto) drives this Chrome profile, and the extension connects then.\n", path)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pair: %w", ctx.Err())
	}
}

// printCode tells the user what to do with the code.
func printCode(stdout io.Writer, code string) {
	fmt.Fprintf(stdout, "Pairing code: %s\n\nIn Chrome, click the webpilot extension's icon, type this code and press Pair.\n(No extension yet? `webpilot extension --out DIR`, then chrome://extensions → Developer mode → Load unpacked → DIR.)\nThe code is valid for %s. Waiting…\n", code, pairTTL)
}

// pairThroughDaemon pairs on the running daemon's bridge listener and says
// what the daemon does with the pairing.
func pairThroughDaemon(ctx context.Context, st daemon.State, code string, stdout io.Writer) error {
	// The code is shown once the daemon's listener takes it: an extension
	// given it sooner could find nothing listening yet.
	p, err := daemon.Pair(ctx, st, code, pairTTL, func() { printCode(stdout, code) })
	if err != nil {
		return fmt.Errorf("pair (through the webpilot daemon, pid %d): %w", st.PID, err)
	}
	fmt.Fprintf(stdout, "Paired. The secret is stored in %s (readable by you only).\n%s.\nThe extension connects to the daemon (pid %d, bridge port %d) at once: its popup shows it connected.\n", p.SecretFile, capitalize(p.Message), p.PID, p.BridgePort)
	return nil
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// newCode makes a code like K7Q4-M2XD.
func newCode() string {
	b := make([]byte, 0, 9)
	for i := range 8 {
		if i == 4 {
			b = append(b, '-')
		}
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(codeAlphabet))))
		b = append(b, codeAlphabet[n.Int64()])
	}
	return string(b)
}

// pairedNote is what a session made before a pairing through the daemon
// is told on its next call.
const pairedNote = "webpilot was just paired with the extension in your Chrome: sessions made from now on use that Chrome (the bridge); this session keeps its tabs in the browser webpilot launched until it is closed (browser_close), and its next call after that is in your Chrome"

// pairHere is the daemon's side of `webpilot pair` (POST /daemon/pair): it
// arms code on the daemon's bridge listener, opening one on the bridge port
// when the daemon drives a launched browser, waits up to ttl (or ctx) for
// the extension to present it, stores the secret, and, with --backend auto,
// makes the user's Chrome the browser of the sessions made from then on.
// The extension, paired on this listener, connects again at once and its
// popup says connected.
func (a *app) pairHere(ctx context.Context, code string, ttl time.Duration, armed func()) (daemon.Paired, error) {
	a.mu.Lock()
	srv := a.bridgeSrv
	a.mu.Unlock()
	own := false
	if srv == nil {
		var err error
		srv, err = bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", a.cfg.BridgePort), ExtensionID: extension.ID,
			ServerVersion: version, Logger: a.log.With("component", "bridge")})
		if err != nil {
			return daemon.Paired{}, fmt.Errorf("the daemon could not listen on the bridge port %d: %w (another webpilot pair, or another program, holds it)", a.cfg.BridgePort, err)
		}
		own = true
	}
	done := srv.ArmPairing(code, ttl)
	armed()
	var secret []byte
	select {
	case s, ok := <-done:
		if !ok {
			if own {
				_ = srv.Close()
			}
			return daemon.Paired{}, fmt.Errorf("the code expired; run `webpilot pair` again")
		}
		secret = s
	case <-ctx.Done():
		if own {
			_ = srv.Close()
		}
		return daemon.Paired{}, fmt.Errorf("pairing stopped: %w", ctx.Err())
	}
	path, err := writeSecret(secret)
	if err != nil {
		if own {
			_ = srv.Close()
		}
		return daemon.Paired{}, err
	}
	out := daemon.Paired{Paired: true, SecretFile: path, BridgePort: srv.Port(), PID: os.Getpid()}
	switch {
	case !own:
		out.Backend = a.backendKind()
		out.Message = "the running webpilot daemon drives this Chrome profile through the extension already; the new secret holds from now on"
	case a.cfg.Backend == "auto" && a.cfg.CDPEndpoint == "":
		be := bridge.New(srv, bridge.BackendOptions{CloseServer: true, Logger: a.log.With("component", "bridge")})
		kind := "bridge (auto: an extension was paired while the daemon ran)"
		a.mu.Lock()
		a.bridgeSrv, a.kind = srv, kind
		a.mu.Unlock()
		a.manager.SetBackend(be, pairedNote)
		out.Backend, out.Switched = kind, true
		out.Message = "the running webpilot daemon now drives this Chrome profile: every session made from now on works in it; sessions that already have tabs in the launched browser keep them until closed, and are told so"
		a.log.Info("paired: new sessions use the bridge", "port", srv.Port())
	default:
		_ = srv.Close()
		out.Backend = a.backendKind()
		out.Message = fmt.Sprintf("the running webpilot daemon was started with --backend %s and keeps its browser; `webpilot daemon restart --backend auto` (or closing its clients) lets the next daemon use this Chrome", a.cfg.Backend)
		if a.cfg.CDPEndpoint != "" {
			out.Message = "the running webpilot daemon drives a remote browser (--cdp-endpoint) and keeps it; clients without --cdp-endpoint use this Chrome once the daemon restarts"
		}
	}
	return out, nil
}
