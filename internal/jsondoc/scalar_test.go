package jsondoc

import (
	"encoding/json"
	"testing"
)

var scalars = []string{`"x"`, `""`, `"a\"b"`, `"\u00e9"`, `"é"`, "\"\xff\"", "\"a\x01\"", `"a"b"`, `"`, `null`, `true`, `{}`,
	`0`, `-0`, `7`, `-42`, `012`, `1.5`, `1e3`, `-`, `123456789012345678`, `1234567890123456789`, `9223372036854775808`, ` 1`, `1 `}

func TestScalarsDecodeAsEncodingJSON(t *testing.T) {
	for _, raw := range scalars {
		checkScalar(t, "String", String, []byte(raw))
		checkScalar(t, "Int", Int, []byte(raw))
		for _, s := range []string{"x", "", `a"b`, "é", "\ufffd", "\xff"} {
			checkStringIs(t, []byte(raw), s)
		}
	}
}

func FuzzStringIs(f *testing.F) {
	f.Add([]byte(`"x"`), "x")
	f.Add([]byte("\"\xff\""), "\xff")
	f.Add([]byte(`"\u00e9"`), "é")
	f.Add([]byte(`null`), "")
	f.Fuzz(checkStringIs)
}

// checkStringIs fails t unless StringIs(raw, s) says what encoding/json
// does: raw decodes into a string, and that string is s.
func checkStringIs(t *testing.T, raw []byte, s string) {
	t.Helper()
	var v string
	want := json.Unmarshal(raw, &v) == nil && v == s
	if got := StringIs(raw, s); got != want {
		t.Fatalf("StringIs(%q, %q) = %v; encoding/json gives %q", raw, s, got, v)
	}
}

func FuzzScalars(f *testing.F) {
	for _, raw := range scalars {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkScalar(t, "String", String, raw)
		checkScalar(t, "Int", Int, raw)
	})
}

// checkScalar fails t unless decode reads raw as encoding/json does: the
// same value, and an error exactly when encoding/json gives one.
func checkScalar[T comparable](t *testing.T, name string, decode func([]byte) (T, error), raw []byte) {
	t.Helper()
	var want T
	wantErr := json.Unmarshal(raw, &want)
	got, err := decode(raw)
	if (err != nil) != (wantErr != nil) || got != want {
		t.Fatalf("%s(%q) = %#v, %v; encoding/json gives %#v, %v", name, raw, got, err, want, wantErr)
	}
}
