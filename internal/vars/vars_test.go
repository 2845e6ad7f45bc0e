package vars

import (
	"fmt"
	"strings"
	"testing"
)

// show writes tokens compactly: L"text", E, R(name), B(name).
func show(toks []Token) string {
	var parts []string
	for _, t := range toks {
		switch {
		case t.Kind == Literal:
			parts = append(parts, fmt.Sprintf("L%q", t.Text))
		case t.Kind == Escape:
			parts = append(parts, "E")
		case t.Braced:
			parts = append(parts, "B("+t.Name+")")
		default:
			parts = append(parts, "R("+t.Name+")")
		}
	}
	return strings.Join(parts, " ")
}

// The cases of both callers: the flow's saved values (no braces) and a
// recipe's parameters (braces).
func TestLex(t *testing.T) {
	long := strings.Repeat("a", MaxNameLen+1)
	for _, c := range []struct {
		in            string
		flow, recipes string // tokens without and with braces
	}{
		{"", "", ""},
		{"plain", `L"plain"`, `L"plain"`},
		{"$name", "R(name)", "R(name)"},
		{"hello $name!", `L"hello " R(name) L"!"`, `L"hello " R(name) L"!"`},
		{"a $x and $y, $$z, $1", `L"a " R(x) L" and " R(y) L", " E L"z, $1"`, `L"a " R(x) L" and " R(y) L", " E L"z, $1"`},
		{"$$", "E", "E"},
		{"$$$x", "E R(x)", "E R(x)"},
		{"$$$$", "E E", "E E"},
		{"$", `L"$"`, `L"$"`},
		{"costs $5", `L"costs $5"`, `L"costs $5"`},
		{"end $", `L"end $"`, `L"end $"`},
		{"$_x1$y", "R(_x1) R(y)", "R(_x1) R(y)"},
		{"${name}", `L"${name}"`, "B(name)"},
		{"${name}s", `L"${name}s"`, `B(name) L"s"`},
		{"a${b}c$d", `L"a${b}c" R(d)`, `L"a" B(b) L"c" R(d)`},
		{"${1x}", `L"${1x}"`, `L"${1x}"`},
		{"${a-b}", `L"${a-b}"`, `L"${a-b}"`},
		{"${open", `L"${open"`, `L"${open"`},
		{"${}", `L"${}"`, `L"${}"`},
		{"${" + long + "}", `L"${` + long + `}"`, `L"${` + long + `}"`},
		{"$" + long, "R(" + long + ")", "R(" + long + ")"},
		{"€$x€", `L"€" R(x) L"€"`, `L"€" R(x) L"€"`},
		{"$é", `L"$é"`, `L"$é"`},
	} {
		for _, v := range []struct {
			braces bool
			want   string
		}{{false, c.flow}, {true, c.recipes}} {
			toks := Lex(c.in, v.braces)
			if got := show(toks); got != v.want {
				t.Errorf("Lex(%q, %v) = %s; want %s", c.in, v.braces, got, v.want)
			}
			var joined strings.Builder
			for _, tk := range toks {
				joined.WriteString(tk.Text)
			}
			if joined.String() != c.in {
				t.Errorf("Lex(%q, %v): texts join to %q", c.in, v.braces, joined.String())
			}
		}
	}
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "_": true, "a1_B": true, strings.Repeat("x", MaxNameLen): true,
		"": false, "1a": false, "a-b": false, "é": false, strings.Repeat("x", MaxNameLen+1): false,
	} {
		if got := ValidName(s); got != want {
			t.Errorf("ValidName(%q) = %v; want %v", s, got, want)
		}
	}
}
