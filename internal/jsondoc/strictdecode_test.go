package jsondoc_test

import (
	"errors"
	"testing"

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
