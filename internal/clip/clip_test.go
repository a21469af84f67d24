package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	if got := String("short"); got != "short" {
		t.Fatalf("short value changed: %q", got)
	}
	exact := strings.Repeat("a", Max)
	if got := String(exact); got != exact {
		t.Fatal("a value of exactly Max bytes changed")
	}
	long := strings.Repeat("a", 900_000)
	if got := String(long); len(got) > Max+32 || !strings.HasSuffix(got, "…(900000 bytes)") {
		t.Fatalf("900 KB value clipped to %d bytes: %q", len(got), got[Max:])
	}
	// A multi-byte character straddling the cut is dropped whole.
	wide := strings.Repeat("a", Max-1) + "€€€"
	if got := String(wide); !utf8.ValidString(got) || !strings.HasPrefix(got, strings.Repeat("a", Max-1)+"…") {
		t.Fatalf("cut inside a character: %q", got)
	}
}
