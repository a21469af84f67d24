package health

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/todoaudit/todo"
)

func newMonitor() *Monitor { return New(slog.New(slog.NewTextHandler(io.Discard, nil))) }

// Starting until opened; then ok, degraded with every cause (the store's
// first) while any source reports a fault, ok again once each has cleared.
func TestStates(t *testing.T) {
	m := newMonitor()
	m.Report("store", errors.New("early"))
	if st := m.Status(); st.State != Starting {
		t.Fatalf("before Opened: %+v", st)
	}
	m.Opened()
	if st := m.Status(); st.State != Degraded {
		t.Fatalf("a fault reported while starting is forgotten: %+v", st)
	}
	m.Report("store", nil)
	if st := m.Status(); st.State != OK || st.Cause != "" {
		t.Fatalf("after the fault cleared: %+v", st)
	}
	m.Report("store", todo.Errorf(todo.Unavailable, "the store did not answer"))
	m.Report("disk", todo.Errorf(todo.Unavailable, "no space left"))
	if st := m.Status(); st.State != Degraded || st.Cause != "the store did not answer; no space left" {
		t.Fatalf("two faults: %+v", st)
	}
	m.Report("disk", nil)
	if st := m.Status(); st.State != Degraded || st.Cause != "the store did not answer" {
		t.Fatalf("one fault left: %+v", st)
	}
	// An internal error's detail is never shown.
	m.Report("store", errors.New("dial tcp 10.0.0.1:443: secret detail"))
	if st := m.Status(); st.Cause != todo.Message(errors.New("x")) {
		t.Fatalf("internal cause shown: %+v", st)
	}
}

// A part that starts in the background keeps the handler starting, naming
// it, once the store is open, until its first report; a fault outranks it.
func TestStartingPart(t *testing.T) {
	m := newMonitor()
	m.Starting("identity provider", "the identity provider is being discovered")
	m.Opened()
	if st := m.Status(); st.State != Starting || st.Cause != "the identity provider is being discovered" {
		t.Fatalf("while a part starts: %+v", st)
	}
	m.Report("store", todo.Errorf(todo.Unavailable, "the store did not answer"))
	if st := m.Status(); st.State != Degraded || st.Cause != "the store did not answer" {
		t.Fatalf("a fault while a part starts: %+v", st)
	}
	m.Report("store", nil)
	m.Report("identity provider", todo.Errorf(todo.Unavailable, "no keys"))
	if st := m.Status(); st.State != Degraded || st.Cause != "no keys" {
		t.Fatalf("the part's first report is a fault: %+v", st)
	}
	m.Report("identity provider", nil)
	if st := m.Status(); st.State != OK {
		t.Fatalf("once the part has started: %+v", st)
	}
}

// A probe whose check hangs past its deadline (even one that ignores its
// context) reports the store degraded, and ok again once the check answers;
// Status never waits for the check.
func TestProbeStallAndRecovery(t *testing.T) {
	m := newMonitor()
	m.Opened()
	var stalled atomic.Bool
	release := make(chan struct{})
	check := func(ctx context.Context) error {
		if stalled.Load() {
			<-release // ignores ctx, as a stuck call might
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Probe(ctx, "store", 10*time.Millisecond, 50*time.Millisecond, check)
	}()
	waitFor := func(want State) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for m.Status().State != want {
			if time.Now().After(deadline) {
				t.Fatalf("state %+v, want %s", m.Status(), want)
			}
			start := time.Now()
			_ = m.Status()
			if d := time.Since(start); d > 10*time.Millisecond {
				t.Fatalf("Status took %v", d)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(OK)
	stalled.Store(true)
	waitFor(Degraded)
	if c := m.Status().Cause; c != "the store did not answer within 50ms" {
		t.Fatalf("cause %q", c)
	}
	stalled.Store(false)
	close(release)
	waitFor(OK)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Probe did not end with its context")
	}
}

// OnClear hears each source whose fault clears, once; Status may be read
// by the audit function itself reporting (the pump reports while holding
// the lock its status takes).
func TestOnClearAndReentrantAudit(t *testing.T) {
	m := newMonitor()
	m.Opened()
	var cleared []string
	m.OnClear(func(source string) { cleared = append(cleared, source) })
	m.WatchAudit(func() Audit {
		m.Report("audit", nil)
		return Audit{State: "running"}
	})
	m.Report(StoreSource, errors.New("full"))
	m.Report(StoreSource, errors.New("full"))
	m.Report(StoreSource, nil)
	m.Report(StoreSource, nil)
	if st := m.Status(); st.State != OK || st.Audit.State != "running" {
		t.Fatalf("status %+v", st)
	}
	if len(cleared) != 1 || cleared[0] != StoreSource {
		t.Fatalf("cleared %v", cleared)
	}
}

// While its source is faulty a probe checks four times as often, so that
// health follows the recovery soon.
func TestProbeChecksOftenerWhileFaulty(t *testing.T) {
	m := newMonitor()
	m.Opened()
	calls := make(chan time.Time, 10)
	var n atomic.Int32
	check := func(context.Context) error {
		calls <- time.Now()
		if n.Add(1) == 1 {
			return errors.New("down")
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Probe(ctx, StoreSource, 800*time.Millisecond, time.Second, check)
	first, second := <-calls, <-calls
	if d := second.Sub(first); d > 600*time.Millisecond {
		t.Fatalf("re-checked a faulty source after %v, want about 200ms", d)
	}
}
