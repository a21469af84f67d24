package partitionload

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/store"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestWindowSlides(t *testing.T) {
	r := NewRecorder(time.Minute, 10*time.Second)
	c := &clock{t: time.Unix(1_000_000, 0)}
	r.now = c.now
	hot := Key{Container: "todos", PartitionKey: []string{"alice", "Grocery"}, Scope: "partition"}
	cold := Key{Container: "todos", PartitionKey: []string{"bob", "Work"}, Scope: "partition"}
	for range 10 {
		r.Record(hot, store.Cost{Requests: 1, Charge: 12})
	}
	r.Record(cold, store.Cost{Requests: 1, Charge: 6})
	top := r.Top(10, "")
	if len(top) != 2 || top[0].PartitionKey[1] != "Grocery" || top[0].Requests != 10 || top[0].RU != 120 {
		t.Fatalf("top = %+v", top)
	}
	if s := top[0].Share; s < 0.95 || s > 0.96 {
		t.Fatalf("share = %v, want 120/126", s)
	}
	c.add(30 * time.Second)
	r.Record(cold, store.Cost{Requests: 1, Charge: 6})
	if got := r.Top(1, ""); got[0].RU != 120 {
		t.Fatalf("after 30s top = %+v", got)
	}
	c.add(40 * time.Second) // the first bucket has left the window
	top = r.Top(10, "")
	if len(top) != 1 || top[0].PartitionKey[0] != "bob" || top[0].Requests != 1 {
		t.Fatalf("after 70s top = %+v", top)
	}
	c.add(time.Hour)
	if top := r.Top(10, ""); len(top) != 0 {
		t.Fatalf("after an hour top = %+v", top)
	}
}

// Calls through a wrapped embedded store are recorded per logical
// partition, concurrently (run with -race), hottest first.
type discard struct{}

func (discard) Decode(store.Item) error { return nil }

func TestWrappedStore(t *testing.T) {
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := NewRecorder(0, 0)
	ctx := context.Background()
	c, err := Wrap(st, r).Container(ctx, "todos")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(store.Viewer); !ok {
		t.Fatal("the wrapped embedded store does not pass View on: its point reads copy every body")
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := "user-cold"
			if w < 6 {
				user = "user-hot"
			}
			for i := range 10 {
				doc := fmt.Sprintf(`{"id":"w%d-%d","userId":%q,"category":"Grocery"}`, w, i, user)
				if _, err := c.Create(ctx, store.PartitionKey{user, "Grocery"}, []byte(doc)); err != nil {
					t.Error(err)
					return
				}
				// Half the reads lend the body (store.View): recorded alike.
				key, id := store.PartitionKey{user, "Grocery"}, fmt.Sprintf("w%d-%d", w, i)
				var err error
				if i%2 == 0 {
					_, err = c.Read(ctx, key, id)
				} else {
					err = store.View(ctx, c, key, id, discard{})
				}
				if err != nil {
					t.Error(err)
				}
				_ = r.Top(3, "")
			}
		}()
	}
	wg.Wait()
	if _, err := c.Query(ctx, store.Query{PageSize: 10}); err != nil {
		t.Fatal(err)
	}
	if r.Window() != 5*time.Minute {
		t.Fatalf("window %v", r.Window())
	}
	top := r.Top(2, "todos")
	if len(top) != 2 {
		t.Fatalf("top = %+v", top)
	}
	hot := top[0]
	if hot.PartitionKey[0] != "user-hot" || hot.Requests != 120 || hot.RU != 60*6+60*1 {
		t.Fatalf("hottest = %+v, want user-hot with 60 creates (6 RU) and 60 reads (1 RU)", hot)
	}
	all := r.Top(0, "")
	var cross bool
	for _, s := range all {
		cross = cross || (s.Scope == "cross-partition" && len(s.PartitionKey) == 0)
	}
	if !cross {
		t.Fatalf("cross-partition query not recorded: %+v", all)
	}
}

// A transaction across partitions (the audit pump's batch of records on
// the embedded store) is charged to each partition it writes, in the
// container it writes, never to one keyless entry above them.
func TestTransactionChargedToItsPartitions(t *testing.T) {
	st, err := bolt.Open(t.TempDir(), []store.ContainerSpec{
		{Name: "audit", PartitionKeyPaths: []string{"/entityKey"}},
		{Name: "todos", PartitionKeyPaths: []string{"/userId", "/category"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := NewRecorder(0, 0)
	ctx := context.Background()
	audit, err := Wrap(st, r).Container(ctx, "audit")
	if err != nil {
		t.Fatal(err)
	}
	var ups []store.Upsert
	for i := range 3 {
		ups = append(ups, store.Upsert{Container: "audit", PartitionKey: store.PartitionKey{"alice|hot"},
			Doc: fmt.Appendf(nil, `{"id":"hot-%d","entityKey":"alice|hot"}`, i)})
	}
	ups = append(ups,
		store.Upsert{Container: "audit", PartitionKey: store.PartitionKey{"bob|cold"}, Doc: []byte(`{"id":"cold","entityKey":"bob|cold"}`)},
		store.Upsert{Container: "todos", PartitionKey: store.PartitionKey{"alice", "Grocery"}, Doc: []byte(`{"id":"v1","userId":"alice","category":"Grocery"}`)})
	mctx, m := store.WithMeter(ctx)
	if ok, err := store.UpsertAtomically(mctx, audit, ups); !ok || err != nil {
		t.Fatalf("UpsertAtomically: %v %v", ok, err)
	}
	got := map[string]Stat{}
	var ru float64
	for _, s := range r.Top(0, "") {
		if len(s.PartitionKey) == 0 {
			t.Errorf("a keyless entry: %+v", s)
		}
		got[s.Container+" "+fmt.Sprint(s.PartitionKey)] = s
		ru += s.RU
	}
	for key, want := range map[string]int64{"audit [alice|hot]": 3, "audit [bob|cold]": 1, "todos [alice Grocery]": 1} {
		if s := got[key]; s.Requests != want || s.Scope != "partition" || s.RU <= 0 {
			t.Errorf("%s: %+v, want %d writes", key, s, want)
		}
	}
	if len(got) != 3 || ru != m.Cost().Charge {
		t.Errorf("recorded %v, %v RU in all; the transaction charged %v", got, ru, m.Cost().Charge)
	}
}

func TestKeyCap(t *testing.T) {
	r := NewRecorder(time.Minute, time.Minute)
	// One bucket: a clock that crossed a minute mid-loop would split the
	// keys over two buckets, neither of them over the cap.
	now := time.Unix(1_700_000_000, 0)
	r.now = func() time.Time { return now }
	for i := range MaxKeysPerBucket + 10 {
		r.Record(Key{Container: "todos", PartitionKey: []string{fmt.Sprint(i)}}, store.Cost{Requests: 1, Charge: 1})
	}
	top := r.Top(0, "")
	if len(top) != MaxKeysPerBucket+1 {
		t.Fatalf("%d keys, want the cap plus (other)", len(top))
	}
	if top[0].Scope != "(other)" || top[0].Requests != 10 {
		t.Fatalf("top = %+v", top[0])
	}
}
