package bolt_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// _ts never goes back, within a process or across a restart, when the
// clock does: a reader of what was written past a _ts (see
// StampsInCommitOrder) can rely on commit order. Such readers read a
// container someone follows, as the audit container is.
func TestStampsFollowCommitOrder(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := func() (*bolt.Store, store.Container) {
		s, err := bolt.Open(dir, specs, &bolt.Options{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Container(ctx, "audit")
		if err != nil {
			t.Fatal(err)
		}
		return s, c
	}
	stampOf := func(c store.Container, id string) int64 {
		it, err := c.Upsert(ctx, store.PartitionKey{id}, []byte(`{"id":"`+id+`","entityKey":"`+id+`"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			TS int64 `json:"_ts"`
		}
		if err := json.Unmarshal(it.Body, &v); err != nil {
			t.Fatal(err)
		}
		return v.TS
	}
	s, c := open()
	first := stampOf(c, "a")
	clk.Advance(-10 * time.Second)
	if ts := stampOf(c, "b"); ts != first {
		t.Fatalf("a write after the clock went back 10 s is stamped %d, before %d", ts, first)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(-10 * time.Second)
	s, c = open()
	defer s.Close()
	if ts := stampOf(c, "c"); ts != first {
		t.Fatalf("after a restart with the clock 20 s back, a write is stamped %d, before %d", ts, first)
	}
	clk.Advance(time.Minute)
	if ts := stampOf(c, "d"); ts != first+40 {
		t.Fatalf("with the clock past the newest stamp, a write is stamped %d, want %d", ts, first+40)
	}
}
