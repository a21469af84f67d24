package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
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
	// Stamped by the clock as it is: a late commit can carry an earlier
	// _ts, as on Cosmos DB, which the margin is for.
	c := bolttest.Open(t, partition.Hierarchical, &bolt.Options{Now: clk.Now, ClockStamps: true})
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
					Fields: todo.Fields{Category: "Grocery", Title: "paint the fence"}, Version: v, UpdatedBy: user, UpdatedAt: e.clock.Now()}, "", 0))
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

// noWritesCost is the most a run after no writes may cost: the
// watermark's point read, then one page of a query whose two filters the
// index answers and that matches nothing.
var noWritesCost = ru.Read(200) + ru.Query(ru.QueryWork{Partitions: 1, Lookups: 2})

// A run after no writes reads its watermark and one empty query page,
// whether the previous run came well after the writes before it or right
// after them; only when the previous run started in the second of the
// newest write it read does the next one read that second again, which
// can still get writes.
func TestRunAfterNoWritesIsOneQueryPage(t *testing.T) {
	e := newEnv(t)
	e.writeVersions(t, "alice", ids("t", 5), 3)
	e.clock.Set(e.clock.Now().Add(time.Hour))
	if res, _ := e.run(t); res.Versions != 15 || res.Refilled != 15 || res.Since != 0 {
		t.Fatalf("first run: %+v, want 15 versions examined and refilled from the beginning", res)
	}
	res, cost := e.run(t)
	if res.Versions != 0 || cost.Requests != 2 || cost.Charge > noWritesCost {
		t.Fatalf("run after no writes: %+v, cost %+v; want 2 requests and at most %.2f RU", res, cost, noWritesCost)
	}
	t.Logf("a run after no writes: %.1f RU in %d requests", cost.Charge, cost.Requests)

	// Writes, a run the second after them, another run.
	e.writeVersions(t, "bob", ids("u", 5), 1)
	e.clock.Set(e.clock.Now().Add(time.Second))
	if res, _ := e.run(t); res.Versions != 5 || res.Refilled != 5 {
		t.Fatalf("run right after 5 writes: %+v", res)
	}
	res, cost = e.run(t)
	if res.Versions != 0 || res.Skipped != 0 || cost.Requests != 2 || cost.Charge > noWritesCost {
		t.Fatalf("second run right after 5 writes: %+v, cost %+v; want nothing read in one page", res, cost)
	}
	t.Logf("a run right after one that examined 5 versions: %.1f RU in %d requests", cost.Charge, cost.Requests)

	// Writes and a run in the same second: the next run reads the
	// second again and skips what the run examined, unless the second
	// got another write, committed after the run read.
	e.writeVersions(t, "carol", ids("v", 5), 1)
	if res, _ := e.run(t); res.Versions != 5 || res.Refilled != 5 {
		t.Fatalf("run in the second of 5 writes: %+v", res)
	}
	if res, cost := e.run(t); res.Versions != 0 || res.Skipped != 5 || res.Refilled != 0 || cost.Requests != 2 {
		t.Fatalf("run after one in the second of 5 writes: %+v, cost %+v; want the 5 read again and skipped, in one page", res, cost)
	}
	e.writeVersions(t, "carol", []string{"w"}, 1)
	if res, _ := e.run(t); res.Versions != 6 || res.Refilled != 1 {
		t.Fatalf("run after a write in the second the previous run started in: %+v, want the second examined again, the write refilled", res)
	}
}

// writeBusyMinute writes 100 versions a second for 50 seconds from the
// clock's time, 5,000 in all, and leaves the clock at the last second.
func (e *env) writeBusyMinute(t testing.TB, user string) {
	t.Helper()
	t0 := e.clock.Now()
	for s := range 50 {
		e.clock.Set(t0.Add(time.Duration(s) * time.Second))
		e.writeVersions(t, user, ids("s"+strconv.Itoa(s)+"-", 10), 10)
	}
}

