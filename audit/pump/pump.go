// Package pump is the standalone stand-in for the Functions host's Cosmos
// DB trigger: it feeds the embedded store's change feed to the handler's
// AuditTrigger endpoint exactly as the host would, and writes what it
// answers into the audit container.
package pump

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/health"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
)

// attrFeed names the container whose change feed the pump reads.
const attrFeed = "db.collection.name"

// Pump reads the todo container's change feed from its saved
// continuation, sends each batch to the handler's /AuditTrigger endpoint as
// the exact invocation the host sends, upserts the returned output binding
// value into the audit container, and only then saves the continuation. A
// failed batch is retried with AuditTrigger's retry policy; unlike the host,
// the pump never gives up on a batch, so it never loses one, and it never
// gives up on its checkpoint or the feed either: every error is logged and
// retried with backoff, and Status says so meanwhile.
type Pump struct {
	Feed   store.Container // the todo container
	Audit  store.Container
	Leases store.Container // holds the continuation
	// Endpoint is the handler's AuditTrigger URL.
	Endpoint string
	Client   *http.Client
	Log      *slog.Logger
	// Poll is the wait after an empty read of the feed.
	Poll time.Duration
	// Function, Input, Output, BatchSize and Delays come from
	// AuditTrigger's function.json (see New).
	Function      string
	Input, Output string
	BatchSize     int
	Delays        []time.Duration
	// Parallel is how many batches may be in delivery at once.
	Parallel int
	// Key is sent in azfunc.KeyHeader with every invocation: the handler
	// answers its invocation endpoints only to the holder of its key.
	Key string
	// Telemetry traces each batch's read, delivery and checkpoint and
	// records the backlog; nil records nothing.
	Telemetry *telemetry.Telemetry

	mon *monitor // follows Run for Status
}

