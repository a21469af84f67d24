package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

func (s *suite) createRead(t *testing.T, c, _ store.Container) {
	created := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	if created.ETag == "" {
		t.Fatal("Create returned no ETag")
	}
	ctx, m := store.WithMeter(s.ctx)
	got, err := c.Read(ctx, pk("p1"), "a")
	cost := m.Cost()
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != created.ETag || got.ID != "a" {
		t.Fatalf("Read = %+v, want id a and ETag %s", got, created.ETag)
	}
	if field(t, got.Body, "n") != 1.0 || field(t, got.Body, "_etag") != created.ETag || field(t, got.Body, "_ts") == nil {
		t.Fatalf("body %s lacks its fields or system properties", got.Body)
	}
	if cost.Scope != store.Point || cost.Charge <= 0 {
		t.Fatalf("Read cost = %+v, want a point read with a charge", cost)
	}
}

func (s *suite) readMissing(t *testing.T, c, _ store.Container) {
	_, err := c.Read(s.ctx, pk("p1"), "nope")
	wantKind(t, err, todo.NotFound)
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	_, err = c.Read(s.ctx, pk("p2"), "a")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) createConflict(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1")))
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2))
	wantKind(t, err, todo.Conflict)
}

func (s *suite) sameIDOtherPartition(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	must[store.Item](t)(c.Create(s.ctx, pk("p2"), doc("id", "a", "pk", "p2", "n", 2)))
	got := must[store.Item](t)(c.Read(s.ctx, pk("p2"), "a"))
	if field(t, got.Body, "n") != 2.0 {
		t.Fatalf("read p2/a = %s", got.Body)
	}
}

func (s *suite) hierarchicalIdentity(t *testing.T, _, h store.Container) {
	must[store.Item](t)(h.Create(s.ctx, pk("t1", "u1"), doc("id", "x", "tenant", "t1", "user", "u1", "n", 1)))
	must[store.Item](t)(h.Create(s.ctx, pk("t1", "u2"), doc("id", "x", "tenant", "t1", "user", "u2", "n", 2)))
	got := must[store.Item](t)(h.Read(s.ctx, pk("t1", "u2"), "x"))
	if field(t, got.Body, "n") != 2.0 {
		t.Fatalf("read [t1,u2]/x = %s", got.Body)
	}
	_, err := h.Read(s.ctx, pk("t1", "u3"), "x")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) upsertReplaceDelete(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1), nil))
	must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2), nil))
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 2.0 {
		t.Fatalf("after upsert: %s", got.Body)
	}
	must[store.Item](t)(c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), nil))
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 3.0 {
		t.Fatalf("after replace: %s", got.Body)
	}
	_, err := c.Replace(s.ctx, pk("p1"), doc("id", "b", "pk", "p1"), nil)
	wantKind(t, err, todo.NotFound)
	if err := c.Delete(s.ctx, pk("p1"), "a", nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.Read(s.ctx, pk("p1"), "a")
	wantKind(t, err, todo.NotFound)
	err = c.Delete(s.ctx, pk("p1"), "a", nil)
	wantKind(t, err, todo.NotFound)
}

func (s *suite) etagChanges(t *testing.T, c, _ store.Container) {
	seen := map[string]bool{}
	for i := range 5 {
		it := must[store.Item](t)(c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", i), nil))
		if seen[it.ETag] {
			t.Fatalf("write %d reused ETag %s", i, it.ETag)
		}
		seen[it.ETag] = true
	}
}

func (s *suite) ifMatch(t *testing.T, c, _ store.Container) {
	first := must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	second := must[store.Item](t)(c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 2), &store.WriteOptions{IfMatch: first.ETag}))
	stale := &store.WriteOptions{IfMatch: first.ETag}
	_, err := c.Replace(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), stale)
	wantKind(t, err, todo.PreconditionFailed)
	_, err = c.Upsert(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 3), stale)
	wantKind(t, err, todo.PreconditionFailed)
	err = c.Delete(s.ctx, pk("p1"), "a", stale)
	wantKind(t, err, todo.PreconditionFailed)
	if got := must[store.Item](t)(c.Read(s.ctx, pk("p1"), "a")); field(t, got.Body, "n") != 2.0 {
		t.Fatalf("a failed conditional write changed the item: %s", got.Body)
	}
	if err := c.Delete(s.ctx, pk("p1"), "a", &store.WriteOptions{IfMatch: second.ETag}); err != nil {
		t.Fatal(err)
	}
}

