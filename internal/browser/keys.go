package browser

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/input"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// keyDef describes a key for Input.dispatchKeyEvent.
type keyDef struct {
	key     string // DOM key value
	code    string // DOM code
	keyCode int64  // Windows virtual key code
	text    string // text the key types, if any
	shift   bool   // the character needs Shift held (US layout: "A", "!", "{", ...)
}

// named is a key without Shift.
func named(key, code string, keyCode int64, text string) keyDef {
	return keyDef{key: key, code: code, keyCode: keyCode, text: text}
}

// namedKeys are the keys an agent may press by name.
var namedKeys = map[string]keyDef{
	"enter":      named("Enter", "Enter", 13, "\r"),
	"tab":        named("Tab", "Tab", 9, ""),
	"escape":     named("Escape", "Escape", 27, ""),
	"esc":        named("Escape", "Escape", 27, ""),
	"backspace":  named("Backspace", "Backspace", 8, ""),
	"delete":     named("Delete", "Delete", 46, ""),
	"space":      named(" ", "Space", 32, " "),
	"arrowup":    named("ArrowUp", "ArrowUp", 38, ""),
	"arrowdown":  named("ArrowDown", "ArrowDown", 40, ""),
	"arrowleft":  named("ArrowLeft", "ArrowLeft", 37, ""),
	"arrowright": named("ArrowRight", "ArrowRight", 39, ""),
	"home":       named("Home", "Home", 36, ""),
	"end":        named("End", "End", 35, ""),
	"pageup":     named("PageUp", "PageUp", 33, ""),
	"pagedown":   named("PageDown", "PageDown", 34, ""),
	"insert":     named("Insert", "Insert", 45, ""),
	"shift":      named("Shift", "ShiftLeft", 16, ""),
	"control":    named("Control", "ControlLeft", 17, ""),
	"alt":        named("Alt", "AltLeft", 18, ""),
	"meta":       named("Meta", "MetaLeft", 91, ""),
}

// modifier bits of Input.dispatchKeyEvent.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

var modifierNames = map[string]int64{
	"alt": modAlt, "option": modAlt, "control": modCtrl, "ctrl": modCtrl,
	"meta": modMeta, "cmd": modMeta, "command": modMeta, "shift": modShift,
}

// usKeys is a US keyboard: every printable ASCII character with the key that
// types it. shifted and unshifted pair the two characters of one key ('1'
// and '!', 'a' and 'A').
var (
	usKeys    = make(map[rune]keyDef, 95)
	shifted   = make(map[rune]rune, 47)
	unshifted = make(map[rune]rune, 47)
)

func init() {
	for i := 1; i <= 12; i++ {
		n := fmt.Sprintf("F%d", i)
		namedKeys[strings.ToLower(n)] = named(n, n, int64(111+i), "")
	}

	pair := func(plain, shift rune, code string, keyCode int64) {
		usKeys[plain] = keyDef{key: string(plain), code: code, keyCode: keyCode, text: string(plain)}
		usKeys[shift] = keyDef{key: string(shift), code: code, keyCode: keyCode, text: string(shift), shift: true}
		shifted[plain], unshifted[shift] = shift, plain
	}
	for r := 'a'; r <= 'z'; r++ {
		up := r - 'a' + 'A'
		pair(r, up, "Key"+string(up), int64(up))
	}
	for _, k := range []struct {
		plain, shift rune
		code         string
		keyCode      int64
	}{
		{'1', '!', "Digit1", 49}, {'2', '@', "Digit2", 50}, {'3', '#', "Digit3", 51},
		{'4', '$', "Digit4", 52}, {'5', '%', "Digit5", 53}, {'6', '^', "Digit6", 54},
		{'7', '&', "Digit7", 55}, {'8', '*', "Digit8", 56}, {'9', '(', "Digit9", 57},
		{'0', ')', "Digit0", 48},
		{'`', '~', "Backquote", 192}, {'-', '_', "Minus", 189}, {'=', '+', "Equal", 187},
		{'[', '{', "BracketLeft", 219}, {']', '}', "BracketRight", 221}, {'\\', '|', "Backslash", 220},
		{';', ':', "Semicolon", 186}, {'\'', '"', "Quote", 222},
		{',', '<', "Comma", 188}, {'.', '>', "Period", 190}, {'/', '?', "Slash", 191},
	} {
		pair(k.plain, k.shift, k.code, k.keyCode)
	}
	usKeys[' '] = namedKeys["space"]
}

// charKey maps a printable ASCII character to its key on a US keyboard;
// k.shift says whether Shift must be held to type it ([dispatchKey] holds
// it).
func charKey(r rune) (k keyDef, ok bool) {
	k, ok = usKeys[r]
	return k, ok
}

