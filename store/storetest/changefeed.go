package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/todoaudit/todo/store"
)

func (s *suite) feedAll(t *testing.T, c, _ store.Container) {
	for i := range 5 {
		must[store.Item](t)(c.Create(s.ctx, pk(fmt.Sprint("p", i%2)), doc("id", fmt.Sprint("i", i), "pk", fmt.Sprint("p", i%2))))
	}
	got := s.drainFeed(t, c, "")
	if len(got.items) != 5 {
		t.Fatalf("feed returned %d items, want 5", len(got.items))
	}
	if field(t, got.items[0].Body, "_lsn") == nil {
		t.Fatalf("feed item %s has no _lsn", got.items[0].Body)
	}
	again := s.drainFeed(t, c, got.cont)
	if len(again.items) != 0 {
		t.Fatalf("feed after its continuation returned %d items", len(again.items))
	}
	must[store.Item](t)(c.Create(s.ctx, pk("p0"), doc("id", "late", "pk", "p0")))
	if late := s.drainFeed(t, c, got.cont); len(late.items) != 1 || late.items[0].ID != "late" {
		t.Fatalf("incremental feed = %v, want [late]", idsOf(late.items))
	}
}

type drained struct {
	items []store.Item
	cont  string
}

func (s *suite) drainFeed(t testing.TB, c store.Container, cont string) drained {
	t.Helper()
	var out []store.Item
	for range 1000 {
		b, err := c.ChangeFeed(s.ctx, cont, 3)
		if err != nil {
			t.Fatal(err)
		}
		cont = b.Continuation
		if len(b.Items) == 0 {
			return drained{out, cont}
		}
		out = append(out, b.Items...)
	}
	t.Fatal("feed did not end")
	return drained{}
}

func (s *suite) feedCoalesces(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	for i := range 4 {
		must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", i), nil))
	}
	got := s.drainFeed(t, c, start)
	if len(got.items) != 1 || field(t, got.items[0].Body, "n") != 3.0 {
		t.Fatalf("feed after 4 writes of one item = %d items, want 1 at n=3", len(got.items))
	}
}

func (s *suite) feedNoDeletes(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "b", "pk", "p1")))
	if err := c.Delete(s.ctx, pk("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	got := s.drainFeed(t, c, start)
	if ids := strings.Join(idsOf(got.items), ","); ids != "b" {
		t.Fatalf("feed = %s, want only b (deletes never appear)", ids)
	}
}

func (s *suite) feedOrder(t *testing.T, c, _ store.Container) {
	start := s.drainFeed(t, c, "").cont
	for i := range 10 {
		p := fmt.Sprint("p", i%3)
		must[store.Item](t)(c.Create(s.ctx, pk(p), doc("id", fmt.Sprintf("i%d", i), "pk", p, "seq", i)))
	}
	last := map[string]float64{}
	for _, it := range s.drainFeed(t, c, start).items {
		p, seq := it.PartitionKey.String(), field(t, it.Body, "seq").(float64)
		if prev, ok := last[p]; ok && seq < prev {
			t.Fatalf("partition %s: seq %v after %v", p, seq, prev)
		}
		last[p] = seq
	}
}
