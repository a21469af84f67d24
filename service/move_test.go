package service_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// flaky fails the first batch into a partition other than the first one
// it saw, as if the process died between the two halves of a move.
type flaky struct {
	store.Container
	first  store.PartitionKey
	failed bool
}

func (f *flaky) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	if f.first == nil {
		f.first = pk
	}
	if !f.failed && !pk.Equal(f.first) {
		f.failed = true
		return nil, todo.Errorf(todo.Unavailable, "injected failure")
	}
	return f.Container.Batch(ctx, pk, ops)
}

func open(t *testing.T, scheme string) (todos, audit, leases store.Container) {
	t.Helper()
	c := bolttest.Open(t, scheme, nil)
	return c.Todos, c.Audit, c.Leases
}

// newService is the service under the hierarchical scheme on a fresh
// embedded store with the handler's containers.
func newService(t testing.TB) (*service.Service, bolttest.Containers) {
	t.Helper()
	c := bolttest.Open(t, partition.Hierarchical, nil)
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	return service.New(sch, c.Todos, c.Audit, nil), c
}

// reconcileAll refills c's audit history from its version documents, as
// the Reconcile function does.
func reconcileAll(t *testing.T, c bolttest.Containers) {
	t.Helper()
	rec := &reconcile.Reconciler{Todos: c.Todos, Audit: c.Audit, Leases: c.Leases, Log: slog.New(slog.DiscardHandler)}
	if _, err := rec.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A move interrupted after its first step leaves the todo hidden but not
// lost: retrying the move finishes it under the same new id, and so do the
// next read of the old id (read repair) and the next reconcile run.
func TestInterruptedMoveResumes(t *testing.T) {
	for _, scheme := range []string{partition.Hierarchical, partition.Category} {
		for _, resume := range []string{"retry", "read", "reconcile"} {
			todos, audit, leases := open(t, scheme)
			f := &flaky{Container: todos}
			sch, _ := partition.New(scheme, 1, nil)
			svc := service.New(sch, f, audit, nil)
			ctx := service.WithUser(context.Background(), "alice")
			created, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "paint"})
			if err != nil {
				t.Fatal(err)
			}
			id := created.Todo.ID
			if _, err := svc.Move(ctx, id, "Household", ""); !todo.IsKind(err, todo.Unavailable) {
				t.Fatalf("%s: first move attempt: %v, want the injected failure", scheme, err)
			}
			switch resume {
			case "retry":
				if _, err := svc.Move(ctx, id, "Household", ""); err != nil {
					t.Fatalf("%s: retried move: %v", scheme, err)
				}
			case "read":
				if _, err := svc.Get(ctx, id); !todo.IsKind(err, todo.NotFound) {
					t.Fatalf("%s: a moved todo is still visible: %v", scheme, err)
				}
			case "reconcile":
				rec := &reconcile.Reconciler{Todos: todos, Audit: audit, Leases: leases, Log: slog.New(slog.DiscardHandler), FinishMove: svc.FinishVersionMove}
				if _, err := rec.Run(context.Background()); err != nil {
					t.Fatalf("%s: reconcile: %v", scheme, err)
				}
			}
			page, err := svc.List(ctx, service.ListOptions{})
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("%s/%s: list after the move: %+v %v", scheme, resume, page.Items, err)
			}
			got := page.Items[0].Todo
			if got.Category != "Household" || got.MovedFrom != id || got.Title != "paint" {
				t.Fatalf("%s/%s: moved todo %+v", scheme, resume, got)
			}
			// Moving the old id again names the new one, as a PUT would.
			if _, err := svc.Move(ctx, id, "Household", ""); !todo.IsKind(err, todo.Conflict) || todo.MovedTo(err) != got.ID {
				t.Fatalf("%s/%s: move of a finished move: %v", scheme, resume, err)
			}
		}
	}
}
