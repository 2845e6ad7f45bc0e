package clientconf

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// TOML files (Codex's config.toml) are edited by table: webpilot's entry is
// the table [mcp_servers.webpilot] with its sub-tables; the edit replaces,
// appends or removes those lines and leaves every other line as it was.

// tomlHeader matches a table header line: [a.b] or [[a.b]], with a comment
// after it.
var tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// tomlKey is a dotted key with its parts unquoted ("a"."b" → a.b).
func tomlKey(raw string) string {
	parts := strings.Split(raw, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' && p[len(p)-1] == '"' || p[0] == '\'' && p[len(p)-1] == '\'') {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// tomlBlock finds the lines of table (and its sub-tables): the first line
// and the line after the last, -1 when absent. A table's lines run to the
// next header of another table. It also reports a dotted or inline form of
// the same key elsewhere (name = {…} under the parent table), which it
// does not edit.
func tomlBlock(lines []string, table string) (start, end int, inline bool) {
	start, end = -1, -1
	current := ""
	for i, l := range lines {
		if m := tomlHeader.FindStringSubmatch(l); m != nil {
			current = tomlKey(m[1])
			mine := current == table || strings.HasPrefix(current, table+".")
			switch {
			case mine && start < 0:
				start = i
			case !mine && start >= 0 && end < 0:
				end = i
			}
			continue
		}
		key, _, found := strings.Cut(strings.TrimSpace(l), "=")
		if !found || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		full := tomlKey(key)
		if current != "" {
			full = current + "." + full
		}
		if full == table || strings.HasPrefix(full, table+".") && !(current == table || strings.HasPrefix(current, table+".")) {
			inline = true
		}
	}
	if start >= 0 && end < 0 {
		end = len(lines)
	}
	return start, end, inline
}

// SetTOMLTable makes table (a dotted name, e.g. mcp_servers.webpilot) hold
// exactly body (its key = value lines, sub-tables after them), keeping
// every other line: the table's lines are replaced where they are, or
// appended at the end after a blank line. A file that already holds the
// same lines comes back unchanged.
func SetTOMLTable(src []byte, table, body string) ([]byte, error) {
	text := string(src)
	lines := strings.Split(text, "\n")
	start, end, inline := tomlBlock(lines, table)
	if inline {
		return nil, fmt.Errorf("the file sets %s in another form (a dotted key or an inline table); remove that line first", table)
	}
	block := "[" + table + "]\n" + strings.TrimRight(body, "\n") + "\n"
	if start < 0 {
		out := strings.TrimRight(text, "\n")
		if out != "" {
			out += "\n\n"
		}
		return []byte(out + block), nil
	}
	// The table's own lines, less the blank lines and comments that lead
	// the next table.
	for end > start+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#")) {
		end--
	}
	old := strings.Join(lines[start:end], "\n") + "\n"
	if old == block {
		return src, nil
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines[:start], "\n"))
	if start > 0 {
		b.WriteString("\n")
	}
	b.WriteString(block)
	if end < len(lines) {
		b.WriteString(strings.Join(lines[end:], "\n"))
	}
	return []byte(b.String()), nil
}

// DeleteTOMLTable removes table and its sub-tables (and one blank line
// before them), keeping every other line; src comes back unchanged when
// there is no such table.
func DeleteTOMLTable(src []byte, table string) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	start, end, _ := tomlBlock(lines, table)
	if start < 0 {
		return src, nil
	}
	for end > start+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#")) {
		end--
	}
	if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		start--
	}
	out := append(append([]string{}, lines[:start]...), lines[end:]...)
	res := strings.Join(out, "\n")
	if !bytes.HasSuffix(src, []byte("\n")) || res == "" {
		return []byte(res), nil
	}
	if !strings.HasSuffix(res, "\n") {
		res += "\n"
	}
	return []byte(res), nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