// After a busy minute, the runs within the margin of it cost what a run
// after no writes costs; the first run once no write can land in it any
// more reads it once again, skips every version of it, and refills none.
func TestRunsAfterBusyMinute(t *testing.T) {
	e := newEnv(t)
	t0 := e.clock.Now()
	e.writeBusyMinute(t, "alice")
	e.clock.Set(t0.Add(50 * time.Second))
	res, cost := e.run(t)
	if res.Versions != 5000 || res.Refilled != 5000 {
		t.Fatalf("run right after the busy minute: %+v, want 5,000 versions examined and refilled", res)
	}
	t.Logf("a run right after 5,000 versions written in 50 s: %.0f RU in %d requests", cost.Charge, cost.Requests)
	// The window examined is due the margin after its end, the newest
	// _ts plus one.
	due := t0.Add(50*time.Second + DefaultMargin)
	for _, at := range []time.Duration{51 * time.Second, 80 * time.Second, due.Sub(t0) - time.Second} {
		e.clock.Set(t0.Add(at))
		res, cost := e.run(t)
		if res.Versions != 0 || res.Skipped != 0 || res.Since != t0.Unix()+50 || cost.Requests != 2 || cost.Charge > noWritesCost {
			t.Fatalf("run after no writes %v after the busy minute began: %+v, cost %+v; want nothing read from %d in 2 requests, at most %.2f RU",
				at, res, cost, t0.Unix()+50, noWritesCost)
		}
		t.Logf("a run after no writes, %v after the 5,000 versions began: %.1f RU in %d requests", at, cost.Charge, cost.Requests)
	}
	e.clock.Set(due)
	res, cost = e.run(t)
	// The watermark's read, the window's pages, the watermark's save:
	// no refill query.
	if res.Versions != 0 || res.Skipped != 5000 || res.Refilled != 0 || res.Since != t0.Add(50*time.Second-DefaultMargin).Unix() ||
		cost.Requests > 5000/pageSize+3 {
		t.Fatalf("the run that checks the busy minute again: %+v, cost %+v; want 5,000 skipped from %d in at most %d requests",
			res, cost, t0.Add(50*time.Second-DefaultMargin).Unix(), 5000/pageSize+3)
	}
	t.Logf("the run that reads the 5,000 versions again and skips them: %.0f RU in %d requests", cost.Charge, cost.Requests)
	res, cost = e.run(t)
	if res.Versions != 0 || res.Skipped != 0 || cost.Requests != 2 || cost.Charge > noWritesCost {
		t.Fatalf("run after the check: %+v, cost %+v; want nothing read in 2 requests", res, cost)
	}
}

// However high the write rate and however often runs come, the watermark
// counts about two margins of seconds and stays under 1 KB, so that its
// point read costs 1 RU, and its window is checked again at least every
// two margins: runs never push it later.
func TestWatermarkStaysSmall(t *testing.T) {
	race.Heavy(t)
	e := newEnv(t)
	t0 := e.clock.Now()
	lastCheck, checks, largest := t0, 0, 0
	for s := range 150 {
		now := t0.Add(time.Duration(s) * time.Second)
		e.clock.Set(now)
		e.writeVersions(t, "alice", ids("s"+strconv.Itoa(s)+"-", 10), 10)
		if s%5 != 4 {
			continue
		}
		before, err := e.rec.load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := e.run(t); res.Since < before.Since {
			checks++
			lastCheck = now
		} else if now.Sub(lastCheck) > 2*DefaultMargin+5*time.Second {
			t.Fatalf("no run checked the window again from %v to %v", lastCheck, now)
		}
		doc, err := e.rec.Leases.Read(context.Background(), store.PartitionKey{e.rec.watermarkID()}, e.rec.watermarkID())
		if err != nil {
			t.Fatal(err)
		}
		mark, err := e.rec.load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, len(doc.Body))
		seconds := int64(2*DefaultMargin/time.Second) + 2
		if n := int64(len(mark.Counts)); n > seconds || mark.Since-mark.Recheck > seconds || len(doc.Body) > 1024 {
			t.Fatalf("after %d s of writes: a watermark of %d bytes counting %d seconds, window %d s; want at most 1,024 bytes, %d seconds",
				s+1, len(doc.Body), n, mark.Since-mark.Recheck, seconds)
		}
	}
	if checks < 2 {
		t.Fatalf("%d runs checked the window again in 150 s", checks)
	}
	t.Logf("100 versions a second for 150 s, a run every 5 s: the watermark document at most %d bytes", largest)
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

