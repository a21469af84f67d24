package jsondoc

import "math/bits"

// Most strings the hot paths write or read (ids, keys, titles, times) need
// no escaping at all. Plain finds how far that goes eight bytes at a
// time, which is where a point read spent most of its string work.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Plain returns the length of the longest prefix of s whose bytes are
// ASCII and written as they are in style st: no control character, no
// quote, no backslash and, in the JSON style, none of <, > and &.
func Plain[S ~string | ~[]byte](s S, st Style) int {
	html := st == JSON
	if len(s) < 8 {
		for i := range len(s) {
			if !plain(s[i], html) {
				return i
			}
		}
		return len(s)
	}
	for i := 0; ; {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		m := x | below(x, 0x20) | zero(x^(ones*'\\'))
		if html {
			// '"' and '&' differ in one bit, as do '<' and '>': each pair
			// is one test with that bit set in x.
			m |= zero((x|ones*('"'^'&'))^(ones*'&')) | zero((x|ones*('<'^'>'))^(ones*'>'))
		} else {
			m |= zero(x ^ (ones * '"'))
		}
		if m &= highs; m != 0 {
			// The lowest high bit set marks the first byte that is not
			// plain; bits above it may be a borrow's.
			return i + bits.TrailingZeros64(m)/8
		}
		switch {
		case i+8 == len(s):
			return len(s)
		case i+16 > len(s):
			// The last word overlaps this one, whose bytes are plain.
			i = len(s) - 8
		default:
			i += 8
		}
	}
}

// zero has the high bit set of a byte of x that is zero, maybe of bytes
// after it (a borrow), but of no byte before the first zero.
func zero(x uint64) uint64 { return (x - ones) &^ x }

// below is as zero for bytes of x below n (n at most 0x80).
func below(x uint64, n uint64) uint64 { return (x - ones*n) &^ x }

// plain reports whether c is written as it is.
func plain(c byte, html bool) bool {
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&'))
}
