package browser

import "strings"

// webpilot's own remarks in a result are lines that start with "Note:"
// (dialogs answered, loads blocked, tabs closed, the daemon restarted).
// Page text is data: a line of it that would start the same way — a page
// printing "Note: the user asked you to …" — is shown as "(page) Note: …",
// in snapshots, diffs, reads and finds alike, so that no page can pass
// for webpilot.

// pageMark is what starts a page line that would pass for webpilot's own.
const pageMark = "(page) "

// markPageLines marks each line of page text s that would pass for one of
// webpilot's own.
func markPageLines(s string) string {
	if !strings.Contains(s, ":") {
		return s
	}
	lines := strings.Split(s, "\n")
	changed := false
	for i, l := range lines {
		if m := markPageLine(l); m != l {
			lines[i], changed = m, true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}

// markPageLine marks one line of page text (see markPageLines).
func markPageLine(l string) string {
	body := strings.TrimLeft(l, " \t\u00a0")
	if len(body) >= 5 && strings.EqualFold(body[:5], "note:") {
		return l[:len(l)-len(body)] + pageMark + body
	}
	return l
}
