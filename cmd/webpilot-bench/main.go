// Command webpilot-bench measures webpilot as an MCP client sees it: cold
// start and memory against the bare browser launch (and the peers,
// playwright-mcp and chrome-devtools-mcp, with -peers), tools/list size,
// snapshots of the fixture pages (characters, o200k tokens, time), actions
// and their CDP commands, and the opencli tools against OpenCLI by hand. It
// prints tables and asserts nothing.
//
// It is not part of the webpilot binary: `make bench` runs it from the
// repository root (the fixtures are testdata/pages), with ARGS as its flags.
// Without -webpilot it builds ./cmd/webpilot with go build ($GO) and
// measures that.
//
// Usage:
//
//	go run ./cmd/webpilot-bench [flags]
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

func main() {
	// The first SIGINT or SIGTERM ends ctx (and the servers started with
	// it); a second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	err := runBench(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage marks a command line that could not be understood.
var errUsage = errors.New("usage")

// exitCode prints err and returns the process's exit code: 0 without an
// error or for -h, 2 for a usage error, else 1.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "webpilot:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "webpilot:", err)
		return 1
	}
}

// buildWebpilot builds ./cmd/webpilot (the working directory is the
// repository's root) into dir with go build (the go command of $GO, as make
// passes it, else go) and returns the binary's path. The compiler's
// messages go to stderr.
func buildWebpilot(ctx context.Context, dir string, stderr io.Writer) (string, error) {
	bin := filepath.Join(dir, "webpilot")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, cmp.Or(os.Getenv("GO"), "go"), "build", "-o", bin, "./cmd/webpilot")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("bench: build webpilot (run from the repository root or pass -webpilot): %w", err)
	}
	return bin, nil
}

// webpilotVersion is the version the webpilot binary bin reports
// (`webpilot version` prints "webpilot VERSION").
func webpilotVersion(ctx context.Context, bin string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("bench: %s version: %w", bin, err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "webpilot ")
	if !ok {
		return "", fmt.Errorf("bench: %s version printed %q, not \"webpilot VERSION\"", bin, out.String())
	}
	return v, nil
}
