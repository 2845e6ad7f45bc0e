package vars

import "strings"

// MaxNameLen bounds a name (a save_as name, a recipe parameter, a ${name}).
const MaxNameLen = 32

// Kind is what a token is.
type Kind int

// Kinds of token.
const (
	// Literal is text, including a $ that starts no reference.
	Literal Kind = iota
	// Escape is $$, a literal $.
	Escape
	// Ref is a reference: $name, or ${name} when Lex reads braces.
	Ref
)

// Token is one piece of a lexed string.
type Token struct {
	Kind   Kind
	Text   string // the token as written: "abc", "$$", "$name", "${name}"
	Name   string // Ref: the name
	Braced bool   // Ref: written ${name}
}

// Lex splits s into tokens, in order; their Texts joined are s. With
// braces, ${name} is a reference too (a name that ValidName accepts);
// without, "${" is literal text. A $name is the longest run of NameChar
// bytes after the $, and must not start with a digit.
func Lex(s string, braces bool) []Token {
	var toks []Token
	lit := 0 // start of the pending literal text
	flush := func(end int) {
		if end > lit {
			toks = append(toks, Token{Kind: Literal, Text: s[lit:end]})
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		next := s[i+1]
		switch {
		case next == '$':
			flush(i)
			toks = append(toks, Token{Kind: Escape, Text: "$$"})
			i++
			lit = i + 1
		case next == '{' && braces:
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 || !ValidName(s[i+2:i+2+end]) {
				continue
			}
			j := i + 2 + end + 1
			flush(i)
			toks = append(toks, Token{Kind: Ref, Text: s[i:j], Name: s[i+2 : j-1], Braced: true})
			i = j - 1
			lit = j
		case NameChar(next) && !isDigit(next):
			j := i + 1
			for j < len(s) && NameChar(s[j]) {
				j++
			}
			flush(i)
			toks = append(toks, Token{Kind: Ref, Text: s[i:j], Name: s[i+1 : j]})
			i = j - 1
			lit = j
		}
	}
	flush(len(s))
	return toks
}

// ValidName reports whether s can be a name: letters, digits and _, not
// starting with a digit, at most MaxNameLen bytes.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLen || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !NameChar(s[i]) {
			return false
		}
	}
	return true
}

// NameChar reports whether c may be part of a name: an ASCII letter, digit
// or _.
func NameChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
