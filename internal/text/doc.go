// Package text holds the small string helpers every layer shares: cutting a
// text to a number of characters without splitting a UTF-8 character, and
// the edit distance, and the one ranker of "did you mean" suggestions
// (Nearest).
//
// It is pure code: no I/O, no imports of webpilot's own packages, so any
// package may use it. Lengths are counted in characters (runes), never in
// bytes.
package text
