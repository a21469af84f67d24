package cosmos

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// Every operation of the service costs the Cosmos DB requests it needs and
// no more, counted on the wire: a create is one batch, a read one point
// read, an update or delete a read for the chain link and a batch, a
// rollback the read of the old version besides, a move the read, the mark,
// the new todo and the removal of the old, a PUT that creates at a new id
// the todo's read, the newest audit record and the batch, a page of a list
// one query, and a page of a history one query and, on its last page, the
// todo's read to tell whether the history is complete.
func TestOperationRequestCounts(t *testing.T) {
	specs, err := partition.Containers(partition.Category, partition.DefaultContainerNames)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := openWire(t, specs, rec)
	ctx := context.Background()
	todos, _ := s.Container(ctx, specs[0].Name)
	auditC, _ := s.Container(ctx, specs[1].Name)
	scheme, _ := partition.New(partition.Category, 0, nil)
	svc := service.New(scheme, todos, auditC, nil)
	alice := service.WithUser(ctx, "alice")

	// count checks that fn makes from least to most requests (most 0:
	// exactly least).
	count := func(name string, least, most int, fn func() error) {
		t.Helper()
		n := rec.count()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		most = max(least, most)
		if got := rec.since(n); len(got) < least || len(got) > most {
			t.Errorf("%s: %d requests %v, want %d to %d", name, len(got), got, least, most)
		}
		for _, r := range rec.since(n) {
			if isMetadata(r) {
				t.Errorf("%s: metadata request %s after warm-up", name, r)
			}
		}
	}
	// The audit, as the trigger would write it, so that the history and
	// rollback read records.
	auditAll := func() {
		t.Helper()
		page, err := todos.Query(ctx, store.Query{PageSize: store.MaxPageSize, Filters: []store.Filter{{Field: "type", Op: store.Eq, Value: todo.TypeVersion}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			var v todo.Version
			if err := json.Unmarshal(it.Body, &v); err != nil {
				t.Fatal(err)
			}
			r, err := todo.NewAuditRecord(v)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(r)
			if _, err := auditC.Upsert(ctx, store.PartitionKey{r.EntityKey}, b, nil); err != nil {
				t.Fatal(err)
			}
		}
	}

	var id, etag string
	count("create", 1, 0, func() error {
		r, err := svc.Create(alice, todo.Fields{Category: "Grocery", Title: "milk"})
		id, etag = r.Todo.ID, r.ETag
		return err
	})
	count("get", 1, 0, func() error { _, err := svc.Get(alice, id); return err })
	count("update", 2, 0, func() error {
		r, err := svc.Put(alice, id, todo.Fields{Category: "Grocery", Title: "oat milk"}, etag, false)
		etag = r.ETag
		return err
	})
	auditAll()
	count("rollback", 3, 0, func() error { _, err := svc.Rollback(alice, id, 1, ""); return err })
	count("list a page", 1, 0, func() error {
		c := "Grocery"
		_, err := svc.List(alice, service.ListOptions{Category: &c, PageSize: 10})
		return err
	})
	count("history page", 1, 2, func() error { _, err := svc.History(alice, id, 10, ""); return err })
	var moved string
	count("move", 4, 0, func() error {
		r, err := svc.Move(alice, id, "Work", "")
		moved = r.Todo.ID
		return err
	})
	count("delete", 2, 0, func() error { return svc.Delete(alice, moved, "") })
	count("put that creates", 3, 0, func() error {
		_, err := svc.Put(alice, "Home:4f2a1c3e-9b8d-4e7f-a6b5-c4d3e2f1a0b9", todo.Fields{Category: "Home", Title: "new"}, "", false)
		return err
	})
}
