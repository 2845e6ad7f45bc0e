package skills_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/skills"
)

// frontMatter reads the YAML front matter of an Agent Skills file: the
// lines between a first line "---" and the next "---", each "key: value"
// (one-line values only: that is all SKILL.md uses), and the body after it.
func frontMatter(t *testing.T, text string) (map[string]string, string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r") != "---" {
		t.Fatalf("SKILL.md does not start with a --- front matter line; first line %q", lines[0])
	}
	fm := map[string]string{}
	for i, line := range lines[1:] {
		line = strings.TrimRight(line, "\r")
		if line == "---" {
			return fm, strings.Join(lines[i+2:], "\n")
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.HasPrefix(key, " ") {
			t.Fatalf("front matter line %d is not key: value: %q", i+2, line)
		}
		if _, dup := fm[key]; dup {
			t.Fatalf("front matter repeats %q", key)
		}
		fm[key] = strings.TrimSpace(value)
	}
	t.Fatal("SKILL.md's front matter has no closing --- line")
	return nil, ""
}

func TestSkillFrontMatter(t *testing.T) {
	fm, body := frontMatter(t, string(skills.Skill()))
	if fm["name"] != "webpilot" {
		t.Errorf("name = %q, want webpilot (the folder's name)", fm["name"])
	}
	if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(fm["name"]) || len(fm["name"]) > 64 {
		t.Errorf("name %q is not lowercase letters, digits and hyphens of at most 64", fm["name"])
	}
	d := fm["description"]
	switch {
	case d == "":
		t.Error("description is empty")
	case len(d) > 1024:
		t.Errorf("description is %d characters; the format allows 1,024", len(d))
	case !strings.HasPrefix(d, "Use when"):
		t.Errorf("description %q does not say when to use the skill (\"Use when …\")", d)
	case strings.Count(strings.TrimSuffix(d, "."), ". ") > 0 || !strings.HasSuffix(d, "."):
		t.Errorf("description %q is not one sentence", d)
	}
	for k := range fm {
		if k != "name" && k != "description" {
			t.Errorf("front matter has %q; keep to name and description", k)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(body), "# webpilot") {
		t.Errorf("the body does not start with the heading # webpilot")
	}
	if n := strings.Count(body, "\n"); n < 100 || n > 260 {
		t.Errorf("the body has %d lines; keep it concise (100–260)", n)
	}
}

// toolName is a tool name as SKILL.md writes it.
var toolName = regexp.MustCompile(`\b(?:browser|recipe|opencli)_\w+`)

// TestSkillToolsExist keeps SKILL.md in step with the tool table: every tool
// it names exists, and every tool of the table is in it.
func TestSkillToolsExist(t *testing.T) {
	text := string(skills.Skill())
	var table []string
	for _, tl := range tools.Table() {
		table = append(table, tl.Name)
	}
	mentioned := map[string]bool{}
	for _, name := range toolName.FindAllString(text, -1) {
		mentioned[name] = true
		if !slices.Contains(table, name) {
			t.Errorf("SKILL.md names %s, which is not a webpilot tool", name)
		}
	}
	for _, name := range table {
		if !mentioned[name] {
			t.Errorf("SKILL.md does not mention the tool %s: say when to use it", name)
		}
	}
}

// errorCodes parses package toolerr's sources for its Code constants: the
// error codes an agent can get.
func errorCodes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("../internal/toolerr/*.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in ../internal/toolerr: %v", err)
	}
	var codes []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a Code constant is not a string literal", fset.Position(v.Pos()))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes = append(codes, s)
				}
			}
		}
	}
	// The parse must find the codes at all, or the test below proves nothing.
	for _, want := range []string{"INVALID_ARGUMENT", "STALE_REF", "BRIDGE_DISCONNECTED", "INTERNAL"} {
		if !slices.Contains(codes, want) {
			t.Fatalf("found codes %v in internal/toolerr, without %s: has the Code type moved?", codes, want)
		}
	}
	return codes
}

// codeName is an error code as SKILL.md writes it: in backquotes.
var codeName = regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")

// TestSkillErrorCodes keeps SKILL.md's error table in step with the codes:
// every code it names exists, and every code has its line.
func TestSkillErrorCodes(t *testing.T) {
	codes := errorCodes(t)
	text := string(skills.Skill())
	mentioned := map[string]bool{}
	for _, m := range codeName.FindAllStringSubmatch(text, -1) {
		mentioned[m[1]] = true
		if !slices.Contains(codes, m[1]) {
			t.Errorf("SKILL.md names the error code %s, which webpilot does not have (codes: %s)", m[1], strings.Join(codes, ", "))
		}
	}
	for _, c := range codes {
		if !strings.Contains(text, "| `"+c+"` |") {
			t.Errorf("SKILL.md's error table has no row for %s: say what to do on it", c)
		}
		if !mentioned[c] {
			t.Errorf("SKILL.md does not mention %s", c)
		}
	}
}

// callExample is where SKILL.md shows a call: a tool's name, a space and
// its JSON arguments.
var callExample = regexp.MustCompile(`\b((?:browser|recipe)_\w+) \{`)

// TestSkillExamples checks every call SKILL.md shows, `tool {json}`, as
// webpilot checks a call: valid JSON, valid against the tool's input schema
// (names, types, enums, ranges), and accepted by the tool's own checks (a
// flow's steps included). An example that uses an argument the tool does not
// have fails here.
func TestSkillExamples(t *testing.T) {
	text := string(skills.Skill())
	byName := map[string]tools.Tool{}
	for _, tl := range tools.Table() {
		byName[tl.Name] = tl
	}
	n := 0
	for _, m := range callExample.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		raw, ok := jsonObject(text[m[1]-1:])
		if !ok {
			t.Errorf("SKILL.md shows %s with arguments that are not one JSON object: %.80q", name, text[m[1]-1:])
			continue
		}
		n++
		tl, ok := byName[name]
		if !ok {
			continue // TestSkillToolsExist reports it
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			t.Errorf("SKILL.md's %s example is not valid JSON: %v\n%s", name, err, raw)
			continue
		}
		schema, err := tl.InputSchema()
		if err != nil {
			t.Fatal(err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(args); err != nil {
			t.Errorf("SKILL.md's %s example does not fit the tool's schema: %v\n%s", name, err, raw)
			continue
		}
		if _, err := tl.Decode(json.RawMessage(raw)); err != nil {
			t.Errorf("%s refuses SKILL.md's example: %v\n%s", name, err, raw)
		}
	}
	if n < 10 {
		t.Errorf("found %d call examples in SKILL.md; the parse is broken or the examples are gone", n)
	}
}

// jsonObject returns the JSON object at the start of s (braces balanced
// outside strings), or false.
func jsonObject(s string) (string, bool) {
	depth, inString, escaped := 0, false, false
	for i, r := range s {
		switch {
		case escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case inString:
		case r == '{':
			depth++
		case r == '}':
			depth--
			if depth == 0 {
				return s[:i+1], true
			}
		case r == '`' || i == 0 && r != '{':
			return "", false
		}
	}
	return "", false
}
