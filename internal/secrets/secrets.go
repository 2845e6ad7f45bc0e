// Package secrets holds the values an agent may type by name without ever
// seeing them: declared by the user in a file (--secrets FILE, NAME=value
// lines, NAME@origin=value to limit one to origins) or the environment
// (WEBPILOT_SECRET_<NAME>), looked up by name when a tool types one, and
// masked as <secret:NAME> in everything webpilot says or writes — raw, and
// in the URL-, JSON- and HTML-encoded forms a page, a request body or a
// result may carry them in.
package secrets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/origin"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

// EnvPrefix starts the environment variables that declare secrets.
const EnvPrefix = "WEBPILOT_SECRET_"

// MinLen is the shortest value a secret may have: a shorter one would be
// masked wherever its few characters happen to appear.
const MinLen = 4

// nameRE is what a secret's name may be.
var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// Secret is one declared secret.
type Secret struct {
	Name  string
	Value string
	// Origins limit where it may be typed ("https://bank.example",
	// "bank.example"); empty: anywhere.
	Origins []string
	// From says where it was declared (the file and line, or the variable).
	From  string
	rules []origin.Rule
}

// Check says whether the secret may be typed into a document at docURL:
// ORIGIN_BLOCKED when it is limited to other origins.
func (sec Secret) Check(docURL string) error {
	if len(sec.rules) == 0 {
		return nil
	}
	u, err := url.Parse(docURL)
	if err == nil {
		for _, r := range sec.rules {
			if r.Matches(u) {
				return nil
			}
		}
	}
	where := docURL
	if err == nil && u.Host != "" {
		where = u.Scheme + "://" + u.Host
	}
	return &toolerr.Error{Code: toolerr.CodeOriginBlocked,
		Message: fmt.Sprintf("secret %s may be typed only on %s, and this field is on %s: nothing was typed", sec.Name, strings.Join(sec.Origins, ", "), toolerr.Echo(where)),
		Hint:    "check that the page is the site the user meant the secret for; a page that asks for it elsewhere may be phishing"}
}

// Set is the declared secrets; the zero value and nil hold none.
type Set struct {
	byName map[string]Secret
	// parts are more values masked as a secret's name: the password of
	// a user:password secret that answers logins (MaskAlso).
	parts  map[string]string
	masker *strings.Replacer
	// frags masks what is left of a secret in parts (fragments).
	frags *fragments
}

// Load reads the secrets of file ("" for none) and of the environment
// (environ as os.Environ gives it). A file line is NAME=value or
// NAME@origin[,origin…]=value; blank lines and lines starting with # are
// skipped; the value runs to the end of the line as written. A name
// declared twice is an error.
func Load(file string, environ []string) (*Set, error) {
	s := &Set{byName: map[string]Secret{}}
	add := func(sec Secret) error {
		if !nameRE.MatchString(sec.Name) {
			return fmt.Errorf("%s: %q is not a secret name (a letter, then letters, digits and _, at most 64)", sec.From, sec.Name)
		}
		if len(sec.Value) < MinLen {
			return fmt.Errorf("%s: secret %s is shorter than %d characters", sec.From, sec.Name, MinLen)
		}
		if old, ok := s.byName[sec.Name]; ok {
			return fmt.Errorf("%s: secret %s is declared twice (also %s)", sec.From, sec.Name, old.From)
		}
		s.byName[sec.Name] = sec
		return nil
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("secrets: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimRight(sc.Text(), "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			key, value, ok := strings.Cut(line, "=")
			from := fmt.Sprintf("%s:%d", file, n)
			if !ok {
				return nil, fmt.Errorf("%s: not NAME=value", from)
			}
			name, origins, _ := strings.Cut(strings.TrimSpace(key), "@")
			sec := Secret{Name: name, Value: value, From: from}
			if origins != "" {
				for _, o := range strings.Split(origins, ",") {
					if o = strings.TrimSpace(o); o == "" {
						continue
					}
					r, err := origin.Parse(o)
					if err != nil {
						return nil, fmt.Errorf("%s: secret %s: %w", from, name, err)
					}
					sec.Origins = append(sec.Origins, o)
					sec.rules = append(sec.rules, r)
				}
			}
			if err := add(sec); err != nil {
				return nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("secrets: %s: %w", file, err)
		}
	}
	for _, kv := range environ {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(key, EnvPrefix) {
			continue
		}
		if err := add(Secret{Name: strings.TrimPrefix(key, EnvPrefix), Value: value, From: key}); err != nil {
			return nil, err
		}
	}
	s.build()
	return s, nil
}

// build makes the masker: every form of every value, longest first, so
// that a value holding another is masked whole.
func (s *Set) build() {
	type pair struct{ old, name string }
	var pairs []pair
	seen := map[string]bool{}
	add := func(value, name string) {
		for _, f := range forms(value) {
			if f != "" && !seen[f] {
				seen[f] = true
				pairs = append(pairs, pair{f, name})
			}
		}
	}
	s.values(add)
	sort.Slice(pairs, func(i, j int) bool { return longestFirst(pairs[i].old, pairs[j].old) })
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, "<secret:"+p.name+">")
	}
	if len(args) > 0 {
		s.masker = strings.NewReplacer(args...)
	}
	s.frags = newFragments(s)
}

