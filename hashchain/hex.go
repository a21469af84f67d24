package hashchain

import (
	"encoding/binary"
	"slices"
)

// appendHex appends the lowercase hex of src to dst, as hex.AppendEncode
// does (see encodeHex).
func appendHex(dst, src []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 2*len(src))[:n+2*len(src)]
	encodeHex(dst[n:], src)
	return dst
}

// encodeHex writes the lowercase hex of src into dst, as hex.Encode does,
// four bytes to a store from a table of each byte's two digits: a history
// page writes the hex of 34 salts and digests a record, which
// encoding/hex writes a digit at a time.
func encodeHex(dst, src []byte) {
	dst = dst[:2*len(src)]
	for len(src) >= 8 {
		s, d := (*[8]byte)(src), (*[16]byte)(dst)
		binary.LittleEndian.PutUint64(d[:8], uint64(hexPairs[s[0]])|uint64(hexPairs[s[1]])<<16|uint64(hexPairs[s[2]])<<32|uint64(hexPairs[s[3]])<<48)
		binary.LittleEndian.PutUint64(d[8:], uint64(hexPairs[s[4]])|uint64(hexPairs[s[5]])<<16|uint64(hexPairs[s[6]])<<32|uint64(hexPairs[s[7]])<<48)
		src, dst = src[8:], dst[16:]
	}
	for i, c := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], hexPairs[c])
	}
}

// hexPairs are the two hex digits of each byte value, the first in the
// low byte.
var hexPairs = func() (pairs [256]uint16) {
	const digits = "0123456789abcdef"
	for b := range pairs {
		pairs[b] = uint16(digits[b>>4]) | uint16(digits[b&0xf])<<8
	}
	return pairs
}()
