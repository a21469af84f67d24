package todo

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// segmentAllowed is ValidateSegment's rule stated rune by rune, without
// its ASCII fast path.
func segmentAllowed(s string, maxBytes int) bool {
	if s == "" || len(s) > maxBytes || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if r == '/' || r == '\\' || r == '?' || r == '#' || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func FuzzValidateSegment(f *testing.F) {
	for _, s := range []string{"Grocery", "Home Office", " lead", "trail ", "\tx", "x\n", "a/b", `a\b`, "a?b", "a#b",
		"\x7f", "\x1f", "日本語", "\u00a0x", "x\u0085", "\xff", "é", "\u2028", "~!@$%^&*()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateSegment("category", s, 16)
		if ok := segmentAllowed(s, 16); ok != (err == nil) {
			t.Fatalf("ValidateSegment(%q) = %v, the rule says allowed %v", s, err, ok)
		}
		if err != nil && KindOf(err) != Invalid {
			t.Fatalf("ValidateSegment(%q) = %v, not Invalid", s, err)
		}
	})
}
