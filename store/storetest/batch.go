package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) batch(t *testing.T, c, _ store.Container) {
	old := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "old", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "gone", "pk", "p1")))
	ctx, m := store.WithMeter(s.ctx)
	res, err := c.Batch(ctx, pk("p1"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "a", "pk", "p1")},
		{Kind: store.BatchUpsert, Doc: doc("id", "b", "pk", "p1")},
		{Kind: store.BatchReplace, Doc: doc("id", "old", "pk", "p1", "n", 2), IfMatch: old.ETag},
		{Kind: store.BatchDelete, ID: "gone"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || res[0].StatusCode != 201 || res[2].StatusCode != 200 || res[3].StatusCode != 204 || res[0].ETag == "" {
		t.Fatalf("batch results = %+v", res)
	}
	if cost := m.Cost(); cost.Requests != 1 || cost.Charge <= 0 || cost.Scope != store.Partition {
		t.Fatalf("batch cost = %+v, want one request with a charge", cost)
	}
	for _, id := range []string{"a", "b", "old"} {
		must[store.Item](t)(c.Read(s.ctx, pk("p1"), id))
	}
	_, err = c.Read(s.ctx, pk("p1"), "gone")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) batchAtomic(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "dup", "pk", "p1")))
	_, err := c.Batch(s.ctx, pk("p1"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "new", "pk", "p1")},
		{Kind: store.BatchCreate, Doc: doc("id", "dup", "pk", "p1")},
	})
	var be *store.BatchError
	if !errors.As(err, &be) || be.Index != 1 || todo.KindOf(err) != todo.Conflict {
		t.Fatalf("batch error = %v, want a conflict at operation 1", err)
	}
	_, err = c.Read(s.ctx, pk("p1"), "new")
	wantKind(t, err, todo.NotFound)
	_, err = c.Batch(s.ctx, pk("p1"), []store.Op{
		{Kind: store.BatchUpsert, Doc: doc("id", "dup", "pk", "p1", "n", 9)},
		{Kind: store.BatchReplace, Doc: doc("id", "dup", "pk", "p1", "n", 10), IfMatch: `"stale"`},
	})
	wantKind(t, err, todo.PreconditionFailed)
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "dup")); field(t, got.Body, "n") != nil {
		t.Fatalf("failed batch left a change: %s", got.Body)
	}
}

func (s *suite) batchLimit(t *testing.T, c, _ store.Container) {
	ops := make([]store.Op, store.MaxBatchOps+1)
	for i := range ops {
		ops[i] = store.Op{Kind: store.BatchCreate, Doc: doc("id", fmt.Sprint("i", i), "pk", "p1")}
	}
	_, err := c.Batch(s.ctx, pk("p1"), ops)
	wantKind(t, err, todo.Invalid)
	if _, err := c.Batch(s.ctx, pk("p1"), ops[:store.MaxBatchOps]); err != nil {
		t.Fatalf("a batch of %d: %v", store.MaxBatchOps, err)
	}
	half := strings.Repeat("x", store.MaxBatchBytes/2)
	_, err = c.Batch(s.ctx, pk("p2"), []store.Op{
		{Kind: store.BatchCreate, Doc: doc("id", "big1", "pk", "p2", "blob", half)},
		{Kind: store.BatchCreate, Doc: doc("id", "big2", "pk", "p2", "blob", half)},
	})
	wantKind(t, err, todo.TooLarge)
}
