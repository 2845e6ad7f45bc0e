package backendtest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// User is the person at the browser, simulated: trusted input (mouse,
// keys, text, the address bar) sent to one tab over the test rig's own
// browser connection, not webpilot's — what a recording or a hand-off
// sees a person do.
type User struct {
	bs     *cdp.Session
	sess   cdp.Caller
	id     string
	target string
}

// NewUser attaches the simulated user to the page whose URL contains
// urlPart (exactly one must).
func NewUser(ctx context.Context, b backend.Backend, urlPart string) (*User, error) {
	bs, err := rigBrowser(ctx, b)
	if err != nil {
		return nil, err
	}
	infos, err := targetInfos(ctx, bs)
	if err != nil {
		return nil, err
	}
	id := ""
	for _, ti := range infos {
		if ti.Type == "page" && strings.Contains(ti.URL, urlPart) {
			if id != "" {
				return nil, fmt.Errorf("user: two pages at %q", urlPart)
			}
			id = ti.TargetID
		}
	}
	if id == "" {
		return nil, fmt.Errorf("user: no page at %q", urlPart)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := bs.Call(ctx, "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return nil, fmt.Errorf("user: %w", err)
	}
	return &User{bs: bs, sess: bs.Conn().Session(att.SessionID), id: att.SessionID, target: id}, nil
}

// Activate brings the tab to the front, as the user clicking its tab
// would.
func (u *User) Activate(ctx context.Context) error {
	return u.bs.Call(ctx, "Target.activateTarget", map[string]any{"targetId": u.target}, nil)
}

// Close lets go of the tab.
func (u *User) Close() {
	_ = u.bs.Call(context.Background(), "Target.detachFromTarget", map[string]any{"sessionId": u.id}, nil)
}

// Eval evaluates expr in the page (the page's own world) and decodes its
// value into out (nil: ignored); a promise is awaited.
func (u *User) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := u.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return fmt.Errorf("user: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("user: %s", res.ExceptionDetails)
	}
	if out != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// point is where the element that selector names is, scrolled into view:
// the centre of its box, in the viewport. It waits until the element is
// what is at that point in two looks a frame apart (a smooth scroll the
// wheel started may still be moving the page), as a person's eye would.
func (u *User) point(ctx context.Context, selector string) (x, y float64, err error) {
	expr := fmt.Sprintf(`(async () => { const e = document.querySelector(%q); if (!e) return null;
		const at = () => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
		const hits = (p) => { const h = document.elementFromPoint(p[0], p[1]); return !!h && (h === e || e.contains(h)); };
		let p = at();
		if (!hits(p)) { e.scrollIntoView({block: "center", inline: "center"}); p = at(); }
		// (a tab behind another draws no frames: a timer, throttled there
		// but firing, ends the look all the same)
		await Promise.race([new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))), new Promise((r) => setTimeout(r, 300))]);
		const q = at();
		return hits(q) && q[0] === p[0] && q[1] === p[1] ? q : [];
	})()`, selector)
	for {
		var p []float64
		if err := u.Eval(ctx, expr, &p); err != nil {
			return 0, 0, err
		}
		if p == nil {
			return 0, 0, fmt.Errorf("user: nothing at %q", selector)
		}
		if len(p) == 2 {
			return p[0], p[1], nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("user: %q never stood still in view: %w", selector, ctx.Err())
		case <-afterPoll():
		}
	}
}

// Click presses and releases the left button on the element (count 2:
// a double-click).
func (u *User) Click(ctx context.Context, selector string, count int) error {
	x, y, err := u.point(ctx, selector)
	if err != nil {
		return err
	}
	if count < 1 {
		count = 1
	}
	if err := u.mouse(ctx, "mouseMoved", x, y, 0); err != nil {
		return err
	}
	for n := 1; n <= count; n++ {
		if err := u.mouse(ctx, "mousePressed", x, y, n); err != nil {
			return err
		}
		if err := u.mouse(ctx, "mouseReleased", x, y, n); err != nil {
			return err
		}
	}
	return nil
}

// ClickAt presses and releases the left button at a point of the
// viewport.
func (u *User) ClickAt(ctx context.Context, x, y float64) error {
	if err := u.mouse(ctx, "mouseMoved", x, y, 0); err != nil {
		return err
	}
	if err := u.mouse(ctx, "mousePressed", x, y, 1); err != nil {
		return err
	}
	return u.mouse(ctx, "mouseReleased", x, y, 1)
}

func (u *User) mouse(ctx context.Context, kind string, x, y float64, count int) error {
	p := map[string]any{"type": kind, "x": x, "y": y}
	if kind != "mouseMoved" {
		p["button"], p["clickCount"] = "left", count
	}
	if err := u.sess.Call(ctx, "Input.dispatchMouseEvent", p, nil); err != nil {
		return fmt.Errorf("user: %s: %w", kind, err)
	}
	return nil
}

// Type clicks the field, then types the text into it.
func (u *User) Type(ctx context.Context, selector, text string) error {
	if err := u.Click(ctx, selector, 1); err != nil {
		return err
	}
	for _, r := range text {
		if err := u.sess.Call(ctx, "Input.insertText", map[string]any{"text": string(r)}, nil); err != nil {
			return fmt.Errorf("user: type: %w", err)
		}
	}
	return nil
}

// keyCodes are the keys Press knows: key, code and the Windows key code.
var keyCodes = map[string]struct {
	code string
	vk   int
	text string
}{
	"Enter":     {"Enter", 13, "\r"},
	"Escape":    {"Escape", 27, ""},
	"Tab":       {"Tab", 9, ""},
	"ArrowDown": {"ArrowDown", 40, ""},
	"ArrowUp":   {"ArrowUp", 38, ""},
	"End":       {"End", 35, ""},
	"PageDown":  {"PageDown", 34, ""},
}

// Press presses and releases a key (Enter, Escape, Tab, ArrowDown,
// ArrowUp, End, PageDown) in the focused element.
func (u *User) Press(ctx context.Context, key string) error {
	k, ok := keyCodes[key]
	if !ok {
		return fmt.Errorf("user: press: unknown key %q", key)
	}
	down := map[string]any{"type": "keyDown", "key": key, "code": k.code, "windowsVirtualKeyCode": k.vk}
	if k.text != "" {
		down["text"] = k.text
	} else {
		down["type"] = "rawKeyDown"
	}
	if err := u.sess.Call(ctx, "Input.dispatchKeyEvent", down, nil); err != nil {
		return fmt.Errorf("user: press %s: %w", key, err)
	}
	return u.sess.Call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": k.code, "windowsVirtualKeyCode": k.vk}, nil)
}

// Wheel scrolls with the mouse wheel at the middle of the viewport.
func (u *User) Wheel(ctx context.Context, dy float64) error {
	var size []float64
	if err := u.Eval(ctx, `[innerWidth / 2, innerHeight / 2]`, &size); err != nil {
		return err
	}
	return u.sess.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": size[0], "y": size[1], "deltaX": 0, "deltaY": dy}, nil)
}

// SetFiles chooses files for the file input that selector names, as the
// file chooser would.
func (u *User) SetFiles(ctx context.Context, selector string, files []string) error {
	var doc struct {
		Root struct {
			NodeID int `json:"nodeId"`
		} `json:"root"`
	}
	if err := u.sess.Call(ctx, "DOM.getDocument", map[string]any{}, &doc); err != nil {
		return fmt.Errorf("user: %w", err)
	}
	var q struct {
		NodeID int `json:"nodeId"`
	}
	if err := u.sess.Call(ctx, "DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": selector}, &q); err != nil || q.NodeID == 0 {
		return fmt.Errorf("user: no %q: %v", selector, err)
	}
	abs := make([]string, len(files))
	for i, f := range files {
		p, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		abs[i] = p
	}
	return u.sess.Call(ctx, "DOM.setFileInputFiles", map[string]any{"nodeId": q.NodeID, "files": abs}, nil)
}