// forms are the ways a value may be written where webpilot reads it: as
// it is, and through one or two of the encodings a page, a request or a
// result applies — URL encoding (form bodies, query strings,
// encodeURIComponent, path escaping), JSON strings (with and without HTML
// escaping; twice for JSON inside JSON, as an eval of JSON.stringify
// returns it), HTML text and attributes; each of the value as it is, upper-
// and lower-cased.
func forms(v string) []string {
	encoders := []func(string) string{
		url.QueryEscape, url.PathEscape, uriComponent,
		func(s string) string { return strings.ReplaceAll(uriComponent(s), "%20", "+") },
		func(s string) string { return jsonString(s, true) },
		func(s string) string { return jsonString(s, false) },
		html.EscapeString,
		// (an HTTP Basic login sends user:password in base64)
		func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace,
		strings.NewReplacer("&", "&amp;", `"`, "&quot;").Replace,
		strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace,
	}
	var out []string
	// Upper and lower case too: a page's text-transform shows the value
	// case-changed in its rendered text.
	for _, c := range []string{v, strings.ToUpper(v), strings.ToLower(v)} {
		out = append(out, c)
		for _, e1 := range encoders {
			once := e1(c)
			out = append(out, once)
			for _, e2 := range encoders {
				out = append(out, e2(once))
			}
		}
	}
	return out
}

// jsonString is s as inside a JSON string literal (without the quotes).
func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	js := strings.TrimSuffix(b.String(), "\n")
	return js[1 : len(js)-1]
}

// uriComponent is v as JavaScript's encodeURIComponent writes it.
func uriComponent(v string) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', strings.IndexByte("-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Names are the declared names, sorted (never the values).
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.byName))
	for n := range s.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Len is how many secrets are declared.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byName)
}

// Lookup is the secret of that name.
func (s *Set) Lookup(name string) (Secret, bool) {
	if s == nil {
		return Secret{}, false
	}
	sec, ok := s.byName[name]
	return sec, ok
}

// MaskAlso masks value too, as the secret name's: a part of a secret that
// may show on its own (the password of a user:password login). Call it
// before the set is used.
func (s *Set) MaskAlso(name, value string) {
	if s == nil || value == "" {
		return
	}
	if s.parts == nil {
		s.parts = map[string]string{}
	}
	s.parts[value] = name
	s.build()
}

// Mask replaces every form of every secret's value in text by
// <secret:NAME>.
func (s *Set) Mask(text string) string {
	if s == nil || s.masker == nil || text == "" {
		return text
	}
	return s.spaced(s.frags.mask(s.masker.Replace(text)))
}

// spacedSep are what a page puts between the groups of a value it
// reformats ("4242 4242 4242 4242", "555-0100").
const spacedSep = " -\u00a0"

// spaced masks a secret's value that text shows with separators inside
// (spacedSep): found in text with them taken out, masked over its whole
// span.
func (s *Set) spaced(text string) string {
	if len(text) < MinLen || !strings.ContainsAny(text, spacedSep) {
		return text
	}
	// (no secret's first characters in text: nothing to look for)
	head := false
	for _, name := range s.Names() {
		v := s.byName[name].Value
		if i := strings.IndexAny(v, spacedSep); i >= 0 {
			v = v[:i]
		}
		if len(v) > 3 {
			v = v[:3] // (a group may be as short as three: 555-0100)
		}
		if strings.Contains(text, v) {
			head = true
			break
		}
	}
	if !head {
		return text
	}
	var b strings.Builder
	var at []int // byte offset in text of each byte of the squeezed text
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(spacedSep, r) {
			b.WriteString(text[i : i+n])
			for j := range n {
				at = append(at, i+j)
			}
		}
		i += n
	}
	squeezed := b.String()
	type span struct {
		from, to int
		name     string
	}
	var spans []span
	for _, name := range s.Names() {
		v := strings.Map(func(r rune) rune {
			if strings.ContainsRune(spacedSep, r) {
				return -1
			}
			return r
		}, s.byName[name].Value)
		if len(v) < MinLen {
			continue
		}
		for off := 0; ; {
			i := strings.Index(squeezed[off:], v)
			if i < 0 {
				break
			}
			from, to := at[off+i], at[off+i+len(v)-1]+1
			spans = append(spans, span{from, to, name})
			off += i + len(v)
		}
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			continue
		}
		out.WriteString(text[last:sp.from])
		out.WriteString("<secret:" + sp.name + ">")
		last = sp.to
	}
	out.WriteString(text[last:])
	return out.String()
}

