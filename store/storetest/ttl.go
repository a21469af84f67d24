package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) ttl(t *testing.T, c, _ store.Container) {
	if s.h.Advance == nil {
		t.Skip("the store's clock cannot be moved")
	}
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "short", "pk", "p1", "ttl", 10)))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "forever", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "never", "pk", "p1", "ttl", -1)))
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "short"))
	s.h.Advance(11 * time.Second)
	_, err := c.Read(s.ctx, pk("p1"), "short")
	wantKind(t, err, todo.NotFound)
	must[store.Item](t)(c.Read(s.ctx, pk("p1"), "forever"))
	page := s.query(t, c, store.Query{PartitionKey: pk("p1"), PageSize: 10})
	if ids := idsOf(page.Items); strings.Join(ids, ",") != "forever,never" {
		t.Fatalf("query after expiry = %v", ids)
	}
	feed, err := c.ChangeFeed(s.ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(feed.Items); strings.Join(ids, ",") != "forever,never" {
		t.Fatalf("change feed after expiry = %v, want expiries absent", ids)
	}
	// An expired id is free again.
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "short", "pk", "p1")))
}
