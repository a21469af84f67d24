package todo

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// filledRecord is an audit record with every property set, each field
// filled by its type, so that a property AppendJSON does not write fails
// the test however it is added.
func filledRecord(t testing.TB, s string, at time.Time) AuditRecord {
	t.Helper()
	var r AuditRecord
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Interface().(type) {
		case string, Operation:
			f.SetString(v.Type().Field(i).Name + s)
		case int, int64:
			f.SetInt(int64(7 + i))
		case time.Time:
			f.Set(reflect.ValueOf(at))
		case json.RawMessage:
			f.SetBytes([]byte(`{"title":"a\u003cb","tags":["x",1,true,null,{"y":[]}]}`))
		case Commitments:
			f.Set(reflect.ValueOf(Commitments{"title": {Salt: "ab", Digest: s}, "notes": {Digest: "cd", Erased: true}}))
		case []string:
			f.Set(reflect.ValueOf([]string{"title", s}))
		default:
			t.Fatalf("filledRecord cannot fill %s, a %s: teach it, and AppendJSON", v.Type().Field(i).Name, f.Type())
		}
	}
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

// BenchmarkAuditRecordJSON encodes the audit record of an update, as every
// write stores one, with AppendJSON and with encoding/json.
func BenchmarkAuditRecordJSON(b *testing.B) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 120000000, time.UTC)
	td := Todo{ID: "Work:41500e6e-4e08-495b-9d09-824f03961f4a", Type: TypeTodo, UserID: "alice", Fields: Fields{Category: "Work",
		Title: "Write the quarterly report", Notes: "with figures", Tags: []string{"q4", "finance"}}, CreatedAt: at, UpdatedAt: at,
		Version: 7, UpdatedBy: "alice", LastOperation: OpUpdate, Hash: "00"}
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
