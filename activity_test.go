package todo_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

// A record has one activity entry per user involved, in that user's
// partition of the record's month, with a fixed-width time; each entry
// refers to the record and holds none of its content.
func TestActivityEntries(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 120_000_000, time.UTC)
	rec := todo.AuditRecord{ID: todo.AuditID("Grocery:1", 2), EntityKey: todo.EntityKey("alice", "Grocery:1"), EntityID: "Grocery:1",
		EntityType: todo.EntityTypeTodo, Version: 2, Operation: todo.OpUpdate, Entity: json.RawMessage(`{}`), DateCreatedUTC: at, Actor: "alice"}
	for _, actor := range []string{"alice", "bob"} {
		rec.Actor = actor
		entries := todo.ActivityEntries(rec, "Grocery")
		want := map[string]bool{todo.ActivityKey("alice", at): true, todo.ActivityKey(actor, at): true}
		if len(entries) != len(want) {
			t.Fatalf("actor %s: %d entries, want %d", actor, len(entries), len(want))
		}
		for _, e := range entries {
			if !want[e.EntityKey] || !todo.IsActivityKey(e.EntityKey) || e.Owner != "alice" || e.Category != "Grocery" ||
				e.At != "2026-12-01T09:00:00.120000000Z" || !strings.HasPrefix(e.ID, "activity-") || len(e.ID) != len("activity-")+64 {
				t.Fatalf("entry %+v", e)
			}
			if !e.IsReference() || e.Entity != nil || e.Hash != "" || e.Commitments != nil {
				t.Fatalf("entry %+v is not a reference", e)
			}
			if key, id := e.RecordKey(); key != rec.EntityKey || id != rec.ID {
				t.Fatalf("entry refers to %s %s, want %s %s", key, id, rec.EntityKey, rec.ID)
			}
		}
	}
	if k := todo.ActivityKey("alice", at); k != "activity/alice/2026-12" {
		t.Fatalf("key %q", k)
	}
}

// An entry written before entries were references is a whole copy of its
// record, which Record gives back exactly.
func TestActivityCopyOfTheFirstForm(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	rec := todo.AuditRecord{ID: todo.AuditID("Grocery:1", 2), EntityKey: todo.EntityKey("alice", "Grocery:1"), EntityID: "Grocery:1",
		EntityType: todo.EntityTypeTodo, Version: 2, Operation: todo.OpUpdate, Entity: json.RawMessage(`{"title":"x"}`), DateCreatedUTC: at,
		Actor: "alice", Hash: "ab"}
	entry := todo.ActivityEntries(rec, "Grocery")[0]
	entry.Entity, entry.Hash = rec.Entity, rec.Hash
	if entry.IsReference() {
		t.Fatal("a copy with its entity counts as a reference")
	}
	a, _ := json.Marshal(entry.Record())
	b, _ := json.Marshal(rec)
	if string(a) != string(b) {
		t.Fatalf("copy's record\n%s\nwant\n%s", a, b)
	}
}
