package partition_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

const someUUID = "41500e6e-4e08-495b-9d09-824f03961f4a"

func mustScheme(t testing.TB, name string, buckets int, c store.Container) partition.Scheme {
	t.Helper()
	var seq partition.Sequencer
	if c != nil {
		seq = partition.NewCounter(c)
	}
	s, err := partition.New(name, buckets, seq)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var resolveTests = []struct {
	scheme, user, id string
	want             store.PartitionKey
	kind             todo.Kind // when the id is refused
}{
	{"hierarchical", "alice", "Grocery:" + someUUID, store.PartitionKey{"alice", "Grocery"}, 0},
	{"hierarchical", "alice", "Work Q1:" + someUUID, store.PartitionKey{"alice", "Work Q1"}, 0},
	{"hierarchical", "alice", "Work:Q1:" + someUUID, nil, todo.Invalid},
	{"hierarchical", "alice", "Work%2FQ1:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "Grocery:" + someUUID, store.PartitionKey{"Grocery"}, 0},
	{"synthetic", "alice", "3:" + someUUID, store.PartitionKey{"alice-3"}, 0},
	{"synthetic", "alice", "0:" + someUUID, store.PartitionKey{"alice-0"}, 0},
	{"synthetic", "alice", "8:" + someUUID, nil, todo.Invalid},
	{"synthetic", "alice", "03:" + someUUID, nil, todo.Invalid},
	{"synthetic", "alice", "-1:" + someUUID, nil, todo.Invalid},
	{"hierarchical", "alice", someUUID, nil, todo.Invalid},
	{"hierarchical", "alice", ":" + someUUID, nil, todo.Invalid},
	{"hierarchical", "alice", "Grocery:" + strings.ToUpper(someUUID), nil, todo.Invalid},
	{"hierarchical", "alice", "Grocery:not-a-uuid", nil, todo.Invalid},
	{"hierarchical", "alice", "Grocery:" + someUUID + ":v2", nil, todo.Invalid},
	{"category", "alice", "Gro/cery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "Gro#cery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "Gro?cery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "Gro\\cery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "Gro\tcery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", " Grocery:" + someUUID, nil, todo.Invalid},
	{"category", "alice", "", nil, todo.Invalid},
	{"category", "alice", "sequence", nil, todo.Invalid},
}

func TestResolve(t *testing.T) {
	for _, tc := range resolveTests {
		s := mustScheme(t, tc.scheme, 8, nil)
		got, err := s.Resolve(tc.user, tc.id)
		if tc.kind != 0 {
			if todo.KindOf(err) != tc.kind {
				t.Errorf("%s.Resolve(%q) error = %v, want kind %v", tc.scheme, tc.id, err, tc.kind)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s.Resolve(%q) = %v, %v; want %v", tc.scheme, tc.id, got, err, tc.want)
		}
	}
}

func openTodos(t testing.TB, scheme string) store.Container {
	t.Helper()
	paths, err := partition.Paths(scheme)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: paths}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c, err := st.Container(context.Background(), "todos")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A new key resolves back to itself, and matches the todo's own key.
func TestNewKeyRoundTrip(t *testing.T) {
	for _, name := range partition.Names {
		s := mustScheme(t, name, 4, openTodos(t, name))
		k, err := s.NewKey(context.Background(), "alice", "Grocery")
		if err != nil {
			t.Fatal(err)
		}
		pk, err := s.Resolve("alice", k.ID)
		if err != nil || !pk.Equal(k.PartitionKey) {
			t.Fatalf("%s: Resolve(%q) = %v, %v; want %v", name, k.ID, pk, err, k.PartitionKey)
		}
		td := &todo.Todo{ID: k.ID, UserID: "alice", Fields: todo.Fields{Category: "Grocery"}, PartitionKey: k.Property}
		if got := s.KeyOf(td); !got.Equal(k.PartitionKey) {
			t.Fatalf("%s: KeyOf = %v, want %v", name, got, k.PartitionKey)
		}
		// Another user resolves the same id to a partition of their own
		// (or, where the category is the key, is filtered by userId).
		other, _ := s.Resolve("bob", k.ID)
		if name != partition.Category && other.Equal(pk) {
			t.Fatalf("%s: bob resolves alice's id to her partition %v", name, pk)
		}
	}
}

func TestPlans(t *testing.T) {
	cat := "Grocery"
	tests := []struct {
		scheme   string
		category *string
		scope    string
		parts    int
	}{
		{"hierarchical", &cat, "partition", 1},
		{"hierarchical", nil, "prefix", 1},
		{"category", &cat, "partition", 1},
		{"category", nil, "cross-partition", 1},
		{"synthetic", &cat, "fanout(4)", 4},
		{"synthetic", nil, "fanout(4)", 4},
	}
	for _, tc := range tests {
		p := mustScheme(t, tc.scheme, 4, nil).List("alice", tc.category)
		if p.Scope.String() != tc.scope || len(p.Partitions) != tc.parts {
			t.Errorf("%s list(category=%v) = %s over %d partitions, want %s over %d", tc.scheme, tc.category != nil, p.Scope, len(p.Partitions), tc.scope, tc.parts)
		}
		hasUser := false
		for _, f := range p.Filters {
			hasUser = hasUser || (f.Field == "userId" && f.Value == "alice")
		}
		if !hasUser {
			t.Errorf("%s list plan does not filter by the caller: %+v", tc.scheme, p.Filters)
		}
	}
}

// Concurrent creators each get a distinct sequence number, spread evenly
// over the buckets: a block of numbers is handed out round, so consecutive
// numbers fill the buckets in turn.
func TestSyntheticSequenceConcurrent(t *testing.T) {
	const buckets, workers, each = 4, 8, 10
	s := mustScheme(t, "synthetic", buckets, openTodos(t, "synthetic"))
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				k, err := s.NewKey(context.Background(), "alice", "x")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				counts[k.PartitionKey[0]]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for n := range buckets {
		if got := counts[partition.Bucket("alice", n)]; got != workers*each/buckets {
			t.Fatalf("bucket %d got %d keys, want %d (counts %v)", n, got, workers*each/buckets, counts)
		}
	}
}

// writeCounter counts the writes to a container.
type writeCounter struct {
	store.Container
	writes atomic.Int64
}

func (w *writeCounter) Create(ctx context.Context, pk store.PartitionKey, doc []byte) (store.Item, error) {
	w.writes.Add(1)
	return w.Container.Create(ctx, pk, doc)
}

func (w *writeCounter) Replace(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	w.writes.Add(1)
	return w.Container.Replace(ctx, pk, doc, o)
}

// A burst of one user's sequence numbers, taken by two processes sharing
// the counter document, gives distinct numbers without a failure, and
// writes the document about once per block of 64 numbers, not once a
// number.
func TestSequenceBurstFromTwoProcesses(t *testing.T) {
	const workers, each = 64, 8
	c := &writeCounter{Container: openTodos(t, "synthetic")}
	counters := []*partition.Counter{partition.NewCounter(c), partition.NewCounter(c)}
	pk := store.PartitionKey{partition.Bucket("alice", 0)}
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				n, err := counters[w%2].Next(context.Background(), "alice", pk)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[n] {
					t.Errorf("number %d handed out twice", n)
				}
				seen[n] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != workers*each {
		t.Fatalf("%d numbers, want %d", len(seen), workers*each)
	}
	// Each process takes 4 blocks; a lost race costs a write more.
	if w := c.writes.Load(); w > 16 {
		t.Fatalf("%d writes of the counter document for %d numbers", w, workers*each)
	}
}

func FuzzResolve(f *testing.F) {
	for _, tc := range resolveTests {
		f.Add(tc.user, tc.id)
	}
	schemes := []partition.Scheme{}
	for _, name := range partition.Names {
		schemes = append(schemes, mustScheme(f, name, 8, nil))
	}
	f.Fuzz(func(t *testing.T, user, id string) {
		for _, s := range schemes {
			pk, err := s.Resolve(user, id)
			if err != nil {
				if todo.KindOf(err) != todo.Invalid {
					t.Fatalf("%s.Resolve(%q): error of kind %v, want invalid", s.Name(), id, todo.KindOf(err))
				}
				continue
			}
			if todo.ValidateID(id) != nil {
				t.Fatalf("%s accepted an id Cosmos DB would refuse: %q", s.Name(), id)
			}
			if len(pk) != len(s.Paths()) {
				t.Fatalf("%s.Resolve(%q) = %v: not a full key", s.Name(), id, pk)
			}
			for _, part := range pk {
				if part == "" {
					t.Fatalf("%s.Resolve(%q) = %v: empty component", s.Name(), id, pk)
				}
			}
		}
	})
}

// A derived key is the same for the same user and seed, another for
// another user or seed, and resolves back to its partition.
func TestDerivedKey(t *testing.T) {
	for _, name := range partition.Names {
		s, err := partition.New(name, 8, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := s.DerivedKey("alice", "Grocery", "key-1")
		if again := s.DerivedKey("alice", "Grocery", "key-1"); again.ID != k.ID || !again.PartitionKey.Equal(k.PartitionKey) {
			t.Fatalf("%s: derived %v then %v", name, k, again)
		}
		if s.DerivedKey("bob", "Grocery", "key-1").ID == k.ID || s.DerivedKey("alice", "Grocery", "key-2").ID == k.ID {
			t.Fatalf("%s: another user or seed derives the same id %s", name, k.ID)
		}
		pk, err := s.Resolve("alice", k.ID)
		if err != nil || !pk.Equal(k.PartitionKey) {
			t.Fatalf("%s: %s resolves to %v, %v; want %v", name, k.ID, pk, err, k.PartitionKey)
		}
	}
}
