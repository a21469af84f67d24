package hashchain

import (
	"strconv"
	"testing"
)

// A field's length is written in decimal, whatever its size.
func TestAppendLength(t *testing.T) {
	for _, n := range []int{0, 9, 10, 99, 100, 1234567} {
		if got, want := string(appendLength([]byte("x"), n)), "x"+strconv.Itoa(n); got != want {
			t.Errorf("appendLength(%d) = %q, want %q", n, got, want)
		}
	}
}
