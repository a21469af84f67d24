package service_test

import (
	"context"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// A version missing from the audit is reported as incomplete on whichever
// page it falls, page boundaries included, and on the last page when the
// newest versions are missing.
func TestHistoryCompleteness(t *testing.T) {
	svc, c := newService(t)
	auditC := c.Audit
	ctx := service.WithUser(context.Background(), "alice")
	r, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Todo.ID
	for range 4 {
		if _, err := svc.Put(ctx, id, todo.Fields{Category: "Grocery", Title: "again"}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	reconcileAll(t, c)
	pages := func(size int) (versions []int64, complete bool) {
		complete = true
		cont := ""
		for {
			p, err := svc.History(ctx, id, size, cont)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				versions = append(versions, it.Version)
			}
			complete = complete && p.Complete
			if cont = p.Continuation; cont == "" {
				return versions, complete
			}
		}
	}
	if v, ok := pages(2); len(v) != 5 || !ok {
		t.Fatalf("full history: %v complete %v", v, ok)
	}
	for _, missing := range []int64{3, 5} {
		if err := auditC.Delete(context.Background(), store.PartitionKey{todo.EntityKey("alice", id)}, todo.AuditID(id, missing), nil); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 2, 3, 10} {
			if v, ok := pages(size); ok {
				t.Fatalf("version %d missing, page size %d: %v reported complete", missing, size, v)
			}
		}
	}
	if _, err := svc.History(ctx, id, 2, "x.y"); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("malformed history token: %v", err)
	}
}
