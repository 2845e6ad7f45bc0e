package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"text/tabwriter"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/webpilot-mcp/webpilot/internal/opencli"
)

// benchOpenCLI measures the opencli tools against OpenCLI run by hand:
// wall time (median of runs) and o200k tokens of what the agent reads.
// Without OpenCLI (found as a client finds it) it says so and measures
// nothing. self is the webpilot binary measured, of that version.
func benchOpenCLI(ctx context.Context, stdout io.Writer, self, version string, runs int, enc tokenizer.Codec) error {
	oc, err := opencli.Find(opencli.FindOptions{Bin: os.Getenv("WEBPILOT_OPENCLI_BIN"), PrefixArgs: os.Getenv("WEBPILOT_OPENCLI_PREFIX_ARGS")})
	var nf *opencli.NotFoundError
	switch {
	case errors.As(err, &nf):
		fmt.Fprintf(stdout, "opencli: not measured: %s (make bench fetches it)\n", nf)
		return nil
	case err != nil:
		return fmt.Errorf("bench: %w: %w", errUsage, err)
	}
	tokens := func(s string) int { n, _ := enc.Count(s); return n }
	direct := func(args ...string) (string, float64, error) {
		argv := oc.Argv(args...)
		t0 := time.Now()
		out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
		return string(out), ms(time.Since(t0)), err
	}
	cs, cmd, err := startServer(ctx, self, version, "--no-prewarm")
	if err != nil {
		return err
	}
	defer func() { cs.Close(); _ = cmd.Wait() }()
	call := timedCall(ctx, cs)
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("bench: tools/list: %w", err)
	}
	added := 0
	for _, t := range tl.Tools {
		if t.Name == "opencli_adapter_list" || t.Name == "opencli_run" || t.Name == "opencli_status" {
			b, _ := json.Marshal(t)
			added += tokens(string(b))
		}
	}

	type row struct {
		name      string
		ms        []float64
		tokens    int
		directMs  []float64
		directTok int
	}
	var rows []row
	measure := func(name string, tool string, args map[string]any, cli []string) error {
		r := row{name: name}
		for range runs {
			out, d, err := call(tool, args)
			if err != nil {
				return err
			}
			r.ms, r.tokens = append(r.ms, d), tokens(out)
			if cli != nil {
				out, d, err := direct(cli...)
				if err != nil {
					return fmt.Errorf("bench: %s %v: %w", oc, cli, err)
				}
				r.directMs, r.directTok = append(r.directMs, d), tokens(out)
			}
		}
		rows = append(rows, r)
		return nil
	}
	// The first list reads the catalog (opencli list -f json); later ones
	// use the copy kept for 10 minutes.
	first, d, err := call("opencli_adapter_list", nil)
	if err != nil {
		return err
	}
	rows = append(rows, row{name: "adapter list, first (reads the catalog)", ms: []float64{d}, tokens: tokens(first)})
	if err := measure("adapter list: sites and counts", "opencli_adapter_list", nil, []string{"list", "-f", "json"}); err != nil {
		return err
	}
	if err := measure("adapter list: one site (hackernews)", "opencli_adapter_list", map[string]any{"site": "hackernews"}, []string{"hackernews", "--help"}); err != nil {
		return err
	}
	if err := measure("run trae-cn setup (json)", "opencli_run", map[string]any{"site": "trae-cn", "command": "setup"}, []string{"trae-cn", "setup", "-f", "json"}); err != nil {
		return err
	}
	if err := measure("opencli_status", "opencli_status", nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "opencli: %s (%s); the opencli tools add %d tokens to tools/list; medians of %d runs\n", oc, oc.Source, added, runs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "call\tms\ttokens\tthe CLI by hand ms\tits output tokens\t")
	for _, r := range rows {
		dm, dt := "—", "—"
		if len(r.directMs) > 0 {
			dm, dt = fmt.Sprintf("%.0f", median(r.directMs)), fmt.Sprint(r.directTok)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%s\t%s\t\n", r.name, median(r.ms), r.tokens, dm, dt)
	}
	return tw.Flush()
}
