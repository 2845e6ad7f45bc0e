package clientconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSON files are edited in place: the member webpilot owns is replaced,
// inserted or deleted as text, so that the rest of the file — other
// servers, settings, comments (JSONC), trailing commas, indentation — stays
// byte for byte as the user or the client wrote it.

// token is one lexical token of a JSON(C) text: a structural character
// ({ } [ ] : ,), a string, or a literal (number, true, false, null).
type token struct {
	kind       byte // '{', '}', '[', ']', ':', ',', '"' (string), 'l' (literal)
	start, end int  // its bytes, src[start:end]
}

// lexer reads tokens, skipping whitespace and comments.
type lexer struct {
	src []byte
	pos int
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xEF || c == 0xBB || c == 0xBF:
			l.pos++ // whitespace, and a byte-order mark's bytes
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			end := bytes.Index(l.src[l.pos+2:], []byte("*/"))
			if end < 0 {
				return token{}, fmt.Errorf("a comment at byte %d is not closed", l.pos)
			}
			l.pos += end + 4
		default:
			return l.token()
		}
	}
	return token{kind: 0, start: l.pos, end: l.pos}, nil
}

func (l *lexer) token() (token, error) {
	start := l.pos
	c := l.src[l.pos]
	switch c {
	case '{', '}', '[', ']', ':', ',':
		l.pos++
		return token{kind: c, start: start, end: l.pos}, nil
	case '"':
		l.pos++
		for l.pos < len(l.src) {
			switch l.src[l.pos] {
			case '\\':
				l.pos += 2
				continue
			case '"':
				l.pos++
				return token{kind: '"', start: start, end: l.pos}, nil
			case '\n':
				return token{}, fmt.Errorf("a string at byte %d runs past the end of its line", start)
			}
			l.pos++
		}
		return token{}, fmt.Errorf("a string at byte %d is not closed", start)
	}
	for l.pos < len(l.src) && strings.IndexByte(" \t\r\n{}[]:,/\"", l.src[l.pos]) < 0 {
		l.pos++
	}
	if l.pos == start {
		return token{}, fmt.Errorf("unexpected %q at byte %d", c, start)
	}
	return token{kind: 'l', start: start, end: l.pos}, nil
}

// member is one member of a parsed object: its key's token, its value's
// bytes and the comma after it (-1 when none).
type member struct {
	key                   string
	keyStart              int
	valueStart, valueEnd  int
	comma                 int
	value                 *object // when the value is an object
	valueIsObject, parsed bool
}

// object is a parsed JSON object: its braces and its members.
type object struct {
	open, close int
	members     []member
}

// parser builds the objects of a JSON(C) text (arrays are skipped over).
type parser struct {
	lx  lexer
	tok token
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	p.tok = t
	return err
}

// value parses the value at the current token; for an object it returns
// it. end is the byte after the value.
func (p *parser) value() (obj *object, start, end int, err error) {
	start = p.tok.start
	switch p.tok.kind {
	case '{':
		obj, err = p.object()
		if err != nil {
			return nil, 0, 0, err
		}
		return obj, start, obj.close + 1, nil
	case '[':
		for depth := 0; ; {
			switch p.tok.kind {
			case '[':
				depth++
			case ']':
				depth--
			case 0:
				return nil, 0, 0, fmt.Errorf("an array at byte %d is not closed", start)
			}
			end = p.tok.end
			if err := p.advance(); err != nil {
				return nil, 0, 0, err
			}
			if depth == 0 {
				return nil, start, end, nil
			}
		}
	case '"', 'l':
		end = p.tok.end
		return nil, start, end, p.advance()
	}
	return nil, 0, 0, fmt.Errorf("expected a value at byte %d", p.tok.start)
}

