package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// invalidDocs are three documents another tool might write: a todo whose
// user id has a trailing space, a version with an unknown operation, and a
// todo whose version is not a number.
var invalidDocs = []string{
	`{"id":"Grocery:bad-1","type":"todo","userId":"bad user ","category":"Grocery","title":"x","version":1}`,
	`{"id":"Grocery:bad-2:v1","type":"todoVersion","todoId":"Grocery:bad-2","userId":"mallory","category":"Grocery","version":1,"operation":"explode","entity":{},"actor":"mallory","at":"2026-11-30T07:00:00Z"}`,
	`{"id":"Grocery:bad-3","type":"todo","userId":"mallory","category":"Grocery","title":"x","version":"three"}`,
}

// A batch of 100 documents with 3 invalid ones, in the host's exact
// envelope: one 200 answer with 97 audit records and 3 dead letters.
func TestTriggerIsolatesInvalidDocuments(t *testing.T) {
	var docs []json.RawMessage
	at := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	for i := range 97 {
		tk := todo.Todo{ID: fmt.Sprintf("Grocery:%03d", i), Type: todo.TypeTodo, UserID: "alice",
			Fields: todo.Fields{Category: "Grocery", Title: fmt.Sprint("t", i)}, Version: 1, CreatedAt: at, UpdatedAt: at, LastOperation: todo.OpCreate, UpdatedBy: "alice"}
		b, _ := json.Marshal(todo.NewVersion(tk, hashchain.Seal(&tk), 0))
		docs = append(docs, b)
		if i%40 == 0 {
			docs = append(docs, json.RawMessage(invalidDocs[i/40]))
		}
	}
	if len(docs) != 100 {
		t.Fatalf("%d documents", len(docs))
	}
	url := triggerServer(t, nil)
	out := postTrigger(t, url, docs, at)
	var items []map[string]any
	if err := json.Unmarshal(out.Outputs["auditRecords"], &items); err != nil {
		t.Fatal(err)
	}
	var records, dead []map[string]any
	for _, it := range items {
		key, _ := it["entityKey"].(string)
		switch {
		case it["type"] == todo.TypeDeadLetter:
			dead = append(dead, it)
		case todo.IsActivityKey(key):
		default:
			records = append(records, it)
		}
	}
	if len(records) != 97 || len(dead) != 3 {
		t.Fatalf("%d records and %d dead letters, want 97 and 3", len(records), len(dead))
	}
	for i, d := range dead {
		doc, _ := json.Marshal(d["document"])
		var want map[string]any
		_ = json.Unmarshal([]byte(invalidDocs[i]), &want)
		wantDoc, _ := json.Marshal(want)
		if string(doc) != string(wantDoc) || d["source"] != "todos" || d["entityKey"] != todo.DeadLetterKey ||
			d["reason"] == "" || d["at"] == "" || d["size"] != float64(len(invalidDocs[i])) {
			t.Fatalf("dead letter %d: %v", i, d)
		}
	}
	for _, want := range []string{`user id "bad user "`, `operation "explode"`, "todo document does not decode"} {
		found := false
		for _, d := range dead {
			found = found || strings.Contains(d["reason"].(string), want)
		}
		if !found {
			t.Fatalf("no dead letter's reason names %s: %v", want, dead)
		}
	}
}

// The pump gets past invalid documents at once: one delivery per batch,
// every valid document audited, the bad ones dead-lettered, the
// continuation saved.
func TestPumpPassesInvalidDocuments(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	alice := service.WithUser(ctx, "alice")
	for i := range 30 {
		if _, err := e.svc.Create(alice, todo.Fields{Category: "Grocery", Title: fmt.Sprint("before ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range invalidDocs {
		var head struct{ UserID, Category string }
		_ = json.Unmarshal([]byte(d), &head)
		if _, err := e.todos.Upsert(ctx, store.PartitionKey{head.UserID, head.Category}, []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 9 {
		if _, err := e.svc.Create(alice, todo.Fields{Category: "Grocery", Title: fmt.Sprint("after ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	written := &failingAudit{Container: e.audit}
	p := e.newPump(t, written, e.leases)
	p.BatchSize = 25
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if p.Drain(dctx); dctx.Err() != nil {
		t.Fatalf("drain did not finish: %v", dctx.Err())
	}
	// 2×39 + 3 documents in batches of 25: 4 deliveries, none repeated.
	if n := written.writes.Load(); n != 4 {
		t.Fatalf("%d deliveries, want 4", n)
	}
	records, dead := 0, 0
	page, err := e.audit.Query(ctx, store.Query{PageSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range page.Items {
		var head struct{ Type, EntityKey string }
		_ = json.Unmarshal(it.Body, &head)
		if head.Type == todo.TypeDeadLetter {
			dead++
		} else if strings.HasPrefix(head.EntityKey, "todo/alice/") {
			records++
		}
	}
	if records != 39 || dead != 3 {
		t.Fatalf("%d records and %d dead letters, want 39 and 3", records, dead)
	}
	if p.Drain(ctx); written.writes.Load() != 4 {
		t.Fatalf("a drained pump wrote %d batches again", written.writes.Load()-4)
	}
}
