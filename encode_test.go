package todo

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo/internal/timetext"
)

// selfEncoding is a document that encodes itself as json.Marshal does.
type selfEncoding interface {
	AppendJSON([]byte) ([]byte, error)
}

// checkJSON fails t unless v encodes itself with the bytes json.Marshal
// gives, or fails where json.Marshal fails.
func checkJSON[T selfEncoding](t *testing.T, v T) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := v.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("%T.AppendJSON:\n got %s, %v\nwant %s, %v", v, got, err, want, wantErr)
	}
}

// plainTodo is a Todo without its methods: what encoding/json writes of
// its fields.
type plainTodo Todo

// checkTodoJSON fails t unless td encodes itself, by AppendJSON and by
// json.Marshal, as encoding/json writes its fields but for its stamps,
// which are in timetext.AppendStamp's text (tested there), or fails where
// either a stamp's year in UTC or another time is one RFC 3339 cannot
// hold.
func checkTodoJSON(t *testing.T, td Todo) {
	t.Helper()
	plain := plainTodo(td)
	var stamps []Property
	for _, p := range Properties() {
		if p.Stamp {
			f := reflect.ValueOf(&plain).Elem().FieldByIndex(p.Index)
			f.Set(reflect.ValueOf(f.Interface().(time.Time).UTC()))
			stamps = append(stamps, p)
		}
	}
	want, wantErr := json.Marshal(plain)
	for _, p := range stamps {
		at := reflect.ValueOf(plain).FieldByIndex(p.Index).Interface().(time.Time)
		member := `"` + p.Name + `":"`
		want = bytes.Replace(want, []byte(member+at.Format(time.RFC3339Nano)+`"`), append(timetext.AppendStamp([]byte(member), at), '"'), 1)
	}
	got, err := td.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("Todo.AppendJSON:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
	}
	if m, err := json.Marshal(td); (err != nil) != (wantErr != nil) || string(m) != string(want) {
		t.Fatalf("json.Marshal of a todo:\n got %s, %v\nwant %s, %v", m, err, want, wantErr)
	}
}

// fill sets every field of struct v by its type, those of embedded
// structs too, so that a property an encoder does not write fails a test
// however it is added; s goes into each string.
func fill(t testing.TB, v reflect.Value, s string, at time.Time) {
	t.Helper()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		switch f.Interface().(type) {
		case string, Operation:
			f.SetString(sf.Name + s)
		case bool:
			f.SetBool(true)
		case int, int64:
			f.SetInt(int64(7 + i))
		case time.Time:
			f.Set(reflect.ValueOf(at))
		case *time.Time:
			f.Set(reflect.ValueOf(&at))
		case json.RawMessage:
			f.SetBytes([]byte(`{"title":"a\u003cb","tags":["x",1,true,null,{"y":[]}]}`))
		case Commitments:
			f.Set(reflect.ValueOf(Commitments{"title": {Salt: "ab", Digest: s}, "notes": {Digest: "cd", Erased: true}, s: {Salt: s, Digest: "ef"}, "": {}}))
		case []string:
			f.Set(reflect.ValueOf([]string{"title", s}))
		case Todo:
			fill(t, f, s, at)
		default:
			if !sf.Anonymous {
				t.Fatalf("fill cannot fill %s, a %s: teach it, and the encoders", sf.Name, f.Type())
			}
			fill(t, f, s, at)
		}
	}
}

// filledRecord is an audit record with every property set (see fill).
func filledRecord(t testing.TB, s string, at time.Time) AuditRecord {
	var r AuditRecord
	fill(t, reflect.ValueOf(&r).Elem(), s, at)
	return r
}

func TestAuditRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("x", 3600))
	td := Todo{ID: "t1", Type: TypeTodo, UserID: "alice", Fields: Fields{Category: "Work", Title: "report"}, CreatedAt: at, UpdatedAt: at,
		Version: 1, UpdatedBy: "alice", LastOperation: OpCreate}
	rec, err := NewAuditRecord(NewVersion(td, linked(&td), 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []AuditRecord{
		{},
		filledRecord(t, `<&> "quoted" \ ctl `+"\u0001 \u2028 \xff", at),
		rec,
		ActivityEntries(rec, "Work")[0],
		{Entity: json.RawMessage{}},                // encoding/json refuses an empty entity,
		{Entity: json.RawMessage(`{"a":`)},         // one that is not JSON,
		{Entity: json.RawMessage(`1,"owner":"x"`)}, // or more than one value,
		{DateCreatedUTC: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, // and a year of five digits
	} {
		checkJSON(t, r)
	}
}

// An entity not as json.Marshal writes it, spaced or with its own
// escapes, is written as it is: the same value, not the same bytes.
func TestAuditRecordEntityKeepsItsSpacing(t *testing.T) {
	r := AuditRecord{Entity: json.RawMessage(` { "title" : "a<b\u0026c" } `)}
	got, err := r.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(r)
	var gotValue, wantValue any
	if json.Unmarshal(got, &gotValue) != nil || json.Unmarshal(want, &wantValue) != nil || !reflect.DeepEqual(gotValue, wantValue) {
		t.Fatalf("AppendJSON = %s, json.Marshal = %s: not the same value", got, want)
	}
}

func FuzzAuditRecordJSON(f *testing.F) {
	f.Add("plain", int64(0), int64(0))
	f.Add("\"\\\n\x00\u2028<>&\xff", int64(1_800_000_000), int64(999_999_999))
	f.Fuzz(func(t *testing.T, s string, sec, nsec int64) {
		r := filledRecord(t, s, time.Unix(sec, nsec).UTC())
		checkJSON(t, r)
		r.Seed, r.Owner, r.Chain, r.Commitments, r.Erased, r.Entity = "", "", 0, nil, nil, nil
		checkJSON(t, r)
	})
}

func TestVersionAppendJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("x", 3600))
	var full Version
	fill(t, reflect.ValueOf(&full).Elem(), `<&> "quoted" \ ctl `+"\u0001 \u2028 \xff", at)
	td := benchTodo()
	late := full
	late.At = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	lateEntity := full
	lateEntity.Entity.UpdatedAt = late.At
	for _, v := range []Version{{}, full, NewVersion(td, linked(&td), 0), late, lateEntity} { // json.Marshal refuses the last two
		checkJSON(t, v)
	}
}

func FuzzVersionJSON(f *testing.F) {
	f.Add("plain", int64(0), int64(0))
	f.Add("\"\\\n\x00\u2028<>&\xff", int64(1_800_000_000), int64(3600))
	f.Fuzz(func(t *testing.T, s string, sec, offset int64) {
		var v Version
		fill(t, reflect.ValueOf(&v).Elem(), s, time.Unix(sec, 0).In(time.FixedZone("", int(offset%(200*3600)))))
		checkJSON(t, v)
		v.PartitionKey, v.Chain, v.Seed, v.Commitments, v.TTL, v.TraceParent = "", 0, "", nil, 0, ""
		checkJSON(t, v)
	})
}

func TestTodoAppendJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("x", 3600))
	var full Todo
	fill(t, reflect.ValueOf(&full).Elem(), `<&> "quoted" \ ctl `+"\u0001 \u2028 \xff", at)
	late := full
	late.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	far := full
	far.DueDate = new(time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)))
	for _, td := range []Todo{{}, full, full.Snapshot(), late, far} { // json.Marshal refuses the last two
		checkTodoJSON(t, td)
	}
}

func FuzzTodoJSON(f *testing.F) {
	f.Add("plain", int64(0), int64(0))
	f.Add("\"\\\n\x00\u2028<>&\xff", int64(1_800_000_000), int64(999_999_999))
	f.Add("zone", int64(-62167219200), int64(86399))
	f.Fuzz(func(t *testing.T, s string, sec, offset int64) {
		at := time.Unix(sec, 0).In(time.FixedZone("", int(offset%(200*3600))))
		var td Todo
		fill(t, reflect.ValueOf(&td).Elem(), s, at)
		checkTodoJSON(t, td)
		td.Notes, td.DueDate, td.Tags, td.IsCompleted = "", nil, nil, false
		checkTodoJSON(t, td)
	})
}

// MarshalJSON returns what json.Marshal returns, each result its own
// copy of the pooled buffer it was built in, and fails where it fails.
func TestMarshalJSON(t *testing.T) {
	first, other := benchTodo(), benchTodo()
	other.Title = "another title, longer than the first one's"
	want, _ := json.Marshal(first)
	got, err := MarshalJSON(first)
	if err != nil || string(got) != string(want) {
		t.Fatalf("MarshalJSON = %s, %v; want %s", got, err, want)
	}
	if _, err := MarshalJSON(other); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("the next encoding overwrote the first: %s", got)
	}
	other.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if b, err := MarshalJSON(other); err == nil || b != nil {
		t.Fatalf("MarshalJSON of a year json.Marshal refuses = %s, %v", b, err)
	}
}

