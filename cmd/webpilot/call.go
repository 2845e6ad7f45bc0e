package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/text"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// errToolFailed marks a tool call whose result was an error: exit code 1.
var errToolFailed = errors.New("tool call failed")

// runCall runs one tool and prints its result: `webpilot call [flags] TOOL
// ['{json}']`, through the per-user daemon that the agents share (its own
// browser session, or --session's), or in-process with --standalone. Text goes to stdout; images are saved in the
// working directory as webpilot-<tool>-<n>.<ext> and their paths printed.
func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flagArgs, pos := splitCallArgs(args)
	cfg, err := parseConfig("call", flagArgs, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "\nUsage: webpilot call [flags] TOOL ['{json arguments}']")
		}
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: call: no tool given (usage: webpilot call [flags] TOOL ['{json}'])", errUsage)
	}
	tool := pos[0]
	arguments := map[string]any{}
	if len(pos) > 1 && strings.TrimSpace(pos[1]) != "" {
		dec := json.NewDecoder(strings.NewReader(pos[1]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%w: call: the arguments are not valid JSON: %v", errUsage, err)
		}
		if dec.More() {
			return fmt.Errorf("%w: call: the arguments are not valid JSON: extra data after the object", errUsage)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%w: call: the arguments must be a JSON object, like '{\"url\":\"https://example.com\"}'", errUsage)
		}
		arguments = m
	}

	cs, done, err := connectCLI(ctx, cfg, "webpilot call", stderr)
	if err != nil {
		return err
	}
	defer done()

	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("call: tools/list: %w", err)
	}
	var names []string
	known := false
	for _, t := range tl.Tools {
		names = append(names, t.Name)
		known = known || t.Name == tool
	}
	sort.Strings(names)
	if !known {
		if t, ok := tools.Lookup(tool); ok && t.Group == tools.GroupOpenCLI && cfg.OpenCLI == nil {
			fmt.Fprintf(stderr, "webpilot call: %s is not available: %s\n", tool, cfg.OpenCLIMissing)
			return fmt.Errorf("%w: %s is not available (OpenCLI was not found)", errUsage, tool)
		}
		if t, ok := tools.Lookup(tool); ok {
			// One of webpilot's, left out by the profile: say what turns it on.
			fmt.Fprintf(stderr, "webpilot call: %s is off in this tool profile; add --caps +%s (or --profile full)\n", tool, t.Group)
			return fmt.Errorf("%w: %s is off (--caps +%s)", errUsage, tool, t.Group)
		}
		fmt.Fprintf(stderr, "webpilot call: unknown tool %q. The tools are:\n  %s\n", tool, strings.Join(names, "\n  "))
		return fmt.Errorf("%w: unknown tool %q", errUsage, tool)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		return fmt.Errorf("call %s: %w", tool, err)
	}
	if err := printResult(res, tool, ".", stdout); err != nil {
		return err
	}
	if res.IsError {
		code := errorCode(mcpclient.ResultText(res))
		if code != "" {
			return fmt.Errorf("%w: %s returned %s", errToolFailed, tool, code)
		}
		return fmt.Errorf("%w: %s returned an error", errToolFailed, tool)
	}
	return nil
}

// connectCLI connects a command of the command line (call, recipe run,
// recipe record) as an MCP client: to the per-user daemon that the agents
// share, or, with --standalone, to a server of its own in this process
// (whose browser closes with done). It starts no browser ahead: a prewarm
// would start one for browser_status too.
func connectCLI(ctx context.Context, cfg *Config, name string, stderr io.Writer) (cs *mcp.ClientSession, done func(), err error) {
	cfg.Prewarm, cfg.Sources["prewarm"], cfg.Raw["prewarm"] = false, "default", "false"
	if !cfg.Standalone {
		if cs, _, err = connectDaemon(ctx, cfg, name, stderr); err != nil {
			return nil, nil, err
		}
		return cs, func() { cs.Close() }, nil
	}
	a, err := newApp(cfg, stderr)
	if err != nil {
		return nil, nil, err
	}
	closeApp := func() {
		if cerr := a.close(); cerr != nil {
			a.log.Warn("shutdown", "err", cerr)
		}
	}
	if cs, err = connectInMemory(ctx, a); err != nil {
		closeApp()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); closeApp() }, nil
}

// splitCallArgs separates the flags from TOOL and the JSON: flags may come
// before TOOL or after TOOL ['{json}']. It finds where the flag parser stops
// by running it once with the real flag definitions.
func splitCallArgs(args []string) (flagArgs, pos []string) {
	fs := flag.NewFlagSet("webpilot call", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_, _ = loadConfig(fs, args, func(string) string { return "" }, os.TempDir())
	if !fs.Parsed() {
		return args, nil
	}
	rest := fs.Args()
	flagArgs = append([]string(nil), args[:len(args)-len(rest)]...)
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	for len(rest) > 0 && len(pos) < 2 && (len(pos) == 0 || !strings.HasPrefix(rest[0], "-")) {
		pos = append(pos, rest[0])
		rest = rest[1:]
	}
	return append(flagArgs, rest...), pos
}

// printResult writes the text of a result to stdout and saves its images in
// dir, printing their paths.
func printResult(res *mcp.CallToolResult, tool, dir string, stdout io.Writer) error {
	n := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text := c.Text
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			fmt.Fprint(stdout, text)
		case *mcp.ImageContent:
			path, err := saveImage(dir, tool, c.MIMEType, c.Data, &n)
			if err != nil {
				return fmt.Errorf("call: save the image: %w", err)
			}
			fmt.Fprintf(stdout, "[image %s, %d bytes saved to %s]\n", c.MIMEType, len(c.Data), path)
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintf(stdout, "[%T content: %s]\n", c, text.Cut(string(b), 300))
		}
	}
	return nil
}

// saveImage writes data as webpilot-<tool>-<n>.<ext> in dir, with n the
// first number after *n whose file does not exist yet.
func saveImage(dir, tool, mimeType string, data []byte, n *int) (string, error) {
	ext := "bin"
	switch strings.ToLower(mimeType) {
	case "image/png":
		ext = "png"
	case "image/jpeg", "image/jpg":
		ext = "jpg"
	case "image/webp":
		ext = "webp"
	case "image/gif":
		ext = "gif"
	}
	for {
		*n++
		path := filepath.Join(dir, fmt.Sprintf("webpilot-%s-%d.%s", tool, *n, ext))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := io.Copy(f, bytes.NewReader(data))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", werr
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return path, nil
	}
}

// errorCode reads error.code from an error result's JSON body, or "".
func errorCode(text string) string {
	code, _, _ := mcpserver.ParseErrorText(text)
	return code
}
