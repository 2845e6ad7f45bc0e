// Package trace records what an agent did in a browser session, for a
// person to review: every tool call (time, tool, arguments, outcome, the
// page's URL and title after it, a small screenshot after the calls that
// change the page, and the result text the agent saw), into one
// self-contained HTML file per session that is rewritten, atomically, after
// each call. The steps are also embedded as JSON (a script block of type
// application/json with id webpilot-trace) so that `webpilot trace show`
// and tests read them back; the page itself needs no script.
//
// Every string written passes through Options.Mask first, so that secrets
// never reach the file.
package trace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Bounds of a trace file.
const (
	// DefaultMaxSteps is how many steps a file keeps; older steps go first.
	DefaultMaxSteps = 500
	// DefaultMaxBytes bounds a file's size; older screenshots are dropped
	// first, then older steps.
	DefaultMaxBytes = 20 << 20
	// MaxResultChars bounds the result text kept per step.
	MaxResultChars = 8000
	// MaxArgsChars bounds the arguments kept per step (as JSON).
	MaxArgsChars = 4000
)

// Step is one tool call as the trace keeps it.
type Step struct {
	N      int       `json:"n"`    // 1-based, in the session
	Time   time.Time `json:"time"` // when the call started
	Ms     int64     `json:"ms"`   // how long it took
	Tool   string    `json:"tool"`
	Target string    `json:"target,omitempty"` // what the call was about, in a few words
	Args   string    `json:"args,omitempty"`   // the arguments, as JSON
	OK     bool      `json:"ok"`
	Code   string    `json:"code,omitempty"`    // the error code when not OK
	Error  string    `json:"message,omitempty"` // the error message when not OK
	Result string    `json:"result,omitempty"`  // the text the agent got (bounded)
	URL    string    `json:"url,omitempty"`     // the tab's page after the call
	Title  string    `json:"title,omitempty"`
	// Image is a small JPEG of the tab after the call (page-changing tools
	// only); in the file it is an <img> with a data: URI, and the JSON
	// says only whether it is there.
	Image    []byte `json:"-"`
	HasImage bool   `json:"image,omitempty"`
}

// Options configure a Recorder.
type Options struct {
	// Dir is the directory trace files are written to.
	Dir string
	// Mask is applied to every string written (arguments, results, URL,
	// title, messages); nil is the identity.
	Mask func(string) string
	// MaxSteps and MaxBytes bound each file (defaults DefaultMaxSteps,
	// DefaultMaxBytes).
	MaxSteps int
	MaxBytes int
	// Reserve, when set, is asked for room for n more bytes before a file
	// grows (the output directory's budget); done is called once written.
	Reserve func(n int64) (done func(), err error)
}

