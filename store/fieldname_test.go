package store_test

import (
	"regexp"
	"testing"

	"github.com/todoaudit/todo/store"
)

// The rule IsFieldName checks by hand, as a regular expression.
var fieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

func FuzzIsFieldName(f *testing.F) {
	for _, s := range []string{"", "a", "_", "userId", "9a", "a-b", "é", "a\x00", "A_1", string(make([]byte, 64)), "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := store.IsFieldName(s), fieldName.MatchString(s); got != want {
			t.Fatalf("IsFieldName(%q) = %v, the rule says %v", s, got, want)
		}
	})
}