// A write that lands behind the watermark, with a _ts before the newest
// a run examined, is refilled by the first run after the window it landed
// in is due; the watermark moves only when a run succeeds.
func TestMarginAndWatermark(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.writeVersions(t, "alice", []string{"a"}, 1)
	e.clock.Set(start.Add(time.Second))
	e.run(t)
	// A write whose _ts is half a minute before the newest the run
	// examined, committed after the run read.
	e.clock.Set(start.Add(-30 * time.Second))
	e.writeVersions(t, "alice", []string{"late"}, 1)
	// Before the window is due, runs read only past it.
	e.clock.Set(start.Add(DefaultMargin))
	if res, cost := e.run(t); res.Versions != 0 || res.Since != start.Unix()+1 || cost.Requests != 2 {
		t.Fatalf("run before the window is due: %+v, cost %+v; want nothing read from %d", res, cost, start.Unix()+1)
	}
	// The window opened by the run a second after start, from then less
	// the margin, is due the margin after a's second.
	e.clock.Set(start.Add(DefaultMargin + time.Second))
	window := start.Add(time.Second - DefaultMargin).Unix()
	if res, _ := e.run(t); res.Versions != 1 || res.Skipped != 1 || res.Refilled != 1 || res.Since != window {
		t.Fatalf("run once the window is due: %+v, want the late write refilled, a skipped, read from %d", res, window)
	}
	e.clock.Set(start.Add(time.Hour))

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

// Whatever the order of writes, late ones among them, and runs, every
// version is refilled exactly once, by the run right after it or by the
// run that checks its window again, and nothing is left to a run that
// reads everything.
func TestEveryVersionIsRefilledOnce(t *testing.T) {
	for trial := range 10 {
		rng := rand.New(rand.NewPCG(uint64(trial), 0))
		e := newEnv(t)
		now := e.clock.Now()
		written, refilled := 0, 0
		run := func() {
			res, _ := e.run(t)
			refilled += res.Refilled
		}
		for step := range 60 {
			now = now.Add(time.Duration(rng.IntN(30)) * time.Second)
			for k := range rng.IntN(4) {
				// One in three commits late, with a _ts up to 50 s early.
				at := now
				if rng.IntN(3) == 0 {
					at = now.Add(-time.Duration(rng.IntN(50)) * time.Second)
				}
				e.clock.Set(at)
				n := 1 + rng.IntN(3)
				e.writeVersions(t, "alice", []string{fmt.Sprintf("t%d-%d", step, k)}, n)
				written += n
			}
			e.clock.Set(now)
			if rng.IntN(2) == 0 {
				run()
			}
		}
		e.clock.Set(now.Add(3 * DefaultMargin))
		run()
		run()
		if refilled != written {
			t.Fatalf("trial %d: %d versions written, %d refilled", trial, written, refilled)
		}
		if err := e.rec.save(context.Background(), watermark{}); err != nil {
			t.Fatal(err)
		}
		if res, _ := e.run(t); res.Versions != written || res.Refilled != 0 {
			t.Fatalf("trial %d: a run over every version after them: %+v, want %d examined, none refilled", trial, res, written)
		}
	}
}

// A version whose _ts is further ahead of the run's clock than the margin
// allows does not move the watermark past the writes that follow it.
func TestFutureTimestamp(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.clock.Set(start.Add(time.Hour))
	e.writeVersions(t, "alice", []string{"ahead"}, 1)
	e.clock.Set(start)
	if res, _ := e.run(t); res.Versions != 1 {
		t.Fatalf("first run: %+v", res)
	}
	e.clock.Set(start.Add(10 * time.Second))
	e.writeVersions(t, "alice", []string{"next"}, 1)
	e.clock.Set(start.Add(11 * time.Second))
	if res, _ := e.run(t); res.Versions != 2 || res.Refilled != 1 {
		t.Fatalf("run after a write that follows a _ts an hour ahead: %+v, want it refilled, the version ahead examined again", res)
	}
	mark, err := e.rec.load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if limit := start.Add(11*time.Second + DefaultMargin).Unix(); mark.Since > limit+1 || len(mark.Open)+len(mark.Counts) > 200 {
		t.Fatalf("watermark %+v after a _ts an hour ahead: want since at most %d, a few counts", mark, limit+1)
	}
}

// A watermark of the older form, a Since and the versions examined
// behind it, still bounds the next run, which examines those versions
// again; a damaged one means reading everything.
func TestOldAndDamagedWatermarks(t *testing.T) {
	e := newEnv(t)
	start := e.clock.Now()
	e.writeVersions(t, "alice", []string{"a"}, 1)
	e.clock.Set(start.Add(time.Hour))
	e.writeVersions(t, "alice", []string{"b"}, 1)
	old := `{"since":` + strconv.FormatInt(start.Add(time.Hour).Unix(), 10) + `,"seen":["alice:b:1"]}`
	if err := store.SaveCheckpoint(context.Background(), e.rec.Leases, e.rec.watermarkID(), old); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.run(t); res.Versions != 1 || res.Refilled != 1 || res.Since != start.Add(time.Hour).Unix() {
		t.Fatalf("run after an old watermark: %+v, want b examined and refilled from %d", res, start.Add(time.Hour).Unix())
	}
	for _, damaged := range []string{`[`, `{"since":-1}`, `{"since":10,"recheck":20}`, `{"since":20,"recheck":10,"counts":[1]}`,
		`{"since":20,"recheck":10,"recheckAt":80,"counts":[1,2,3,4,5,6,7,8,9,10,11]}`, `{"since":20,"recheck":10,"recheckAt":80,"counts":[-1]}`,
		`{"since":20,"open":[-1]}`} {
		if err := store.SaveCheckpoint(context.Background(), e.rec.Leases, e.rec.watermarkID(), damaged); err != nil {
			t.Fatal(err)
		}
		if res, _ := e.run(t); res.Versions != 2 || res.Since != 0 {
			t.Fatalf("run after the watermark %s: %+v, want both versions examined from the beginning", damaged, res)
		}
	}
}

// failing is an audit container whose batches fail.
type failing struct{ store.Container }

func (failing) Batch(context.Context, store.PartitionKey, []store.Op) ([]store.OpResult, error) {
	return nil, todo.Errorf(todo.Unavailable, "injected: audit container unavailable")
}

// Refilling one todo's long history costs what its versions cost, not
// their square: the versions of one entity come from the query in no
// particular order (by id, v10 before v2), pages of large documents hold
// few of them, and each record of the history is read at most once a
// run, so twice the versions cost about twice as much.
func TestRefillOfOneLongHistoryIsLinear(t *testing.T) {
	race.Heavy(t)
	notes := strings.Repeat("n", 40<<10)
	charge := map[int]float64{}
	for _, n := range []int{150, 300} {
		e := newEnv(t)
		for v := int64(1); v <= int64(n); v++ {
			doc, err := json.Marshal(todo.NewVersion(todo.Todo{ID: "long", Type: todo.TypeTodo, UserID: "alice",
				Fields: todo.Fields{Category: "Grocery", Title: "paint the fence", Notes: notes}, Version: v, UpdatedBy: "alice", UpdatedAt: e.clock.Now()}, "", 0))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.rec.Todos.Upsert(context.Background(), store.PartitionKey{"alice", "Grocery"}, doc, nil); err != nil {
				t.Fatal(err)
			}
		}
		res, cost := e.run(t)
		if res.Refilled != n {
			t.Fatalf("%d versions of one todo: %+v, want all refilled", n, res)
		}
		charge[n] = cost.Charge
		t.Logf("%d versions of 40 KB of one todo refilled: %.0f RU in %d requests", n, cost.Charge, cost.Requests)
	}
	if ratio := charge[300] / charge[150]; ratio > 2.3 {
		t.Fatalf("twice the versions cost %.2f times as much", ratio)
	}
}
