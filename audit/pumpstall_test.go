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

// The pump survives a failing first read of its checkpoint: it retries
// with backoff, reports that it cannot make progress meanwhile, and
// audits everything once the store answers again.
func TestPumpSurvivesFailingLeaseRead(t *testing.T) {
	e := newEnv(t)
	want := e.writeHistory(t)
	leases := &downLeases{Container: e.leases}
	leases.down.Store(true)
	p := e.newPump(t, e.audit, leases)
	p.Delays = []time.Duration{5 * time.Millisecond, 20 * time.Millisecond}
	var mu sync.Mutex
	var reports []error
	p.ReportTo(func(err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
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
	cancel()
	<-done
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
