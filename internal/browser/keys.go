package browser

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/chromedp/cdproto/input"

	cdproto "github.com/chromedp/cdproto/cdp"
)

// keyDef describes a key for Input.dispatchKeyEvent.
type keyDef struct {
	key     string // DOM key value
	code    string // DOM code
	keyCode int64  // Windows virtual key code
	text    string // text the key types, if any
}

// namedKeys are the keys an agent may press by name.
var namedKeys = map[string]keyDef{
	"enter":      {"Enter", "Enter", 13, "\r"},
	"tab":        {"Tab", "Tab", 9, ""},
	"escape":     {"Escape", "Escape", 27, ""},
	"esc":        {"Escape", "Escape", 27, ""},
	"backspace":  {"Backspace", "Backspace", 8, ""},
	"delete":     {"Delete", "Delete", 46, ""},
	"space":      {" ", "Space", 32, " "},
	"arrowup":    {"ArrowUp", "ArrowUp", 38, ""},
	"arrowdown":  {"ArrowDown", "ArrowDown", 40, ""},
	"arrowleft":  {"ArrowLeft", "ArrowLeft", 37, ""},
	"arrowright": {"ArrowRight", "ArrowRight", 39, ""},
	"home":       {"Home", "Home", 36, ""},
	"end":        {"End", "End", 35, ""},
	"pageup":     {"PageUp", "PageUp", 33, ""},
	"pagedown":   {"PageDown", "PageDown", 34, ""},
	"insert":     {"Insert", "Insert", 45, ""},
	"shift":      {"Shift", "ShiftLeft", 16, ""},
	"control":    {"Control", "ControlLeft", 17, ""},
	"alt":        {"Alt", "AltLeft", 18, ""},
	"meta":       {"Meta", "MetaLeft", 91, ""},
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

func init() {
	for i := 1; i <= 12; i++ {
		n := fmt.Sprintf("F%d", i)
		namedKeys[strings.ToLower(n)] = keyDef{n, n, int64(111 + i), ""}
	}
}

// charKey maps a printable ASCII character to its key.
func charKey(r rune) (keyDef, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return keyDef{string(r), "Key" + string(unicode.ToUpper(r)), int64(unicode.ToUpper(r)), string(r)}, true
	case r >= 'A' && r <= 'Z':
		return keyDef{string(r), "Key" + string(r), int64(r), string(r)}, true
	case r >= '0' && r <= '9':
		return keyDef{string(r), "Digit" + string(r), int64(r), string(r)}, true
	case r == ' ':
		return namedKeys["space"], true
	case r > ' ' && r < 0x7f:
		return keyDef{string(r), "", 0, string(r)}, true
	}
	return keyDef{}, false
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
			if mods&modShift != 0 && rs[0] >= 'a' && rs[0] <= 'z' {
				k.key, k.text = strings.ToUpper(k.key), strings.ToUpper(k.text)
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
		if _, err := cdproto.Call(ctx, t.t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: mk.key, Code: mk.code, WindowsVirtualKeyCode: mk.keyCode, Modifiers: mods}); err != nil {
			return dispatchError("press "+combo, err)
		}
		held = append(held, mk)
	}
	text := k.text
	if mods&(modCtrl|modAlt|modMeta) != 0 {
		text = "" // shortcuts type nothing
	}
	if err := dispatchKey(ctx, t, k, mods, text); err != nil {
		return dispatchError("press "+combo, err)
	}
	for i := len(held) - 1; i >= 0; i-- {
		mk := held[i]
		if _, err := cdproto.Call(ctx, t.t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: mk.key, Code: mk.code, WindowsVirtualKeyCode: mk.keyCode}); err != nil {
			return dispatchError("press "+combo, err)
		}
	}
	return nil
}

// dispatchKey sends one key down (typing text, if any) and up.
func dispatchKey(ctx context.Context, t *Tab, k keyDef, mods int64, text string) error {
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Modifiers: mods}
	if text != "" {
		down.Type = input.DispatchKeyEventTypeKeyDown
		down.Text = text
		down.UnmodifiedText = text
	}
	if _, err := cdproto.Call(ctx, t.t, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.keyCode, NativeVirtualKeyCode: k.keyCode, Modifiers: mods}
	_, err := cdproto.Call(ctx, t.t, input.DispatchKeyEvent, up)
	return err
}
