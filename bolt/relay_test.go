package bolt

import (
	"context"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// outboxRelay relays each batch's operation 1 (an outbox document) into
// the "sink" container as a copy, and retires it; it declines batches
// whose operation 1 says so, and its copy is invalid when told to be.
type outboxRelay struct {
	reserved time.Time
	invalid  bool
	calls    int
}

func (r *outboxRelay) Relay(_ context.Context, pk store.PartitionKey, ops []store.Op) (store.Relayed, bool) {
	r.calls++
	if len(ops) < 2 || string(ops[1].Doc) == `{"id":"skip","pk":"p"}` {
		return store.Relayed{}, false
	}
	doc := []byte(`{"id":"copy","pk":"p"}`)
	if r.invalid {
		doc = []byte(`{"pk":"p"}`) // no id
	}
	return store.Relayed{Upserts: []store.Upsert{{Container: "sink", PartitionKey: pk, Doc: doc}},
		Retire: []int{1}, Reserved: r.reserved}, true
}

// A relay's writes commit with the batch that caused them, and the
// operations it names are retired in the same transaction: gone for
// reads and the change feed, their id taken until the reservation ends.
// A batch whose condition fails writes neither; a batch the relay
// declines, or whose relayed writes cannot be written, is written alone.
func TestRelayedBatches(t *testing.T) {
	ctx := context.Background()
	clk := &testClock{now: time.Unix(1_700_000_000, 0)}
	specs := []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: []string{"/pk"}}, {Name: "sink", PartitionKeyPaths: []string{"/pk"}}}
	s, err := Open(t.TempDir(), specs, &Options{Now: clk.Now, SweepInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &outboxRelay{reserved: clk.Now().Add(time.Minute)}
	if err := s.RelayBatches("todos", r); err != nil {
		t.Fatal(err)
	}
	todos, _ := s.Container(ctx, "todos")
	sink, _ := s.Container(ctx, "sink")
	pk := store.PartitionKey{"p"}
	create := func(id string) store.Op {
		return store.Op{Kind: store.BatchCreate, Doc: []byte(`{"id":"` + id + `","pk":"p"}`)}
	}
	exists := func(c store.Container, id string) bool {
		t.Helper()
		_, err := c.Read(ctx, pk, id)
		if err != nil && !todo.IsKind(err, todo.NotFound) {
			t.Fatal(err)
		}
		return err == nil
	}

	res, err := todos.Batch(ctx, pk, []store.Op{create("a"), create("a:v1")})
	if err != nil || res[0].ETag == "" || res[1].StatusCode != 201 || res[1].ETag != "" {
		t.Fatalf("a relayed batch: %+v, %v; want both created, the retired one never stored (no ETag)", res, err)
	}
	if !exists(todos, "a") || exists(todos, "a:v1") || !exists(sink, "copy") {
		t.Fatalf("after a relayed batch: a %v, a:v1 %v, copy %v; want a and the copy, a:v1 retired",
			exists(todos, "a"), exists(todos, "a:v1"), exists(sink, "copy"))
	}
	feed, err := todos.ChangeFeed(ctx, "", 10)
	if err != nil || len(feed.Items) != 1 || feed.Items[0].ID != "a" {
		t.Fatalf("change feed after a relayed batch: %+v, %v; want a alone", feed.Items, err)
	}
	if _, err := todos.Create(ctx, pk, create("a:v1").Doc); !todo.IsKind(err, todo.Conflict) {
		t.Fatalf("create of a retired id while reserved: %v, want Conflict", err)
	}

	// A failed condition: nothing of the batch, nothing of the relay.
	if err := sink.Delete(ctx, pk, "copy", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := todos.Batch(ctx, pk, []store.Op{create("a"), create("b:v1")}); !todo.IsKind(err, todo.Conflict) {
		t.Fatalf("batch creating an existing id: %v, want Conflict", err)
	}
	if exists(todos, "b:v1") || exists(sink, "copy") {
		t.Fatal("a batch that failed its condition left writes behind")
	}

	// Declined, or not writable: the batch alone, its outbox kept.
	if _, err := todos.Batch(ctx, pk, []store.Op{create("c"), create("skip")}); err != nil {
		t.Fatal(err)
	}
	r.invalid = true
	if _, err := todos.Batch(ctx, pk, []store.Op{create("d"), create("d:v1")}); err != nil {
		t.Fatal(err)
	}
	if !exists(todos, "skip") || !exists(todos, "d:v1") || exists(sink, "copy") {
		t.Fatalf("a declined or unwritable relay: skip %v, d:v1 %v, copy %v; want both kept and no copy",
			exists(todos, "skip"), exists(todos, "d:v1"), exists(sink, "copy"))
	}

	if err := s.RelayBatches("todos", nil); err != nil {
		t.Fatal(err)
	}
	calls := r.calls
	if _, err := todos.Batch(ctx, pk, []store.Op{create("e"), create("e:v1")}); err != nil || r.calls != calls || !exists(todos, "e:v1") {
		t.Fatalf("after the relay is removed: %v, %d more calls, e:v1 kept %v", err, r.calls-calls, exists(todos, "e:v1"))
	}
}
