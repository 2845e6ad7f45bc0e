package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

const daemonUsage = `Usage: webpilot daemon status|stop|restart|end|logs

The per-user daemon is the one webpilot that every "webpilot mcp" (and
"webpilot call", "webpilot recipe run") of this user reaches: it owns the
browser. It starts with the first client and exits 10 minutes after the
last one leaves.

  status [--json]      pid, version, uptime, backend and browser, its browser
                       settings and where they came from, the connected
                       clients and their sessions, idle exit
  stop                 stop it now: calls running get a few seconds, the
                       browser closes, the state file goes (clients start a
                       new one on their next call)
  restart [flags]      stop, then start it again with this binary and the same
                       browser settings; a browser flag given here replaces
                       its one (WEBPILOT_* variables and .webpilot.json here
                       do not)
  end NAME…            end a client (its id, client-…, as status lists it:
                       its calls are cut, its MCP session is closed and its
                       browser sessions removed, giving a farm's browser
                       back) or a browser session (any but one a connected
                       client works in by default)
  logs [-n N] [-f]     print the last N lines of its log (default 100); -f
                       follows it
`

// runDaemonCmd is `webpilot daemon status|stop|restart|end|logs`.
func runDaemonCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, daemonUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: daemon: no subcommand given", errUsage)
		}
		return nil
	}
	dir, err := daemon.Dir()
	if err != nil {
		return err
	}
	switch args[0] {
	case "status":
		fs := flag.NewFlagSet("webpilot daemon status", flag.ContinueOnError)
		fs.SetOutput(stderr)
		asJSON := fs.Bool("json", false, "print the status as JSON")
		if err := fs.Parse(args[1:]); err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		return daemonStatus(ctx, dir, *asJSON, stdout)
	case "stop":
		if len(args) > 1 {
			return fmt.Errorf("%w: daemon stop takes no arguments", errUsage)
		}
		st, err := daemon.Find(ctx, dir)
		if errors.Is(err, daemon.ErrNotRunning) {
			fmt.Fprintln(stdout, "webpilot daemon: not running")
			return nil
		}
		if err != nil {
			return err
		}
		return stopDaemonAt(ctx, dir, st, stdout)
	case "restart":
		return daemonRestart(ctx, dir, args[1:], stdout, stderr)
	case "end":
		if len(args) < 2 {
			return fmt.Errorf("%w: daemon end takes the clients or browser sessions to end (`webpilot daemon status` lists them)", errUsage)
		}
		st, err := daemon.Find(ctx, dir)
		if errors.Is(err, daemon.ErrNotRunning) {
			return fmt.Errorf("webpilot daemon: not running: it has no client or session to end")
		}
		if err != nil {
			return err
		}
		var failed error
		for _, name := range args[1:] {
			e, err := daemon.End(ctx, st, name)
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "webpilot daemon end %s: %v\n", name, err)
				failed = fmt.Errorf("daemon end: not everything named was ended")
			case e.Client != "":
				fmt.Fprintf(stdout, "ended the client %s (%s): its MCP session is closed; browser sessions removed: %s\n", e.Client, e.ClientName, listOrNone(e.Sessions))
			default:
				fmt.Fprintf(stdout, "removed the browser session %s: its tabs are closed\n", strings.Join(e.Sessions, ", "))
			}
		}
		return failed
	case "logs":
		fs := flag.NewFlagSet("webpilot daemon logs", flag.ContinueOnError)
		fs.SetOutput(stderr)
		n := fs.Int("n", 100, "how many of the last lines to print")
		follow := fs.Bool("f", false, "follow the log as it grows (until interrupted)")
		if err := fs.Parse(args[1:]); err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		return daemonLogs(ctx, filepath.Join(dir, daemon.LogFile), *n, *follow, stdout)
	}
	fmt.Fprint(stderr, daemonUsage)
	return fmt.Errorf("%w: daemon: unknown subcommand %q", errUsage, args[0])
}

