package audit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/pump"
	"github.com/todoaudit/todo/store"
)

// downLeases fails every read while down is set, like a lease container
// that does not answer.
type downLeases struct {
	store.Container
	down  atomic.Bool
	reads atomic.Int32
}

func (d *downLeases) Read(ctx context.Context, pk store.PartitionKey, id string) (store.Item, error) {
	d.reads.Add(1)
	if d.down.Load() {
		return store.Item{}, todo.Errorf(todo.Unavailable, "injected: the leases container does not answer")
	}
	return d.Container.Read(ctx, pk, id)
}

// stalledPump writes a history and returns a pump whose lease container
// does not answer until its down is cleared, retrying after delays.
func stalledPump(t *testing.T, delays ...time.Duration) (*env, map[string]string, *downLeases, *pump.Pump) {
	t.Helper()
	e := newEnv(t)
	want := e.writeHistory(t)
	leases := &downLeases{Container: e.leases}
	leases.down.Store(true)
	p := e.newPump(t, e.audit, leases)
	p.Delays = delays
	return e, want, leases, p
}

// run runs p until the returned stop is called (at the latest when the
// test ends), which returns once p has stopped.
func run(t *testing.T, p *pump.Pump) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

// The pump survives a failing first read of its checkpoint: it retries
// with backoff, reports that it cannot make progress meanwhile, and
// audits everything once the store answers again.
func TestPumpSurvivesFailingLeaseRead(t *testing.T) {
	e, want, leases, p := stalledPump(t, 5*time.Millisecond, 20*time.Millisecond)
	var mu sync.Mutex
	var reports []error
	p.ReportTo(func(err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
	})
	stop := run(t, p)
	waitFor(t, "three failed lease reads", func() bool { return leases.reads.Load() >= 3 })
	st := p.Status()
	if st.State != pump.StateRetrying || st.LagSeconds == nil {
		t.Fatalf("status while the lease read fails: %+v", st)
	}
	mu.Lock()
	if len(reports) != 1 || !todo.IsKind(reports[0], todo.Unavailable) {
		t.Fatalf("reports while stalled: %v", reports)
	}
	mu.Unlock()
	if got := len(e.stored(t)); got != 0 {
		t.Fatalf("%d records audited without a checkpoint", got)
	}

	leases.down.Store(false)
	waitFor(t, "the whole history audited", func() bool { return len(e.stored(t)) == len(want) })
	same(t, e.stored(t), want)
	waitFor(t, "the pump caught up", func() bool {
		st := p.Status()
		return st.State == pump.StateRunning && *st.LagSeconds == 0
	})
	mu.Lock()
	if len(reports) != 2 || reports[1] != nil {
		t.Fatalf("reports after recovery: %v", reports)
	}
	mu.Unlock()
	stop()
	if st := p.Status(); st.State != pump.StateStopped {
		t.Fatalf("status after Run returned: %+v", st)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(errors.New("timed out waiting for " + what))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Wake cuts a retry's back-off short: a pump told to wait an hour before
// its next attempt tries again at once when woken (its store recovered).
func TestPumpWakeCutsBackoffShort(t *testing.T) {
	e, want, leases, p := stalledPump(t, time.Hour)
	run(t, p)
	waitFor(t, "a failed lease read", func() bool { return leases.reads.Load() >= 1 })
	leases.down.Store(false)
	p.Wake()
	waitFor(t, "the whole history audited", func() bool { return len(e.stored(t)) == len(want) })
	if n := leases.reads.Load(); n != 2 {
		t.Fatalf("%d lease reads, want the failed one and the one Wake brought forward", n)
	}
}
