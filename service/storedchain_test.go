package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// v1History loads hashchain/testdata/chain-v1-history.json, the documents of two
// todos written before versions said which chain encoding they use (one
// created, edited in every field, rolled back, deleted and re-created; one
// created), into a new embedded store under the hierarchical scheme.
func v1History(t *testing.T) (svc *service.Service, c bolttest.Containers, ids []string) {
	return storedHistory(t, "../hashchain/testdata/chain-v1-history.json")
}

// storedHistory loads a file of stored documents (the ids of its todos,
// and each document of the todo and audit containers with its partition
// key) into a new embedded store under the hierarchical scheme.
func storedHistory(t *testing.T, file string) (svc *service.Service, c bolttest.Containers, ids []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		PK  store.PartitionKey `json:"pk"`
		Doc json.RawMessage    `json:"doc"`
	}
	var f struct {
		IDs   []string `json:"ids"`
		Todos []entry  `json:"todos"`
		Audit []entry  `json:"audit"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	c = bolttest.Open(t, partition.Hierarchical, nil)
	for ct, entries := range map[store.Container][]entry{c.Todos: f.Todos, c.Audit: f.Audit} {
		for _, e := range entries {
			if _, err := ct.Upsert(context.Background(), e.PK, e.Doc, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	return service.New(sch, c.Todos, c.Audit, nil), c, f.IDs
}

// verifiesAll fails t unless each todo's history verifies with the
// number of versions given.
func verifiesAll(t *testing.T, svc *service.Service, ctx context.Context, versions map[string]int) {
	t.Helper()
	for id, want := range versions {
		v, err := svc.Verify(ctx, id, service.VerifyStep{})
		if err != nil || !v.Verified || v.Versions != want {
			t.Fatalf("%s: %+v, %v; want %d verified versions", id, v, err, want)
		}
	}
}

// The stored history of every chain encoding, up to the newest, keeps
// verifying whole: each todo in it, its links and its records.
func TestEveryStoredHistoryVerifies(t *testing.T) {
	for n := hashchain.V1; n <= hashchain.Newest; n++ {
		svc, _, ids := storedHistory(t, fmt.Sprintf("../hashchain/testdata/chain-v%d-history.json", n))
		ctx := service.WithUser(context.Background(), "alice")
		for _, id := range ids {
			if v, err := svc.Verify(ctx, id, service.VerifyStep{}); err != nil || !v.Verified || v.Versions == 0 {
				t.Errorf("the history of encoding %d, todo %s: %+v, %v", n, id, v, err)
			}
		}
	}
}

// Histories written in the first chain encoding keep verifying, and their
// versions can still be read as of a time and rolled back to.
func TestV1HistoryVerifies(t *testing.T) {
	svc, c, ids := v1History(t)
	ctx := service.WithUser(context.Background(), "alice")
	verifiesAll(t, svc, ctx, map[string]int{ids[0]: 5, ids[1]: 1})
	old, err := svc.AsOf(ctx, ids[0], time.Date(2026, 11, 30, 7, 2, 30, 0, time.UTC))
	if err != nil || old.Todo.Title != "oat milk" || len(old.Todo.Tags) != 2 {
		t.Fatalf("as of version 2: %+v, %v", old.Todo, err)
	}
	if _, err := svc.Rollback(ctx, ids[0], 2, ""); err != nil {
		t.Fatal(err)
	}
	reconcileAll(t, c)
	if v, err := svc.Verify(ctx, ids[0], service.VerifyStep{}); err != nil || !v.Verified || v.Versions != 6 {
		t.Fatalf("after a rollback: %+v, %v", v, err)
	}
}

// Histories written in the second chain encoding (HMAC salts, hex digests
// in the hash; hashchain/testdata/chain-v2-history.json: one todo created and
// edited twice, one created and edited, its first record with a field
// erased) keep verifying, and the next write chains a third-encoding
// version onto them that verifies, and rolls back to a second-encoding
// version.
func TestV2HistoryVerifies(t *testing.T) {
	svc, c, ids := storedHistory(t, "../hashchain/testdata/chain-v2-history.json")
	ctx := service.WithUser(context.Background(), "alice")
	verifiesAll(t, svc, ctx, map[string]int{ids[0]: 3, ids[1]: 2})
	old, err := svc.AsOf(ctx, ids[0], time.Date(2026, 12, 1, 8, 2, 30, 0, time.UTC))
	if err != nil || old.Todo.Title != "oat milk" || len(old.Todo.Tags) != 2 {
		t.Fatalf("as of version 2: %+v, %v", old.Todo, err)
	}
	cur, err := svc.Get(ctx, ids[0])
	if err != nil || cur.Todo.Chain != hashchain.V2 {
		t.Fatalf("the stored todo: chain %d, %v", cur.Todo.Chain, err)
	}
	next, err := svc.Put(ctx, ids[0], todo.Fields{Category: "Grocery", Title: "rice milk"}, "", false)
	if err != nil || next.Todo.Chain != hashchain.Newest || next.Todo.PrevHash != cur.Todo.Hash {
		t.Fatalf("the next write: chain %d, prevHash %q (want %q), %v", next.Todo.Chain, next.Todo.PrevHash, cur.Todo.Hash, err)
	}
	if _, err := svc.Rollback(ctx, ids[0], 2, ""); err != nil {
		t.Fatal(err)
	}
	reconcileAll(t, c)
	if v, err := svc.Verify(ctx, ids[0], service.VerifyStep{}); err != nil || !v.Verified || v.Versions != 5 {
		t.Fatalf("after a third-encoding write and a rollback: %+v, %v", v, err)
	}
}

// Histories written in the third chain encoding (hashchain/testdata/chain-v3-history.json,
// written by the code that first wrote this encoding: one todo created and
// edited twice, one created and edited, its first record with a field
// erased, one created in Household and moved to Work) keep verifying,
// across the move too, and their versions can be read as of a time,
// written on and rolled back to.
func TestV3HistoryVerifies(t *testing.T) {
	svc, c, ids := storedHistory(t, "../hashchain/testdata/chain-v3-history.json")
	ctx := service.WithUser(context.Background(), "alice")
	verifiesAll(t, svc, ctx, map[string]int{ids[0]: 3, ids[1]: 2, ids[2]: 2, ids[3]: 1})
	if v, err := svc.Verify(ctx, ids[1], service.VerifyStep{}); err != nil || v.Erased != 1 {
		t.Fatalf("the history with an erased field: %+v, %v", v, err)
	}
	old, err := svc.AsOf(ctx, ids[0], time.Date(2026, 12, 6, 8, 2, 30, 0, time.UTC))
	if err != nil || old.Todo.Title != "oat milk" || len(old.Todo.Tags) != 2 {
		t.Fatalf("as of version 2: %+v, %v", old.Todo, err)
	}
	cur, err := svc.Get(ctx, ids[0])
	if err != nil || cur.Todo.Chain != hashchain.V3 {
		t.Fatalf("the stored todo: chain %d, %v", cur.Todo.Chain, err)
	}
	next, err := svc.Put(ctx, ids[0], todo.Fields{Category: "Grocery", Title: "rice milk"}, "", false)
	if err != nil || next.Todo.PrevHash != cur.Todo.Hash {
		t.Fatalf("the next write: prevHash %q (want %q), %v", next.Todo.PrevHash, cur.Todo.Hash, err)
	}
	if _, err := svc.Rollback(ctx, ids[0], 2, ""); err != nil {
		t.Fatal(err)
	}
	reconcileAll(t, c)
	if v, err := svc.Verify(ctx, ids[0], service.VerifyStep{}); err != nil || !v.Verified || v.Versions != 5 {
		t.Fatalf("after a write and a rollback: %+v, %v", v, err)
	}
}