// New returns a pump configured from AuditTrigger's function.json.
func New(feed, records, leases store.Container, endpoint string, log *slog.Logger) (*Pump, error) {
	f, err := functions.Get("AuditTrigger")
	if err != nil {
		return nil, err
	}
	in, _ := f.Trigger()
	out, ok := f.Output("cosmosDB")
	if !ok {
		return nil, fmt.Errorf("AuditTrigger/function.json has no cosmosDB output")
	}
	delays, err := f.Retry.Delays()
	if err != nil {
		return nil, fmt.Errorf("AuditTrigger/function.json retry: %w", err)
	}
	size := in.MaxItemsPerInvocation
	if size <= 0 {
		size = 100
	}
	return &Pump{
		Feed: feed, Audit: records, Leases: leases, Endpoint: endpoint,
		Client: &http.Client{Timeout: time.Minute}, Log: log, Poll: 20 * time.Millisecond,
		Function: f.Name, Input: in.Name, Output: out.Name, BatchSize: size, Delays: delays, Parallel: 4,
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

// flight is one batch being delivered.
type flight struct {
	cont      string    // the continuation after this batch
	oldest    time.Time // when its first change was written
	items     int
	read      trace.SpanContext // the span of the read that found it
	done      chan struct{}
	delivered bool // set before done is closed; false when ctx ended first
}

// finalSaveTimeout bounds the checkpoint saved on the way out, after the
// pump's own context has ended.
const finalSaveTimeout = 2 * time.Second

// pump reads the feed ahead and delivers up to Parallel batches at once,
// as the host runs one invocation per lease in parallel. Audit records are
// idempotent, so batches may land in any order; the continuation is saved
// only up to the oldest batch not yet delivered, so a restart never skips
// one. With untilIdle it returns once the feed is drained. Every error is
// logged and retried, so it only ends with ctx (or, for Drain, when the
// feed is drained).
func (p *Pump) pump(ctx context.Context, untilIdle bool, mon *monitor) {
	saved, ok := p.loadRetrying(ctx, mon)
	if !ok {
		return
	}
	read := saved
	parallel := max(p.Parallel, 1)
	var queue []*flight
	feedFailures := 0
	for ctx.Err() == nil {
		// Checkpoint after the batches delivered so far, in order.
		last := ""
		var delivered []trace.Link
		for len(queue) > 0 && isDone(queue[0].done) && queue[0].delivered {
			if queue[0].read.IsValid() {
				delivered = append(delivered, trace.Link{SpanContext: queue[0].read})
			}
			last, queue = queue[0].cont, queue[1:]
		}
		mon.update(func(m *monitor) {
			m.oldest = time.Time{}
			if len(queue) > 0 {
				m.oldest = queue[0].oldest
			}
		})
		if last != "" && last != saved {
			if err := p.checkpoint(ctx, last, delivered); err != nil {
				// Not fatal: the batches are delivered, and a later save or
				// a redelivery after a restart covers them.
				p.Log.Error("saving the change feed continuation failed", "error", err.Error())
			} else {
				saved = last
			}
		}
		p.Telemetry.Metrics().PumpBacklog(ctx, backlog(queue))
		if len(queue) >= parallel {
			p.wait(ctx, queue[0].done, time.Hour)
			continue
		}
		started := time.Now()
		batch, err := p.Feed.ChangeFeed(ctx, read, p.BatchSize)
		if ctx.Err() != nil {
			break
		}
		mon.read(err)
		readCtx := p.traceRead(ctx, started, len(batch.Items), err)
		if err != nil {
			feedFailures++
			delay := p.delay(feedFailures - 1)
			p.Log.Error("reading the change feed failed; retrying", "error", err.Error(), "attempt", feedFailures, "retryIn", delay.String())
			p.wait(ctx, nil, delay)
			continue
		}
		feedFailures = 0
		if batch.Continuation == read {
			switch {
			case len(queue) > 0:
				p.wait(ctx, queue[0].done, p.Poll)
			case untilIdle:
				return
			default:
				p.wait(ctx, nil, p.Poll)
			}
			continue
		}
		f := &flight{cont: batch.Continuation, oldest: commitTime(batch.Items, time.Now()), items: len(batch.Items), read: trace.SpanContextFromContext(readCtx), done: make(chan struct{})}
		queue = append(queue, f)
		read = batch.Continuation
		if len(batch.Items) == 0 {
			f.delivered = true
			close(f.done)
			continue
		}
		go func() {
			defer close(f.done)
			f.delivered = p.deliverRetrying(readCtx, batch.Items, mon)
		}()
	}
	p.saveFinal(ctx, saved, queue)
}

// saveFinal waits for the batches still in flight (they end with ctx) and
// saves the continuation after the last one delivered in order, with a
// deadline of its own since ctx has ended. Batches cut off are delivered
// again after a restart; audit records are idempotent.
func (p *Pump) saveFinal(ctx context.Context, saved string, queue []*flight) {
	last := saved
	for _, f := range queue {
		<-f.done
	}
	for _, f := range queue {
		if !f.delivered {
			break
		}
		last = f.cont
	}
	if last == saved {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalSaveTimeout)
	defer cancel()
	if err := p.save(ctx, last); err != nil {
		p.Log.Error("saving the final change feed continuation failed; the batches since the last save will be delivered again", "error", err.Error())
	}
}

// backlog counts the changes read but not yet checkpointed.
func backlog(queue []*flight) int {
	n := 0
	for _, f := range queue {
		n += f.items
	}
	return n
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

// checkpoint saves the continuation, in a span linked to the reads of the
// batches it covers.
func (p *Pump) checkpoint(ctx context.Context, cont string, delivered []trace.Link) error {
	ctx, span := p.Telemetry.Start(ctx, "audit.pump checkpoint", trace.WithLinks(delivered...))
	defer span.End()
	err := p.save(ctx, cont)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// wait blocks until c is closed, d passes or ctx ends.
func (p *Pump) wait(ctx context.Context, c chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-c:
	case <-t.C:
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
		p.wait(ctx, nil, delay)
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
func (p *Pump) deliverRetrying(ctx context.Context, items []store.Item, mon *monitor) bool {
	failed := false
	defer func() {
		if failed {
			mon.update(func(m *monitor) { m.failing-- })
		}
	}()
	for attempt := 0; ctx.Err() == nil; attempt++ {
		err := p.deliver(ctx, items)
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
		p.wait(ctx, nil, delay)
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

// deliver invokes AuditTrigger with one batch and applies its output, in
// a span the invocation continues, as it continues the host's.
func (p *Pump) deliver(ctx context.Context, items []store.Item) (err error) {
	ctx, span := p.Telemetry.Start(ctx, "audit.pump deliver", trace.WithAttributes(attribute.Int(audit.AttrDocuments, len(items))))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	docs := make([]json.RawMessage, len(items))
	for i, it := range items {
		docs[i] = it.Body
	}
	inv, err := azfunc.NewTriggerRequest(p.Function, p.Input, docs, time.Now(), uuid.NewString())
	if err != nil {
		return err
	}
	payload, err := json.Marshal(inv)
	if err != nil {
		return err
	}
	// Like the host: a chunked body of unknown length.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Endpoint, io.MultiReader(bytes.NewReader(payload)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set(azfunc.InvocationIDHeader, uuid.NewString())
	telemetry.Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	req.Header.Set("User-Agent", "todoaudit-pump (Azure-Functions-Host compatible)")
	if p.Key != "" {
		req.Header.Set(azfunc.KeyHeader, p.Key)
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := azfunc.DecodeResponse(resp)
	if err != nil {
		return err
	}
	return p.apply(ctx, out.Outputs[p.Output])
}

// apply upserts an output binding value (one object or an array of them),
// one transactional batch per audit partition.
func (p *Pump) apply(ctx context.Context, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var recs []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		recs = []json.RawMessage{raw}
	} else if err := json.Unmarshal(raw, &recs); err != nil {
		return fmt.Errorf("output %s is not an object or an array: %w", p.Output, err)
	}
	return audit.UpsertRecords(ctx, p.Audit, recs)
}
