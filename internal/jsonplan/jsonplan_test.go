package jsonplan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

var todoPlan = planFor(reflect.TypeFor[todo.Todo]())

// fastTodo decodes doc through the plan, reporting whether it could.
func fastTodo(doc string) (todo.Todo, bool) {
	var t todo.Todo
	ok := todoPlan.decode([]byte(doc), reflect.ValueOf(&t).Elem())
	return t, ok
}

// storedTodos are todo documents as the stores keep them: encoded by
// encoding/json, and as Cosmos DB returns them, with its system properties.
func storedTodos() []string {
	due := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("", 3600))
	full := todo.Todo{ID: "Grocery:41500e6e", Type: todo.TypeTodo, UserID: "alice", Fields: todo.Fields{Category: "Grocery",
		Title: "Milch für 2 ☕", Notes: "n", DueDate: &due, Tags: []string{"a", "b", "c"}, IsCompleted: true},
		Version: 42, CreatedAt: time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC), UpdatedAt: due,
		LastOperation: todo.OpUpdate, UpdatedBy: "alice", MovedFrom: "x:1", MovingTo: "y:2", PartitionKey: "p",
		PrevHash: "0f", Hash: "1e"}
	var docs []string
	for _, v := range []todo.Todo{full, {ID: "a", Type: todo.TypeTodo, Fields: todo.Fields{Tags: []string{}}}, {}} {
		b, _ := json.Marshal(v) // a todo.Todo always encodes
		docs = append(docs, string(b))
	}
	return append(docs,
		`{"id":"a","title":"t","_rid":"x+Y=","_self":"dbs/x/","_etag":"\"0a00\"","_attachments":"attachments/","_ts":1764488072,"_lsn":-1.5e+3}`,
		" {\n \"id\" : \"a\" ,\t\"version\":0 , \"tags\" : [ \"x\" , \"y\" ], \"isCompleted\":false, \"extra\": null, \"more\": true } \r\n",
	)
}

// The plan reads what the stores keep, and reads it as encoding/json does.
func TestPlanDecodesLikeEncodingJSON(t *testing.T) {
	if todoPlan == nil {
		t.Fatal("todo.Todo has a field the plan cannot read: every point read falls back to encoding/json")
	}
	for _, doc := range storedTodos() {
		got, ok := fastTodo(doc)
		if !ok {
			t.Errorf("the plan gave up on %s", doc)
			continue
		}
		var want todo.Todo
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n plan %+v\n json %+v", doc, got, want)
		}
	}
}

// What the plan cannot read exactly as encoding/json would, it leaves to
// encoding/json.
func TestPlanGivesUp(t *testing.T) {
	for _, doc := range []string{
		``, `null`, `[]`, `{`, `{"id":"a"`, `{"id":"a"} x`, `{"id":"a",}`, `{,}`,
		`{"id":"a\"b"}`, `{"id":"\u0041"}`, "{\"id\":\"a\x01\"}", "{\"id\":\"\xff\"}",
		`{"id":null}`, `{"dueDate":null}`, `{"tags":null}`, `{"tags":["a",null]}`, `{"tags":["a",]}`,
		`{"id":"a","id":"b"}`, `{"ID":"a"}`, `{"tıtle":"a"}`, `{"i\u0064":"a"}`,
		`{"version":1.0}`, `{"version":1e2}`, `{"version":01}`, `{"version":-}`, `{"version":"1"}`, `{"version":99999999999999999999}`,
		`{"isCompleted":1}`, `{"isCompleted":tru}`, `{"title":5}`,
		`{"createdAt":"yesterday"}`, `{"createdAt":0}`,
		`{"other":{}}`, `{"other":[]}`, `{"other":"\x"}`, `{"other":"\u12"}`, `{"other":01}`, `{"other":1.}`, `{"other":1e}`, `{"other":nul}`,
	} {
		if got, ok := fastTodo(doc); ok {
			t.Errorf("the plan read %q as %+v", doc, got)
		}
	}
}