// parseKey reads "Control+Shift+R" into modifiers and a key.
func parseKey(combo string) (keyDef, int64, error) {
	parts := strings.Split(combo, "+")
	if strings.HasSuffix(combo, "++") || combo == "+" {
		parts = append(strings.Split(strings.TrimSuffix(combo, "++"), "+"), "+")
		if combo == "+" {
			parts = []string{"+"}
		}
	}
	var mods int64
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierNames[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return keyDef{}, 0, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a modifier in %q", p, combo),
				Hint: "modifiers are Control, Shift, Alt and Meta, joined with +, e.g. Control+Shift+R"}
		}
		mods |= m
	}
	last := strings.TrimSpace(parts[len(parts)-1])
	if k, ok := namedKeys[strings.ToLower(last)]; ok {
		return k, mods, nil
	}
	if rs := []rune(last); len(rs) == 1 {
		if k, ok := charKey(rs[0]); ok {
			switch {
			case mods&modShift != 0:
				// Shift+1 is "!" and Shift+a is "A", as on a keyboard.
				if s, ok := shifted[rs[0]]; ok {
					k, _ = charKey(s)
				}
			case mods != 0 && rs[0] >= 'A' && rs[0] <= 'Z':
				// Control+A names the A key: Control+a, not Control+Shift+A.
				k, _ = charKey(unshifted[rs[0]])
			}
			return k, mods, nil
		}
	}
	return keyDef{}, 0, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("unknown key %q", last),
		Hint: "use a key name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, F5, or one character", Suggestions: []string{"Enter", "Tab", "Escape", "ArrowDown", "Control+A"}}
}

// pressKey presses a key combination: modifiers down, key down and up,
// modifiers up.
func pressKey(ctx context.Context, t *Tab, combo string) error {
	k, mods, err := parseKey(combo)
	if err != nil {
		return err
	}
	var held []keyDef
	for _, m := range []struct {
		bit  int64
		name string
	}{{modCtrl, "control"}, {modAlt, "alt"}, {modMeta, "meta"}, {modShift, "shift"}} {
		if mods&m.bit == 0 {
			continue
		}
		mk := namedKeys[m.name]
		if _, err := cdproto.Call(ctx, t.page, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: mk.key, Code: mk.code, WindowsVirtualKeyCode: mk.keyCode, Modifiers: mods}); err != nil {
			return dispatchError("press "+combo, err)
		}
		held = append(held, mk)
	}
	text := k.text
	if mods&(modCtrl|modAlt|modMeta) != 0 {
		text = "" // shortcuts type nothing
	}
	err = dispatchKey(ctx, t, k, mods, text)
	// Modifiers that went down come up, even when the key failed or the
	// call was cancelled.
	fctx, cancel := finishing(ctx)
	defer cancel()
	for i := len(held) - 1; i >= 0; i-- {
		mk := held[i]
		if _, uerr := cdproto.Call(fctx, t.page, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: mk.key, Code: mk.code, WindowsVirtualKeyCode: mk.keyCode}); uerr != nil && err == nil {
			err = uerr
		}
	}
	if err != nil {
		return dispatchError("press "+combo, err)
	}
	return nil
}

// dispatchKey sends one key down (typing text, if any) and up, with the
// modifiers mods. A key that needs Shift (k.shift) gets it: unless mods holds
// Shift already, a Shift key goes down before and up after, and the key's
// events carry the Shift modifier.
func dispatchKey(ctx context.Context, t *Tab, k keyDef, mods int64, text string) error {
	if !k.shift || mods&modShift != 0 {
		return sendKey(ctx, t, k, mods, text)
	}
	sk := namedKeys["shift"]
	if _, err := cdproto.Call(ctx, t.page, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: sk.key, Code: sk.code, WindowsVirtualKeyCode: sk.keyCode, NativeVirtualKeyCode: sk.keyCode, Modifiers: mods | modShift}); err != nil {
		return err
	}
	err := sendKey(ctx, t, k, mods|modShift, text)
	// Release Shift even when the key failed, so that it is not left down.
	fctx, cancel := finishing(ctx)
	defer cancel()
	_, upErr := cdproto.Call(fctx, t.page, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: sk.key, Code: sk.code, WindowsVirtualKeyCode: sk.keyCode, NativeVirtualKeyCode: sk.keyCode, Modifiers: mods})
	if err != nil {
		return err
	}
	return upErr
}

// sendKey sends one key down (typing text, if any) and up.
func sendKey(ctx context.Context, t *Tab, k keyDef, mods int64, text string) error {
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Modifiers: mods}
	if text != "" {
		down.Type = input.DispatchKeyEventTypeKeyDown
		down.Text = text
		down.UnmodifiedText = text
	}
	_, downErr := cdproto.Call(ctx, t.page, input.DispatchKeyEvent, down)
	// The key comes up even when the answer to its press was cut off: the
	// press may have reached the page.
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Modifiers: mods}
	fctx, cancel := finishing(ctx)
	defer cancel()
	_, err := cdproto.Call(fctx, t.page, input.DispatchKeyEvent, up)
	if downErr != nil {
		return downErr
	}
	return err
}
