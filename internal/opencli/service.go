package opencli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/redact"
)

// Bounds of the runs Service makes on its own.
const (
	// VersionTimeout bounds the --version preflight.
	VersionTimeout = 20 * time.Second
	// ListTimeout bounds `opencli list`.
	ListTimeout = 60 * time.Second
	// CatalogTTL is how long a catalog is kept before it is read again.
	CatalogTTL = 10 * time.Minute
	// warmAfter is how long after a good version check the catalog is
	// read in the background, so that the first list is answered at once
	// without competing with the browser's start.
	warmAfter = 10 * time.Second
)

// Formats are the output formats OpenCLI's adapters take (-f).
var Formats = []string{"json", "yaml", "table", "plain", "md", "csv"}

// nameRE is what a site or command name may be: no leading dash, so it is
// never read as an option.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._-]*$`)

// ValidName reports whether s may be a site or command name.
func ValidName(s string) bool {
	// (not "." or "..", nor dots alone: OpenCLI would take them as paths)
	return len(s) <= 100 && nameRE.MatchString(s) && strings.Trim(s, ".") != ""
}

// Adapter is one command of OpenCLI's catalog (`opencli list -f json`).
type Adapter struct {
	Site        string   `json:"site"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Description string   `json:"description"`
	Domain      string   `json:"domain,omitempty"`
	Strategy    string   `json:"strategy,omitempty"`
	Access      string   `json:"access,omitempty"`
	Browser     bool     `json:"browser"`
	Args        []Arg    `json:"args,omitempty"`
}

// Arg is one argument of an adapter.
type Arg struct {
	Name       string   `json:"name"`
	Type       string   `json:"type,omitempty"`
	Required   bool     `json:"required,omitempty"`
	Positional bool     `json:"positional,omitempty"`
	Default    any      `json:"default,omitempty"`
	Choices    []string `json:"choices,omitempty"`
	Help       string   `json:"help,omitempty"`
}

// Service is one OpenCLI command, shared by the clients that found the
// same one: its version (a --version preflight in the background) and its
// catalog (cached for CatalogTTL).
type Service struct {
	cmd      Command
	log      *slog.Logger
	announce func(c Command, version string, err error)

	mu         sync.Mutex // guards what follows
	version    string
	versionErr error
	versionIn  chan struct{} // closed when the preflight ended
	checkOnce  sync.Once     // starts the preflight
	catalog    []Adapter
	catalogAt  time.Time
	loading    chan struct{} // a catalog read under way; closed when it ends
	loadErr    error
}

// Pool keeps one Service per command line.
type Pool struct {
	log *slog.Logger
	// Announce, when set, is told the outcome of each service's version
	// check (a line on stderr for the user).
	Announce func(c Command, version string, err error)
	// Delay is how long after a service is made its version check starts
	// (0: at once), unless someone asks for the version first: node's
	// start would compete with the browser's at a client's start.
	Delay time.Duration

	mu       sync.Mutex // guards services
	services map[string]*Service
}

// NewPool makes a pool whose services log to log (nil: nowhere).
func NewPool(log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{log: log, services: map[string]*Service{}}
}

// Service is the pool's service of c, made (and its --version preflight
// started in the background) on first use.
func (p *Pool) Service(c Command) *Service {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.services[c.key()]; s != nil {
		return s
	}
	s := &Service{cmd: c, log: p.log, versionIn: make(chan struct{}), announce: p.Announce}
	p.services[c.key()] = s
	if p.Delay > 0 {
		time.AfterFunc(p.Delay, s.check)
	} else {
		s.check()
	}
	return s
}

// Command is the command the service runs.
func (s *Service) Command() Command { return s.cmd }

// check starts the version check in the background, once.
func (s *Service) check() { s.checkOnce.Do(func() { go s.preflight() }) }

// preflight runs --version and logs the outcome.
func (s *Service) preflight() {
	ctx, cancel := context.WithTimeout(context.Background(), VersionTimeout)
	defer cancel()
	res, err := Run(ctx, s.cmd.Argv("--version"), RunOptions{Timeout: VersionTimeout, MaxOutput: 64 << 10, Env: runEnv(s.cmd)})
	var version string
	switch {
	case err != nil:
		err = fmt.Errorf("could not start %s: %w", s.cmd, err)
	case res.TimedOut:
		err = fmt.Errorf("%s --version did not answer in %v", s.cmd, VersionTimeout)
	case res.ExitCode != 0:
		err = fmt.Errorf("%s --version exited with %d: %s", s.cmd, res.ExitCode, RedactedTail(res.Stderr, 300))
	default:
		version = strings.TrimSpace(strings.SplitN(strings.TrimSpace(string(res.Stdout)), "\n", 2)[0])
		if version == "" {
			err = fmt.Errorf("%s --version printed nothing", s.cmd)
		}
	}
	s.mu.Lock()
	s.version, s.versionErr = version, err
	s.mu.Unlock()
	close(s.versionIn)
	if s.announce != nil {
		s.announce(s.cmd, version, err)
	}
	if err != nil {
		s.log.Warn("opencli: the version check failed", "command", s.cmd.String(), "source", s.cmd.Source, "err", err)
		return
	}
	s.log.Info("opencli found", "version", version, "command", s.cmd.String(), "source", s.cmd.Source)
	time.AfterFunc(warmAfter, func() {
		if _, err := s.Catalog(context.Background()); err != nil {
			s.log.Warn("opencli: the adapter catalog could not be read", "err", err)
		}
	})
}

// Version is the version the preflight read; "" with a nil error while it
// runs.
func (s *Service) Version() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.versionErr
}

// WaitVersion waits (within ctx) for the preflight, started now if it was
// not yet, and returns Version.
func (s *Service) WaitVersion(ctx context.Context) (string, error) {
	s.check()
	select {
	case <-s.versionIn:
	case <-ctx.Done():
	}
	return s.Version()
}

// Catalog is the adapters of `opencli list -f json`, read again when older
// than CatalogTTL (the last one stays when that fails); concurrent callers
// share one read, which goes on for the others when one gives up (ctx).
func (s *Service) Catalog(ctx context.Context) ([]Adapter, error) {
	s.mu.Lock()
	if s.catalog != nil && time.Since(s.catalogAt) < CatalogTTL {
		c := s.catalog
		s.mu.Unlock()
		return c, nil
	}
	ch := s.loading
	if ch == nil {
		ch = make(chan struct{})
		s.loading = ch
		go func() {
			c, err := s.readCatalog()
			s.mu.Lock()
			if err == nil {
				s.catalog, s.catalogAt = c, time.Now()
			}
			s.loading, s.loadErr = nil, err
			s.mu.Unlock()
			close(ch)
		}()
	}
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.catalog == nil {
		return nil, s.loadErr // (a refresh that failed keeps the last catalog)
	}
	return s.catalog, nil
}

// readCatalog runs `opencli list -f json` (not bound to a caller: others
// may be waiting for it).
func (s *Service) readCatalog() ([]Adapter, error) {
	res, err := Run(context.Background(), s.cmd.Argv("list", "-f", "json"), RunOptions{Timeout: ListTimeout, Env: runEnv(s.cmd)})
	if err != nil {
		return nil, fmt.Errorf("could not start %s: %w", s.cmd, err)
	}
	switch {
	case res.TimedOut:
		return nil, fmt.Errorf("%s list did not finish in %v", s.cmd, ListTimeout)
	case res.Capped != "":
		return nil, fmt.Errorf("%s list printed more than %d MiB", s.cmd, DefaultMaxOutput>>20)
	case res.ExitCode != 0:
		return nil, fmt.Errorf("%s list exited with %d: %s", s.cmd, res.ExitCode, RedactedTail(res.Stderr, 300))
	}
	var out []Adapter
	if err := json.Unmarshal(bytes.TrimSpace(res.Stdout), &out); err != nil {
		return nil, fmt.Errorf("%s list -f json did not print a JSON array of commands: %w", s.cmd, err)
	}
	out = slices.DeleteFunc(out, func(a Adapter) bool { return !ValidName(a.Site) || !ValidName(a.Name) })
	slices.SortStableFunc(out, func(a, b Adapter) int {
		if c := strings.Compare(a.Site, b.Site); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// Lookup finds site's command (or an alias of it) in a catalog.
func Lookup(catalog []Adapter, site, command string) (Adapter, bool) {
	for _, a := range catalog {
		if a.Site == site && (a.Name == command || slices.Contains(a.Aliases, command)) {
			return a, true
		}
	}
	return Adapter{}, false
}

// RunRequest is one adapter run.
type RunRequest struct {
	Site, Command string
	// Args go after the command as they are (an argv array).
	Args []string
	// Format is passed as -f ("": none).
	Format string
	// Dir is the run's working directory: where the files it writes with
	// relative paths go.
	Dir      string
	Timeout  time.Duration
	Watch    func() error
	Progress func(elapsed time.Duration, output int)
}

// Argv is the request's arguments after the command's prefix: the site,
// the command, -f FORMAT, then Args (the format before them, so that an
// argument "--" cannot turn it into a positional one).
func (r RunRequest) Argv() []string {
	out := []string{r.Site, r.Command}
	if r.Format != "" {
		out = append(out, "-f", r.Format)
	}
	return append(out, r.Args...)
}

// Run runs one adapter. It refuses, before anything runs, a site or
// command that is not a plain name and, for a batch file on Windows,
// arguments that cmd.exe would read as its own.
func (s *Service) Run(ctx context.Context, r RunRequest) (*Result, error) {
	if !ValidName(r.Site) || !ValidName(r.Command) {
		return nil, fmt.Errorf("site and command must match [A-Za-z0-9._-]+ and not start with '-'")
	}
	if isBatch(s.cmd.Path) {
		for _, a := range r.Args {
			if strings.ContainsAny(a, "\"&|<>^%!\r\n") {
				return nil, fmt.Errorf("%s is a batch file, which cmd.exe runs: the argument %q holds a character it would read as its own", s.cmd.Path, a)
			}
		}
	}
	return Run(ctx, s.cmd.Argv(r.Argv()...), RunOptions{Dir: r.Dir, Env: runEnv(s.cmd), Timeout: r.Timeout, Watch: r.Watch, Progress: r.Progress})
}

// runEnv is this process's environment with the PATH c was found with
// and colour off (plain text for an agent), without webpilot's own
// variables: an adapter never sees the declared secrets
// (WEBPILOT_SECRET_*), the server's token or any other setting.
func runEnv(c Command) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "FORCE_COLOR" || k == "NO_COLOR" || c.PathEnv != "" && strings.EqualFold(k, "PATH") ||
			strings.HasPrefix(strings.ToUpper(k), "WEBPILOT_")
	})
	if c.PathEnv != "" {
		env = append(env, "PATH="+c.PathEnv)
	}
	return append(env, "NO_COLOR=1", "FORCE_COLOR=0")
}

// RedactedTail is the last n characters of a program's output with the
// credentials in it hidden (redact.Text): the redaction reads the last
// 64 KiB whole lines first, so that cutting never splits a credential from
// the word that marks it.
func RedactedTail(b []byte, n int) string {
	const window = 64 << 10
	if len(b) > window {
		b = b[len(b)-window:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil // one line longer than the window: nothing of it is safe to show
		}
	}
	return Tail(redact.Text(string(b)), n)
}

// Tail is the last n characters of s, trimmed, with "…" in front when cut.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}
