// Package pump is the standalone stand-in for the Functions host's Cosmos
// DB trigger: it reads the todo container's change feed, hands each batch
// to the trigger's core in-process (audit/trigger) and writes the records
// it returns into the audit container itself, with its checkpoint.
package pump

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/audit/trigger"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
)

// attrFeed names the container whose change feed the pump reads.
const attrFeed = "db.collection.name"

// DefaultMaxBytes bounds the documents of one batch the pump audits at
// once: about ten of the largest todo documents the API accepts.
const DefaultMaxBytes = 4 << 20

// DefaultBatchSize is how many documents the pump reads at once. It is not
// AuditTrigger's maxItemsPerInvocation: that bounds what the host sends
// through an invocation limited in bytes, and the pump sends nothing.
const DefaultBatchSize = 100

// Pump reads the todo container's change feed from its saved continuation,
// audits each batch with the trigger's core, and writes the records and
// the continuation after them: in one transaction where the store can
// (the embedded store), else the records first and the continuation after.
// Batches are bounded by count (BatchSize) and by bytes (MaxBytes, down to
// a single document), so no document however large holds up the others. A failed batch is retried with AuditTrigger's
// retry policy; unlike the host, the pump never gives up on a batch, so it
// never loses one, and it never gives up on its checkpoint or the feed
// either: every error is logged and retried with backoff, and Status says
// so meanwhile.
type Pump struct {
	Feed   store.Container // the todo container
	Audit  store.Container
	Leases store.Container // holds the continuation
	// Trigger is the AuditTrigger function whose core audits each batch.
	Trigger *trigger.Trigger
	Log     *slog.Logger
	// Poll is the wait after an empty read of the feed.
	Poll time.Duration
	// Changed, when set, returns a channel closed by the feed's store at
	// its next commit: after an empty read the pump waits for it (Poll at
	// most), so an idle pump reads nothing and a change is audited at once.
	Changed func() <-chan struct{}
	// BatchSize is how many documents one read of the feed asks for.
	BatchSize int
	// Delays, the waits between retries, come from AuditTrigger's
	// function.json (see New).
	Delays []time.Duration
	// MaxBytes bounds the documents of a batch audited at once; a read of
	// the feed that holds more is audited in parts, and the next read asks
	// for as many documents as fit.
	MaxBytes int
	// Telemetry traces each batch's read, delivery and checkpoint and
	// records the backlog; nil records nothing.
	Telemetry *telemetry.Telemetry
	// Reserve, when positive, has the pump retire each version document
	// in the transaction that writes its record, on a store that writes
	// both in one (the embedded store): the outbox has done its work, and
	// the document would otherwise stay for its TTL. Its id stays taken
	// for Reserve: longer than a request's store work may take, since a
	// write that creates a version decides its number from an audit read
	// earlier in the same request. Zero leaves version documents to their
	// TTL, the window in which reconciliation refills a lost record.
	Reserve time.Duration

	mon *monitor // follows Run for Status

	wakeMu sync.Mutex
	wake   chan struct{} // closed by Wake, replaced once a wait has seen it
}

// Wake cuts short every wait of the pump in progress, its retries' back-off
// included, or else its next one, so that it tries again at once: the
// store it failed on has recovered.
func (p *Pump) Wake() {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	c := p.wakeLocked()
	select {
	case <-c:
	default:
		close(c)
	}
}

// woken is closed by Wake; a Wake no wait has seen yet is seen by this one.
func (p *Pump) woken() <-chan struct{} {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	c := p.wakeLocked()
	select {
	case <-c:
		p.wake = make(chan struct{})
	default:
	}
	return c
}

func (p *Pump) wakeLocked() chan struct{} {
	if p.wake == nil {
		p.wake = make(chan struct{})
	}
	return p.wake
}

// New returns a pump that audits with trig and retries with the policy of
// AuditTrigger's function.json.
func New(feed, records, leases store.Container, trig *trigger.Trigger, log *slog.Logger) (*Pump, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return nil, err
	}
	delays, err := f.Retry.Delays()
	if err != nil {
		return nil, fmt.Errorf("AuditTrigger/function.json retry: %w", err)
	}
	return &Pump{
		Feed: feed, Audit: records, Leases: leases, Trigger: trig, Log: log, Poll: 20 * time.Millisecond,
		BatchSize: DefaultBatchSize, Delays: delays, MaxBytes: DefaultMaxBytes,
		mon: &monitor{lastRead: time.Now()},
	}, nil
}

