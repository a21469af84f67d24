package jsonfield

import (
	"encoding/json"
	"testing"
)

var scalars = []string{`"x"`, `""`, `"a\"b"`, `"\u00e9"`, `"é"`, "\"\xff\"", "\"a\x01\"", `"a"b"`, `"`, `null`, `true`, `{}`,
	`0`, `-0`, `7`, `-42`, `012`, `1.5`, `1e3`, `-`, `123456789012345678`, `1234567890123456789`, `9223372036854775808`, ` 1`, `1 `}

func TestScalarsDecodeAsEncodingJSON(t *testing.T) {
	for _, raw := range scalars {
		checkString(t, []byte(raw))
		checkInt(t, []byte(raw))
	}
}

func FuzzScalars(f *testing.F) {
	for _, raw := range scalars {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkString(t, raw)
		checkInt(t, raw)
	})
}

func checkString(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(raw, &want)
	got, err := String(raw)
	if (err != nil) != (wantErr != nil) || got != want {
		t.Fatalf("String(%q) = %q, %v; encoding/json gives %q, %v", raw, got, err, want, wantErr)
	}
}

func checkInt(t *testing.T, raw []byte) {
	t.Helper()
	var want int64
	wantErr := json.Unmarshal(raw, &want)
	got, err := Int(raw)
	if (err != nil) != (wantErr != nil) || got != want {
		t.Fatalf("Int(%q) = %d, %v; encoding/json gives %d, %v", raw, got, err, want, wantErr)
	}
}

func BenchmarkString(b *testing.B) {
	raw := []byte(`"0f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"`)
	b.Run("jsonfield", func(b *testing.B) {
		for b.Loop() {
			if _, err := String(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
