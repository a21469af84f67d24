package jsondoc

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	deep := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	for _, doc := range []string{
		`{}`, ` [ ] `, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"\u00e9\n\"","d":-0.5e+10,"e":true,"f":false}`,
		`""`, `"\ud800"`, "\"\xff\xfe\"", `0`, `-0`, `1E5`, `1.0e-3`, `[[],{}]`, `{"":{"":[]}}`,
		``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`,
		`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x1`, `tru`, `nul`, `truex`, `"a`, `"\x"`, `"\u12"`,
		`"\u12g4"`, "\"a\tb\"", "\"a\x00\"", `{"a":1}}`, `[1]]`, `[}`, `{]`, `1 2`, `"a" "b"`, `[1,,2]`,
		deep(10000, "[", "]"), deep(10001, "[", "]"), deep(10000, `{"a":`, "}") + "", strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		if got, want := Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
			t.Errorf("Valid(%.40q) = %v, json.Valid says %v", doc, got, want)
		}
	}
}

// Valid agrees with json.Valid on every input.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"id":"x","v":[1,"]",{"a":"\""}],"n":null}`, `{"a\u0062":"\\","b":-1.5e3}`, `[0,-0.1,1e9,true,false,null,""]`, `{"a":{"b":[[]]}} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := Valid(doc), json.Valid(doc); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", doc, got, want)
		}
	})
}

// EachValid refuses nesting where Valid does: the object it reads is the
// first level.
func TestEachValidDepth(t *testing.T) {
	for _, n := range []int{stdlibMaxDepth - 2, stdlibMaxDepth - 1, stdlibMaxDepth} {
		doc := []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		if err := EachValid(doc, func(_, _ []byte) bool { return true }); (err == nil) != json.Valid(doc) {
			t.Errorf("%d deep in an object: EachValid %v, json.Valid %v", n, err, json.Valid(doc))
		}
	}
}

// EachValid reads what Each reads, and only from what Valid accepts.
func FuzzEachValid(f *testing.F) {
	for _, s := range []string{`{"id":"x","v":[1,"]",{"a":"\""}],"n":null}`, `{"a\u0062":"\\","b":-1.5e3}`, `{"a":01}`, `{"a":[}`, `{} x`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var got, want [][]byte
		err := EachValid(doc, func(name, value []byte) bool {
			got = append(got, name, value)
			return true
		})
		eachErr := Each(doc, func(name, value []byte) bool {
			want = append(want, name, value)
			return true
		})
		if ok := eachErr == nil && Valid(doc); (err == nil) != ok {
			t.Fatalf("EachValid(%q): %v; Each: %v, Valid: %v", doc, err, eachErr, Valid(doc))
		}
		if err == nil && !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("EachValid(%q) read %q, Each %q", doc, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	doc := []byte(`{"id":"0f8e7d6c5b4a","userId":"alice","category":"Grocery","title":"Get more milk","notes":"` + strings.Repeat("two litres, semi-skimmed; and bread. ", 60) + `","tags":["dairy","weekly"],"done":false,"version":12,"createdAt":"2026-12-01T10:00:00Z","updatedAt":"2026-12-01T10:05:00.123456789Z"}`)
	b.Run("jsondoc", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !Valid(doc) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !json.Valid(doc) {
				b.Fatal("invalid")
			}
		}
	})
}
