// Command webpilot is an MCP server that gives AI agents a real web browser.
//
// Usage:
//
//	webpilot mcp [flags]     serve MCP on stdio (what MCP clients run)
//	webpilot serve [flags]   serve MCP over HTTP (--listen 127.0.0.1:31999)
//	webpilot demo [flags]    drive a built-in demo page and print every step
//	webpilot call [flags] TOOL ['{json}']   run one tool and print its result
//	webpilot setup [--dry-run] [--remove]   configure the MCP clients installed
//	webpilot doctor [flags]  check the browser and the bridge, say what to fix
//	webpilot extension --out DIR   write the unpacked browser extension
//	webpilot skill --out DIR   write the agent skill (DIR/webpilot/SKILL.md)
//	webpilot pair            pair with the extension in the user's Chrome
//	webpilot daemon status|stop|restart|end|logs   the per-user daemon
//	webpilot recipe run NAME [PARAM=VALUE...]   run a saved recipe
//	webpilot recipe record NAME [--url URL]    record a task done by hand as a recipe
//	webpilot recipe list|show|validate|trust   manage recipe files
//	webpilot trace show FILE   print a session trace's steps
//	webpilot version         print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=…"
// (make build); otherwise it comes from the build's own record
// (buildVersion): the module version of `go install …@v1.2.3`, or the
// commit of a build from a checkout.
// (The -X flag sets only a variable initialised with a constant.)
var version = "dev"

func init() { version = buildVersion(version, debug.ReadBuildInfo) }

// buildVersion is the version of a binary that was not stamped (stamped
// is "dev"): the module's version when it was installed as a module, else
// "dev+" and the commit it was built from (with "-dirty" when the tree had
// changes), else stamped as it is.
func buildVersion(stamped string, read func() (*debug.BuildInfo, bool)) string {
	if stamped != "dev" {
		return stamped
	}
	bi, ok := read()
	if !ok || bi == nil {
		return stamped
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return stamped
	}
	return "dev+" + rev[:min(len(rev), 12)] + dirty
}

func main() {
	// The first SIGINT or SIGTERM ends ctx: `webpilot mcp` then answers the
	// calls running (a few seconds at most), closes the browser and exits 0.
	// A second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage marks a command line that could not be understood.
var errUsage = errors.New("usage")

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errDaemonNotRunning):
		return 3 // printed already
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "webpilot:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "webpilot:", err)
		return 1
	}
}

const usage = `webpilot — an MCP server that gives AI agents a real web browser.

Usage:
  webpilot mcp [flags]     serve MCP on stdio (configure this in your MCP client)
  webpilot serve [flags]   serve MCP over HTTP at http://127.0.0.1:31999/mcp (--listen)
  webpilot demo [flags]    drive a built-in demo page and print every step
  webpilot call [flags] TOOL ['{json}']   run one tool and print its result (through
                           the daemon, in a session of its own or --session's;
                           --standalone: in this process)
  webpilot setup [--dry-run] [--remove]   add webpilot to the MCP clients installed for
                           you (Claude Code, Claude Desktop, Codex, Cursor, VS Code, …)
  webpilot doctor [flags]  check the browser and the bridge, and say what to fix
  webpilot extension --out DIR   write the browser extension, to load it unpacked in Chrome
  webpilot skill --out DIR       write the agent skill to DIR/webpilot/SKILL.md
                                 (Claude Code: --out ~/.claude/skills; "webpilot skill -h")
  webpilot pair            pair webpilot with the extension in your Chrome (one-time code)
  webpilot daemon status|stop|restart|end|logs   the per-user daemon every client shares
  webpilot recipe run NAME [PARAM=VALUE...]  run a saved recipe and print its output and trace
  webpilot recipe record NAME [--url URL]    record yourself doing a task in the browser, saved
                                             as a recipe
  webpilot recipe list|show|validate|trust   manage recipes ("webpilot recipe help")
  webpilot trace show FILE   print a session trace (--trace) as text, one line per step
  webpilot version         print the version

Run "webpilot mcp -h" for the flags.
`

// run is main without the process: tests call it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command given", errUsage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "mcp":
		return runMCP(ctx, rest, stdin, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stderr)
	case "demo":
		return runDemo(ctx, rest, stdout, stderr)
	case "bench":
		// The benchmark is a command of its own (cmd/webpilot-bench), not
		// part of this binary.
		return fmt.Errorf("%w: bench is not a webpilot command: in a checkout of webpilot, run make bench (or go run ./cmd/webpilot-bench)", errUsage)
	case "call":
		return runCall(ctx, rest, stdout, stderr)
	case "doctor":
		return runDoctor(ctx, rest, stdout, stderr)
	case "pair":
		return runPair(ctx, rest, stdout, stderr)
	case "daemon":
		return runDaemonCmd(ctx, rest, stdout, stderr)
	case "extension":
		return runExtension(ctx, rest, stdout, stderr)
	case "skill":
		return runSkill(ctx, rest, stdout, stderr)
	case "setup":
		return runSetup(ctx, rest, stdout, stderr)
	case "recipe":
		return runRecipe(ctx, rest, stdout, stderr)
	case "trace":
		return runTrace(rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "webpilot", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}
