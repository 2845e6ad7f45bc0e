package main

import (
	"fmt"
	"io"

	"github.com/webpilot-mcp/webpilot/internal/trace"
)

const traceUsage = `Usage:
  webpilot trace show FILE   print a session trace as text: one line per step
                             (number, time, tool, target, outcome, page URL)

Traces are written with --trace DIR (WEBPILOT_TRACE), one HTML file per session, or by
browser_flow with trace: true (in the output directory). Open the file in a browser to see
each step's arguments, result and screenshot.
`

// runTrace is `webpilot trace show FILE`.
func runTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, traceUsage)
		return nil
	}
	if len(args) != 2 || args[0] != "show" {
		fmt.Fprint(stderr, traceUsage)
		return fmt.Errorf("%w: trace needs: show FILE", errUsage)
	}
	d, err := trace.ReadFile(args[1])
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(stdout, d.Summary())
	return err
}