func (o *Options) defaults() {
	if o.Mask == nil {
		o.Mask = func(s string) string { return s }
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
}

// Recorder keeps one trace file per session. It is safe for concurrent
// use; each session's file has its own lock.
type Recorder struct {
	opts  Options
	mu    sync.Mutex
	files map[string]*File
	used  map[string]int64 // session → when its file was last used (seq)
	seq   int64
}

// maxOpenFiles bounds the files a Recorder keeps in memory (each up to
// MaxBytes): past it, the least recently used one is let go; its file
// stays on disk, and a later call of that session starts a new one.
const maxOpenFiles = 32

// New is a recorder writing under opts.Dir.
func New(opts Options) *Recorder {
	opts.defaults()
	return &Recorder{opts: opts, files: make(map[string]*File), used: make(map[string]int64)}
}

// Dir is the directory the recorder writes to.
func (r *Recorder) Dir() string { return r.opts.Dir }

// Record adds a step to the session's file (made on its first step) and
// rewrites the file; the file's path is returned.
func (r *Recorder) Record(session string, s Step) (string, error) {
	r.mu.Lock()
	f, ok := r.files[session]
	if !ok {
		if len(r.files) >= maxOpenFiles {
			r.letGo()
		}
		f = NewFile(r.opts.Dir, session, s.Time, r.opts)
		r.files[session] = f
	}
	r.seq++
	r.used[session] = r.seq
	r.mu.Unlock()
	return f.path, f.Add(s)
}

// letGo forgets the least recently used file. Call with r.mu held.
func (r *Recorder) letGo() {
	oldest, at := "", int64(-1)
	for k, v := range r.used {
		if at < 0 || v < at {
			oldest, at = k, v
		}
	}
	delete(r.files, oldest)
	delete(r.used, oldest)
}

// Path is the file of a session's trace ("" when it has none yet).
func (r *Recorder) Path(session string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.files[session]; ok {
		return f.path
	}
	return ""
}

// File is one session's trace file.
type File struct {
	opts    Options
	mu      sync.Mutex
	session string
	started time.Time
	path    string
	steps   []Step
	n       int // steps added so far
	// cutSteps counts the older steps dropped, cutImages the screenshots.
	cutSteps, cutImages int
	size                int64 // bytes last written
}

// NewFile is the trace file of session, started at start, in dir:
// <session>-<start>.html. Nothing is written until the first step.
func NewFile(dir, session string, start time.Time, opts Options) *File {
	opts.defaults()
	if start.IsZero() {
		start = time.Now()
	}
	name := fmt.Sprintf("%s-%s.html", safeName(opts.Mask(session)), start.UTC().Format("20060102-150405.000"))
	return &File{opts: opts, session: session, started: start, path: filepath.Join(dir, name)}
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Add masks and appends a step, keeps the file within its bounds, and
// rewrites it atomically.
func (f *File) Add(s Step) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	s.N = f.n
	m := f.opts.Mask
	s.Tool, s.Target, s.Code = m(s.Tool), m(s.Target), m(s.Code)
	s.Args = cut(m(s.Args), MaxArgsChars)
	s.Error = m(s.Error)
	s.Result = cut(m(s.Result), MaxResultChars)
	s.URL, s.Title = m(s.URL), m(s.Title)
	s.HasImage = len(s.Image) > 0
	f.steps = append(f.steps, s)
	if over := len(f.steps) - f.opts.MaxSteps; over > 0 {
		f.steps = f.steps[over:]
		f.cutSteps += over
	}
	data := f.render()
	for len(data) > f.opts.MaxBytes {
		if !f.dropImage() {
			if len(f.steps) <= 1 {
				break
			}
			f.steps = f.steps[1:]
			f.cutSteps++
		}
		data = f.render()
	}
	return f.write(data)
}

// dropImage drops the oldest screenshot left; false when none is.
func (f *File) dropImage() bool {
	for i := range f.steps {
		if len(f.steps[i].Image) > 0 {
			f.steps[i].Image, f.steps[i].HasImage = nil, false
			f.cutImages++
			return true
		}
	}
	return false
}

// write replaces the file with data: a temp file in the same directory,
// then a rename, so the file is always whole.
func (f *File) write(data []byte) error {
	if f.opts.Reserve != nil {
		done, err := f.opts.Reserve(max(0, int64(len(data))-f.size))
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		defer done()
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".trace-*.tmp")
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("trace: write %s: %w", f.path, err)
	}
	f.size = int64(len(data))
	return nil
}

// cut bounds s to n runes, saying how much was left out.
func cut(s string, n int) string {
	head, more := text.Head(s, n)
	if more == 0 {
		return s
	}
	return head + fmt.Sprintf("\n… %d more chars left out of the trace", more)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName is a session name fit for a file name.
func safeName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "_")
	if s == "" || strings.Trim(s, ".") == "" {
		s = "session"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// Target is what a call is about, in a few words, from its arguments: the
// URL, the element, the fields, the steps.
func Target(tool string, args map[string]any) string {
	str := func(k string) string { s, _ := args[k].(string); return s }
	var parts []string
	if a := str("action"); a != "" {
		parts = append(parts, a)
	}
	for _, k := range []string{"url", "ref", "selector", "text", "role", "name", "recipe", "accept", "value", "key"} {
		if v := str(k); v != "" {
			parts = append(parts, k+"="+cut(v, 80))
		}
	}
	if k, ok := args["keys"].(string); ok && k != "" {
		parts = append(parts, "keys="+cut(k, 40))
	}
	if f, ok := args["fields"].([]any); ok {
		parts = append(parts, fmt.Sprintf("%d field(s)", len(f)))
	}
	if s, ok := args["steps"].([]any); ok {
		parts = append(parts, fmt.Sprintf("%d step(s)", len(s)))
	}
	return strings.Join(parts, " ")
}

// ArgsJSON is a call's arguments as compact JSON, keys sorted.
func ArgsJSON(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	b, err := json.Marshal(args)
	if err != nil {
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return strings.Join(keys, ",")
	}
	return string(b)
}

// Screenshot size and quality of a step's image.
const (
	ShotWidth   = 480 // CSS pixels
	ShotQuality = 50  // JPEG
)

// shooting are the tools that change the page: a step of theirs gets a
// screenshot.
var shooting = map[string]bool{"browser_navigate": true, "browser_action": true, "browser_fill_form": true, "browser_flow": true,
	"browser_dialog": true, "browser_handoff": true, "recipe_run": true}

// Shoots reports whether a step of tool gets a screenshot: the tool
// changes the page.
func Shoots(tool string) bool { return shooting[tool] }
