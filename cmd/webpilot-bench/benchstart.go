package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startCase is a server the start bench starts: its command line and what
// it adds to the environment.
type startCase struct {
	name string
	argv []string
	env  []string
}

// startToList starts c, connects an MCP client (initialize), asks for
// tools/list and returns the time from the process start to the answer.
// The server is closed after.
func startToList(ctx context.Context, c startCase, version string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stderr = io.Discard
	t0 := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "webpilot-bench", Version: version}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return 0, fmt.Errorf("bench: start %s: %w", c.name, err)
	}
	_, err = cs.ListTools(ctx, nil)
	d := time.Since(t0)
	_ = cs.Close()
	_ = cmd.Wait()
	if err != nil {
		return 0, fmt.Errorf("bench: %s tools/list: %w", c.name, err)
	}
	return d, nil
}

// benchStart measures process start → tools/list answered for webpilot
// (standalone, and through a running daemon) and each peer, interleaved
// over rounds, and prints the medians, the spread and webpilot's ratio to
// the faster peer. The daemon is a private one (its own XDG directories),
// started before the rounds by a first client and stopped at the end.
func benchStart(ctx context.Context, stdout io.Writer, self, version string, peers []coldServer, rounds int) error {
	dir, err := os.MkdirTemp("", "webpilot-bench-start-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var daemonEnv []string
	for _, k := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		d := filepath.Join(dir, strings.ToLower(strings.TrimPrefix(k, "XDG_")))
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		daemonEnv = append(daemonEnv, k+"="+d)
	}
	defer func() {
		stop := exec.Command(self, "daemon", "stop")
		stop.Env = append(os.Environ(), daemonEnv...)
		_ = stop.Run()
	}()
	// (the core tools alone, as the dev bench's row: the opencli section
	// says what OpenCLI's tools add when it is installed)
	cases := []startCase{
		{name: "webpilot mcp --standalone", argv: []string{self, "mcp", "--standalone", "--isolated", "--headless=true", "--caps=-opencli"}},
		{name: "webpilot mcp (daemon running)", argv: []string{self, "mcp", "--headless=true", "--caps=-opencli"}, env: daemonEnv},
	}
	ours := len(cases)
	for _, p := range peers {
		cases = append(cases, startCase{name: p.name, argv: p.argv, env: []string{"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1"}})
	}
	// The first client starts the daemon; the rounds find it running.
	if _, err := startToList(ctx, cases[1], version); err != nil {
		return err
	}
	times := make([][]float64, len(cases))
	for range rounds {
		for i, c := range cases {
			d, err := startToList(ctx, c, version)
			if err != nil {
				return err
			}
			times[i] = append(times[i], ms(d))
		}
	}
	fmt.Fprintf(stdout, "start → tools/list answered — %d interleaved rounds, medians (min–max)\n\n", rounds)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\tstart → tools/list\tspread\t")
	for i, c := range cases {
		fmt.Fprintf(tw, "%s\t%.1f ms\t%.1f–%.1f\t\n", c.name, median(times[i]), slices.Min(times[i]), slices.Max(times[i]))
	}
	tw.Flush()
	if len(cases) > ours {
		best := 0.0
		for i := ours; i < len(cases); i++ {
			if m := median(times[i]); best == 0 || m < best {
				best = m
			}
		}
		fmt.Fprintf(stdout, "webpilot / faster peer: --standalone %.3f×, through the running daemon %.3f×\n",
			median(times[0])/best, median(times[1])/best)
	}
	fmt.Fprintln(stdout, "(the process is started, initialize and tools/list are answered over stdio; --standalone starts the")
	fmt.Fprintln(stdout, " browser's launch at initialize; the daemon case is the proxy that finds the daemon running)")
	return nil
}
