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
// gives back the record exactly.
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
			a, _ := json.Marshal(e.Record())
			b, _ := json.Marshal(rec)
			if string(a) != string(b) {
				t.Fatalf("entry's record\n%s\nwant\n%s", a, b)
			}
		}
	}
	if k := todo.ActivityKey("alice", at); k != "activity/alice/2026-12" {
		t.Fatalf("key %q", k)
	}
}
