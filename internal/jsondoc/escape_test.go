package jsondoc

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// slogString is how log/slog's JSON handler writes s as a value.
func slogString(t testing.TB, s string) string {
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key != "v" {
			return slog.Attr{}
		}
		return a
	}})).Info("", "v", s)
	line := strings.TrimSuffix(buf.String(), "\n")
	v, ok := strings.CutPrefix(line, `{"v":`)
	if !ok {
		t.Fatalf("slog wrote %s", line)
	}
	return strings.TrimSuffix(v, "}")
}

func check(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString(nil, s, JSON); string(got) != string(want) {
		t.Errorf("JSON %q: %s, encoding/json %s", s, got, want)
	}
	if got, want := string(AppendString(nil, s, Slog)), slogString(t, s); got != want {
		t.Errorf("Slog %q: %s, slog %s", s, got, want)
	}
}

func TestAppend(t *testing.T) {
	for _, s := range []string{"", "plain", `" \ / `, "\n\r\t\b\f\x00\x1f\x7f", "<a href='x'>&</a>",
		"caf\u00e9 \U0001F600", "bad \xff\xfe utf-8", "\u2028\u2029", "\xed\xa0\x80"} {
		check(t, s)
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("a<b>&\u2028\xff")
	f.Fuzz(check)
}

// plainRef is Plain a byte at a time.
func plainRef(s string, st Style) int {
	for i := range len(s) {
		if !plain(s[i], st == JSON) {
			return i
		}
	}
	return len(s)
}

func checkPlain(t *testing.T, s string) {
	t.Helper()
	for _, st := range []Style{JSON, Slog} {
		if got, want := Plain(s, st), plainRef(s, st); got != want {
			t.Errorf("Plain(%q, %d) = %d, want %d", s, st, got, want)
		}
		if got, want := Plain([]byte(s), st), plainRef(s, st); got != want {
			t.Errorf("Plain([]byte(%q), %d) = %d, want %d", s, st, got, want)
		}
	}
}

// TestPlain puts every byte value at every place of strings that span
// one, two and three eight-byte words, after a plain prefix and before
// a plain or a special tail.
func TestPlain(t *testing.T) {
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				checkPlain(t, string(b))
				b[n-1] = '<'
				checkPlain(t, string(b))
			}
		}
	}
	if got := Plain("\x80\xff"+strings.Repeat("a", 9), JSON); got != 0 {
		t.Errorf("Plain of a non-ASCII start = %d", got)
	}
}

func FuzzPlain(f *testing.F) {
	f.Add("0123456789abcdef\x7f<")
	f.Fuzz(checkPlain)
}
