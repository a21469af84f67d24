package repo

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

// Only flat structs of the kinds the plan reads get a plan.
func TestPlanFor(t *testing.T) {
	type nested struct {
		T todo.Todo `json:"t"`
	}
	type quoted struct {
		N int `json:"n,string"`
	}
	type skipped struct {
		N int `json:"-"`
	}
	type custom struct {
		L json.RawMessage `json:"l"`
	}
	type textual struct {
		U upper `json:"u"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[nested](), reflect.TypeFor[quoted](), reflect.TypeFor[skipped](),
		reflect.TypeFor[custom](), reflect.TypeFor[textual](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[todo.Version]()} {
		if planFor(typ) != nil {
			t.Errorf("%v got a plan", typ)
		}
	}
	if planFor(reflect.TypeFor[thing]()) == nil {
		t.Error("a flat struct of strings and ints got no plan")
	}
}

// upper decodes itself, as encoding/json would let it.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

// Whatever the plan reads, encoding/json reads the same.
func FuzzPlan(f *testing.F) {
	for _, doc := range storedTodos() {
		f.Add(doc)
	}
	f.Add(`{"id":"a","tags":["x"],"dueDate":"2026-01-02T03:04:05Z","version":-0}`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := fastTodo(doc)
		if !ok {
			return
		}
		var want todo.Todo
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatalf("the plan read %q, encoding/json refuses it: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n plan %+v\n json %+v", doc, got, want)
		}
	})
}