// linked gives td chain links of the newest encoding's shape and returns
// a seed, as package chain's Seal does, from fixed bytes: the encoders
// see what they write for every version, without the chain, which
// imports this package.
func linked(td *Todo) string {
	td.Chain, td.PrevHash, td.Hash = 3, td.Hash, strings.Repeat("5e", 32)
	return strings.Repeat("a7", 16)
}

// benchTodo is a todo as an update leaves it.
func benchTodo() Todo {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.UTC)
	td := Todo{ID: "Work:41500e6e-4e08-495b-9d09-824f03961f4a", Type: TypeTodo, UserID: "alice", Fields: Fields{Category: "Work",
		Title: "Write the quarterly report", Notes: "with figures", Tags: []string{"q4", "finance"}}, CreatedAt: at, UpdatedAt: at,
		Version: 7, UpdatedBy: "alice", LastOperation: OpUpdate, PartitionKey: "alice", Hash: "00"}
	linked(&td)
	return td
}

// BenchmarkTodoJSON encodes a todo document, as every write stores one and
// its audit record the same again, with AppendJSON and with encoding/json.
func BenchmarkTodoJSON(b *testing.B) { benchJSON(b, benchTodo()) }

// BenchmarkVersionJSON encodes the version document every write stores.
func BenchmarkVersionJSON(b *testing.B) {
	td := benchTodo()
	benchJSON(b, NewVersion(td, linked(&td), 0))
}

// BenchmarkAuditRecordJSON encodes the audit record of an update, as every
// write stores one.
func BenchmarkAuditRecordJSON(b *testing.B) {
	td := benchTodo()
	rec, err := NewAuditRecord(NewVersion(td, linked(&td), 0))
	if err != nil {
		b.Fatal(err)
	}
	benchJSON(b, rec)
}

func benchJSON[T selfEncoding](b *testing.B, v T) {
	b.Run("AppendJSON", func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		for b.Loop() {
			var err error
			if buf, err = v.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Commitments are written as json.Marshal writes the map whether their
// names are every committed property's, some of them (an older chain
// encoding's), or include one no property has.
func TestAppendCommitmentsMatchesEncodingJSON(t *testing.T) {
	all := Commitments{}
	for _, p := range Properties() {
		if p.Committed() {
			all[p.Name] = Commitment{Salt: "5a<" + p.Name, Digest: `d"` + p.Name}
		}
	}
	all["title"] = Commitment{Digest: "e", Erased: true}
	some := Commitments{"title": all["title"], "isCompleted": all["isCompleted"]}
	other := maps.Clone(some)
	other["zz\u2028"] = Commitment{Digest: "x"}
	other["A"] = Commitment{Salt: "s", Digest: "y"}
	for _, c := range []Commitments{all, some, other} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCommitments([]byte("x"), c); string(got) != "x"+string(want) {
			t.Errorf("appendCommitments:\n got %s\nwant x%s", got, want)
		}
	}
}

// commitmentsOf writes its map as a record does: what a record served
// with the commitments of its seed is given.
type commitmentsOf Commitments

func (c commitmentsOf) AppendJSON(b []byte) ([]byte, error) {
	return appendCommitments(b, Commitments(c)), nil
}

// A record written with commitments held elsewhere has them in place of
// its seed, and one that holds commitments of its own is refused.
func TestAuditRecordAppendJSONWith(t *testing.T) {
	at := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	c := Commitments{"title": {Salt: "5a", Digest: "d1"}, "isCompleted": {Salt: "5b", Digest: "d2"}}
	r := filledRecord(t, "x", at)
	r.Commitments, r.Erased = nil, nil
	more := []byte(`,"changes":[]`)
	got, err := r.AppendJSONWith(nil, commitmentsOf(c), more)
	expanded := r
	expanded.Seed, expanded.Commitments = "", c
	want, wantErr := expanded.AppendJSONAnd(nil, more)
	if err != nil || wantErr != nil || string(got) != string(want) {
		t.Fatalf("AppendJSONWith:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
	}
	if _, err := expanded.AppendJSONWith(nil, commitmentsOf(c), nil); err == nil {
		t.Fatal("a record with commitments of its own is written with others")
	}
}