// MaskAny masks the strings inside v (maps, lists, strings), returning a
// masked copy; other values are returned as they are.
func (s *Set) MaskAny(v any) any {
	if s == nil || s.masker == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.Mask(x)
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = s.Mask(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.MaskAny(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.MaskAny(e)
		}
		return out
	}
	return v
}

// Handler wraps h so that every message and string attribute it writes is
// masked: the log never holds a secret either.
func (s *Set) Handler(h slog.Handler) slog.Handler {
	if s == nil || s.masker == nil {
		return h
	}
	return &maskHandler{h: h, s: s}
}

// masker is what a maskHandler masks with: a Set or a Registry.
type masker interface{ Mask(string) string }

type maskHandler struct {
	h slog.Handler
	s masker
}

// Registry masks with every Set added to it: the per-user daemon's log,
// which records the calls of clients that each declare secrets of their
// own. The zero value is ready; it is safe for concurrent use.
type Registry struct {
	mu   sync.RWMutex
	sets []*Set
}

// Add makes r mask s's secrets too (once; a Set without secrets is left
// out).
func (r *Registry) Add(s *Set) {
	if s.Len() == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.sets {
		if x == s {
			return
		}
	}
	r.sets = append(r.sets, s)
}

// Mask masks text with every Set added.
func (r *Registry) Mask(text string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.sets {
		text = s.Mask(text)
	}
	return text
}

// Handler wraps h so that everything it writes is masked with the Sets
// added, then and later.
func (r *Registry) Handler(h slog.Handler) slog.Handler { return &maskHandler{h: h, s: r} }

func (m *maskHandler) Enabled(ctx context.Context, l slog.Level) bool { return m.h.Enabled(ctx, l) }

func (m *maskHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, m.s.Mask(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(m.attr(a))
		return true
	})
	return m.h.Handle(ctx, out)
}

func (m *maskHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, m.s.Mask(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = m.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, m.s.Mask(err.Error()))
		}
		return slog.String(a.Key, m.s.Mask(fmt.Sprint(v.Any())))
	}
	return a
}

func (m *maskHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = m.attr(a)
	}
	return &maskHandler{h: m.h.WithAttrs(out), s: m.s}
}

func (m *maskHandler) WithGroup(name string) slog.Handler {
	return &maskHandler{h: m.h.WithGroup(name), s: m.s}
}

// A Shown is one way a secret's value may show in a page's rendered text
// (as it is, upper- or lower-cased by text-transform) and the name it is
// masked as.
type Shown struct {
	Form string `json:"f"`
	Name string `json:"n"`
	// Parts says its pieces are hidden too (FragmentLen, PartsShown): the
	// value as it is, of a secret that reads as random.
	Parts bool `json:"p,omitempty"`
}

// InPage are the forms of the secrets that may be typed into a document at
// docURL (Secret.Check), longest first: what the page-side matchers of
// that document hide before they compare (a secret limited to other
// origins never reaches the document, not even as something to hide). A
// part added by MaskAlso goes with its secret's origins.
func (s *Set) InPage(docURL string) []Shown {
	if s == nil || len(s.byName)+len(s.parts) == 0 {
		return nil
	}
	var out []Shown
	seen := map[string]bool{}
	add := func(value, name string) {
		if sec, ok := s.byName[name]; ok && sec.Check(docURL) != nil {
			return
		}
		for i, f := range []string{value, strings.ToUpper(value), strings.ToLower(value)} {
			if len(f) >= MinLen && !seen[f] {
				seen[f] = true
				out = append(out, Shown{Form: f, Name: name, Parts: i == 0 && PartsShown(value)})
			}
		}
	}
	s.values(add)
	sort.Slice(out, func(i, j int) bool { return longestFirst(out[i].Form, out[j].Form) })
	return out
}

// Fragment says which secret shows in text, whole or split: the name of
// the first secret any k consecutive characters of whose value (in any
// case; k a third of the value, at least 6 characters, the whole value
// when shorter) are in text, with white space taken out of both; "" when
// none does. A page that shows a secret in two halves, or across spans,
// shows it.
func (s *Set) Fragment(text string) string {
	if s == nil || len(s.byName) == 0 || text == "" {
		return ""
	}
	squeeze := func(v string) []rune {
		return []rune(strings.ToLower(strings.Join(strings.Fields(v), "")))
	}
	hay := string(squeeze(text))
	for _, name := range s.Names() {
		v := squeeze(s.byName[name].Value)
		if strings.Contains(hay, string(v)) {
			return name
		}
		if !PartsShown(s.byName[name].Value) {
			continue // (its pieces may be ordinary words)
		}
		k := FragmentLen(len(v))
		for i := 0; i+k <= len(v); i++ {
			if w := string(v[i : i+k]); pieceShown(w) && strings.Contains(hay, w) {
				return name
			}
		}
	}
	return ""
}

