// Package clip shortens caller-controlled strings before they reach a log
// line or an error answer, so that one request cannot make either as long
// as itself.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// Max is how many bytes of a caller-controlled value are kept.
const Max = 256

// String is To(s, Max): for a value that is the caller's alone (a path, a
// header, a query parameter).
func String(s string) string { return To(s, Max) }

// To is s when it fits in n bytes, else its first n bytes (cut at a
// character boundary) followed by how long it was: for a message that
// quotes the caller's values among its own words.
func To(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
