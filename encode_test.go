package todo

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

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
			f.Set(reflect.ValueOf(Commitments{"title": {Salt: "ab", Digest: s}, "notes": {Digest: "cd", Erased: true}}))
		case []string:
			f.Set(reflect.ValueOf([]string{"title", s}))
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

func checkRecordJSON(t *testing.T, r AuditRecord) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, err := r.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("AppendJSON:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
	}
}

func TestAuditRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.FixedZone("x", 3600))
	td := Todo{ID: "t1", Type: TypeTodo, UserID: "alice", Fields: Fields{Category: "Work", Title: "report"}, CreatedAt: at, UpdatedAt: at,
		Version: 1, UpdatedBy: "alice", LastOperation: OpCreate}
	rec, err := NewAuditRecord(NewVersion(td, td.Seal(), 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []AuditRecord{
		{},
		filledRecord(t, `<&> "quoted" \ ctl `+"\u0001 \u2028 \xff", at),
		rec,
		ActivityEntries(rec, "Work")[0],
		{Entity: json.RawMessage{}}, // encoding/json refuses an empty entity
		{DateCreatedUTC: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, // and a year of five digits
	} {
		checkRecordJSON(t, r)
	}
}

func FuzzAuditRecordJSON(f *testing.F) {
	f.Add("plain", int64(0), int64(0))
	f.Add("\"\\\n\x00\u2028<>&\xff", int64(1_800_000_000), int64(999_999_999))
	f.Fuzz(func(t *testing.T, s string, sec, nsec int64) {
		r := filledRecord(t, s, time.Unix(sec, nsec).UTC())
		checkRecordJSON(t, r)
		r.Seed, r.Owner, r.Chain, r.Commitments, r.Erased, r.Entity = "", "", 0, nil, nil, nil
		checkRecordJSON(t, r)
	})
}

func checkTodoJSON(t *testing.T, td Todo) {
	t.Helper()
	want, wantErr := json.Marshal(td)
	got, err := td.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Fatalf("AppendJSON:\n got %s, %v\nwant %s, %v", got, err, want, wantErr)
	}
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

// benchTodo is a todo as an update leaves it.
func benchTodo() Todo {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.UTC)
	td := Todo{ID: "Work:41500e6e-4e08-495b-9d09-824f03961f4a", Type: TypeTodo, UserID: "alice", Fields: Fields{Category: "Work",
		Title: "Write the quarterly report", Notes: "with figures", Tags: []string{"q4", "finance"}}, CreatedAt: at, UpdatedAt: at,
		Version: 7, UpdatedBy: "alice", LastOperation: OpUpdate, PartitionKey: "alice", Hash: "00"}
	td.Seal()
	return td
}

// BenchmarkTodoJSON encodes a todo document, as every write stores one and
// its audit record the same again, with AppendJSON and with encoding/json.
func BenchmarkTodoJSON(b *testing.B) {
	td := benchTodo()
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := td.AppendJSON(make([]byte, 0, 1024)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(td); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAuditRecordJSON encodes the audit record of an update, as every
// write stores one, with AppendJSON and with encoding/json.
func BenchmarkAuditRecordJSON(b *testing.B) {
	td := benchTodo()
	rec, err := NewAuditRecord(NewVersion(td, td.Seal(), 0))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("AppendJSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := rec.AppendJSON(make([]byte, 0, len(rec.Entity)+512)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
