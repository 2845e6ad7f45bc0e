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
	"path/filepath"
	"strconv"
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
	port := fs.Int("bridge-port", bridge.DefaultPort, "loopback port the extension connects to (a port other than the default travels in the pairing code)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	listenPort, src, err := pairPort(fs, *port)
	if err != nil {
		return err
	}
	code := newCode()
	// A running daemon pairs on its own bridge listener, so that it takes
	// the extension at once (and, with --backend auto, uses this Chrome).
	if dir, err := daemon.Dir(); err == nil {
		if st, err := daemon.Find(ctx, dir); err == nil {
			if dp := daemonBridgePort(st); src != "default" && dp != listenPort {
				fmt.Fprintf(stdout, "Note: the webpilot daemon (pid %d) runs with bridge port %d, so the pairing is on port %d, not on port %d of %s (`webpilot daemon stop` first to pair on %d).\n\n", st.PID, dp, dp, listenPort, sourceName("bridge-port", src), listenPort)
			}
			return pairThroughDaemon(ctx, st, code, stdout)
		} else if !errors.Is(err, daemon.ErrNotRunning) {
			return fmt.Errorf("pair: %w", err)
		}
	}
	srv, err := bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", listenPort), ExtensionIDs: extension.IDs(), ServerVersion: version})
	if err != nil {
		return fmt.Errorf("pair: %w (another webpilot, or another program, holds the bridge port %d: stop it or pass another --bridge-port, then pair again)", err, listenPort)
	}
	defer srv.Close()
	done := srv.ArmPairing(code, pairTTL)
	printCode(stdout, code, srv.Port())
	select {
	case secret, ok := <-done:
		if !ok {
			return fmt.Errorf("pair: the code expired; run `webpilot pair` again")
		}
		path, err := writeSecret(secret)
		if err != nil {
			return err
		}
		with := ""
		if listenPort != bridge.DefaultPort {
			with = fmt.Sprintf(" with --bridge-port %d", listenPort)
		}
		fmt.Fprintf(stdout, "Paired. The secret is stored in %s (readable by you only).\nNo webpilot daemon runs now: the next MCP client that starts webpilot%s (backend auto) drives this Chrome profile, and the extension connects then.\n", path, with)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pair: %w", ctx.Err())
	}
}

// pairPort is the bridge port `webpilot pair` pairs on, found as the other
// commands find it: --bridge-port (flagPort, when given), else
// WEBPILOT_BRIDGE_PORT, else bridge_port in the working directory's
// .webpilot.json, else the default; src says which ("flag", "env", "file"
// or "default").
func pairPort(fs *flag.FlagSet, flagPort int) (port int, src string, err error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "bridge-port" })
	text := ""
	switch {
	case given:
		src, text = "flag", strconv.Itoa(flagPort)
	case os.Getenv(envName("bridge-port")) != "":
		src, text = "env", os.Getenv(envName("bridge-port"))
	default:
		dir, _ := os.Getwd()
		file, err := readConfigFile(filepath.Join(dir, ".webpilot.json"))
		if err != nil {
			return 0, "", fmt.Errorf("pair: %w", err)
		}
		if v := file["bridge_port"]; v != "" {
			src, text = "file", v
		} else {
			return bridge.DefaultPort, "default", nil
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < 1 || n > 65535 {
		return 0, "", fmt.Errorf("%w: %s: %q is not a port number", errUsage, sourceName("bridge-port", src), text)
	}
	return n, src, nil
}

// pairingCode is the code as the user types it: code, with "@port" after
// it when port is not the default bridge port. The extension pairs on that
// port and dials it from then on; a code without a port means the default.
func pairingCode(code string, port int) string {
	if port == bridge.DefaultPort {
		return code
	}
	return fmt.Sprintf("%s@%d", code, port)
}

// printCode tells the user what to do with the code, armed on the bridge
// port port.
func printCode(stdout io.Writer, code string, port int) {
	fmt.Fprintf(stdout, "Pairing code: %s\n\nIn Chrome, click the webpilot extension's icon, type this code and press Pair.\n", pairingCode(code, port))
	if port != bridge.DefaultPort {
		fmt.Fprintf(stdout, "The bridge port is %d, not the default %d: type the code whole, \"@%d\" included (or type %s and put %d in the popup's \"Advanced: bridge port\"). The extension pairs on port %d and dials it from then on; its popup shows \"Port %d\".\nEvery webpilot that is to reach this Chrome needs the same port: --bridge-port %d in your MCP client's command (or WEBPILOT_BRIDGE_PORT=%d, or \"bridge_port\": %d in .webpilot.json).\n", port, bridge.DefaultPort, port, code, port, port, port, port, port, port)
	}
	fmt.Fprintf(stdout, "(No extension yet? `webpilot extension --out DIR`, then chrome://extensions → Developer mode → Load unpacked → DIR.)\nThe code is valid for %s. Waiting…\n", pairTTL)
}

// pairCommand is the `webpilot pair` that pairs on the bridge port port.
func pairCommand(port int) string {
	if port == bridge.DefaultPort {
		return "webpilot pair"
	}
	return fmt.Sprintf("webpilot pair --bridge-port %d", port)
}

// daemonBridgePort is the bridge port of the daemon of st: the one among
// its settings, or the default.
func daemonBridgePort(st daemon.State) int {
	if n, err := strconv.Atoi(strings.TrimSpace(st.Settings["bridge_port"])); err == nil && n > 0 && n <= 65535 {
		return n
	}
	return bridge.DefaultPort
}

// pairThroughDaemon pairs on the running daemon's bridge listener and says
// what the daemon does with the pairing.
func pairThroughDaemon(ctx context.Context, st daemon.State, code string, stdout io.Writer) error {
	// The code is shown once the daemon's listener takes it: an extension
	// given it sooner could find nothing listening yet. It carries the
	// daemon's bridge port, where the daemon arms it.
	p, err := daemon.Pair(ctx, st, code, pairTTL, func() { printCode(stdout, code, daemonBridgePort(st)) })
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
		srv, err = bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", a.cfg.BridgePort), ExtensionIDs: extension.IDs(),
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
	case a.cfg.Backend == "auto" && a.cfg.CDPEndpoint == "" && ownBrowserSetting(a.cfg) != "":
		// A browser of its own was asked for: never the user's Chrome
		// in its place.
		_ = srv.Close()
		out.Backend = a.backendKind()
		out.Message = "the running webpilot daemon was started for a browser of its own (isolated, or its own user_data_dir) and keeps it; to use this Chrome, stop it (`webpilot daemon stop`) and start your MCP clients without --isolated or --user-data-dir"
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
