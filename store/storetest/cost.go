package storetest

import (
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) costs(t *testing.T, c, _ store.Container) {
	ctx, create := store.WithMeter(s.ctx)
	_, err := c.Create(ctx, pk("p1"), doc("id", "a", "pk", "p1"))
	if cost := create.Cost(); err != nil || cost.Charge <= 0 || cost.Requests != 1 || cost.Scope != store.Point {
		t.Fatalf("create cost = %+v, %v", cost, err)
	}
	ctx, del := store.WithMeter(s.ctx)
	err = c.Delete(ctx, pk("p1"), "a", nil)
	if cost := del.Cost(); err != nil || cost.Charge <= 0 || cost.Scope != store.Point {
		t.Fatalf("delete cost = %+v, %v", cost, err)
	}
	if _, cost := s.queryCost(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 1}); cost.Charge <= 0 || cost.Requests != 1 {
		t.Fatalf("query cost = %+v", cost)
	}
	// A meter inside another is charged to both: what a decorator that
	// measures single calls relies on.
	outer, request := store.WithMeter(s.ctx)
	inner, call := store.WithMeter(outer)
	if _, err := c.Read(inner, pk("p1"), "a"); !todo.IsKind(err, todo.NotFound) {
		t.Fatalf("read of a deleted item: %v", err)
	}
	if call.Cost() != request.Cost() || call.Cost().Requests != 1 || call.Cost().Scope != store.Point {
		t.Fatalf("nested meters = %+v and %+v, want the same point read", call.Cost(), request.Cost())
	}
	// The change feed is charged as a cross-partition read.
	ctx, feed := store.WithMeter(s.ctx)
	if _, err := c.ChangeFeed(ctx, "", 10); err != nil || feed.Cost().Scope != store.CrossPartition || feed.Cost().Requests < 1 {
		t.Fatalf("change feed cost = %+v, %v", feed.Cost(), err)
	}
}
