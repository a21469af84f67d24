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
	"github.com/todoaudit/todo/internal/race"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/ru"
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
		Log: slog.New(slog.DiscardHandler), Now: clk.Now}}
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

// A run after no writes reads its watermark and one query page: an empty
// one when the previous run came well after the writes before it, and
// one holding the versions it examined when it came right after them,
// which it skips.
func TestRunAfterNoWritesIsOneQueryPage(t *testing.T) {
	e := newEnv(t)
	e.writeVersions(t, "alice", ids("t", 5), 3)
	e.clock.Set(e.clock.Now().Add(time.Hour))
	if res, _ := e.run(t); res.Versions != 15 || res.Refilled != 15 || res.Since != 0 {
		t.Fatalf("first run: %+v, want 15 versions examined and refilled from the beginning", res)
	}
	res, cost := e.run(t)
	// The watermark's point read, then one page of a query whose two
	// filters the index answers and that matches nothing.
	page := ru.Query(ru.QueryWork{Partitions: 1, Lookups: 2})
	if res.Versions != 0 || cost.Requests != 2 || cost.Charge > ru.Read(200)+page {
		t.Fatalf("run after no writes: %+v, cost %+v; want 2 requests and at most %.2f RU", res, cost, ru.Read(200)+page)
	}
	t.Logf("a run after no writes: %.1f RU in %d requests", cost.Charge, cost.Requests)

	// Back to back: writes, a run right after them, another run.
	e.writeVersions(t, "bob", ids("u", 5), 1)
	if res, _ := e.run(t); res.Versions != 5 || res.Refilled != 5 {
		t.Fatalf("run right after 5 writes: %+v", res)
	}
	res, cost = e.run(t)
	if res.Versions != 0 || res.Skipped != 5 || cost.Requests != 2 {
		t.Fatalf("second run right after 5 writes: %+v, cost %+v; want nothing examined in one page", res, cost)
	}
	t.Logf("a run right after one that examined 5 versions: %.1f RU in %d requests", cost.Charge, cost.Requests)
}

// A run's cost grows with the writes since the previous run, not with the
// history retained: after 10,000 new writes, a run beside 200,000 retained
// versions costs what it costs beside 10,000.
func TestRunCostFollowsWritesNotHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 220,000 version documents")
	}
	race.Heavy(t)
	charge := map[int]float64{}
	for _, retained := range []int{10_000, 200_000} {
		e := newEnv(t)
		e.writeVersions(t, "alice", ids("old", retained/20), 20)
		// As a successful run over the retained history leaves it.
		if err := e.rec.save(context.Background(), watermark{Since: e.clock.Now().Unix() + 1}); err != nil {
			t.Fatal(err)
		}
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

// The margin reads again the window before the watermark, where a write
// can land after a run read past it; the watermark moves only when a run
// succeeds.
func TestMarginAndWatermark(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.writeVersions(t, "alice", []string{"a"}, 1)
	e.run(t)
	// A write whose _ts is half a minute before the newest the run
	// examined, committed after the run read.
	e.clock.Set(start.Add(-30 * time.Second))
	e.writeVersions(t, "alice", []string{"late"}, 1)
	e.clock.Set(start.Add(time.Hour))
	if res, _ := e.run(t); res.Refilled != 1 || res.Since != start.Add(-DefaultMargin).Unix() {
		t.Fatalf("run after a late write: %+v, want it refilled, read from %d", res, start.Add(-DefaultMargin).Unix())
	}

	// A failing run keeps the watermark, so the next run reads its writes
	// again.
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
}

// failing is an audit container whose batches fail.
type failing struct{ store.Container }

func (failing) Batch(context.Context, store.PartitionKey, []store.Op) ([]store.OpResult, error) {
	return nil, todo.Errorf(todo.Unavailable, "injected: audit container unavailable")
}