// PressBannerStop presses Stop in the banner webpilot shows at the top
// right of a recorded page without the extension (a fixed element on
// <html> with a closed shadow root; Stop is at its right end).
func (u *User) PressBannerStop(ctx context.Context) error {
	var pt []float64
	if err := u.Eval(ctx, `(() => { const h = [...document.documentElement.children].find((e) => e.tagName === "DIV" && e.shadowRoot === null && getComputedStyle(e).position === "fixed");
		if (!h) return null; const r = h.getBoundingClientRect(); return [r.right - 25, r.top + r.height / 2]; })()`, &pt); err != nil {
		return err
	}
	if len(pt) != 2 {
		return fmt.Errorf("user: no recording banner in the page")
	}
	return u.ClickAt(ctx, pt[0], pt[1])
}

// WheelUntil scrolls with the wheel, a viewport's worth at a time, until
// the page's expression holds (a list that loads as it scrolls has
// loaded enough); after each turn it waits until the page stands still
// (a wheel scroll runs smoothly for a while). At most 20 turns.
func (u *User) WheelUntil(ctx context.Context, expr string) error {
	settled := `new Promise((r) => { const y = scrollY; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => r(scrollY === y), 100))); })`
	for range 20 {
		var ok bool
		if err := u.Eval(ctx, "!!("+expr+")", &ok); err != nil || ok {
			return err
		}
		if err := u.Wheel(ctx, 600); err != nil {
			return err
		}
		if err := u.WaitFor(ctx, settled); err != nil {
			return err
		}
	}
	return fmt.Errorf("user: %s never held, scrolling", expr)
}

// WaitUser waits for a page at urlPart (a tab the page opened) and
// attaches the user to it.
func WaitUser(ctx context.Context, b backend.Backend, urlPart string) (*User, error) {
	for {
		u, err := NewUser(ctx, b, urlPart)
		if err == nil {
			return u, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%w)", err, ctx.Err())
		case <-afterPoll():
		}
	}
}

// Go types an address into the address bar: a navigation the browser
// starts, not the page.
func (u *User) Go(ctx context.Context, url string) error {
	return u.sess.Call(ctx, "Page.navigate", map[string]any{"url": url}, nil)
}

// WaitFor waits until the page's expression is true (the page has
// loaded, an element appeared), polling; a document being replaced
// counts as not yet.
func (u *User) WaitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		if err := u.Eval(ctx, "!!("+expr+")", &ok); err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("user: %s never held: %w", expr, ctx.Err())
		case <-afterPoll():
		}
	}
}

// afterPoll is the pause between two looks of WaitFor.
func afterPoll() <-chan time.Time { return time.After(50 * time.Millisecond) }