func (p *Pump) leaseID() string { return "pump-" + p.Feed.Spec().Name }

// Run pumps until ctx is cancelled; Status follows it.
func (p *Pump) Run(ctx context.Context) {
	p.pump(ctx, false, p.mon)
	p.mon.update(func(m *monitor) { m.stopped = true })
}

// Drain processes every change up to now, for tests and shutdown. It
// returns early only when ctx ends.
func (p *Pump) Drain(ctx context.Context) { p.pump(ctx, true, nil) }

// Status reports how far behind Run is.
func (p *Pump) Status() health.Audit { return p.mon.status(time.Now()) }

// ReportTo makes the pump call report with an error while it cannot make
// progress and with nil once it does again, as health.Monitor.Report
// expects.
func (p *Pump) ReportTo(report func(error)) { p.mon.update(func(m *monitor) { m.report = report }) }

// pump reads the feed and delivers one batch at a time, each with the
// continuation after it. With untilIdle it returns once the feed is
// drained. Every error is logged and retried, so it only ends with ctx
// (or, for Drain, when the feed is drained).
func (p *Pump) pump(ctx context.Context, untilIdle bool, mon *monitor) {
	read, ok := p.loadRetrying(ctx, mon)
	if !ok {
		return
	}
	want := max(p.BatchSize, 1)
	feedFailures := 0
	for ctx.Err() == nil {
		var changed <-chan struct{} // taken before the read: a commit after it closes it
		if p.Changed != nil {
			changed = p.Changed()
		}
		started := time.Now()
		batch, err := p.Feed.ChangeFeed(ctx, read, want)
		if ctx.Err() != nil {
			return
		}
		mon.read(err)
		readCtx := p.traceRead(ctx, started, len(batch.Items), err)
		if err != nil {
			feedFailures++
			delay := p.delay(feedFailures - 1)
			p.Log.Error("reading the change feed failed; retrying", "error", err.Error(), "attempt", feedFailures, "retryIn", delay.String())
			p.wait(ctx, delay)
			continue
		}
		feedFailures = 0
		if batch.Continuation == read {
			if untilIdle {
				return
			}
			p.waitChange(ctx, changed, p.Poll)
			continue
		}
		want = p.nextSize(batch.Items)
		mon.update(func(m *monitor) { m.oldest = commitTime(batch.Items, time.Now()) })
		p.Telemetry.Metrics().PumpBacklog(ctx, len(batch.Items))
		if !p.deliverRetrying(readCtx, batch.Items, batch.Continuation, mon) {
			return
		}
		mon.update(func(m *monitor) { m.oldest = time.Time{} })
		p.Telemetry.Metrics().PumpBacklog(ctx, 0)
		read = batch.Continuation
	}
}

// nextSize is how many documents the next read asks for: the batch size,
// or as many as fit MaxBytes at the size of the documents just read.
func (p *Pump) nextSize(items []store.Item) int {
	size := max(p.BatchSize, 1)
	if len(items) == 0 || p.MaxBytes <= 0 {
		return size
	}
	total := 0
	for _, it := range items {
		total += len(it.Body)
	}
	return min(size, max(1, p.MaxBytes*len(items)/max(total, 1)))
}

// split cuts items into parts of at most maxBytes of documents each, and
// at least one document.
func split(items []store.Item, maxBytes int) [][]store.Item {
	var parts [][]store.Item
	for len(items) > 0 {
		n, size := 0, 0
		for n < len(items) {
			size += len(items[n].Body)
			if n > 0 && maxBytes > 0 && size > maxBytes {
				break
			}
			n++
		}
		parts = append(parts, items[:n])
		items = items[n:]
	}
	return parts
}

// traceRead makes a span of a read of the feed that found changes or
// failed, after the fact, so that idle polls make no traces; the batch's
// delivery continues its trace.
func (p *Pump) traceRead(ctx context.Context, started time.Time, items int, err error) context.Context {
	if !p.Telemetry.Tracing() || (items == 0 && err == nil) {
		return ctx
	}
	ctx, span := p.Telemetry.Start(ctx, "audit.pump read", trace.WithTimestamp(started),
		trace.WithAttributes(attribute.String(attrFeed, p.Feed.Spec().Name), attribute.Int(audit.AttrDocuments, items)))
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return ctx
}

// wait blocks until d passes, Wake is called or ctx ends.
func (p *Pump) wait(ctx context.Context, d time.Duration) { p.waitChange(ctx, nil, d) }

