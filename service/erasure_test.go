package service_test

import (
	"context"
	"log/slog"
	"reflect"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
)

// Versions of the first chain encoding commit to no field separately: an
// erasure leaves them as they are and counts them, erases the versions of
// the second written after them, and verify still verifies both, saying
// how many of each kind it checked.
func TestErasureLeavesFirstEncoding(t *testing.T) {
	svc, c, ids := v1History(t)
	ctx := context.Background()
	alice := service.WithUser(ctx, "alice")
	if _, err := svc.Put(alice, ids[1], todo.Fields{Category: "Household", Title: "written in the second encoding", Notes: "private"}, "", false); err != nil {
		t.Fatal(err)
	}
	rec := &reconcile.Reconciler{Todos: c.Todos, Audit: c.Audit, Leases: c.Leases, Log: slog.New(slog.DiscardHandler)}
	if _, err := rec.Run(ctx); err != nil {
		t.Fatal(err)
	}
	admin := service.WithUser(ctx, "admin")
	job, err := svc.RequestErasure(admin, "alice", "GDPR request")
	if err != nil {
		t.Fatal(err)
	}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	if _, err := (&governance.Eraser{Todos: c.Todos, Audit: c.Audit, Scheme: sch}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	done, err := svc.Erasure(admin, job.ID)
	if err != nil || done.State != governance.ErasureDone {
		t.Fatalf("erasure: %+v %v", done, err)
	}
	if e, f := done.Erased, done.FirstEncoding; e.Todos != 1 || e.Versions != 1 || e.Records != 1 || f.Todos != 1 || f.Versions != 6 || f.Records != 6 {
		t.Fatalf("erased %+v, left in the first encoding %+v", e, f)
	}
	for id, want := range map[string]service.Verification{
		ids[0]: {Verified: true, Versions: 5, FirstEncoding: 5},
		ids[1]: {Verified: true, Versions: 2, FirstEncoding: 1, Erased: 1},
	} {
		v, err := svc.Verify(alice, id, service.VerifyStep{})
		if v.Checked = nil; err != nil || !reflect.DeepEqual(v, want) {
			t.Fatalf("verify %s: %+v %v, want %+v", id, v, err, want)
		}
	}
	cur, err := svc.Get(alice, ids[1])
	if err != nil || cur.Todo.Title != "" || cur.Todo.Notes != "" || cur.Todo.Version != 2 {
		t.Fatalf("the todo after the erasure: %+v %v", cur.Todo, err)
	}
	if old, err := svc.Get(alice, ids[0]); err != nil || old.Todo.Title == "" {
		t.Fatalf("a todo of the first encoding keeps its content: %+v %v", old.Todo, err)
	}
}
