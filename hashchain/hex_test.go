package hashchain

import (
	"encoding/hex"
	"testing"
)

// TestAppendHex holds appendHex to encoding/hex for every byte value, at
// every length up to a digest's and after a prefix.
func TestAppendHex(t *testing.T) {
	var all [256]byte
	for i := range all {
		all[i] = byte(i)
	}
	for n := range 33 {
		for start := 0; start+n <= len(all); start += 7 {
			src := all[start : start+n]
			if got, want := string(appendHex([]byte("x:"), src)), string(hex.AppendEncode([]byte("x:"), src)); got != want {
				t.Fatalf("appendHex(%x) = %q, want %q", src, got, want)
			}
		}
	}
}