// FragmentLen is how many consecutive characters of a value of n
// characters count as showing it: a third of it, at least 6, the whole
// value when shorter.
func FragmentLen(n int) int { return min(n, max(6, (n+2)/3)) }

// PartsShown says whether a value's pieces are masked on their own: only
// a value that reads as random (three of lower-case, upper-case, digits
// and other characters), whose pieces do not turn up in ordinary text —
// an e-mail address's domain or a word of a passphrase would.
func PartsShown(v string) bool {
	var lower, upper, digit, other int
	for _, r := range v {
		switch {
		case unicode.IsLower(r):
			lower = 1
		case unicode.IsUpper(r):
			upper = 1
		case unicode.IsDigit(r):
			digit = 1
		default:
			other = 1
		}
	}
	return lower+upper+digit+other >= 3
}

// pieceShown says whether a window of a value may be masked on its own:
// one of letters alone is a word.
func pieceShown(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0
}

// fragments masks the parts of secrets a page shows apart (two halves in
// two spans, "…Rt8Yv2Nb"): every run of text that is a piece of a
// secret's value (PartsShown) at least FragmentLen long — found by its
// windows, which hold more than letters, and stretched as far as the text
// goes on matching the value — reads <secret:NAME>. Whole values and
// encoded forms are the Replacer's.
type fragments struct {
	byLen map[int]map[string]piece // window length in bytes → window → where
	first []bool                   // the first two bytes of windows (65,536)
	least int                      // the shortest window in bytes
}

// piece is where a window stands in a secret's value.
type piece struct {
	name, value string
	at          int // byte offset in value
}

func newFragments(s *Set) *fragments {
	f := &fragments{byLen: map[int]map[string]piece{}, first: make([]bool, 1<<16)}
	add := func(value, name string) {
		if !PartsShown(value) {
			return
		}
		runes := []rune(value)
		k := FragmentLen(len(runes))
		if k >= len(runes) {
			return // the whole value: the Replacer's
		}
		at := 0
		for i := 0; i+k <= len(runes); i++ {
			w := string(runes[i : i+k])
			if pieceShown(w) {
				m := f.byLen[len(w)]
				if m == nil {
					m = map[string]piece{}
					f.byLen[len(w)] = m
				}
				if _, ok := m[w]; !ok {
					m[w] = piece{name: name, value: value, at: at}
				}
				f.first[int(w[0])<<8|int(w[1])] = true
				if f.least == 0 || len(w) < f.least {
					f.least = len(w)
				}
			}
			at += utf8.RuneLen(runes[i])
		}
	}
	s.values(add)
	if len(f.byLen) == 0 {
		return nil
	}
	return f
}

// mask replaces each run of text covered by pieces with the first
// covering piece's secret.
func (f *fragments) mask(text string) string {
	if f == nil || len(text) < f.least {
		return text
	}
	var cover []string // name covering each byte, or ""
	for p := 0; p+f.least <= len(text); p++ {
		if !f.first[int(text[p])<<8|int(text[p+1])] {
			continue
		}
		for n, m := range f.byLen {
			if p+n > len(text) {
				continue
			}
			pc, ok := m[text[p:p+n]]
			if !ok {
				continue
			}
			// the run of text that goes on matching the value
			from, to := p, p+n
			for i := pc.at - 1; i >= 0 && from > 0 && text[from-1] == pc.value[i]; i-- {
				from--
			}
			for i := pc.at + n; i < len(pc.value) && to < len(text) && text[to] == pc.value[i]; i++ {
				to++
			}
			if cover == nil {
				cover = make([]string, len(text))
			}
			for i := from; i < to; i++ {
				if cover[i] == "" {
					cover[i] = pc.name
				}
			}
		}
	}
	if cover == nil {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if cover[i] == "" {
			b.WriteByte(text[i])
			i++
			continue
		}
		name := cover[i]
		for i < len(text) && (cover[i] != "" || !utf8.RuneStart(text[i])) {
			i++
		}
		b.WriteString("<secret:" + name + ">")
	}
	return b.String()
}

// values calls fn with every value the set masks and its name: each
// secret's, by name, then the parts MaskAlso added, in order.
func (s *Set) values(fn func(value, name string)) {
	for _, name := range s.Names() {
		fn(s.byName[name].Value, name)
	}
	for _, value := range slices.Sorted(maps.Keys(s.parts)) {
		fn(value, s.parts[value])
	}
}

// longestFirst orders forms to mask: a longer one first, so that a value
// holding another is masked whole; then by text, for a stable order.
func longestFirst(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a < b
}
