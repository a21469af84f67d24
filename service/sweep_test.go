package service_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// A todo left marked as moving (the process died after a move's first
// step) is hidden from lists until a sweep finishes its move; a sweep with
// nothing new since the previous one reads one empty feed page.
func TestSweepFinishesInterruptedMoves(t *testing.T) {
	c := bolttest.Open(t, partition.Hierarchical, nil)
	todos, auditC, leases := c.Todos, c.Audit, c.Leases
	bg := context.Background()
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	svc := service.New(sch, todos, auditC, nil)
	ctx := service.WithUser(bg, "alice")
	var ids []string
	for _, title := range []string{"a", "b", "c"} {
		r, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: title})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Todo.ID)
	}
	sweeper := &service.MoveSweeper{Todos: todos, Leases: leases, Finish: svc.FinishMove}
	if n, err := sweeper.Run(bg); n != 0 || err != nil {
		t.Fatalf("first sweep: %d, %v", n, err)
	}

	// The first step of a move, as a process that died right after it
	// left it: the old todo marked, its new id not created.
	pk := store.PartitionKey{"alice", "Grocery"}
	item, err := todos.Read(bg, pk, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var marked todo.Todo
	_ = json.Unmarshal(item.Body, &marked)
	marked.MovingTo, marked.Version, marked.LastOperation = "Household:6f1c8a52-3d0e-4b8f-9a57-0c2e4d6b8a10", 2, todo.OpMove
	body, _ := json.Marshal(marked)
	if _, err := todos.Replace(bg, pk, body, nil); err != nil {
		t.Fatal(err)
	}
	list := func() []todo.Todo {
		t.Helper()
		p, err := svc.List(ctx, service.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []todo.Todo
		for _, r := range p.Items {
			out = append(out, r.Todo)
		}
		return out
	}
	if got := list(); len(got) != 2 {
		t.Fatalf("a marked todo is hidden: listed %d, want 2", len(got))
	}
	if n, err := sweeper.Run(bg); n != 1 || err != nil {
		t.Fatalf("sweep after the interrupted move: %d, %v", n, err)
	}
	got := list()
	var found bool
	for _, td := range got {
		found = found || (td.ID == marked.MovingTo && td.MovedFrom == ids[1] && td.Category == "Household")
	}
	if len(got) != 3 || !found {
		t.Fatalf("after the sweep: %+v", got)
	}

	mctx, meter := store.WithMeter(bg)
	if n, err := sweeper.Run(mctx); n != 0 || err != nil {
		t.Fatalf("sweep with nothing new: %d, %v", n, err)
	}
	if c := meter.Cost(); c.Requests != 2 {
		t.Fatalf("a sweep with nothing new made %d requests, want 2 (checkpoint, one feed page)", c.Requests)
	}
}
