package launch

import (
	"bytes"
	"strings"
	"sync"
)

// tail keeps the last max bytes of the lines written to it: the end of the
// browser's stderr, which explains most failed starts and crashes. Lines of
// known noise (D-Bus complaints in containers) are left out.
type tail struct {
	max int

	mu    sync.Mutex
	buf   []byte // whole lines
	part  []byte // a line not yet ended
	wrapd bool   // bytes were dropped from the front
}

func newTail(max int) *tail { return &tail{max: max} }

// noise reports whether a stderr line says nothing about a failure.
func noise(line []byte) bool {
	return bytes.Contains(line, []byte(":dbus/"))
}

// Write keeps the last max bytes of what was written; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		if len(t.part) > 0 {
			line = append(t.part, line...)
			t.part = t.part[:0]
		}
		if !noise(line) {
			t.keep(line)
		}
	}
	t.part = append(t.part, rest...)
	if len(t.part) > t.max { // an endless line: keep its end
		t.part = append(t.part[:0], t.part[len(t.part)-t.max:]...)
		t.wrapd = true
	}
	return len(p), nil
}

func (t *tail) keep(line []byte) {
	if len(line) >= t.max {
		t.buf = append(t.buf[:0], line[len(line)-t.max:]...)
		t.wrapd = true
		return
	}
	if over := len(t.buf) + len(line) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.wrapd = true
	}
	t.buf = append(t.buf, line...)
}

// String returns the kept text, trimmed; when the front was dropped it starts
// at the first whole line.
func (t *tail) String() string {
	t.mu.Lock()
	s := string(t.buf) + string(t.part)
	wrapped := t.wrapd
	t.mu.Unlock()
	if len(s) > t.max {
		s = s[len(s)-t.max:]
		wrapped = true
	}
	if wrapped {
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
		s = "…" + s
	}
	return strings.TrimSpace(s)
}
