package service_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// tamper returns a copy of a stored audit record's JSON with one audited
// field (a top-level name, or "entity.name") changed to another value of
// its type, or added where it was absent.
func tamper(t *testing.T, body []byte, field string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	m, name := doc, field
	if len(field) > 7 && field[:7] == "entity." {
		m, name = doc["entity"].(map[string]any), field[7:]
	}
	switch v := m[name].(type) {
	case string:
		if ts, err := time.Parse(time.RFC3339Nano, v); err == nil {
			m[name] = ts.Add(time.Millisecond).Format(time.RFC3339Nano)
		} else {
			m[name] = v + "x"
		}
	case bool:
		m[name] = !v
	case float64:
		m[name] = v + 1
	case []any:
		m[name] = append(v, "x")
	case nil:
		m[name] = map[string]any{"tags": []any{"x"}, "dueDate": "2030-01-01T00:00:00Z"}[name]
		if m[name] == nil {
			m[name] = "x"
		}
	default:
		t.Fatalf("field %s has unexpected type %T", field, v)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An untouched history verifies; changing any audited field of one stored
// audit record, or deleting one, makes verification name that version; the
// first version after a move chains to the old id's last version.
func TestVerifyDetectsTampering(t *testing.T) {
	svc, c := newService(t)
	auditC := c.Audit
	ctx := service.WithUser(context.Background(), "alice")
	mctx, meter := store.WithMeter(ctx)
	r, err := svc.Create(mctx, todo.Fields{Category: "Grocery", Title: "v1", Tags: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	if n := meter.Cost().Requests; n != 1 {
		t.Fatalf("create made %d requests, want 1 (the batch)", n)
	}
	for _, title := range []string{"v2", "v3"} {
		mctx, meter := store.WithMeter(ctx)
		if _, err := svc.Put(mctx, id, todo.Fields{Category: "Grocery", Title: title}, "", false); err != nil {
			t.Fatal(err)
		}
		// The chain costs no request: the update reads the todo (which
		// holds its latest hash) and writes one batch, as before.
		if n := meter.Cost().Requests; n != 2 {
			t.Fatalf("update made %d requests, want 2 (point read, batch)", n)
		}
	}
	mv, err := svc.Move(ctx, id, "Household", "")
	if err != nil {
		t.Fatal(err)
	}
	newID := mv.Todo.ID
	reconcileAll(t, c)
	verify := func(id string) service.Verification {
		t.Helper()
		v, err := svc.Verify(ctx, id, service.VerifyStep{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := verify(id); !v.Verified || v.Versions != 4 {
		t.Fatalf("untouched history: %+v", v)
	}
	if v := verify(newID); !v.Verified || v.Versions != 1 {
		t.Fatalf("untouched history after a move: %+v", v)
	}

	pk := store.PartitionKey{todo.EntityKey("alice", id)}
	// The versions checked carry what their leaves in the log are made
	// of, as their records give it.
	checked := verify(id).Checked
	if len(checked) != 4 {
		t.Fatalf("%d versions checked, want 4", len(checked))
	}
	for i, got := range checked {
		it, err := auditC.Read(context.Background(), pk, todo.AuditID(id, int64(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := hashchain.DecodeRecord(it.Body)
		if want := (service.CheckedVersion{Version: r.Version, PrevHash: r.PrevHash, Hash: r.Hash, At: r.DateCreatedUTC}); err != nil || got != want {
			t.Fatalf("checked version %d: %+v, want %+v (%v)", i+1, got, want, err)
		}
	}
	const k = 2
	orig, err := auditC.Read(context.Background(), pk, todo.AuditID(id, k))
	if err != nil {
		t.Fatal(err)
	}
	put := func(body []byte) {
		t.Helper()
		if _, err := auditC.Upsert(context.Background(), pk, body, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, field := range []string{
		"entityId", "entityType", "version", "operation", "dateCreatedUtc", "actor", "prevHash", "hash",
		"entity.id", "entity.type", "entity.userId", "entity.category", "entity.title", "entity.notes",
		"entity.dueDate", "entity.tags", "entity.isCompleted", "entity.version", "entity.createdAt",
		"entity.updatedAt", "entity.lastOperation", "entity.updatedBy", "entity.movedFrom", "entity.movingTo",
		"entity.partitionKey", "extra", "entity.extra",
	} {
		put(tamper(t, orig.Body, field))
		if v := verify(id); v.Verified || v.BrokenAt != k || v.Reason == "" {
			t.Errorf("changed %s of version %d: %+v", field, k, v)
		}
		put(orig.Body)
	}
	if v := verify(id); !v.Verified {
		t.Fatalf("restored history: %+v", v)
	}

	// A gap in the middle and a missing newest version are both reported.
	for _, n := range []int64{k, 4} {
		gone, err := auditC.Read(context.Background(), pk, todo.AuditID(id, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := auditC.Delete(context.Background(), pk, todo.AuditID(id, n), nil); err != nil {
			t.Fatal(err)
		}
		if v := verify(id); v.Verified || v.BrokenAt != n {
			t.Errorf("deleted version %d: %+v", n, v)
		}
		put(gone.Body)
	}

	// The moved todo's first version must link to the move on the old id.
	newPK := store.PartitionKey{todo.EntityKey("alice", newID)}
	first, err := auditC.Read(context.Background(), newPK, todo.AuditID(newID, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auditC.Upsert(context.Background(), newPK, tamper(t, first.Body, "prevHash"), nil); err != nil {
		t.Fatal(err)
	}
	if v := verify(newID); v.Verified || v.BrokenAt != 1 {
		t.Fatalf("moved todo with a broken link: %+v", v)
	}
}
