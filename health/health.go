// Package health tracks whether the handler can serve, for /api/health:
// starting until the store is open and every part that starts in the
// background has reported once, then ok, or degraded while any part of
// the handler reports a fault. Reading the state never waits for the
// store; a background probe and the store layer keep it current.
package health

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/backoff"
)

// State is the handler's condition as /api/health reports it.
type State string

// The states.
const (
	Starting State = "starting" // the store is not open yet, or a part has not started
	OK       State = "ok"
	Degraded State = "degraded" // open, but a part reports a fault
)

// Status is a snapshot of the handler's health.
type Status struct {
	State State
	// Cause names the faults of a degraded handler, or the parts a
	// starting one waits for once its store is open, in words safe to
	// show to any caller.
	Cause string
	Audit Audit
}

// Audit is how far the audit history is behind the todo container.
type Audit struct {
	// State is the standalone pump's (starting, running, retrying,
	// stopped), AuditHost or AuditOff.
	State string `json:"state"`
	// LagSeconds is the age of the oldest change not yet audited, 0 when
	// caught up, null when not known here.
	LagSeconds *float64 `json:"lagSeconds"`
}

// The audit states that are not the pump's.
const (
	// AuditHost: the Functions host runs AuditTrigger; its lag shows in the
	// host's own metrics, not here.
	AuditHost = "host"
	// AuditOff: standalone with the pump switched off.
	AuditOff = "off"
)

// StoreSource is the source name of the store's faults: the probe's and
// the store's own reports.
const StoreSource = "store"

// Monitor holds the health state. It is safe for concurrent use; none of
// its methods block on anything but its own lock.
type Monitor struct {
	log *slog.Logger

	mu       sync.Mutex
	open     bool
	faults   map[string]string // source → public cause
	starting map[string]string // source → what it is doing, until it reports
	audit    func() Audit
	onClear  func(source string)
}

// OnClear makes Report call f, outside the monitor's lock, each time the
// fault of a source clears: work held back by it (the audit pump's
// retries, after the store's) can resume at once.
func (m *Monitor) OnClear(f func(source string)) {
	m.mu.Lock()
	m.onClear = f
	m.mu.Unlock()
}

// WatchAudit makes Status report the audit state f returns; until it is
// called the audit is AuditOff. A fault that stalls the audit is reported
// separately, through Report.
func (m *Monitor) WatchAudit(f func() Audit) {
	m.mu.Lock()
	m.audit = f
	m.mu.Unlock()
}

// New returns a monitor in the Starting state. Fault transitions are
// logged to log: warn when a fault appears, info when it clears.
func New(log *slog.Logger) *Monitor {
	return &Monitor{log: log, faults: map[string]string{}, starting: map[string]string{}}
}

// Opened leaves the Starting state.
func (m *Monitor) Opened() {
	m.mu.Lock()
	m.open = true
	m.mu.Unlock()
}

// Starting marks source as not started yet (the identity provider while
// its first discovery runs): Status is Starting, naming cause, until
// source first reports.
func (m *Monitor) Starting(source, cause string) {
	m.mu.Lock()
	m.starting[source] = cause
	m.mu.Unlock()
}

// Report records the outcome of the latest operation of source (the store
// probe, the embedded store's writes, ...): a non-nil err marks source
// faulty with err's public message as the cause, nil clears its fault.
// Either way source has started.
func (m *Monitor) Report(source string, err error) {
	m.mu.Lock()
	delete(m.starting, source)
	old, had := m.faults[source]
	if err == nil {
		delete(m.faults, source)
	} else {
		m.faults[source] = todo.Message(err)
	}
	now, has := m.faults[source]
	onClear := m.onClear
	m.mu.Unlock()
	switch {
	case has && (!had || old != now):
		m.log.Warn("health: degraded", "source", source, "cause", now, "error", err.Error())
	case had && !has:
		m.log.Info("health: recovered", "source", source)
		if onClear != nil {
			onClear(source)
		}
	}
}

// faulty reports whether source has a fault.
func (m *Monitor) faulty(source string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.faults[source]
	return ok
}

// Status returns the current state. The audit state is read outside the
// monitor's lock: the pump reports to Report while holding its own.
func (m *Monitor) Status() Status {
	m.mu.Lock()
	watch := m.audit
	m.mu.Unlock()
	audit := Audit{State: AuditOff}
	if watch != nil {
		audit = watch()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.open {
		return Status{State: Starting, Audit: audit}
	}
	switch {
	case len(m.faults) > 0:
		return Status{State: Degraded, Cause: causes(m.faults), Audit: audit}
	case len(m.starting) > 0:
		return Status{State: Starting, Cause: causes(m.starting), Audit: audit}
	}
	return Status{State: OK, Audit: audit}
}

// causes joins the values of bySource in a stable order, the store's
// first: the others (the audit pump's) often follow from it.
func causes(bySource map[string]string) string {
	sources := make([]string, 0, len(bySource))
	for s := range bySource {
		sources = append(sources, s)
	}
	sort.Slice(sources, func(i, j int) bool {
		if (sources[i] == StoreSource) != (sources[j] == StoreSource) {
			return sources[i] == StoreSource
		}
		return sources[i] < sources[j]
	})
	list := make([]string, len(sources))
	for i, s := range sources {
		list[i] = bySource[s]
	}
	return strings.Join(list, "; ")
}

// Probe runs check every interval, each run under its own deadline of
// timeout, and reports each outcome as source, until ctx ends. While source
// is faulty (by this check or another report) it checks four times as
// often, so that health follows a recovery within a quarter of interval. A
// check that overruns its deadline counts as a fault even if it ignores the
// deadline.
func (m *Monitor) Probe(ctx context.Context, source string, interval, timeout time.Duration, check func(context.Context) error) {
	for {
		start := time.Now()
		err := runWithin(ctx, timeout, check)
		if ctx.Err() != nil {
			return
		}
		m.Report(source, err)
		every := interval
		if m.faulty(source) {
			every = interval / 4
		}
		if backoff.Sleep(ctx, every-time.Since(start)) != nil {
			return
		}
	}
}

// runWithin returns check's error, or a timeout error once timeout passes.
func runWithin(ctx context.Context, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- check(ctx) }()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil {
			return timeoutError(timeout, err)
		}
		return err
	case <-ctx.Done():
		return timeoutError(timeout, ctx.Err())
	}
}

func timeoutError(d time.Duration, cause error) error {
	return todo.Wrap(todo.Unavailable, cause, "the store did not answer within "+d.String())
}
