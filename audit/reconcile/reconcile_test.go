package reconcile

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// clock is the embedded store's clock, whole seconds as _ts has them,
// set by the test.
type clock struct{ sec atomic.Int64 }

func (c *clock) Now() time.Time  { return time.Unix(c.sec.Load(), 0) }
func (c *clock) Set(t time.Time) { c.sec.Store(t.Unix()) }

type env struct {
	clock *clock
	rec   *Reconciler
}

func newEnv(t testing.TB) *env {
	t.Helper()
	clk := &clock{}
	clk.Set(time.Unix(1_800_000_000, 0))
	c := bolttest.Open(t, partition.Hierarchical, &bolt.Options{Now: clk.Now})
	return &env{clock: clk, rec: &Reconciler{Todos: c.Todos, Audit: c.Audit, Leases: c.Leases,
		Log: slog.New(slog.DiscardHandler)}}
}

// writeVersions writes versions 1 to n of each of the given todos of one
// user as version documents, the todo service's outbox, in batches of 100,
// 32 writers at a time, so that the store groups them into few commits.
func (e *env) writeVersions(t testing.TB, user string, todos []string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(todos))
	sem := make(chan struct{}, 32)
	for _, id := range todos {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var ops []store.Op
			flush := func() error {
				_, err := e.rec.Todos.Batch(context.Background(), store.PartitionKey{user, "Grocery"}, ops)
				ops = ops[:0]
				return err
			}
			for v := int64(1); v <= int64(n); v++ {
				doc, err := json.Marshal(todo.NewVersion(todo.Todo{ID: id, Type: todo.TypeTodo, UserID: user,
					Fields: todo.Fields{Category: "Grocery", Title: "paint the fence"}, Version: v, UpdatedBy: user, UpdatedAt: e.clock.Now()}, nil, 0))
				if err != nil {
					errs <- err
					return
				}
				if ops = append(ops, store.Op{Kind: store.BatchUpsert, Doc: doc}); len(ops) == store.MaxBatchOps {
					if err := flush(); err != nil {
						errs <- err
						return
					}
				}
			}
			if len(ops) > 0 {
				if err := flush(); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func ids(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// run runs a reconcile pass and says what it was charged.
func (e *env) run(t testing.TB) (Result, store.Cost) {
	t.Helper()
	ctx, m := store.WithMeter(context.Background())
	res, err := e.rec.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res, m.Cost()
}

// toEnd moves the run's continuation to the end of the feed, as a run over
// everything written so far leaves it.
func (e *env) toEnd(t testing.TB) {
	t.Helper()
	cont := ""
	for {
		b, err := e.rec.Todos.ChangeFeed(context.Background(), cont, store.MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) == 0 || b.Continuation == cont {
			break
		}
		cont = b.Continuation
	}
	if err := store.SaveCheckpoint(context.Background(), e.rec.Leases, e.rec.checkpointID(), cont); err != nil {
		t.Fatal(err)
	}
}

// A run after no writes reads its continuation and the feed once, however
// much was written just before the previous run: nothing is read twice.
func TestRunAfterNoWritesIsOnePage(t *testing.T) {
	e := newEnv(t)
	e.writeVersions(t, "alice", ids("t", 5), 3)
	if res, _ := e.run(t); res.Versions != 15 || res.Refilled != 15 || !res.FromStart {
		t.Fatalf("first run: %+v, want 15 versions examined and refilled from the beginning", res)
	}
	// The continuation's point read, then one read of the feed that finds
	// nothing.
	oneRead := func(what string) {
		t.Helper()
		res, cost := e.run(t)
		if res.Versions != 0 || cost.Requests != 2 {
			t.Fatalf("%s: %+v, cost %+v; want nothing examined in 2 requests", what, res, cost)
		}
		t.Logf("%s: %.1f RU in %d requests", what, cost.Charge, cost.Requests)
	}
	oneRead("a run after no writes")

	// A busy minute: 5,000 versions, all within a minute of the next run,
	// and some with a _ts a little earlier than versions written before
	// them (the clocks of a store's partitions differ).
	e.writeVersions(t, "bob", ids("u", 250), 10)
	e.clock.Set(e.clock.Now().Add(-20 * time.Second))
	e.writeVersions(t, "carol", ids("v", 250), 10)
	if res, _ := e.run(t); res.Versions != 5000 || res.Refilled != 5000 {
		t.Fatalf("run right after 5,000 writes: %+v", res)
	}
	oneRead("a run right after one that examined 5,000 versions")
	oneRead("the run after that")
}

// A run's cost grows with the writes since the previous run, not with the
// history retained: after 10,000 new writes, a run beside 200,000 retained
// versions costs what it costs beside 10,000.
func TestRunCostFollowsWritesNotHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 220,000 version documents")
	}
	charge := map[int]float64{}
	for _, retained := range []int{10_000, 200_000} {
		e := newEnv(t)
		e.writeVersions(t, "alice", ids("old", retained/20), 20)
		e.toEnd(t)
		e.clock.Set(e.clock.Now().Add(time.Hour))
		e.writeVersions(t, "bob", ids("new", 500), 20)
		res, cost := e.run(t)
		if res.Versions != 10_000 || res.Refilled != 10_000 {
			t.Fatalf("beside %d retained versions: %+v, want the 10,000 new ones examined and refilled", retained, res)
		}
		charge[retained] = cost.Charge
		t.Logf("10,000 new writes beside %d retained versions: %.0f RU in %d requests", retained, cost.Charge, cost.Requests)
	}
	if ratio := charge[200_000] / charge[10_000]; ratio > 1.1 {
		t.Fatalf("the run beside 200,000 versions costs %.2f times the run beside 10,000", ratio)
	}
}

// A write whose _ts is earlier than what a run examined, committed after
// the run read, is refilled by the next run; a run that fails keeps its
// continuation, so the next run reads its writes again; a continuation that
// does not decode makes a run read everything.
func TestLateWritesAndFailedRuns(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.writeVersions(t, "alice", []string{"a"}, 1)
	e.run(t)
	e.clock.Set(start.Add(-30 * time.Second))
	e.writeVersions(t, "alice", []string{"late"}, 1)
	e.clock.Set(start.Add(time.Hour))
	if res, _ := e.run(t); res.Refilled != 1 || res.Versions != 1 {
		t.Fatalf("run after a late write: %+v, want it refilled", res)
	}

	e.writeVersions(t, "alice", []string{"b"}, 1)
	audit := e.rec.Audit
	e.rec.Audit = failing{audit}
	if _, err := e.rec.Run(context.Background()); err == nil {
		t.Fatal("a run whose audit writes fail succeeded")
	}
	e.rec.Audit = audit
	if res, _ := e.run(t); res.Refilled != 1 {
		t.Fatalf("run after a failed one: %+v, want b refilled", res)
	}
	got, err := e.rec.Audit.Read(context.Background(), store.PartitionKey{todo.EntityKey("alice", "b")}, todo.AuditID("b", 1))
	if err != nil {
		t.Fatalf("b's audit record: %v", err)
	}
	var rec todo.AuditRecord
	if err := json.Unmarshal(got.Body, &rec); err != nil || rec.EntityID != "b" || rec.Version != 1 {
		t.Fatalf("b's audit record %s: %v", got.Body, err)
	}

	if err := store.SaveCheckpoint(context.Background(), e.rec.Leases, e.rec.checkpointID(), "not a continuation"); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.run(t); !res.FromStart || res.Versions != 3 || res.Refilled != 0 {
		t.Fatalf("run after a damaged continuation: %+v, want the 3 versions read again, none refilled", res)
	}
}

// failing is an audit container whose batches fail.
type failing struct{ store.Container }

func (failing) Batch(context.Context, store.PartitionKey, []store.Op) ([]store.OpResult, error) {
	return nil, todo.Errorf(todo.Unavailable, "injected: audit container unavailable")
}