func (s *suite) invalidDocuments(t *testing.T, c, _ store.Container) {
	for _, body := range []string{`[1]`, `{"pk":"p1"}`, `{"id":7,"pk":"p1"}`, `{"id":"a/b","pk":"p1"}`, `{"id":"a#b","pk":"p1"}`, `{"id":"a?b","pk":"p1"}`, `{"id":"a\\b","pk":"p1"}`, `{"id":" a","pk":"p1"}`} {
		_, err := c.Create(s.ctx, pk("p1"), []byte(body))
		wantKind(t, err, todo.Invalid)
	}
}

func (s *suite) tooLarge(t *testing.T, c, _ store.Container) {
	big := strings.Repeat("x", todo.MaxDocumentBytes)
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "big", "pk", "p1", "blob", big))
	wantKind(t, err, todo.TooLarge)
	_, err = c.Read(s.ctx, pk("p1"), "big")
	wantKind(t, err, todo.NotFound)
}

func (s *suite) pkMismatch(t *testing.T, c, _ store.Container) {
	_, err := c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p2"))
	wantKind(t, err, todo.Invalid)
}

// emptyKeyComponent: Cosmos DB refuses a partition key value that is an
// empty string, so every store refuses it in reads, writes, deletes and
// batches alike, and stores nothing.
func (s *suite) emptyKeyComponent(t *testing.T, c, h store.Container) {
	_, err := c.Create(s.ctx, pk(""), doc("id", "a", "pk", ""))
	wantKind(t, err, todo.Invalid)
	_, err = c.Upsert(s.ctx, pk(""), doc("id", "a", "pk", ""), nil)
	wantKind(t, err, todo.Invalid)
	_, err = h.Create(s.ctx, pk("t1", ""), doc("id", "a", "tenant", "t1", "user", ""))
	wantKind(t, err, todo.Invalid)
	_, err = c.Batch(s.ctx, pk(""), []store.Op{{Kind: store.BatchCreate, Doc: doc("id", "b", "pk", "")}})
	wantKind(t, err, todo.Invalid)
	_, err = c.Read(s.ctx, pk(""), "a")
	wantKind(t, err, todo.Invalid)
	_, err = h.Read(s.ctx, pk("", "u1"), "a")
	wantKind(t, err, todo.Invalid)
	err = c.Delete(s.ctx, pk(""), "a", nil)
	wantKind(t, err, todo.Invalid)
	if items := s.all(t, c, store.Query{PageSize: 10}); len(items) != 0 {
		t.Fatalf("refused writes stored %d items", len(items))
	}
}

// decoded keeps what a store.View decoded, its body copied out.
type decoded struct {
	items []store.Item
	err   error
}

func (d *decoded) Decode(it store.Item) error {
	it.Body = append([]byte(nil), it.Body...)
	d.items = append(d.items, it)
	return d.err
}

// store.View gives what Read gives, at the same charge, whether the store
// lends its bodies or not; its decoder's error comes back as is.
func (s *suite) viewAsRead(t *testing.T, c, _ store.Container) {
	must[store.Item](t)(c.Create(s.ctx, pk("p1"), doc("id", "a", "pk", "p1", "n", 1)))
	rctx, rm := store.WithMeter(s.ctx)
	read := must[store.Item](t)(c.Read(rctx, pk("p1"), "a"))
	var d decoded
	vctx, vm := store.WithMeter(s.ctx)
	if err := store.View(vctx, c, pk("p1"), "a", &d); err != nil {
		t.Fatal(err)
	}
	if len(d.items) != 1 || fmt.Sprint(d.items[0]) != fmt.Sprint(read) {
		t.Fatalf("View decoded %+v, Read gave %+v", d.items, read)
	}
	if vm.Cost() != rm.Cost() {
		t.Fatalf("View cost %+v, Read %+v", vm.Cost(), rm.Cost())
	}
	wantKind(t, store.View(s.ctx, c, pk("p1"), "missing", &d), todo.NotFound)
	if len(d.items) != 1 {
		t.Fatal("View called the decoder for a missing item")
	}
	d.err = errors.New("decoder failed")
	if err := store.View(s.ctx, c, pk("p1"), "a", &d); !errors.Is(err, d.err) {
		t.Fatalf("View returned %v, want the decoder's error", err)
	}
}
