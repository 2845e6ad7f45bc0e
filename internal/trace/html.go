package trace

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/text"
)

// ScriptID is the id of the JSON script block that holds a file's data.
const ScriptID = "webpilot-trace"

// Data is what a trace file holds, as its JSON block has it.
type Data struct {
	Session string    `json:"session"`
	Started time.Time `json:"started"`
	// CutSteps counts the older steps left out to keep the file within its
	// bounds; CutImages the screenshots.
	CutSteps  int    `json:"cut_steps,omitempty"`
	CutImages int    `json:"cut_images,omitempty"`
	Steps     []Step `json:"steps"`
}

const style = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.3em}.meta{color:#666}.note{background:#fff3cd;padding:.4em .8em;border-radius:4px}
ol{padding-left:0;list-style:none}details.step{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.4em 0;padding:.3em .8em}
details.step.err{border-color:#e0a0a0;background:#fff6f6}summary{cursor:pointer}summary .t{color:#666;font-variant-numeric:tabular-nums}
.tool{font-weight:600}.ok{color:#17702e}.bad{color:#b00020}.url{color:#555;word-break:break-all}
pre{white-space:pre-wrap;word-break:break-word;background:#f4f4f4;padding:.5em;border-radius:4px;max-height:30em;overflow:auto}
img.shot{max-width:480px;border:1px solid #ccc;display:block;margin:.4em 0}`

// render is the whole file for the steps kept now.
func (f *File) render() []byte {
	var b bytes.Buffer
	e := html.EscapeString
	m := f.opts.Mask
	session := m(f.session)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">` + "\n")
	fmt.Fprintf(&b, "<title>webpilot trace: %s</title>\n<style>%s</style></head><body>\n", e(session), style)
	fmt.Fprintf(&b, "<h1>webpilot trace: session %s</h1>\n<p class=\"meta\">started %s · %d step(s) recorded</p>\n",
		e(session), e(f.started.UTC().Format(time.RFC3339)), f.n)
	if f.cutSteps > 0 || f.cutImages > 0 {
		fmt.Fprintf(&b, "<p class=\"note\">To keep this file within its bounds, %d older step(s) and %d older screenshot(s) were left out.</p>\n", f.cutSteps, f.cutImages)
	}
	b.WriteString("<ol id=\"steps\">\n")
	for _, s := range f.steps {
		cls, outcome := "step", `<span class="ok">ok</span>`
		if !s.OK {
			cls += " err"
			outcome = `<span class="bad">` + e(s.Code) + "</span>"
		}
		fmt.Fprintf(&b, "<li><details class=\"%s\" id=\"step-%d\"><summary><span class=\"t\">#%d %s</span> <span class=\"tool\">%s</span> %s · %s <span class=\"url\">%s</span></summary>\n",
			cls, s.N, s.N, e(s.Time.UTC().Format("15:04:05.000")), e(s.Tool), e(s.Target), outcome, e(s.URL))
		fmt.Fprintf(&b, "<p>%d ms", s.Ms)
		if s.Title != "" {
			fmt.Fprintf(&b, " · page title: %s", e(s.Title))
		}
		b.WriteString("</p>\n")
		if !s.OK {
			fmt.Fprintf(&b, "<p class=\"bad\">%s: %s</p>\n", e(s.Code), e(s.Error))
		}
		if len(s.Image) > 0 {
			fmt.Fprintf(&b, "<img class=\"shot\" alt=\"the page after step %d\" src=\"data:image/jpeg;base64,%s\">\n", s.N, base64.StdEncoding.EncodeToString(s.Image))
		}
		if s.Args != "" {
			fmt.Fprintf(&b, "<p>arguments</p><pre>%s</pre>\n", e(s.Args))
		}
		if s.Result != "" {
			fmt.Fprintf(&b, "<p>result</p><pre>%s</pre>\n", e(s.Result))
		}
		b.WriteString("</details></li>\n")
	}
	b.WriteString("</ol>\n")
	d := Data{Session: session, Started: f.started.UTC(), CutSteps: f.cutSteps, CutImages: f.cutImages, Steps: f.steps}
	js, _ := json.Marshal(d) // escapes <, > and &: the block cannot end early
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"%s\">%s</script>\n</body></html>\n", ScriptID, js)
	return b.Bytes()
}

// Parse reads a trace file's data back from its JSON block.
func Parse(page []byte) (*Data, error) {
	open := fmt.Sprintf(`<script type="application/json" id="%s">`, ScriptID)
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return nil, errors.New("not a webpilot trace: no " + ScriptID + " block")
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, errors.New("a webpilot trace cut short: its data block does not end")
	}
	var d Data
	if err := json.Unmarshal(rest[:j], &d); err != nil {
		return nil, fmt.Errorf("a webpilot trace with bad data: %w", err)
	}
	return &d, nil
}

// ReadFile parses the trace file at path.
func ReadFile(path string) (*Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	d, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Summary is the data as text: a header, then one line per step (time,
// tool, target, outcome, URL).
func (d *Data) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s, started %s, %d step(s)\n", d.Session, d.Started.Format(time.RFC3339), len(d.Steps))
	if d.CutSteps > 0 || d.CutImages > 0 {
		fmt.Fprintf(&b, "(%d older step(s) and %d screenshot(s) left out)\n", d.CutSteps, d.CutImages)
	}
	for _, s := range d.Steps {
		outcome := "ok"
		if !s.OK {
			outcome = s.Code + ": " + oneLine(s.Error, 100)
		}
		line := fmt.Sprintf("%3d %s %s", s.N, s.Time.UTC().Format("15:04:05.000"), s.Tool)
		if s.Target != "" {
			line += " " + oneLine(s.Target, 80)
		}
		line += " → " + outcome
		if s.URL != "" {
			line += " @ " + s.URL
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if head, more := text.Head(s, n); more > 0 {
		return head + "…"
	}
	return s
}
