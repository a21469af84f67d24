package jsondoc_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
)

type Inner struct {
	Title string `json:"title"`
}

type outer struct {
	Inner
	ID    string           `json:"id"`
	Sub   Inner            `json:"sub"`
	Subs  []Inner          `json:"subs"`
	ByKey map[string]Inner `json:"byKey"`
}

// Unmarshal holds every object, nested ones included, to the exact names
// of the struct it decodes into, and what Check refuses is refused too.
func TestUnmarshalStrict(t *testing.T) {
	var ok outer
	if err := jsondoc.UnmarshalStrict([]byte(`{"id":"a","title":"t","sub":{"title":"s"},"subs":[{"title":"x"}],"byKey":{"Any":{"title":"y"}}}`), &ok); err != nil {
		t.Fatal(err)
	}
	if ok.ID != "a" || ok.Title != "t" || ok.Sub.Title != "s" || ok.Subs[0].Title != "x" || ok.ByKey["Any"].Title != "y" {
		t.Fatalf("decoded %+v", ok)
	}
	for doc, name := range map[string]string{
		`{"ID":"a"}`:                  "ID",
		`{"sub":{"Title":"s"}}`:       "Title",
		`{"subs":[{"TITLE":"x"}]}`:    "TITLE",
		`{"byKey":{"k":{"titlE":1}}}`: "titlE",
		`{"extra":1}`:                 "extra",
	} {
		var v outer
		var un *jsondoc.UnknownMemberError
		if err := jsondoc.UnmarshalStrict([]byte(doc), &v); !errors.As(err, &un) || un.Name != name {
			t.Errorf("%s: %v, want unknown member %q", doc, err, name)
		}
	}
	for _, doc := range []string{`{"id":"a","id":"b"}`, `{"sub":{"title":"a","title":"b"}}`, `{"id":"a"} {}`} {
		var v outer
		var se *jsondoc.StrictError
		if err := jsondoc.UnmarshalStrict([]byte(doc), &v); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a strict JSON error", doc, err)
		}
	}
	var v outer
	if err := jsondoc.UnmarshalStrict([]byte(`["not an object"]`), &v); err == nil {
		t.Error("an array decoded into a struct")
	}
}

// A record-sized document: one scan checks it and its names before
// encoding/json decodes it.
func BenchmarkUnmarshalStrict(b *testing.B) {
	doc := []byte(`{"id":"a","title":"milk and bread","sub":{"title":"s"},"subs":[{"title":"x"},{"title":"y"}],"byKey":{"k":{"title":"z"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		var v outer
		if err := jsondoc.UnmarshalStrict(doc, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// stored is a document as a store returns one: a record and system
// properties kept as raw values, which a strict decode scans as strictly
// as the rest.
type stored struct {
	todo.AuditRecord
	ETag json.RawMessage `json:"_etag"`
	TS   json.RawMessage `json:"_ts"`
}

// UnmarshalStrict in one pass, where the plan reads a document strictly,
// gives exactly what the scan and then the decode give, value and
// whether it fails, for todos, audit records (whose entity is a raw value)
// and the types of the tests above.
func FuzzUnmarshalStrict(f *testing.F) {
	for _, doc := range append(storedTodos(), storedRecords()...) {
		f.Add(doc)
	}
	f.Add(`{"id":"a","_etag":"\"0\"","_ts":1,"entity":{"a":[1,{"b":"\u00e9"}],"a":2}}`)
	f.Add(`{"entity":{"a":"\ud800"},"id":"x"}`)
	for _, n := range []int{63, 64} { // the record's object and these: MaxDepth and one more
		f.Add(`{"entity":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	}
	f.Add(`{"id":"a","extra":1}`)
	f.Add(`{"id":"a","title":"t","sub":{"title":"s"},"subs":[{"title":"x"}]}`)
	f.Add(`{"id":"a","Id":"b"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		strictAsTwoPasses[todo.Todo](t, doc)
		strictAsTwoPasses[stored](t, doc)
		strictAsTwoPasses[outer](t, doc)
	})
}

// strictAsTwoPasses checks UnmarshalStrict against CheckFor then
// Unmarshal.
func strictAsTwoPasses[T any](t *testing.T, doc string) {
	t.Helper()
	var got, want T
	err := jsondoc.UnmarshalStrict([]byte(doc), &got)
	wantErr := jsondoc.CheckFor([]byte(doc), &want)
	if wantErr == nil {
		wantErr = jsondoc.Unmarshal([]byte(doc), &want)
	}
	if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("%q:\n one pass  %+v, %v\n two passes %+v, %v", doc, got, err, want, wantErr)
	}
	if err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%q: one pass says %v, two passes %v", doc, err, wantErr)
	}
}