// daemonStatus prints the running daemon's status.
func daemonStatus(ctx context.Context, dir string, asJSON bool, stdout io.Writer) error {
	st, err := daemon.Find(ctx, dir)
	if errors.Is(err, daemon.ErrNotRunning) {
		if asJSON {
			fmt.Fprintln(stdout, `{"running": false}`)
		} else {
			fmt.Fprintf(stdout, "webpilot daemon: not running (the first `webpilot mcp` starts it; state dir %s)\n", dir)
		}
		return errDaemonNotRunning
	}
	if err != nil {
		return err
	}
	s, err := daemon.GetStatus(ctx, st)
	if err != nil {
		return fmt.Errorf("daemon status: %w", err)
	}
	if asJSON {
		b, _ := json.MarshalIndent(struct {
			Running bool `json:"running"`
			daemon.Status
		}{true, s}, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprint(stdout, formatStatus(s, time.Now()))
	return nil
}

// errDaemonNotRunning makes `webpilot daemon status` exit 3 when no daemon
// runs, as service managers' status commands do.
var errDaemonNotRunning = errors.New("no webpilot daemon is running")

// formatStatus renders a daemon's status for people.
func formatStatus(s daemon.Status, now time.Time) string {
	var b strings.Builder
	up := now.Sub(s.Started).Round(time.Second)
	fmt.Fprintf(&b, "webpilot daemon: running (pid %d, version %s, up %s since %s)\n", s.PID, s.Version, up, s.Started.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(&b, "  address:   %s (token in the state file, readable by you only)\n", s.Addr)
	browser := s.Browser
	if s.BrowserVersion != "" {
		browser += ", " + s.BrowserVersion
	}
	fmt.Fprintf(&b, "  backend:   %s · browser %s\n", s.Backend, browser)
	if s.BridgePort != 0 {
		ext := "none connected (open Chrome with the webpilot extension)"
		if len(s.Extension) > 0 {
			ext = strings.Join(s.Extension, ", ")
		}
		fmt.Fprintf(&b, "  extension: %s, on bridge port %d\n", ext, s.BridgePort)
	}
	keys := make([]string, 0, len(s.Settings))
	for k := range s.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString("  browser settings (shared by every client; each client brings its own origin lists, tools, timeouts, secrets…):\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "    %-21s %s\n", k, s.Settings[k])
	}
	if len(s.Clients) == 0 {
		b.WriteString("  clients:   none\n")
	} else {
		fmt.Fprintf(&b, "  clients (%d):\n", len(s.Clients))
		for _, c := range s.Clients {
			name := c.Name
			if c.Version != "" {
				name += " " + c.Version
			}
			last := "no call yet"
			if c.Calls > 0 {
				last = fmt.Sprintf("%d call(s), last %s ago", c.Calls, now.Sub(c.Last).Round(time.Second))
			}
			fmt.Fprintf(&b, "    %-28s connected %s ago · %s · sessions: %s\n", name, now.Sub(c.Since).Round(time.Second), last, strings.Join(c.Sessions, ", "))
		}
	}
	if len(s.Sessions) > 0 {
		fmt.Fprintf(&b, "  browser sessions: %s\n", strings.Join(s.Sessions, ", "))
	}
	switch {
	case s.IdleExit == "":
		b.WriteString("  idle exit: never\n")
	case s.IdleSince != nil:
		d, _ := time.ParseDuration(s.IdleExit)
		left := d - now.Sub(*s.IdleSince)
		fmt.Fprintf(&b, "  idle exit: no client for %s; exits in %s\n", now.Sub(*s.IdleSince).Round(time.Second), max(left, 0).Round(time.Second))
	default:
		fmt.Fprintf(&b, "  idle exit: %s after the last client leaves\n", s.IdleExit)
	}
	if s.Log != "" {
		fmt.Fprintf(&b, "  log:       %s (webpilot daemon logs)\n", s.Log)
	}
	return b.String()
}

// stopDaemonAt stops the daemon of st and waits until it is gone (its run
// lock free: the browser closed).
func stopDaemonAt(ctx context.Context, dir string, st daemon.State, stdout io.Writer) error {
	r, err := daemon.Stop(ctx, st)
	if err != nil {
		return fmt.Errorf("daemon stop: %w", err)
	}
	fmt.Fprintf(stdout, "stopping the webpilot daemon (pid %d, %d client(s) connected)…\n", st.PID, r.Clients)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for filelock.Held(filepath.Join(dir, daemon.RunLock)) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the webpilot daemon (pid %d) did not exit within 60s; see `webpilot daemon logs`", st.PID)
		case <-time.After(50 * time.Millisecond):
		}
	}
	fmt.Fprintf(stdout, "stopped (pid %d): its browser is closed; clients start a new daemon on their next call\n", st.PID)
	return nil
}

// daemonRestart stops the running daemon (if any) and starts a new one
// with this binary: with the browser flags given, or else the old one's
// browser settings.
func daemonRestart(ctx context.Context, dir string, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("daemon restart", args, stderr)
	if err != nil {
		return err
	}
	settings := browserSettings(cfg)
	old, err := daemon.Find(ctx, dir)
	switch {
	case err == nil:
		if settings, err = restartSettings(cfg, settings, old.Settings, stderr); err != nil {
			return fmt.Errorf("%w: daemon restart: %w; nothing was stopped", errUsage, err)
		}
		if err := stopDaemonAt(ctx, dir, old, stdout); err != nil {
			return err
		}
	case errors.Is(err, daemon.ErrNotRunning):
		fmt.Fprintln(stdout, "webpilot daemon: not running; starting it")
	default:
		return err
	}
	st, err := daemon.Ensure(ctx, daemon.EnsureOptions{
		Dir:     dir,
		Version: version,
		Config:  fingerprint(settings),
		Start: func() (<-chan error, error) {
			return spawnDaemon(dir, daemonEnv(os.Environ(), settings))
		},
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) },
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "started the webpilot daemon (pid %d, version %s) at %s\n", st.PID, st.Version, st.Addr)
	return nil
}