// A struct gets a plan unless a field's tag asks what the plan does not
// do, or a field of a kind the plan does not read is in every document
// (no omitempty); one that may be absent leaves the documents that have
// it to encoding/json. A struct in a field is read by a plan of its own.
func TestPlanFor(t *testing.T) {
	type quoted struct {
		N int `json:"n,string"`
	}
	type skipped struct {
		N int `json:"-"`
	}
	type always struct {
		Raw json.RawMessage `json:"raw"`
	}
	type neverEmpty struct { // omitempty leaves no struct out
		A always `json:"a,omitempty"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[quoted](), reflect.TypeFor[skipped](), reflect.TypeFor[always](), reflect.TypeFor[neverEmpty](),
		reflect.TypeFor[json.RawMessage](), reflect.TypeFor[upper](), reflect.TypeFor[todo.AuditRecord]()} {
		if planFor(typ) != nil {
			t.Errorf("%v got a plan", typ)
		}
	}
	type thing struct {
		ID string `json:"id"`
		N  int    `json:"n"`
	}
	type partly struct {
		ID  string            `json:"id"`
		Raw json.RawMessage   `json:"raw,omitempty"`
		U   upper             `json:"u,omitzero"`
		M   map[string]string `json:"m,omitempty"`
		In  thing             `json:"in"`
	}
	p := planFor(reflect.TypeFor[partly]())
	if p == nil {
		t.Fatal("a struct with fields the plan does not read got no plan")
	}
	decode := func(doc string) (partly, bool) {
		var v partly
		return v, p.decode([]byte(doc), reflect.ValueOf(&v).Elem())
	}
	if v, ok := decode(`{"id":"a","in":{"id":"b","n":2}}`); !ok || v.ID != "a" || v.In != (thing{"b", 2}) {
		t.Errorf("without the fields it does not read: %+v, %v", v, ok)
	}
	for _, doc := range []string{`{"id":"a","raw":1}`, `{"u":"x"}`, `{"m":{}}`, `{"in":null}`, `{"in":{"n":1.5}}`, `{"in":{"id":"a"}`} {
		if v, ok := decode(doc); ok {
			t.Errorf("the plan read %s as %+v", doc, v)
		}
	}
}

// A version document, the todo in it, reads as encoding/json reads it, and
// one with commitments (a map) is left to encoding/json.
func TestVersionDocuments(t *testing.T) {
	dec := For[todo.Version]()
	if dec.p == nil {
		t.Fatal("todo.Version got no plan")
	}
	for i, doc := range storedTodos() {
		if i == 2 {
			break // the empty todo
		}
		var entity todo.Todo
		_ = json.Unmarshal([]byte(doc), &entity)
		v := todo.Version{ID: entity.ID + ":v42", Type: todo.TypeVersion, TodoID: entity.ID, UserID: "alice", Category: "Grocery",
			Version: 42, Operation: todo.OpUpdate, Entity: entity, Actor: "alice", At: entity.UpdatedAt, PrevHash: "0f", Hash: "1e",
			Chain: todo.ChainV2, Seed: "00ff", TTL: 60, TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
		b, _ := json.Marshal(v)
		var got, want todo.Version
		if !dec.p.decode(b, reflect.ValueOf(&got).Elem()) {
			t.Fatalf("the plan gave up on %s", b)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n plan %+v\n json %+v", b, got, want)
		}
		v.Seed, v.Commitments = "", todo.Commitments{"title": {Salt: "00", Digest: "11"}}
		b, _ = json.Marshal(v)
		if dec.p.decode(b, reflect.ValueOf(&got).Elem()) {
			t.Errorf("the plan read commitments in %s", b)
		}
		if err := dec.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got.Commitments, v.Commitments) {
			t.Errorf("Unmarshal: %v, %+v", err, got.Commitments)
		}
	}
}

// upper decodes itself, as encoding/json would let it.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

// Whatever the plan reads, encoding/json reads the same, for todos and
// for the version documents that nest them.
func FuzzPlan(f *testing.F) {
	for _, doc := range storedTodos() {
		f.Add(doc)
		f.Add(`{"id":"v","version":3,"entity":` + doc + `,"at":"2026-01-02T03:04:05Z","seed":"00"}`)
	}
	f.Add(`{"id":"a","tags":["x"],"dueDate":"2026-01-02T03:04:05Z","version":-0}`)
	f.Add(`{"category":"Grocery","title":"update 7"}`)
	versions := planFor(reflect.TypeFor[todo.Version]())
	f.Fuzz(func(t *testing.T, doc string) {
		sameAsJSON(t, todoPlan, doc, todo.Todo{})
		sameAsJSON(t, versions, doc, todo.Version{})
		unmarshalsAsJSON[todo.Fields](t, doc)
	})
}

// Unmarshal gives what json.Unmarshal gives, value and error, into a zero
// struct (through the plan) and into one already set (without it).
func TestUnmarshal(t *testing.T) {
	for _, doc := range append(storedTodos(), `{"title":"a","tags":["x"]}`, `{"title":"\u0041"}`, `{"title":1}`, `[]`, `{`) {
		unmarshalsAsJSON[todo.Fields](t, doc)
		unmarshalsAsJSON[todo.Todo](t, doc)
	}
	// The plan gives up on the escape and is zeroed for encoding/json,
	// which would lose what the struct held.
	got, want := todo.Fields{Category: "kept"}, todo.Fields{Category: "kept"}
	doc := []byte(`{"title":"\u0041"}`)
	if err := Unmarshal(doc, &got); err != nil || json.Unmarshal(doc, &want) != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("into a set struct: %+v, %v; encoding/json gives %+v", got, err, want)
	}
	var m map[string]string
	if err := Unmarshal([]byte(`{"a":"b"}`), &m); err != nil || m["a"] != "b" {
		t.Errorf("into a map: %v, %v", m, err)
	}
}

func unmarshalsAsJSON[T any](t *testing.T, doc string) {
	t.Helper()
	var got, want T
	err, wantErr := Unmarshal([]byte(doc), &got), json.Unmarshal([]byte(doc), &want)
	if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n Unmarshal %+v, %v\n json      %+v, %v", doc, got, err, want, wantErr)
	}
}

func sameAsJSON[T any](t *testing.T, p *plan, doc string, got T) {
	t.Helper()
	if !p.decode([]byte(doc), reflect.ValueOf(&got).Elem()) {
		return
	}
	var want T
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatalf("the plan read %q, encoding/json refuses it: %v", doc, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n plan %+v\n json %+v", doc, got, want)
	}
}
