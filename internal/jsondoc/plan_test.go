package jsondoc_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/internal/jsondoc"
)

var todoPlan = jsondoc.PlanFor(reflect.TypeFor[todo.Todo]())

// fastTodo decodes doc through the plan, reporting whether it could.
func fastTodo(doc string) (todo.Todo, bool) {
	var t todo.Todo
	ok := todoPlan.Decode([]byte(doc), &t)
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
	if !todoPlan.Exists() {
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
		M map[string]int `json:"m"`
	}
	type neverEmpty struct { // omitempty leaves no struct out
		A always `json:"a,omitempty"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[quoted](), reflect.TypeFor[skipped](), reflect.TypeFor[always](), reflect.TypeFor[neverEmpty](),
		reflect.TypeFor[json.RawMessage](), reflect.TypeFor[upper]()} {
		if jsondoc.PlanFor(typ).Exists() {
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
	p := jsondoc.PlanFor(reflect.TypeFor[partly]())
	if !p.Exists() {
		t.Fatal("a struct with fields the plan does not read got no plan")
	}
	decode := func(doc string) (partly, bool) {
		var v partly
		return v, p.Decode([]byte(doc), &v)
	}
	if v, ok := decode(`{"id":"a","raw":[1, {"x":"\u0041"}],"in":{"id":"b","n":2}}`); !ok || v.ID != "a" || string(v.Raw) != `[1, {"x":"\u0041"}]` || v.In != (thing{"b", 2}) {
		t.Errorf("without the fields it does not read: %+v, %v", v, ok)
	}
	for _, doc := range []string{`{"u":"x"}`, `{"m":{}}`, `{"in":null}`, `{"in":{"n":1.5}}`, `{"in":{"id":"a"}`} {
		if v, ok := decode(doc); ok {
			t.Errorf("the plan read %s as %+v", doc, v)
		}
	}
}

// A version document, the todo in it, reads as encoding/json reads it, and
// one with commitments (a map) is left to encoding/json.
func TestVersionDocuments(t *testing.T) {
	dec := jsondoc.DecoderFor[todo.Version]()
	if !dec.Plan().Exists() {
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
			Chain: hashchain.V2, Seed: "00ff", TTL: 60, TraceParent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
		b, _ := json.Marshal(v)
		var got, want todo.Version
		if !dec.Plan().Decode(b, &got) {
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
		if dec.Plan().Decode(b, &got) {
			t.Errorf("the plan read commitments in %s", b)
		}
		if err := dec.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got.Commitments, v.Commitments) {
			t.Errorf("Unmarshal: %v, %+v", err, got.Commitments)
		}
	}
}

// storedRecords are audit records as the stores keep them: with a todo,
// with a null entity (an activity entry), and with Cosmos DB's system
// properties.
func storedRecords() []string {
	at := time.Date(2026, 12, 6, 7, 13, 53, 51000000, time.UTC)
	r := todo.AuditRecord{ID: "Grocery:0d:v2", EntityKey: "todo/alice/Grocery:0d", EntityID: "Grocery:0d", EntityType: todo.EntityTypeTodo,
		Version: 2, Operation: todo.OpUpdate, DateCreatedUTC: at, Actor: "alice", PrevHash: "0f", Hash: "1e", Chain: 3, Seed: "00ff", Erased: []string{"notes"}}
	var docs []string
	for i, entity := range append(storedTodos()[:2], "null") {
		r.Entity = json.RawMessage(entity)
		if i == 2 {
			r.Owner, r.Category, r.At = "alice", "Grocery", todo.TimeKey(at)
		}
		b, _ := json.Marshal(r) // an audit record always encodes
		docs = append(docs, string(b))
	}
	return append(docs, `{"_etag":"\"0000000000000106\"","_ts":1796541234,"id":"a","entity":{ "id" : "x", "tags":[ ] , "n":[1,-2.5e3,true,null,{"a":{"b":[]}}]} ,"version":1}`)
}

// An audit record reads as encoding/json reads it, its entity as the bytes
// the document holds; one with commitments (a map) or an entity that is
// not JSON is left to encoding/json.
func TestAuditRecords(t *testing.T) {
	p := jsondoc.PlanFor(reflect.TypeFor[todo.AuditRecord]())
	if !p.Exists() {
		t.Fatal("todo.AuditRecord got no plan")
	}
	for _, doc := range storedRecords() {
		var got todo.AuditRecord
		if !p.Decode([]byte(doc), &got) {
			t.Errorf("the plan gave up on %s", doc)
			continue
		}
		sameAsJSON(t, p, doc, todo.AuditRecord{})
	}
	// A raw value nested as deeply as encoding/json allows, or deeper.
	for _, n := range []int{100, 9999, 10000} {
		sameAsJSON(t, p, `{"entity":`+strings.Repeat("[", n)+strings.Repeat("]", n)+`}`, todo.AuditRecord{})
	}
	for _, doc := range []string{
		`{"entity":{"a":}}`, `{"entity":{"a" 1}}`, `{"entity":{a:1}}`, `{"entity":{"a":1,}}`, `{"entity":[1,]}`, `{"entity":[1 2]}`,
		`{"entity":{"a":"\x"}}`, `{"entity":[01]}`, `{"entity":{"a":1}`, `{"entity":}`,
		`{"commitments":{"title":{"digest":"00"}}}`,
	} {
		var got todo.AuditRecord
		if p.Decode([]byte(doc), &got) {
			t.Errorf("the plan read %s as %+v", doc, got)
		}
	}
}

// upper decodes itself, as encoding/json would let it.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

// Whatever the plan reads, encoding/json reads the same, for todos, for
// the version documents that nest them and for audit records.
func FuzzPlan(f *testing.F) {
	for _, doc := range storedTodos() {
		f.Add(doc)
		f.Add(`{"id":"v","version":3,"entity":` + doc + `,"at":"2026-01-02T03:04:05Z","seed":"00"}`)
	}
	f.Add(`{"id":"a","tags":["x"],"dueDate":"2026-01-02T03:04:05Z","version":-0}`)
	f.Add(`{"category":"Grocery","title":"update 7"}`)
	for _, doc := range storedRecords() {
		f.Add(doc)
	}
	f.Add(" [1, {\"a\": \"\\u00e9\"}, null] \n")
	versions := jsondoc.PlanFor(reflect.TypeFor[todo.Version]())
	records := jsondoc.PlanFor(reflect.TypeFor[todo.AuditRecord]())
	raw := jsondoc.DecoderFor[json.RawMessage]()
	f.Fuzz(func(t *testing.T, doc string) {
		decodesAsJSON(t, raw, doc)
		sameAsJSON(t, todoPlan, doc, todo.Todo{})
		sameAsJSON(t, versions, doc, todo.Version{})
		sameAsJSON(t, records, doc, todo.AuditRecord{})
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
	if err := jsondoc.Unmarshal(doc, &got); err != nil || json.Unmarshal(doc, &want) != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("into a set struct: %+v, %v; encoding/json gives %+v", got, err, want)
	}
	var m map[string]string
	if err := jsondoc.Unmarshal([]byte(`{"a":"b"}`), &m); err != nil || m["a"] != "b" {
		t.Errorf("into a map: %v, %v", m, err)
	}
}

// decodesAsJSON checks that d gives what json.Unmarshal gives, value and
// whether it fails.
func decodesAsJSON[T any](t *testing.T, d jsondoc.Decoder[T], doc string) {
	t.Helper()
	var got, want T
	err, wantErr := d.Unmarshal([]byte(doc), &got), json.Unmarshal([]byte(doc), &want)
	if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n Decoder %+v, %v\n json    %+v, %v", doc, got, err, want, wantErr)
	}
}

// A decoder of json.RawMessage copies the document's value, as
// encoding/json does, and refuses what it refuses.
func TestRawDocuments(t *testing.T) {
	raw := jsondoc.DecoderFor[json.RawMessage]()
	for _, doc := range append(storedRecords(), ` {"a" : [1, "\u0041", {}]} `, `"x"`, `1`, `null`, ``, ` `, `{`, `{} {}`, `[1,]`, `{"a":1}x`, "\"\xff\"") {
		decodesAsJSON(t, raw, doc)
	}
	doc := []byte(`{"a":1}`)
	var got json.RawMessage
	if err := raw.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	doc[1] = 'b'
	if string(got) != `{"a":1}` {
		t.Errorf("the value read shares the document's bytes: %s", got)
	}
}

func unmarshalsAsJSON[T any](t *testing.T, doc string) {
	t.Helper()
	var got, want T
	err, wantErr := jsondoc.Unmarshal([]byte(doc), &got), json.Unmarshal([]byte(doc), &want)
	if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n Unmarshal %+v, %v\n json      %+v, %v", doc, got, err, want, wantErr)
	}
}

func sameAsJSON[T any](t *testing.T, p jsondoc.Plan, doc string, got T) {
	t.Helper()
	if !p.Decode([]byte(doc), &got) {
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

// pointsToZero finds zero what reflect.Value.IsZero does but negative
// zero, and Unmarshal into a struct that is not zero decodes as
// encoding/json does, keeping what the document does not set.
func TestPointsToZero(t *testing.T) {
	type inner struct {
		N    float64
		Tags []string
	}
	type doc struct {
		Name  string
		At    time.Time
		Inner inner
		Raw   json.RawMessage
	}
	// Negative zero is zero to reflect, not to pointsToZero: a decode
	// into it takes the slower path.
	cases := map[string]struct {
		v    any
		want bool
	}{
		"zero":          {&doc{}, true},
		"string":        {&doc{Name: "a"}, false},
		"time":          {&doc{At: time.Unix(1, 0)}, false},
		"empty slice":   {&doc{Inner: inner{Tags: []string{}}}, false},
		"raw":           {&doc{Raw: json.RawMessage{}}, false},
		"negative zero": {&doc{Inner: inner{N: math.Copysign(0, -1)}}, false},
	}
	for name, c := range cases {
		rv := reflect.ValueOf(c.v)
		if got := jsondoc.PointsToZero(rv); got != c.want || got && !rv.Elem().IsZero() {
			t.Errorf("%s: pointsToZero = %v, want %v (reflect says %v)", name, got, c.want, rv.Elem().IsZero())
		}
	}
	for _, v := range []any{doc{}, new(int), (*doc)(nil)} {
		if jsondoc.PointsToZero(reflect.ValueOf(v)) {
			t.Errorf("pointsToZero(%T) = true", v)
		}
	}
	got, want := doc{Name: "kept"}, doc{Name: "kept"}
	in := []byte(`{"Raw":[1],"Inner":{"N":2}}`)
	if err := jsondoc.Unmarshal(in, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(in, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Unmarshal into a set struct = %+v, encoding/json gives %+v", got, want)
	}
}
