// Package storetest is the conformance suite every store.Store runs: the
// embedded bbolt store always, the Cosmos DB adapter against a
// Cosmos-protocol server. It pins down the Cosmos DB semantics the product
// relies on, so a store that passes can back the API.
package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Harness adapts a store implementation to the suite.
type Harness struct {
	// Open opens the store rooted at dir with the given containers
	// (creating them). Durable stores are opened again on the same dir to
	// test restarts.
	Open func(t testing.TB, dir string, specs []store.ContainerSpec) store.Store
	// Advance moves the store's clock forward, for TTL cases; nil skips
	// them.
	Advance func(d time.Duration)
	// Durable says data survives Close and Open on the same dir, which
	// enables the restart and kill -9 cases.
	Durable bool
	// Skip names cases the store cannot pass, with the reason; a skipped
	// semantic must be covered by a test of its own elsewhere.
	Skip map[string]string
}

var ttlOn = -1

// Container layouts used by the cases.
var (
	flat = store.ContainerSpec{Name: "flat", PartitionKeyPaths: []string{"/pk"}, DefaultTTL: &ttlOn}
	tree = store.ContainerSpec{Name: "tree", PartitionKeyPaths: []string{"/tenant", "/user"},
		Indexing: &store.IndexingPolicy{Paths: []string{"tenant", "user", "n"}, Sorted: []string{"n"},
			Composite: [][]store.Order{store.TieBroken(store.Order{Field: "n"}), store.TieBroken(store.Order{Field: "n", Desc: true}),
				{{Field: "user"}, {Field: "n"}}}}}
)

type suite struct {
	h   Harness
	ctx context.Context
}

// Run runs every case against the harness.
func Run(t *testing.T, h Harness) {
	s := &suite{h: h, ctx: context.Background()}
	cases := []struct {
		name string
		fn   func(t *testing.T, c store.Container, t2 store.Container)
	}{
		{"CreateRead", s.createRead},
		{"ReadMissing", s.readMissing},
		{"CreateConflict", s.createConflict},
		{"SameIDOtherPartition", s.sameIDOtherPartition},
		{"HierarchicalIdentity", s.hierarchicalIdentity},
		{"UpsertReplaceDelete", s.upsertReplaceDelete},
		{"ETagChangesEveryWrite", s.etagChanges},
		{"IfMatch", s.ifMatch},
		{"InvalidDocuments", s.invalidDocuments},
		{"TooLarge", s.tooLarge},
		{"PartitionKeyMismatch", s.pkMismatch},
		{"EmptyPartitionKeyComponent", s.emptyKeyComponent},
		{"Batch", s.batch},
		{"BatchAtomic", s.batchAtomic},
		{"BatchLimit", s.batchLimit},
		{"TTL", s.ttl},
		{"QueryPartition", s.queryPartition},
		{"QueryPrefix", s.queryPrefix},
		{"QueryCrossPartition", s.queryCross},
		{"QueryFilters", s.queryFilters},
		{"QueryOrderWithinPartition", s.queryOrder},
		{"QueryArrayFilters", s.queryArray},
		{"QueryTextIgnoringCase", s.queryTextFold},
		{"QueryOrderTieBrokenAfterPosition", s.querySeekOrdered},
		{"QueryAfterPositionAcrossPartitions", s.querySeekUnordered},
		{"QueryOrderNeedsComposite", s.queryOrderNeedsComposite},
		{"QueryOrderReverseComposite", s.queryOrderReverseComposite},
		{"QueryOrderAcrossPartitionsRefused", s.queryOrderRefused},
		{"QueryOrderNeedsIndex", s.queryOrderNeedsIndex},
		{"QueryOrderFollowsWrites", s.queryOrderFollowsWrites},
		{"QueryCommitTimeLowerBound", s.queryCommitTime},
		{"QueryPagingToLastItem", s.queryPaging},
		{"QueryBadContinuation", s.queryBadContinuation},
		{"ChangeFeedAll", s.feedAll},
		{"ChangeFeedCoalesces", s.feedCoalesces},
		{"ChangeFeedNoDeletes", s.feedNoDeletes},
		{"ChangeFeedPartitionOrder", s.feedOrder},
		{"Costs", s.costs},
		{"ViewAsRead", s.viewAsRead},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.skip(t, tc.name)
			st := h.Open(t, t.TempDir(), []store.ContainerSpec{flat, tree})
			t.Cleanup(func() { _ = st.Close() })
			tc.fn(t, s.container(t, st, flat.Name), s.container(t, st, tree.Name))
		})
	}
	t.Run("RestartKeepsDataAndFeed", func(t *testing.T) { s.skip(t, "RestartKeepsDataAndFeed"); s.restart(t) })
	t.Run("KillNine", func(t *testing.T) { s.skip(t, "KillNine"); s.killNine(t) })
	t.Run("ConcurrentWriters", func(t *testing.T) { s.skip(t, "ConcurrentWriters"); s.concurrent(t) })
}

func (s *suite) skip(t *testing.T, name string) {
	if why, ok := s.h.Skip[name]; ok {
		t.Skip(why)
	}
}

func (s *suite) container(t testing.TB, st store.Store, name string) store.Container {
	t.Helper()
	c, err := st.Container(s.ctx, name)
	if err != nil {
		t.Fatalf("Container(%s): %v", name, err)
	}
	return c
}

// doc builds a JSON document from key/value pairs.
func doc(kv ...any) []byte {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func pk(parts ...string) store.PartitionKey { return store.PartitionKey(parts) }

func field(t testing.TB, body []byte, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return m[name]
}

func wantKind(t testing.TB, err error, k todo.Kind) {
	t.Helper()
	if got := todo.KindOf(err); err == nil || got != k {
		t.Fatalf("error = %v (kind %v), want kind %v", err, got, k)
	}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func idsOf(items []store.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

func sorted(ids []string) []string {
	out := append([]string(nil), ids...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
