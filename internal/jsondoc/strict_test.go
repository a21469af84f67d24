package jsondoc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/todoaudit/todo/internal/jsondoc"
)

func TestCheckAccepts(t *testing.T) {
	for _, tc := range []struct {
		in    string
		names []string
	}{
		{`{}`, nil},
		{` {"a":1,"b":[true,false,null,-0.5e+3,"x"],"c":{"a":{}}} `, []string{"a", "b", "c"}},
		{`{"\u0061b":"\ud83d\ude00","a":"é"}`, []string{"ab", "a"}},
		{`{"A":1,"a":2}`, []string{"A", "a"}},
		{manyMembers(2, "x"), []string{"m0", "m1", "x"}},
		{`[{"a":1},{"a":2}]`, nil},
		{`"\"\\\/\b\f\n\r\t"`, nil},
		{`0`, nil},
		{"\t[]\n", nil},
	} {
		names, err := jsondoc.Check([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
		}
		if !slices.Equal(names, tc.names) {
			t.Errorf("%s: names %q, want %q", tc.in, names, tc.names)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{`{"a":1,"a":2}`, `member "a" appears twice`},
		{`{"x":{"a":1,"b":2,"a":3}}`, `member "a" appears twice`},
		{`{"a":1,"\u0061":2}`, `member "a" appears twice`},
		// Past sixteen names they are looked up another way.
		{manyMembers(20, "m1"), `member "m1" appears twice`},
		{manyMembers(20, "m19"), `member "m19" appears twice`},
		{manyMembers(16, `m\u0030`), `member "m0" appears twice`},
		{`{"t":"\ud800"}`, "lone surrogate"},
		{`{"t":"\udc00\ud800"}`, "lone surrogate"},
		{`{"t":"\ud800\u0041"}`, "lone surrogate"},
		{`{"t":"\ud800x"}`, "lone surrogate"},
		{`{"\udfff":1}`, "lone surrogate"},
		{"{\"t\":\"\xff\"}", "invalid UTF-8"},
		{"{\"t\":\"\xed\xa0\x80\"}", "invalid UTF-8"},
		{"{\"t\":\"a\x01\"}", "control character"},
		{`{"t":"\x"}`, "invalid escape"},
		{`{"t":"\u12"}`, "invalid \\u escape"},
		{`{"a":1} {}`, "data after"},
		{`{"a":01}`, "expected ',' or '}'"},
		{`{"a":-}`, "malformed number"},
		{`{"a":1.}`, "malformed number"},
		{`{"a":1e}`, "malformed number"},
		{`{"a":tru}`, "unexpected character"},
		{`{"a" 1}`, "expected ':'"},
		{`{a:1}`, "expected a member name"},
		{`{"a":1,}`, "expected a member name"},
		{`[1,]`, "unexpected character"},
		{`[1 2]`, "expected ',' or ']'"},
		{`{"a":"x`, "unterminated string"},
		{`{"a":`, "unexpected end"},
		{``, "unexpected end"},
		{strings.Repeat("[", jsondoc.MaxDepth+1) + strings.Repeat("]", jsondoc.MaxDepth+1), "nested more than"},
	} {
		_, err := jsondoc.Check([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.reason)
		}
	}
}

// manyMembers is an object of n members m0, m1, … and then one more,
// named last.
func manyMembers(n int, last string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"m%d":%d,`, i, i)
	}
	b.WriteString(`"` + last + `":0}`)
	return b.String()
}

// Check is at least as strict as encoding/json: whatever it accepts is
// valid JSON, UTF-8, decodes without replacement characters that were not
// in the text, and has no duplicate member names.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `[{"b":[]}]`, `{"A":1,"a":1}`, `-1.5e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := jsondoc.Check(data)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if !utf8.Valid(data) {
			t.Fatalf("accepted invalid UTF-8 %q", data)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted %q that does not decode: %v", data, err)
		}
		if m, ok := v.(map[string]any); ok && len(m) != len(names) {
			t.Fatalf("%q: %d names, %d decoded members", data, len(names), len(m))
		}
		if !strings.Contains(string(data), "\ufffd") && !strings.Contains(strings.ToLower(string(data)), `\ufffd`) {
			b, _ := json.Marshal(v)
			if strings.Contains(string(b), "\ufffd") {
				t.Fatalf("%q decodes with a replacement character", data)
			}
		}
	})
}
