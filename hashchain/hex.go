package hashchain

import (
	"encoding/binary"
	"slices"
)

// appendHex appends the lowercase hex of src to dst, as hex.AppendEncode
// does, eight bytes at a time: a history page writes the hex of 34 salts
// and digests a record, which encoding/hex writes a digit at a time.
func appendHex(dst, src []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 2*len(src))[:n+2*len(src)]
	out := dst[n:]
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x, o := binary.LittleEndian.Uint64(src[i:]), out[2*i:2*i+16]
		binary.LittleEndian.PutUint64(o, hexDigits(uint32(x)))
		binary.LittleEndian.PutUint64(o[8:], hexDigits(uint32(x>>32)))
	}
	for ; i < len(src); i++ {
		out[2*i], out[2*i+1] = hexDigit(src[i]>>4), hexDigit(src[i]&0xf)
	}
	return dst
}

// hexDigits returns the eight hex digits of the four bytes of x, the
// first byte's (x's lowest) first, as the bytes of a little-endian word:
// each nibble is spread into a byte of its own, and the bytes of the
// nibbles past 9 (those that reach the high bit when 0x76 is added) are
// moved from after '9' to 'a'.
func hexDigits(x uint32) uint64 {
	const ones = 0x0101010101010101
	t := uint64(x)
	t = (t | t<<16) & 0x0000ffff0000ffff
	t = (t | t<<8) & 0x00ff00ff00ff00ff
	t = t>>4&0x000f000f000f000f | (t&0x000f000f000f000f)<<8
	return t + ones*'0' + (t+ones*0x76)>>7&ones*('a'-'9'-1)
}

// hexDigit is the lowercase hex digit of a nibble.
func hexDigit(n byte) byte {
	if n < 10 {
		return '0' + n
	}
	return 'a' - 10 + n
}
