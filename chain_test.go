package todo_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

// The hash is the one the README defines: written out here field by field,
// independently of the code that computes it.
func TestHashKnownAnswer(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 34, 32, 334000000, time.UTC)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	e := todo.Todo{ID: "Grocery:1", Type: "todo", UserID: "alice", Category: "Grocery", Title: "Milk: 2 l",
		DueDate: &due, Tags: []string{"dairy", ""}, Version: 2, CreatedAt: at, UpdatedAt: at,
		LastOperation: todo.OpUpdate, UpdatedBy: "alice"}
	a := todo.Audited{EntityType: "todo", EntityID: "Grocery:1", Version: 2, Operation: todo.OpUpdate, Actor: "alice", At: at, Entity: e}
	prev := "ab"
	canonical := "2:ab" + "4:todo" + "9:Grocery:1" + "1:2" + "6:update" + "5:alice" + "30:2026-11-30T07:34:32.334000000Z" +
		"9:Grocery:1" + "4:todo" + "5:alice" + "7:Grocery" + "9:Milk: 2 l" + "0:" + "30:2026-12-01T08:00:00.000000000Z" +
		"1:2" + "5:dairy" + "0:" + "5:false" + "1:2" + "30:2026-11-30T07:34:32.334000000Z" + "30:2026-11-30T07:34:32.334000000Z" +
		"6:update" + "5:alice" + "0:" + "0:" + "0:"
	sum := sha256.Sum256([]byte(canonical))
	if got, want := a.Hash(prev), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
}

// Sealing chains each version to the one before, and the version document
// and audit record carry the same links, outside the entity snapshot.
func TestSealChains(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	td := todo.Todo{ID: "a:1", Type: todo.TypeTodo, UserID: "u", Category: "a", Title: "x", Version: 1,
		CreatedAt: at, UpdatedAt: at, LastOperation: todo.OpCreate, UpdatedBy: "u"}
	td.Seal()
	first := td.Hash
	if td.PrevHash != "" || len(first) != 64 {
		t.Fatalf("first version links %q %q", td.PrevHash, td.Hash)
	}
	td.Version, td.Title, td.LastOperation = 2, "y", todo.OpUpdate
	td.Seal()
	if td.PrevHash != first || td.Hash == first {
		t.Fatalf("second version links %q %q", td.PrevHash, td.Hash)
	}
	rec, err := todo.NewAuditRecord(todo.NewVersion(td, 0))
	if err != nil {
		t.Fatal(err)
	}
	var entity map[string]any
	_ = json.Unmarshal(rec.Entity, &entity)
	if rec.PrevHash != td.PrevHash || rec.Hash != td.Hash || entity["hash"] != nil || entity["prevHash"] != nil {
		t.Fatalf("record links %q %q, entity %v", rec.PrevHash, rec.Hash, entity)
	}
	a, err := rec.Audited()
	if err != nil || a.Hash(rec.PrevHash) != rec.Hash {
		t.Fatalf("the record does not verify: %v", err)
	}
}
