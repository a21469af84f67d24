package jsondoc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestGet(t *testing.T) {
	doc := []byte(` {"id":"a:b","notes":"<\"}{[\\","tags":["x","}"],"n":{"a":[1,{"b":"]"}]},"version":3 , "e\u0073c":true,"id":"last"} `)
	for name, want := range map[string]string{"id": `"last"`, "version": "3", "tags": `["x","}"]`, "n": `{"a":[1,{"b":"]"}]}`, "esc": "true", "missing": ""} {
		got, err := Get(doc, name)
		if err != nil || string(got) != want {
			t.Errorf("Get(%q) = %s, %v; want %s", name, got, err, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"x}`, `{"a":[1}`, `{"a":1} x`, `{"a\":1}`} {
		if _, err := Get([]byte(bad), "a"); err == nil {
			t.Errorf("Get(%s) did not fail", bad)
		}
	}
}

// On every valid JSON object in UTF-8 (encoding/json replaces invalid
// bytes in names, Each keeps them), Each sees the members encoding/json decodes,
// with the same raw values; on anything else it never panics.
func FuzzEach(f *testing.F) {
	f.Add([]byte(`{"id":"x","v":[1,"]",{"a":"\""}],"n":null}`))
	f.Add([]byte(`{"a\u0062":"\\","b":-1.5e3}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		got := map[string]json.RawMessage{}
		err := Each(doc, func(name, value []byte) bool {
			got[string(name)] = bytes.Clone(value)
			return true
		})
		var want map[string]json.RawMessage
		if !utf8.Valid(doc) || json.Unmarshal(doc, &want) != nil || want == nil {
			return
		}
		if err != nil {
			t.Fatalf("Each(%s): %v", doc, err)
		}
		if len(got) != len(want) {
			t.Fatalf("Each(%s) saw %d members, want %d", doc, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("member %q = %s, want %s", k, got[k], v)
			}
		}
	})
}