// settingGroups are browser settings that choose one thing together (the
// backend and its endpoint; the profile): a flag given for one of a
// group's choosers replaces the running daemon's whole group, so that a
// restart never mixes a new choice with the old one's parts (an endpoint's
// header or wait alone keeps its endpoint).
var settingGroups = []struct{ choosers, group []string }{
	{[]string{"backend", "cdp_endpoint"}, []string{"backend", "cdp_endpoint", "cdp_header", "endpoint_per_session", "endpoint_wait"}},
	{[]string{"isolated", "user_data_dir"}, []string{"isolated", "user_data_dir"}},
}

// restartSettings are the browser settings a restarted daemon runs with:
// the running one's, with those given as flags here replacing theirs (and
// their group's, settingGroups). A setting from the environment or
// .webpilot.json does not: the shell a restart is typed in is not the
// daemon's (it is told, when it differs). Settings that would not make a
// daemon are an error, before anything is stopped.
func restartSettings(cfg *Config, given, running map[string]string, stderr io.Writer) (map[string]string, error) {
	if running == nil {
		return given, nil
	}
	out := maps.Clone(running)
	for k := range given {
		if cfg.Sources[k] != "flag" {
			continue
		}
		for _, g := range settingGroups {
			if slices.Contains(g.choosers, k) {
				for _, o := range g.group {
					delete(out, o)
				}
			}
		}
	}
	var ignored []string
	for k, v := range given {
		flagName := strings.ReplaceAll(k, "_", "-")
		switch {
		case cfg.Sources[k] == "flag":
			out[k] = v
		case running[k] != v:
			ignored = append(ignored, fmt.Sprintf("%s (to apply it: %s)", sourceName(flagName, cfg.Sources[k]), flagArg(k, v)))
		}
	}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		fmt.Fprintf(stderr, "webpilot daemon: restarting with its own browser settings; not applied from here: %s\n", strings.Join(ignored, "; "))
	}
	c, err := settingsConfig(out)
	if err == nil {
		err = backendProblem(c)
	}
	if err != nil {
		return nil, fmt.Errorf("the daemon's settings with those given here would not start a daemon: %w", err)
	}
	return out, nil
}

// flagArg is the flag that sets the browser setting k to v, as a shell
// takes it, credentials left out (an endpoint's token, a header's value).
func flagArg(k, v string) string {
	flagName := strings.ReplaceAll(k, "_", "-")
	switch k {
	case "cdp_header":
		return fmt.Sprintf("--%s … (%d header(s), not shown)", flagName, len(strings.Split(v, "\n")))
	case "cdp_endpoint":
		v = redactURL(v)
	}
	return "--" + flagName + "=" + shellQuote(v)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@=,+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// daemonLogs prints the last n lines of the log at path, then follows it
// while ctx lasts when follow is set.
func daemonLogs(ctx context.Context, path string, n int, follow bool, stdout io.Writer) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no daemon log at %s yet (the daemon writes it once started)", path)
	}
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if !follow {
		return nil
	}
	off, _ := f.Seek(0, io.SeekCurrent)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
		fi, err := os.Stat(path)
		if err != nil {
			continue
		}
		if fi.Size() < off {
			// Rotated: start the new file from its beginning.
			f.Close()
			if f, err = os.Open(path); err != nil {
				continue
			}
			off = 0
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			continue
		}
		m, _ := io.Copy(stdout, f)
		off += m
	}
}

// listOrNone joins names, or says none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
