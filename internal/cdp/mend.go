package cdp

import (
	"bytes"
	"unicode/utf8"
)

// mendFrame makes a frame that is not well-formed UTF-8 JSON text decodable,
// as Chrome writes one when a page's string holds a lone surrogate (a
// string cut inside an emoji): invalid UTF-8 bytes and escaped surrogates
// without their pair become U+FFFD. The rest of the frame is left as it
// is. Dropping such a frame would leave its call waiting until its
// deadline.
func mendFrame(frame []byte) []byte {
	if !utf8.Valid(frame) {
		frame = bytes.ToValidUTF8(frame, []byte("\uFFFD"))
	}
	var out []byte // nil until the first change
	in := false    // inside a string
	last := 0      // frame[last:i] not yet copied to out
	for i := 0; i < len(frame); i++ {
		switch c := frame[i]; {
		case c == '"':
			in = !in
		case c == '\\' && in && i+1 < len(frame):
			if frame[i+1] != 'u' {
				i++ // (an escaped quote or backslash)
				continue
			}
			r, ok := hex4(frame, i+2)
			if !ok {
				continue
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if lo, ok := hex4(frame, i+8); ok && i+7 < len(frame) && frame[i+6] == '\\' && frame[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11 // a pair: kept
					continue
				}
			case r >= 0xDC00 && r <= 0xDFFF:
			default:
				i += 5
				continue
			}
			out = append(append(out, frame[last:i]...), `\ufffd`...)
			last = i + 6
			i += 5
		}
	}
	if out == nil {
		return frame
	}
	return append(out, frame[last:]...)
}

// hex4 reads the four hex digits at b[i:i+4].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