// waitChange blocks until changed is closed (never, when nil), d passes,
// Wake is called or ctx ends.
func (p *Pump) waitChange(ctx context.Context, changed <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-changed:
	case <-t.C:
	case <-p.woken():
	}
}

// loadRetrying reads the saved continuation, retrying with backoff until
// it succeeds (ok) or ctx ends.
func (p *Pump) loadRetrying(ctx context.Context, mon *monitor) (cont string, ok bool) {
	for attempt := 0; ; attempt++ {
		cont, err := store.LoadCheckpoint(ctx, p.Leases, p.leaseID())
		if ctx.Err() != nil {
			return "", false
		}
		mon.read(err)
		if err == nil {
			return cont, true
		}
		delay := p.delay(attempt)
		p.Log.Error("reading the audit pump's checkpoint failed; retrying", "error", err.Error(), "attempt", attempt+1, "retryIn", delay.String())
		p.wait(ctx, delay)
	}
}

// save records cont as the pump's checkpoint; an error caused by the end
// of ctx is not one.
func (p *Pump) save(ctx context.Context, cont string) error {
	err := store.SaveCheckpoint(ctx, p.Leases, p.leaseID(), cont)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// deliverRetrying delivers one batch, retrying with the policy's delays
// until it succeeds (true) or ctx ends: the pump never drops a batch.
func (p *Pump) deliverRetrying(ctx context.Context, items []store.Item, cont string, mon *monitor) bool {
	failed := false
	defer func() {
		if failed {
			mon.update(func(m *monitor) { m.failing-- })
		}
	}()
	for attempt := 0; ctx.Err() == nil; attempt++ {
		err := p.deliver(ctx, items, cont)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if !failed {
			failed = true
			mon.update(func(m *monitor) { m.failing++ })
		}
		delay := p.delay(attempt)
		p.Log.Error("audit batch failed; retrying", "error", err.Error(), "attempt", attempt+1, "retryIn", delay.String())
		p.wait(ctx, delay)
	}
	return false
}

// delay is the wait before retry attempt n: the policy's, then its last
// value for ever (the pump does not drop batches).
func (p *Pump) delay(n int) time.Duration {
	switch {
	case len(p.Delays) == 0:
		return time.Second
	case n < len(p.Delays):
		return p.Delays[n]
	}
	return p.Delays[len(p.Delays)-1]
}

// retirements adds to ups, the writes of part's records, the retirement
// of each version document whose record they hold (out.Recorded).
func (p *Pump) retirements(part []store.Item, out audit.Outcome, ups []store.Upsert) []store.Upsert {
	if p.Reserve <= 0 {
		return ups
	}
	feed := p.Feed.Spec().Name
	until := time.Now().Add(p.Reserve)
	for _, i := range out.Recorded {
		it := part[i]
		ups = append(ups, store.Retire(feed, it.PartitionKey, it.ID, it.ETag, until))
	}
	return ups
}

// deliver audits one batch with the trigger's core and writes its records
// and then the continuation after it, in a span the trigger's continues.
// A batch over MaxBytes is audited in parts; the continuation goes with
// the last. Audit records are idempotent, so a part written before a
// failure is written again, unchanged, on the retry. Where the store
// writes atomically, a part's records, the retirement of its version
// documents and, with the last, the continuation are one transaction.
func (p *Pump) deliver(ctx context.Context, items []store.Item, cont string) (err error) {
	ctx, span := p.Telemetry.Start(ctx, "audit.pump deliver", trace.WithAttributes(attribute.Int(audit.AttrDocuments, len(items))))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	parts := split(items, p.MaxBytes)
	if len(parts) == 0 {
		return p.save(ctx, cont)
	}
	for i, part := range parts {
		docs := make([]json.RawMessage, len(part))
		for j, it := range part {
			docs[j] = it.Body
		}
		out := p.Trigger.Audit(ctx, docs)
		ups, err := out.Upserts(p.Audit.Spec().Name)
		if err != nil {
			return err
		}
		last := i == len(parts)-1
		group := p.retirements(part, out, ups)
		if last {
			cp, err := store.CheckpointUpsert(p.Leases.Spec().Name, p.leaseID(), cont)
			if err != nil {
				return err
			}
			group = append(group, cp)
		}
		if ok, err := store.UpsertAtomically(ctx, p.Audit, group); ok {
			if err != nil || last {
				return err
			}
			continue
		}
		if err := audit.UpsertEach(ctx, p.Audit, ups); err != nil {
			return err
		}
		if last {
			return p.save(ctx, cont)
		}
	}
	return nil
}
