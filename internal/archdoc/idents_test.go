package archdoc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The rule for names in the docs (ARCHITECTURE.md and docs/*.md): a name
// written in backticks that looks like code of ours must name something the
// code has, so a rename that forgets the docs fails here.
//
// What is checked: an inline code span outside fenced blocks that is a bare
// or dotted name, `Held`, `Tab.TargetID`, `cdp.Classify`,
// `backend.Info.Profiles`, optionally followed by "()", or a file name
// ending in .go, .js, .mjs or .sh (`target.go`, `walker.js`).
//
// What is not checked, being clearly no Go name of ours:
//   - a span with spaces or other punctuation: flags (`--caps`), paths
//     (`internal/browser`), JSON, CLI commands, calls with arguments;
//   - a name with an underscore (tool names `browser_*`, arguments such as
//     `max_chars`, error codes, environment variables);
//   - a name in capitals only (`W`, `JSON`, `SITE_BUSY`);
//   - a single lower-case word (`session`, `compact`, `core`: argument
//     names, values and groups far more often than code; write a function
//     as `Type.method` to have it checked);
//   - a dotted name whose first part is in lower case but is neither a
//     package nor a type of the module (`diagnosis.kind`, `handoff.start`:
//     JSON fields and the extension's wire operations);
//   - a file name that is none of the module's own kinds (`daemon.json`,
//     `go.mod`: files webpilot writes or reads at run time);
//   - a name whose first part is a CDP domain (`Page.navigate`, `Fetch`),
//     a standard Go package (`strings.Replacer`), the page's or the
//     browser's JavaScript (`document.…`, `chrome.…`, the walker's `W.…`),
//     or whose first or last part is one of the names of the web platform,
//     MCP and other programs in [foreign].
//
// A checked name exists when it is
//   - a single name: a package, a type, function, method, field, constant
//     or variable declared in any .go file of the module (tests included),
//     or a function, class or method of the module's own JavaScript;
//   - A.B: B declared at the top of a package named A, or a method or
//     field of a type named A (promoted through embedding too), or both
//     names of the module's JavaScript;
//   - A.B.C: a package A with a type B that has C (or A.B and B.C as
//     above, for a field's type such as `Options.Backend.Start`).

// cdpDomains are the Chrome DevTools Protocol's domains: `Page.navigate`
// is a CDP method, not a Go method.
var cdpDomains = strings.Fields(`Accessibility Animation Audits Autofill BackgroundService Browser CSS
	CacheStorage Cast DOM DOMDebugger DOMSnapshot DOMStorage Debugger DeviceAccess DeviceOrientation
	Emulation EventBreakpoints Extensions FedCm Fetch FileSystem HeadlessExperimental HeapProfiler IO
	IndexedDB Input Inspector LayerTree Log Media Memory Network Overlay PWA Page Performance
	PerformanceTimeline Preload Profiler Runtime Security ServiceWorker Storage SystemInfo Target
	Tethering Tracing WebAudio WebAuthn`)

// jsRoots are the first parts of names of the page's and the browser's
// JavaScript: the DOM, the extension APIs, the walker's object W.
var jsRoots = strings.Fields(`W window document navigator location chrome console el this JSON Math
	Object Array Promise Element HTMLElement Node MutationObserver Intl`)

// foreign are names of the web platform and of other programs that the
// docs cite in backticks; not ours, so not checked. Add a name here only
// when it is none of webpilot's.
var foreign = strings.Fields(`addEventListener checkVisibility elementFromPoint getBoundingClientRect
	getAnimations innerText outerHTML querySelectorAll requestAnimationFrame requestSubmit
	showModal visualViewport devicePixelRatio validationMessage onclick setTimeout
	fetch structuredClone getComputedStyle scrollIntoView userAgentData
	storageState executablePath chromium EventSource localStorage sessionStorage
	ProcessSingleton SingletonLock DevToolsActivePort LockFileExW LockFileEx TerminateJobObject
	ServerSession WroteRequest ReadHeaderTimeout ReadTimeout IdleTimeout MaxBytesReader
	CrossOriginProtection UserConfigDir isError structuredContent readOnlyHint idempotentHint
	BlockedByClient SpareRendererForSitePerProcess`)

// goStd are standard packages the docs name a member of.
var goStd = strings.Fields(`bufio bytes context errors fmt http httptrace io json jsonv2 log os
	exec filepath slog strings sync syscall time url utf8 image jpeg png gif pprof runtime
	testing regexp sort strconv unicode crypto sha256 hmac hkdf aes cipher rand net`)

// names is what the module declares, gathered by go/parser and a scan of
// its JavaScript.
type names struct {
	all     map[string]bool            // every declared name, packages included
	pkg     map[string]map[string]bool // package name → its top-level names
	members map[string]map[string]bool // type name → its methods and fields
	embeds  map[string][]string        // type name → the types it embeds
	files   map[string]bool            // base names of the module's files
	js      map[string]bool            // names declared in the module's JavaScript
}

func newNames() *names {
	return &names{all: map[string]bool{}, pkg: map[string]map[string]bool{}, members: map[string]map[string]bool{},
		embeds: map[string][]string{}, files: map[string]bool{}, js: map[string]bool{}}
}

func (n *names) member(typ, m string) {
	if n.members[typ] == nil {
		n.members[typ] = map[string]bool{}
	}
	n.members[typ][m] = true
	n.all[m] = true
}

// hasMember reports whether a type named typ has m, itself or through a
// type it embeds.
func (n *names) hasMember(typ, m string, seen map[string]bool) bool {
	if n.members[typ][m] {
		return true
	}
	if seen[typ] {
		return false
	}
	seen[typ] = true
	for _, e := range n.embeds[typ] {
		if n.hasMember(e, m, seen) {
			return true
		}
	}
	return false
}

// typeName is the bare name of a receiver's or an embedded field's type.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

var jsDecl = []*regexp.Regexp{
	regexp.MustCompile(`\bfunction\*?\s+([A-Za-z_$][\w$]*)`),
	regexp.MustCompile(`\bclass\s+([A-Za-z_$][\w$]*)`),
	regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=`),
	regexp.MustCompile(`(?m)^\s*(?:async\s+|static\s+|get\s+|set\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{`),
	regexp.MustCompile(`\b([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?(?:function|\()`),
	regexp.MustCompile(`\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function|\()`),
	regexp.MustCompile(`,\s*([A-Za-z_$][\w$]*)\s*=[^=]`),
}

// gather reads the module at root: every .go file with go/parser, every
// .js and .mjs file but vendored ones and test pages with a scan for
// declarations.
func gather(root string) (*names, error) {
	n := newNames()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		n.files[name] = true
		switch {
		case strings.HasSuffix(name, ".go") && !strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)):
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return fmt.Errorf("parse %s: %w", path, err)
			}
			n.goFile(f, filepath.Base(filepath.Dir(path)))
		case (strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".mjs")) &&
			!strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, re := range jsDecl {
				for _, m := range re.FindAllStringSubmatch(string(b), -1) {
					n.js[m[1]] = true
				}
			}
		}
		return nil
	})
	return n, err
}

// goFile adds the declarations of one Go file (of the package in dir).
func (n *names) goFile(f *ast.File, dir string) {
	pkg := f.Name.Name
	top := n.pkg[pkg]
	if top == nil {
		top = map[string]bool{}
		n.pkg[pkg] = top
	}
	n.all[pkg] = true
	n.all[dir] = true
	add := func(name string) {
		top[name] = true
		n.all[name] = true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) > 0 {
				n.member(typeName(d.Recv.List[0].Type), d.Name.Name)
				continue
			}
			add(d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for _, id := range s.Names {
						add(id.Name)
					}
				case *ast.TypeSpec:
					add(s.Name.Name)
					n.typeMembers(s.Name.Name, s.Type)
				}
			}
		}
	}
}

// typeMembers adds a struct's fields (and the fields of its nested struct
// types) and an interface's methods to typ.
func (n *names) typeMembers(typ string, e ast.Expr) {
	switch t := e.(type) {
	case *ast.StructType:
		for _, fl := range t.Fields.List {
			if len(fl.Names) == 0 {
				if emb := typeName(fl.Type); emb != "" {
					n.member(typ, emb)
					n.embeds[typ] = append(n.embeds[typ], emb)
				}
				continue
			}
			for _, id := range fl.Names {
				n.member(typ, id.Name)
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			for _, id := range m.Names {
				n.member(typ, id.Name)
			}
			if len(m.Names) == 0 {
				if emb := typeName(m.Type); emb != "" {
					n.embeds[typ] = append(n.embeds[typ], emb)
				}
			}
		}
	}
}

var (
	fence    = regexp.MustCompile("(?m)^\\s*(```|~~~)")
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	dotted   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*(\(\))?$`)
	fileName = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|js|mjs|sh)$`)
	allCaps  = regexp.MustCompile(`^[A-Z0-9]+$`)
	// otherFile is a file name of another kind than the module's code.
	otherFile = regexp.MustCompile(`\.(json|lock|log|mod|sum|html|exe|cmd|md|txt|yml|yaml|png|gif|jpg|pdf|har|bak|err|toml)$`)
)

// checked tells whether a code span is a name the rule checks, and the
// name without a trailing "()".
func (n *names) checked(span string) (string, bool) {
	if fileName.MatchString(span) {
		return span, true
	}
	if !dotted.MatchString(span) || otherFile.MatchString(span) {
		return "", false
	}
	name := strings.TrimSuffix(span, "()")
	if strings.Contains(name, "_") || allCaps.MatchString(name) {
		return "", false
	}
	parts := strings.Split(name, ".")
	first, last := parts[0], parts[len(parts)-1]
	if len(parts) == 1 && strings.ToLower(name) == name {
		return "", false
	}
	if len(parts) > 1 && strings.ToLower(first[:1]) == first[:1] && n.pkg[first] == nil && n.members[first] == nil {
		return "", false
	}
	if slices.Contains(cdpDomains, first) || slices.Contains(jsRoots, first) || slices.Contains(goStd, first) ||
		slices.Contains(foreign, first) || slices.Contains(foreign, last) {
		return "", false
	}
	return name, true
}

// exists tells whether a checked name names something of n.
func (n *names) exists(name string) bool {
	if fileName.MatchString(name) {
		return n.files[name]
	}
	parts := strings.Split(name, ".")
	switch len(parts) {
	case 1:
		return n.all[name] || n.js[name]
	case 2:
		a, b := parts[0], parts[1]
		return n.pkg[a][b] || n.hasMember(a, b, map[string]bool{}) || (n.js[a] && n.js[b])
	default:
		if top := n.pkg[parts[0]]; top != nil && top[parts[1]] {
			return n.chain(parts[1:])
		}
		return n.chain(parts)
	}
}

// chain tells whether each name of parts is a member of a type named by
// the one before it (a field's type is taken by name: Options.Backend is
// looked up as the type Backend).
func (n *names) chain(parts []string) bool {
	for i := 0; i+1 < len(parts); i++ {
		if !n.hasMember(parts[i], parts[i+1], map[string]bool{}) {
			return false
		}
	}
	return true
}

// unknown lists the checked names of doc that name nothing of n, with their
// lines: "12: `Session.Describe`".
func (n *names) unknown(doc string) []string {
	var out []string
	inFence := false
	for i, line := range strings.Split(doc, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			name, ok := n.checked(m[1])
			if ok && !n.exists(name) {
				out = append(out, fmt.Sprintf("%d: `%s`", i+1, m[1]))
			}
		}
	}
	return out
}

// docFiles are the documents whose names are checked: ARCHITECTURE.md and
// docs/*.md at the module root.
func docFiles(root string) ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, File)}, pages...), nil
}

// Every backticked name of ours in ARCHITECTURE.md and docs/*.md names
// something the code has (the rule is at the top of this file).
func TestDocNamesExist(t *testing.T) {
	path, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(path)
	n, err := gather(root)
	if err != nil {
		t.Fatal(err)
	}
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, u := range n.unknown(string(b)) {
			t.Errorf("%s:%s names nothing in the code (a renamed or removed identifier? see the rule in internal/archdoc/idents_test.go)", rel, u)
		}
	}
}

// The rule on a made-up document: real names pass, made-up ones fail, and
// what is no Go name is left alone.
func TestDocNamesRule(t *testing.T) {
	path, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	n, err := gather(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc string
		unknown   []string
	}{
		{name: "package, type, method, field", doc: "`archdoc.Check` and `Span.Line`, `Spans()`, `File`, `archdoc`"},
		{name: "names of another package", doc: "`browser.Held`, `Held.Session`, `cdp.Classify`, `backend.Info.Profiles`, `Tab.TargetID`"},
		{name: "file names", doc: "`archdoc.go` beside `walker.js`; `nosuchfile.go` is not", unknown: []string{"1: `nosuchfile.go`"}},
		{name: "made-up function", doc: "the loop feeds `requestsOf`", unknown: []string{"1: `requestsOf`"}},
		{name: "made-up method", doc: "`Session.Frobnicate` and `Manager.Session`", unknown: []string{"1: `Session.Frobnicate`"}},
		{name: "made-up package member", doc: "\n`archdoc.NoSuchThing`", unknown: []string{"2: `archdoc.NoSuchThing`"}},
		{name: "made-up test", doc: "`TestNoSuchTestAnywhere`", unknown: []string{"1: `TestNoSuchTestAnywhere`"}},
		{name: "not Go names", doc: "`--caps +eval`, `browser_snapshot`, `max_chars`, `SITE_BUSY`, `W.take(n)`, `W.resolve`, " +
			"`Page.navigate`, `Fetch`, `internal/browser`, `{\"a\": 1}`, `webpilot daemon stop`, `compact`, `strings.Replacer`, " +
			"`document.getAnimations`, `getBoundingClientRect`, `Control+Shift+R`, `diagnosis.kind`, `daemon.json`, `isError`"},
		{name: "fenced code is not read", doc: "```\n`Session.Frobnicate`\n```\n`Nope.Either`", unknown: []string{"4: `Nope.Either`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.unknown(tt.doc); !slices.Equal(got, tt.unknown) {
				t.Errorf("unknown names %q, want %q", got, tt.unknown)
			}
		})
	}
}