func (p *parser) object() (*object, error) {
	o := &object{open: p.tok.start}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for {
		switch p.tok.kind {
		case '}':
			o.close = p.tok.start
			return o, p.advance()
		case '"':
		default:
			return nil, fmt.Errorf("expected a member's name or } at byte %d", p.tok.start)
		}
		var key string
		if err := json.Unmarshal(p.lx.src[p.tok.start:p.tok.end], &key); err != nil {
			return nil, fmt.Errorf("a member's name at byte %d: %w", p.tok.start, err)
		}
		m := member{key: key, keyStart: p.tok.start, comma: -1}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != ':' {
			return nil, fmt.Errorf("expected : after %q at byte %d", key, p.tok.start)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		obj, start, end, err := p.value()
		if err != nil {
			return nil, err
		}
		m.valueStart, m.valueEnd, m.value = start, end, obj
		if p.tok.kind == ',' {
			m.comma = p.tok.start
			if err := p.advance(); err != nil {
				return nil, err
			}
		} else if p.tok.kind != '}' {
			return nil, fmt.Errorf("expected , or } after %q at byte %d", key, p.tok.start)
		}
		o.members = append(o.members, m)
	}
}

// parseRoot parses src, whose value must be an object; an empty text (or
// only whitespace and comments) is nil.
func parseRoot(src []byte) (*object, error) {
	p := &parser{lx: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == 0 {
		return nil, nil
	}
	if p.tok.kind != '{' {
		return nil, fmt.Errorf("the file is not a JSON object (it starts with %q)", src[p.tok.start:p.tok.end])
	}
	o, err := p.object()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != 0 {
		return nil, fmt.Errorf("more after the object, at byte %d", p.tok.start)
	}
	return o, nil
}

// find is the member named key of o, or nil.
func (o *object) find(key string) *member {
	for i := range o.members {
		if o.members[i].key == key {
			return &o.members[i]
		}
	}
	return nil
}

// lineIndent is the whitespace that starts the line holding byte i.
func lineIndent(src []byte, i int) string {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// unit is the file's indentation step: the first member's indent beyond
// its object's, else two spaces.
func unit(src []byte, o *object) string {
	if o != nil && len(o.members) > 0 {
		in, out := lineIndent(src, o.members[0].keyStart), lineIndent(src, o.open)
		if strings.HasPrefix(in, out) && len(in) > len(out) {
			return in[len(out):]
		}
	}
	return "  "
}

// render is v as JSON, indented for a member at indent with step.
func render(v any, indent, step string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, step)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// SetJSON sets the member name of the object at path (from the root) to
// value, in the JSON or JSONC text src, changing nothing else: objects on
// the path that are missing are added, a member that holds an equal value
// is left as written (src comes back unchanged). An empty src is a new
// file.
func SetJSON(src []byte, path []string, name string, value any) ([]byte, error) {
	root, err := parseRoot(src)
	if err != nil {
		return nil, err
	}
	step := unit(src, root)
	if root == nil {
		var v any = map[string]any{name: value}
		for i := len(path) - 1; i >= 0; i-- {
			v = map[string]any{path[i]: v}
		}
		out, err := render(v, "", step)
		if err != nil {
			return nil, err
		}
		return append(append(bytes.TrimRight(src, " \t\r\n"), out...), '\n'), nil
	}
	o := root
	for i, key := range path {
		m := o.find(key)
		if m == nil {
			var v any = map[string]any{name: value}
			for j := len(path) - 1; j > i; j-- {
				v = map[string]any{path[j]: v}
			}
			return insert(src, o, key, v, step)
		}
		if m.value == nil {
			return nil, fmt.Errorf("%q is not an object in the file (it is %s)", strings.Join(path[:i+1], "."), bytes.TrimSpace(src[m.valueStart:min(m.valueEnd, m.valueStart+40)]))
		}
		o = m.value
	}
	if m := o.find(name); m != nil {
		var old any
		if json.Unmarshal(stripComments(src[m.valueStart:m.valueEnd]), &old) == nil && equalJSON(old, value) {
			return src, nil
		}
		out, err := render(value, lineIndent(src, m.keyStart), step)
		if err != nil {
			return nil, err
		}
		return splice(src, m.valueStart, m.valueEnd, out), nil
	}
	return insert(src, o, name, value, step)
}

// insert adds the member key: v as o's last.
func insert(src []byte, o *object, key string, v any, step string) ([]byte, error) {
	k, _ := json.Marshal(key)
	var indent string
	if len(o.members) > 0 {
		indent = lineIndent(src, o.members[len(o.members)-1].keyStart)
	} else {
		indent = lineIndent(src, o.open) + step
	}
	val, err := render(v, indent, step)
	if err != nil {
		return nil, err
	}
	entry := "\n" + indent + string(k) + ": " + string(val)
	if len(o.members) == 0 {
		// {} or { } becomes a block with the new member.
		closeIndent := lineIndent(src, o.open)
		return splice(src, o.open+1, o.close, []byte(entry+"\n"+closeIndent)), nil
	}
	last := o.members[len(o.members)-1]
	if last.comma >= 0 {
		// A trailing comma (JSONC): the new member goes after it, with one
		// of its own.
		return splice(src, last.comma+1, last.comma+1, []byte(entry+",")), nil
	}
	return splice(src, last.valueEnd, last.valueEnd, []byte(","+entry)), nil
}

// DeleteJSON removes the member name of the object at path, with its comma
// and its line when it has one to itself; src comes back unchanged when
// there is no such member.
func DeleteJSON(src []byte, path []string, name string) ([]byte, error) {
	root, err := parseRoot(src)
	if err != nil || root == nil {
		return src, err
	}
	o := root
	for _, key := range path {
		m := o.find(key)
		if m == nil || m.value == nil {
			return src, nil
		}
		o = m.value
	}
	idx := -1
	for i := range o.members {
		if o.members[i].key == name {
			idx = i
		}
	}
	if idx < 0 {
		return src, nil
	}
	m := o.members[idx]
	switch {
	case m.comma >= 0:
		// Its line goes when it has it to itself; else just the member.
		start, end := m.keyStart, m.comma+1
		ls := bytes.LastIndexByte(src[:start], '\n') + 1
		le := bytes.IndexByte(src[end:], '\n')
		if strings.TrimSpace(string(src[ls:start])) == "" && le >= 0 && strings.TrimSpace(string(src[end:end+le])) == "" {
			start, end = ls, end+le+1
		} else {
			for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
				end++
			}
		}
		return splice(src, start, end, nil), nil
	case idx > 0:
		// The last member: from the comma before it.
		return splice(src, o.members[idx-1].comma, m.valueEnd, nil), nil
	}
	return splice(src, o.open+1, o.close, nil), nil
}

// splice replaces src[i:j] with b.
func splice(src []byte, i, j int, b []byte) []byte {
	out := make([]byte, 0, len(src)-(j-i)+len(b))
	out = append(out, src[:i]...)
	out = append(out, b...)
	return append(out, src[j:]...)
}

// stripComments removes // and /* */ comments (outside strings) and
// trailing commas, for decoding a JSONC value.
func stripComments(src []byte) []byte {
	var out []byte
	lx := lexer{src: src}
	prev := byte(0)
	var pending []byte // a comma held until the next token shows it is not trailing
	for {
		t, err := lx.next()
		if err != nil || t.kind == 0 {
			return out
		}
		if t.kind == ',' {
			pending = []byte{','}
			continue
		}
		if pending != nil && t.kind != '}' && t.kind != ']' {
			out = append(out, pending...)
		}
		pending = nil
		if prev != 0 {
			out = append(out, ' ')
		}
		out = append(out, src[t.start:t.end]...)
		prev = t.kind
	}
}

// equalJSON compares two decoded JSON values (v as it would decode).
func equalJSON(a, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var w any
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(w)
	return bytes.Equal(x, y)
}

// GetJSON decodes the member name of the object at path, when there is
// one: ok false when there is none.
func GetJSON(src []byte, path []string, name string) (v any, ok bool, err error) {
	root, err := parseRoot(src)
	if err != nil || root == nil {
		return nil, false, err
	}
	o := root
	for _, key := range path {
		m := o.find(key)
		if m == nil || m.value == nil {
			return nil, false, nil
		}
		o = m.value
	}
	m := o.find(name)
	if m == nil {
		return nil, false, nil
	}
	if err := json.Unmarshal(stripComments(src[m.valueStart:m.valueEnd]), &v); err != nil {
		return nil, true, err
	}
	return v, true, nil
}
