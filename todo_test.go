package todo_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
)

var at = time.Date(2026, 11, 30, 7, 34, 32, 0, time.UTC)

// A version document takes its operation, actor and time from the todo it
// copies; for a todo of the first chain encoding, which has no
// commitments, the record built from either is the same.
func TestNewVersionDescribesTheTodo(t *testing.T) {
	td := todo.Todo{ID: "Grocery:x", Type: todo.TypeTodo, UserID: "alice", Fields: todo.Fields{Category: "Grocery", Title: "milk"},
		Version: 3, UpdatedAt: at, LastOperation: todo.OpRollback, UpdatedBy: "alice"}
	v := todo.NewVersion(td, "", 60)
	if v.ID != "Grocery:x:v3" || v.Type != todo.TypeVersion || v.TodoID != td.ID || v.Version != 3 ||
		v.Operation != todo.OpRollback || v.Actor != "alice" || !v.At.Equal(at) || v.TTL != 60 || v.Entity.Title != "milk" {
		t.Fatalf("NewVersion = %+v", v)
	}
	fromVersion, err := todo.NewAuditRecord(v)
	if err != nil {
		t.Fatal(err)
	}
	fromTodo, err := todo.NewAuditRecord(todo.VersionOf(td))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromVersion)
	b, _ := json.Marshal(fromTodo)
	if string(a) != string(b) {
		t.Fatalf("records differ:\n%s\n%s", a, b)
	}
}

// A todo document without a change description (written by another tool)
// counts as a create at version 1 and an update after.
func TestVersionOfWithoutOperation(t *testing.T) {
	for _, tc := range []struct {
		version int64
		want    todo.Operation
	}{{1, todo.OpCreate}, {2, todo.OpUpdate}} {
		if got := todo.VersionOf(todo.Todo{ID: "a:b", Version: tc.version}).Operation; got != tc.want {
			t.Errorf("version %d: %q, want %q", tc.version, got, tc.want)
		}
	}
}

// Ids and keys are fixed formats that stored data depends on.
func TestIdentifiers(t *testing.T) {
	if got := todo.VersionID("Grocery:x", 12); got != "Grocery:x:v12" {
		t.Errorf("VersionID = %q", got)
	}
	if got := todo.AuditID("Grocery:x", 12); got != "Grocery:x:v12" {
		t.Errorf("AuditID = %q", got)
	}
	if got := todo.EntityKey("alice", "Grocery:x"); got != "todo/alice/Grocery:x" {
		t.Errorf("EntityKey = %q", got)
	}
}

// Every kind has a name, and an internal error shows none of its detail.
func TestErrors(t *testing.T) {
	for k := todo.Internal; k <= todo.UnsupportedMediaType; k++ {
		if k.String() == fmt.Sprintf("kind(%d)", int(k)) {
			t.Errorf("kind %d has no name", int(k))
		}
	}
	err := fmt.Errorf("saving: %w", todo.Wrap(todo.Conflict, fmt.Errorf("etag e1"), "the todo changed"))
	if todo.KindOf(err) != todo.Conflict || todo.Message(err) != "the todo changed" || !todo.IsKind(err, todo.Conflict) {
		t.Errorf("wrapped conflict: kind %v, message %q", todo.KindOf(err), todo.Message(err))
	}
	secret := todo.Wrap(todo.Internal, fmt.Errorf("AccountKey=xyz"), "boom")
	if todo.Message(secret) != "An internal error occurred." || todo.KindOf(fmt.Errorf("plain")) != todo.Internal {
		t.Errorf("internal message %q", todo.Message(secret))
	}
}

// The outbox: one change gives a version document and, from it, the audit
// record the trigger writes.
func ExampleNewAuditRecord() {
	t := todo.Todo{ID: "Grocery:41500e6e-4e08-495b-9d09-824f03961f4a", Type: todo.TypeTodo, UserID: "alice",
		Fields: todo.Fields{Category: "Grocery", Title: "Get more milk"}, Version: 1, CreatedAt: at, UpdatedAt: at,
		LastOperation: todo.OpCreate, UpdatedBy: "alice"}
	seed := hashchain.Seal(&t)
	rec, err := todo.NewAuditRecord(todo.NewVersion(t, seed, 0))
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.ID)
	fmt.Println(rec.EntityKey)
	fmt.Println(rec.Operation, rec.Actor, rec.DateCreatedUTC.Format(time.RFC3339))
	fmt.Println("newest chain encoding:", rec.Chain == hashchain.Newest, "stored with a seed:", len(rec.Seed) == 2*hashchain.SeedBytes, len(rec.Commitments))
	if err := hashchain.ExpandRecord(&rec); err != nil {
		panic(err)
	}
	fmt.Println("served with commitments:", rec.Seed == "", len(rec.Commitments["title"].Salt) == 2*hashchain.SaltBytes)
	// Output:
	// Grocery:41500e6e-4e08-495b-9d09-824f03961f4a:v1
	// todo/alice/Grocery:41500e6e-4e08-495b-9d09-824f03961f4a
	// create alice 2026-11-30T07:34:32Z
	// newest chain encoding: true stored with a seed: true 0
	// served with commitments: true true
}

func TestParseTimeIsStrict(t *testing.T) {
	for _, s := range []string{"2026-01-02T15:04:05Z", "2026-01-02T15:04:05.5+23:59", "2026-01-02T15:04:05-00:00"} {
		if _, err := todo.ParseTime(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"2026-01-02T15:04:05+24:00", "2026-01-02T15:04:05-24:00", "2026-01-02T15:04:05+05:60",
		"2026-01-02T5:04:05Z", "2026-01-02T15:04:05,5Z", "2026-01-02T15:04:05", "2026-01-02", ""} {
		if _, err := todo.ParseTime(s); err == nil {
			t.Errorf("%s was accepted", s)
		}
	}
}

func TestTitlesWithNothingVisibleAreRefused(t *testing.T) {
	for _, title := range []string{"\u3000", "\u200b", "\u3000\u200b", " \u00a0\u2060\ufeff", "\u200e\u200f\u202e", "\u180e", "\ufe0f", "\u115f"} {
		f := todo.Fields{Category: "Home", Title: title}
		if err := f.Validate(); !todo.IsKind(err, todo.Invalid) {
			t.Errorf("title %+q: %v", title, err)
		}
	}
	for _, title := range []string{"a\u200b", "\u3000x", "٭"} {
		f := todo.Fields{Category: "Home", Title: title}
		if err := f.Validate(); err != nil {
			t.Errorf("title %+q: %v", title, err)
		}
	}
}
