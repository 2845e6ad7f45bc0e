package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// OpenCLI is what the opencli tools need: the OpenCLI found for the client
// and where its runs write files.
type OpenCLI struct {
	Service *opencli.Service
	// Folder makes a fresh folder for one run's files in the client's
	// output directory, with the function that makes room in the
	// directory's budget (browser.Policy.OutputFolder).
	Folder func(owner string) (string, func(n int64) (done func(), err error), error)
}

// OpenCLI run bounds.
const (
	OpenCLIDefaultTimeout = 90 * time.Second
	OpenCLIMaxTimeout     = 10 * time.Minute
	openCLIMaxArgs        = 200
	openCLIMaxArgLen      = 64 << 10
	openCLIStderrTail     = 300
	// openCLIProgressEvery is how often a run tells its progress.
	openCLIProgressEvery = 2 * time.Second
	// openCLIListLimit is how many commands a page of the list holds.
	openCLIListLimit = 40
)

// OpenCLIListIn is opencli_adapter_list's input.
type OpenCLIListIn struct {
	Site   string `json:"site,omitempty" jsonschema:"one site: its commands with their arguments"`
	Query  string `json:"query,omitempty" jsonschema:"words to find in site, command and description"`
	Offset int    `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Limit  int    `json:"limit,omitempty" jsonschema:"default 40 commands, or every site" minimum:"1" maximum:"500"`
}

var openCLIListTool = Def(Tool{
	Name:        "opencli_adapter_list",
	Description: "OpenCLI's site adapters: sites with their command counts, or a site's (or a query's) commands with arguments.",
	Annotations: Annotations{ReadOnly: true, Idempotent: true},
	Group:       GroupOpenCLI,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, in OpenCLIListIn) (*Result, error) {
	svc, err := openCLIService(h)
	if err != nil {
		return nil, err
	}
	catalog, err := svc.Catalog(ctx)
	if err != nil {
		return nil, openCLIError(err)
	}
	if in.Site == "" && in.Query == "" {
		return &Result{Text: openCLISites(catalog, in.Offset, in.Limit)}, nil
	}
	var hits []opencli.Adapter
	words := strings.Fields(strings.ToLower(in.Query))
	for _, a := range catalog {
		if in.Site != "" && !strings.EqualFold(a.Site, in.Site) {
			continue
		}
		hay := strings.ToLower(a.Site + " " + a.Name + " " + strings.Join(a.Aliases, " ") + " " + a.Description)
		if !allIn(hay, words) {
			continue
		}
		hits = append(hits, a)
	}
	if len(hits) == 0 {
		return nil, openCLINoMatch(catalog, in.Site, in.Query)
	}
	limit := in.Limit
	if limit == 0 {
		limit = openCLIListLimit
	}
	var b strings.Builder
	what := "matching " + text.Quote(in.Query)
	if in.Site != "" {
		what = "of " + in.Site
		if in.Query != "" {
			what += " matching " + text.Quote(in.Query)
		}
	}
	end := min(len(hits), in.Offset+limit)
	if in.Offset >= len(hits) {
		fmt.Fprintf(&b, "%d OpenCLI command(s) %s; offset %d is past the end.", len(hits), what, in.Offset)
		return &Result{Text: b.String()}, nil
	}
	fmt.Fprintf(&b, "%d OpenCLI command(s) %s", len(hits), what)
	if in.Offset > 0 || end < len(hits) {
		fmt.Fprintf(&b, " (%d–%d shown)", in.Offset+1, end)
	}
	b.WriteString(". Run one with opencli_run {site, command, args}; [browser] ones need OpenCLI's own Browser Bridge extension in Chrome.\n")
	for _, a := range hits[in.Offset:end] {
		b.WriteString(openCLILine(a) + "\n")
	}
	if end < len(hits) {
		fmt.Fprintf(&b, "(%d more: offset %d)", len(hits)-end, end)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n")}, nil
})

// allIn reports whether every word is in hay.
func allIn(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// openCLISites lists the sites with their command counts.
func openCLISites(catalog []opencli.Adapter, offset, limit int) string {
	counts := map[string]int{}
	var sites []string
	for _, a := range catalog {
		if counts[a.Site] == 0 {
			sites = append(sites, a.Site)
		}
		counts[a.Site]++
	}
	sort.Strings(sites)
	if limit == 0 {
		limit = len(sites)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OpenCLI: %s commands on %d sites (site and its number of commands). Pass site for its commands and arguments, or query to search them.\n", text.Commas(len(catalog)), len(sites))
	if offset >= len(sites) {
		fmt.Fprintf(&b, "offset %d is past the end.", offset)
		return b.String()
	}
	end := min(len(sites), offset+limit)
	parts := make([]string, 0, end-offset)
	for _, s := range sites[offset:end] {
		parts = append(parts, fmt.Sprintf("%s %d", s, counts[s]))
	}
	b.WriteString(strings.Join(parts, " · "))
	if end < len(sites) {
		fmt.Fprintf(&b, "\n(%d more sites: offset %d)", len(sites)-end, end)
	}
	return b.String()
}

// openCLILine is one command: site, name, description, arguments, and
// what it needs.
func openCLILine(a opencli.Adapter) string {
	line := a.Site + " " + a.Name
	if d := text.Clean(a.Description); d != "" {
		line += " — " + text.Cut(d, 160)
	}
	var args []string
	for _, x := range a.Args {
		args = append(args, openCLIArg(x))
	}
	if len(args) > 0 {
		line += " · args: " + strings.Join(args, " ")
	}
	var tags []string
	if a.Browser {
		tags = append(tags, "browser")
	}
	if a.Access == "write" {
		tags = append(tags, "writes")
	}
	if len(tags) > 0 {
		line += " [" + strings.Join(tags, ", ") + "]"
	}
	return line
}

// openCLIArg writes one argument: <name> or [name] positional, --name
// with =default, {a|b} choices, and ! when required.
func openCLIArg(x opencli.Arg) string {
	var s string
	if x.Positional {
		s = "[" + x.Name + "]"
		if x.Required {
			s = "<" + x.Name + ">"
		}
	} else {
		s = "--" + x.Name
		if x.Required {
			s += "!"
		}
	}
	switch {
	case len(x.Choices) > 0 && len(x.Choices) <= 8:
		s += "{" + strings.Join(x.Choices, "|") + "}"
	case x.Type == "bool" || x.Type == "boolean":
	case x.Default != nil && fmt.Sprint(x.Default) != "":
		s += "=" + text.Cut(fmt.Sprint(x.Default), 30)
	}
	return s
}

// openCLINoMatch is the error for a site or query nothing matches, with
// the nearest sites.
func openCLINoMatch(catalog []opencli.Adapter, site, query string) error {
	var sites []string
	for _, a := range catalog {
		if !slices.Contains(sites, a.Site) {
			sites = append(sites, a.Site)
		}
	}
	what := "site " + text.Quote(site)
	if site == "" {
		what = "query " + text.Quote(query)
	} else if query != "" {
		what += " with query " + text.Quote(query)
	}
	e := &browser.Error{Code: browser.CodeTargetNotFound, Message: "no OpenCLI command matches " + what,
		Hint: "opencli_adapter_list without arguments lists every site; query searches commands and descriptions"}
	if site != "" {
		e.Suggestions = text.Nearest(site, sites, 3)
	}
	return e
}

// OpenCLIRunIn is opencli_run's input.
type OpenCLIRunIn struct {
	Site      string   `json:"site" jsonschema:"from opencli_adapter_list"`
	Command   string   `json:"command" jsonschema:"the site's command, e.g. hot"`
	Args      []string `json:"args,omitempty" jsonschema:"argv after the command, passed as is (no shell), e.g. [\"--limit\", \"5\"]"`
	Format    string   `json:"format,omitempty" default:"\"json\"" enum:"json,yaml,table,plain,md,csv"`
	TimeoutMs int      `json:"timeout_ms,omitempty" jsonschema:"default 90000" minimum:"1" maximum:"600000"`
	MaxChars  int      `json:"max_chars,omitempty" minimum:"1" maximum:"1000000"`
}

// Check refuses names that are not plain names and arguments that set the
// format, before anything runs.
func (in OpenCLIRunIn) Check() error {
	for _, f := range []struct{ arg, v string }{{"site", in.Site}, {"command", in.Command}} {
		if !opencli.ValidName(f.v) {
			return &browser.Error{Code: browser.CodeInvalidArgument,
				Message: fmt.Sprintf("%s %s is not a plain name: it must match [A-Za-z0-9._-]+ and not start with '-'; nothing was run", f.arg, text.Quote(text.Cut(f.v, 60))),
				Hint:    "take site and command from opencli_adapter_list; arguments go in args"}
		}
	}
	if len(in.Args) > openCLIMaxArgs {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("%d arguments: at most %d", len(in.Args), openCLIMaxArgs), Hint: "pass fewer arguments"}
	}
	for _, a := range in.Args {
		if len(a) > openCLIMaxArgLen {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("an argument of %d bytes: at most %d", len(a), openCLIMaxArgLen), Hint: "pass long input through a file"}
		}
		if strings.ContainsRune(a, 0) {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: "an argument holds a NUL character, which no program can receive", Hint: "remove it"}
		}
		if a == "-f" || a == "--format" || strings.HasPrefix(a, "--format=") {
			return &browser.Error{Code: browser.CodeInvalidArgument, Message: "args set the output format (" + a + "): it is opencli_run's format argument",
				Hint: `pass format (json, yaml, table, plain, md or csv) instead`, Suggestions: []string{`"format": "json"`}}
		}
	}
	return nil
}

// openCLIFile is a file a run wrote.
type openCLIFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	MIME string `json:"mime,omitempty"`
}

// openCLIReport is what opencli_run returns.
type openCLIReport struct {
	Site       string          `json:"site"`
	Command    string          `json:"command"`
	ExitCode   int             `json:"exit_code"`
	DurationMS int64           `json:"duration_ms"`
	Format     string          `json:"format"`
	Data       json.RawMessage `json:"data,omitempty"`
	Output     *string         `json:"output,omitempty"`
	// OutputCut says the output was longer than max_chars: how much is
	// shown and where the whole of it is.
	OutputCut *openCLICut `json:"output_cut,omitempty"`
	Partial   bool        `json:"partial,omitempty"`
	// PartialReason says why the output is not whole.
	PartialReason        string        `json:"partial_reason,omitempty"`
	TerminationConfirmed *bool         `json:"termination_confirmed,omitempty"`
	Stderr               string        `json:"stderr,omitempty"`
	Files                []openCLIFile `json:"files,omitempty"`
	Notes                []string      `json:"notes,omitempty"`
}

type openCLICut struct {
	ShownChars int    `json:"shown_chars"`
	TotalChars int    `json:"total_chars"`
	SavedTo    string `json:"saved_to,omitempty"`
}

var openCLIRunTool = Def(Tool{
	Name:        "opencli_run",
	Description: "Run an OpenCLI adapter (opencli SITE COMMAND ARGS -f FORMAT, no shell): its output as JSON data or text, and the files it wrote.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupOpenCLI,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, in OpenCLIRunIn) (*Result, error) {
	oc := h.env.OpenCLI
	svc, err := openCLIService(h)
	if err != nil {
		return nil, err
	}
	catalog, err := svc.Catalog(ctx)
	if err != nil {
		return nil, openCLIError(err)
	}
	a, ok := opencli.Lookup(catalog, in.Site, in.Command)
	if !ok {
		return nil, openCLIUnknown(catalog, in.Site, in.Command)
	}
	if in.Format == "" {
		in.Format = "json"
	}
	timeout := OpenCLIDefaultTimeout
	if in.TimeoutMs > 0 {
		timeout = time.Duration(in.TimeoutMs) * time.Millisecond
	}
	maxChars := in.MaxChars
	if maxChars == 0 {
		maxChars = SnapshotMaxChars
	}
	site := "opencli:" + a.Site
	if a.Domain != "" {
		if s := recipes.Site(a.Domain); s != "" {
			site = s
		}
	}
	release, gateNote, err := enterGate(ctx, h, site)
	if err != nil {
		return nil, err
	}
	defer release()

	folder, reserve, err := oc.Folder(h.env.Client)
	if err != nil {
		return nil, err
	}
	done, err := reserve(0)
	if err != nil {
		_ = os.Remove(folder)
		return nil, err
	}
	var doneOnce bool
	finishFolder := func() {
		if !doneOnce {
			doneOnce = true
			done()
		}
	}
	defer finishFolder()
	var lastSize int64
	watch := func() error {
		// The folder counts at its size while the run holds it: a check
		// makes room (removing older files) or says there is none.
		n := treeBytes(folder)
		if n == lastSize {
			return nil
		}
		lastSize = n
		d, err := reserve(0)
		if err != nil {
			return err
		}
		d()
		return nil
	}
	var progress func(time.Duration, int)
	if h.env.Progress != nil {
		total := int(timeout / time.Second)
		var last time.Duration
		progress = func(el time.Duration, out int) {
			if el-last < openCLIProgressEvery {
				return
			}
			last = el
			h.env.Progress(int(el/time.Second), total, fmt.Sprintf("opencli %s %s: %.0f s, %s of output", a.Site, a.Name, el.Seconds(), kb(out)))
		}
	}
	res, err := svc.Run(ctx, opencli.RunRequest{Site: a.Site, Command: in.Command, Args: in.Args, Format: in.Format, Dir: folder,
		Timeout: timeout, Watch: watch, Progress: progress})
	if err != nil {
		finishFolder()
		_ = os.Remove(folder)
		return nil, openCLIError(err)
	}
	// A last look at the budget: a run may write much and end between two
	// checks.
	if res.Stopped == nil {
		res.Stopped = watch()
	}
	overBudget := false
	if e, ok := browser.AsError(res.Stopped); ok && e.Code == browser.CodeLimitExceeded {
		// What does not fit is not kept.
		overBudget = true
		_ = os.RemoveAll(folder)
	}
	// (listed while the folder is still held: nothing removes it meanwhile)
	files, outside, missing := openCLIFiles(folder, res.Stdout)
	finishFolder()
	if len(files) == 0 {
		_ = os.Remove(folder) // only when empty
	}
	rep := &openCLIReport{Site: a.Site, Command: in.Command, ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(), Format: in.Format, Files: files}
	if res.Killed {
		rep.TerminationConfirmed = ptr(res.TerminationConfirmed)
	}
	for _, m := range missing {
		rep.Notes = append(rep.Notes, "the output names "+m+", which is not on disk")
	}
	for _, m := range outside {
		rep.Notes = append(rep.Notes, "the output names "+m+", outside the run's folder: not listed (webpilot reports only what the run wrote in its folder)")
	}
	if gateNote != "" {
		rep.Notes = append(rep.Notes, gateNote)
	}
	stderr := opencli.RedactedTail(res.Stderr, openCLIStderrTail)
	switch {
	case res.Canceled:
		return nil, context.Cause(ctx)
	case res.Stopped != nil:
		cause := res.Stopped
		if e, ok := browser.AsError(cause); ok && overBudget {
			what := "was stopped and its processes killed"
			if !res.Killed {
				what = "ended"
			}
			cause = &browser.Error{Code: e.Code, Message: fmt.Sprintf("opencli %s %s %s: what it wrote does not fit the output directory's budget, and was removed (%s)", a.Site, in.Command, what, e.Message),
				Hint: "raise --output-max-mb, delete older files there, or ask the adapter for less", Err: e}
		}
		return nil, openCLIFailure(rep, res, stderr, cause)
	case res.TimedOut:
		return nil, openCLIFailure(rep, res, stderr, &browser.Error{Code: browser.CodeTimeout,
			Message: fmt.Sprintf("opencli %s %s did not finish in %v: its processes were killed", a.Site, in.Command, timeout),
			Hint:    fmt.Sprintf("raise timeout_ms (at most %d), or ask the adapter for less", OpenCLIMaxTimeout.Milliseconds())})
	case res.Capped != "":
		rep.Partial, rep.PartialReason = true, fmt.Sprintf("%s passed %d MiB: the run was stopped and its processes killed; what came before is kept", res.Capped, opencli.DefaultMaxOutput>>20)
	case res.ExitCode != 0:
		return nil, openCLIFailure(rep, res, stderr, nil)
	}
	if stderr != "" {
		rep.Stderr = stderr
	}
	if err := openCLIOutput(rep, res.Stdout, maxChars, folder, reserve); err != nil {
		return nil, err
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	return &Result{Text: string(b)}, nil
})

// openCLIService is the client's OpenCLI service.
func openCLIService(h *Held) (*opencli.Service, error) {
	if h.env.OpenCLI == nil || h.env.OpenCLI.Service == nil {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "OpenCLI was not found for this client",
			Hint: "install it (npm install -g @jackwener/opencli) or point WEBPILOT_OPENCLI_BIN at it, then restart the MCP client; webpilot doctor says where it looked"}
	}
	return h.env.OpenCLI.Service, nil
}

// openCLIError is an error of OpenCLI itself (it could not start, or its
// catalog could not be read).
func openCLIError(err error) error {
	if _, ok := browser.AsError(err); ok {
		return err
	}
	return &browser.Error{Code: browser.CodeCommandFailed, Message: redact.Text(err.Error()),
		Hint: "check OpenCLI on its own (opencli --version, opencli list); opencli_status shows the command webpilot runs", Err: err}
}

// openCLIUnknown is the error for a site or command not in the catalog.
func openCLIUnknown(catalog []opencli.Adapter, site, command string) error {
	var names []string
	siteKnown := false
	for _, a := range catalog {
		if a.Site == site {
			siteKnown = true
			names = append(names, a.Name)
		}
	}
	if !siteKnown {
		e := openCLINoMatch(catalog, site, "").(*browser.Error)
		e.Message = fmt.Sprintf("OpenCLI has no site %s; nothing was run", text.Quote(site))
		return e
	}
	return &browser.Error{Code: browser.CodeTargetNotFound,
		Message:     fmt.Sprintf("OpenCLI's %s has no command %s; nothing was run (only the adapters opencli_adapter_list shows are run)", site, text.Quote(command)),
		Hint:        fmt.Sprintf("opencli_adapter_list {site: %q} lists its commands with their arguments", site),
		Suggestions: text.Nearest(command, names, 3)}
}

// openCLIFailure is the error of a run that failed: the code of cause, or
// COMMAND_FAILED with the first line of its error output; the diagnosis
// holds the exit code, the error output's tail (credentials hidden), the
// files written and whether the killed processes were seen gone.
func openCLIFailure(rep *openCLIReport, res *opencli.Result, stderr string, cause error) error {
	e, ok := browser.AsError(cause)
	if cause != nil && !ok {
		e = &browser.Error{Code: browser.CodeInternal, Message: cause.Error(), Err: cause}
	}
	if e == nil {
		msg := firstTextLine(stderr)
		if msg == "" {
			msg = firstTextLine(redact.Text(string(res.Stdout)))
		}
		if msg == "" {
			msg = "(no error output)"
		}
		e = &browser.Error{Code: browser.CodeCommandFailed,
			Message: fmt.Sprintf("opencli %s %s exited with %d: %s", rep.Site, rep.Command, res.ExitCode, text.Cut(msg, 300)),
			Hint:    openCLIHint(stderr)}
	} else {
		e = &browser.Error{Code: e.Code, Message: e.Message, Hint: e.Hint, Suggestions: e.Suggestions, Err: e.Err}
	}
	diag := map[string]any{"exit_code": res.ExitCode, "duration_ms": res.Duration.Milliseconds()}
	if stderr != "" {
		diag["stderr_tail"] = stderr
	}
	if head := bytes.TrimSpace(res.Stdout[:min(len(res.Stdout), 4<<10)]); len(head) > 0 {
		// (the head is cut first: the redaction need not read 32 MiB)
		diag["stdout_head"] = text.Clip(redact.Text(string(head)), 1000)
	}
	if rep.TerminationConfirmed != nil {
		diag["termination_confirmed"] = *rep.TerminationConfirmed
	}
	if len(rep.Files) > 0 {
		diag["files"] = rep.Files
	}
	e.Diagnosis = diag
	return e
}

// firstTextLine is the first line of s that is not blank, trimmed.
func firstTextLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "…")); l != "" {
			return l
		}
	}
	return ""
}

// openCLIHint is what to do about a failed run, from its error output.
func openCLIHint(stderr string) string {
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "browser bridge") || strings.Contains(low, "extension not connected") || strings.Contains(low, "daemon"):
		return "this adapter drives Chrome through OpenCLI's own Browser Bridge extension and daemon: install the extension and check with `opencli doctor`"
	case strings.Contains(low, "required option") || strings.Contains(low, "unknown option") || strings.Contains(low, "missing required") || strings.Contains(low, "too many arguments"):
		return "check the arguments: opencli_adapter_list {site} shows each command's arguments (<x> positional, --x! required)"
	case strings.Contains(low, "login") || strings.Contains(low, "not logged") || strings.Contains(low, "unauthorized") || strings.Contains(low, "401"):
		return "the site wants a login in the browser OpenCLI uses; log in there and run it again"
	}
	return "read stderr_tail; run the command with --help in args for its usage"
}

// openCLIOutput puts the run's standard output in the report: parsed JSON
// as data, else text; longer than maxChars, its head, with the whole of it
// saved in the run's folder.
func openCLIOutput(rep *openCLIReport, stdout []byte, maxChars int, folder string, reserve func(int64) (func(), error)) error {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return nil
	}
	s := string(trimmed)
	if n := len([]rune(s)); n <= maxChars {
		if rep.Format == "json" && json.Valid(trimmed) && !rep.Partial {
			var c bytes.Buffer
			if json.Compact(&c, trimmed) == nil {
				rep.Data = c.Bytes()
				return nil
			}
		}
		rep.Output = &s
		return nil
	}
	head, _ := text.Head(s, maxChars)
	cut := &openCLICut{ShownChars: len([]rune(head)), TotalChars: len([]rune(s))}
	ext := map[string]string{"json": "json", "yaml": "yaml", "md": "md", "csv": "csv"}[rep.Format]
	if ext == "" {
		ext = "txt"
	}
	path, err := saveOpenCLIOutput(folder, "output."+ext, stdout, reserve)
	if err != nil {
		rep.Notes = append(rep.Notes, "the whole output could not be saved: "+err.Error())
	} else {
		cut.SavedTo = path
		if fi, err := os.Stat(path); err == nil {
			rep.Files = append(rep.Files, openCLIFile{Path: path, Size: fi.Size(), MIME: browser.FileMIME(path)})
		}
	}
	rep.Output, rep.OutputCut = &head, cut
	return nil
}

// saveOpenCLIOutput writes data as a new file in the run's folder (made
// again when it was removed), within the output directory's budget.
func saveOpenCLIOutput(folder, name string, data []byte, reserve func(int64) (func(), error)) (string, error) {
	done, err := reserve(int64(len(data)))
	if err != nil {
		return "", err
	}
	defer done()
	path := filepath.Join(folder, name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			break
		}
		path = filepath.Join(folder, fmt.Sprintf("output (%d)%s", i, filepath.Ext(name)))
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// treeBytes is the size of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// openCLIFiles are the regular files under the run's folder, from the
// disk (links are not followed); of the paths its JSON output names under
// file-like keys, those outside the folder (never looked at: a result
// lists only what the run wrote there) and those in it that are not on
// disk.
func openCLIFiles(folder string, stdout []byte) (files []openCLIFile, outside, missing []string) {
	_ = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				files = append(files, openCLIFile{Path: p, Size: fi.Size(), MIME: browser.FileMIME(p)})
			}
		}
		return nil
	})
	var v any
	if json.Unmarshal(bytes.TrimSpace(stdout), &v) == nil {
		root, err := filepath.EvalSymlinks(folder)
		if err != nil {
			root = folder
		}
		for _, p := range namedPaths(v, "", nil) {
			abs := p
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(folder, p)
			}
			abs = filepath.Clean(abs)
			in := false
			if rel, err := filepath.Rel(folder, abs); err == nil && filepath.IsLocal(rel) {
				in = true
				if real, err := filepath.EvalSymlinks(abs); err == nil {
					rel, err := filepath.Rel(root, real)
					in = err == nil && filepath.IsLocal(rel)
				}
			}
			switch {
			case !in:
				if !slices.Contains(outside, p) {
					outside = append(outside, p)
				}
			case !slices.ContainsFunc(files, func(f openCLIFile) bool { return f.Path == abs }):
				if _, err := os.Lstat(abs); err != nil && !slices.Contains(missing, p) {
					missing = append(missing, p)
				}
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, outside, missing
}

// namedPaths are the string values under file-like keys (path, file,
// filename, output, saved_to, download, …) that look like paths.
func namedPaths(v any, key string, out []string) []string {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			out = namedPaths(x, strings.ToLower(k), out)
		}
	case []any:
		for _, x := range t {
			out = namedPaths(x, key, out)
		}
	case string:
		fileKey := false
		for _, w := range []string{"path", "file", "saved", "output", "download", "dest", "local"} {
			if strings.Contains(key, w) {
				fileKey = true
			}
		}
		if fileKey && t != "" && len(t) < 4096 && !strings.Contains(t, "://") && !strings.ContainsAny(t, "\n\r") &&
			(strings.ContainsAny(t, `/\`) || filepath.Ext(t) != "") && len(out) < 100 {
			out = append(out, t)
		}
	}
	return out
}

// OpenCLIStatusIn is opencli_status's input (none).
type OpenCLIStatusIn struct{}

var openCLIStatusTool = Def(Tool{
	Name:        "opencli_status",
	Description: "The OpenCLI webpilot runs: command, version, where it was found, adapters, site gate and busy sites.",
	Annotations: Annotations{ReadOnly: true, Idempotent: true},
	Group:       GroupOpenCLI,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, _ OpenCLIStatusIn) (*Result, error) {
	svc, err := openCLIService(h)
	if err != nil {
		return nil, err
	}
	// The version check runs in the background soon after the start; a
	// status before it is over starts it now and waits for it.
	wctx, cancel := context.WithTimeout(ctx, opencli.VersionTimeout)
	defer cancel()
	_, _ = svc.WaitVersion(wctx)
	out := OpenCLIStatus(svc)
	cctx, cancel2 := context.WithTimeout(ctx, opencli.ListTimeout)
	defer cancel2()
	if catalog, err := svc.Catalog(cctx); err == nil {
		sites := map[string]bool{}
		for _, a := range catalog {
			sites[a.Site] = true
		}
		out["adapters"] = map[string]int{"commands": len(catalog), "sites": len(sites)}
	} else {
		out["adapters_error"] = redact.Text(err.Error())
	}
	if g := h.env.Gate; g != nil {
		o := g.Options()
		out["site_gate"] = map[string]any{"runs_per_site": o.Runs, "queue_per_site": o.Queue, "wait": o.Wait.String(), "busy_sites": g.Status(),
			"note": "runs share the gate with recipe runs and flows, keyed by the adapter's domain (opencli:SITE when it has none)"}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Result{Text: string(b)}, nil
})

// OpenCLIStatus is what browser_status and opencli_status say of an
// OpenCLI service: its command, source and version (or why there is
// none).
func OpenCLIStatus(svc *opencli.Service) map[string]any {
	c := svc.Command()
	out := map[string]any{"found": true, "command": c.String(), "source": c.Source}
	switch v, err := svc.Version(); {
	case err != nil:
		out["version_error"] = redact.Text(err.Error())
	case v == "":
		out["version"] = "(being checked)"
	default:
		out["version"] = v
	}
	return out
}
