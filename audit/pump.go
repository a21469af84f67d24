package audit

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

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/azfunc"
	"github.com/todoaudit/todo/functions"
	"github.com/todoaudit/todo/store"
)

// Pump is the standalone stand-in for the Functions host's Cosmos DB
// trigger: it reads the todo container's change feed from its saved
// continuation, sends each batch to the handler's /AuditTrigger endpoint as
// the exact invocation the host sends, upserts the returned output binding
// value into the audit container, and only then saves the continuation. A
// failed batch is retried with AuditTrigger's retry policy; unlike the host,
// the pump never gives up on a batch, so it never loses one.
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
	// AuditTrigger's function.json (see NewPump).
	Function      string
	Input, Output string
	BatchSize     int
	Delays        []time.Duration
}

// NewPump returns a pump configured from AuditTrigger's function.json.
func NewPump(feed, audit, leases store.Container, endpoint string, log *slog.Logger) (*Pump, error) {
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
		Feed: feed, Audit: audit, Leases: leases, Endpoint: endpoint,
		Client: &http.Client{Timeout: time.Minute}, Log: log, Poll: 20 * time.Millisecond,
		Function: f.Name, Input: in.Name, Output: out.Name, BatchSize: size, Delays: delays,
	}, nil
}

// lease is the pump's checkpoint document in the leases container.
type lease struct {
	ID           string `json:"id"`
	Continuation string `json:"continuation"`
}

func (p *Pump) leaseID() string { return "pump-" + p.Feed.Spec().Name }

// Run pumps until ctx is cancelled.
func (p *Pump) Run(ctx context.Context) error {
	cont, err := p.load(ctx)
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		next, n, err := p.step(ctx, cont)
		if err != nil {
			return err
		}
		cont = next
		if n == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(p.Poll):
			}
		}
	}
	return nil
}

// Drain processes every change up to now, for tests and shutdown.
func (p *Pump) Drain(ctx context.Context) error {
	cont, err := p.load(ctx)
	if err != nil {
		return err
	}
	for {
		next, n, err := p.step(ctx, cont)
		if err != nil || n == 0 {
			return err
		}
		cont = next
	}
}

func (p *Pump) load(ctx context.Context) (string, error) {
	item, _, err := p.Leases.Read(ctx, store.PartitionKey{p.leaseID()}, p.leaseID())
	if todo.IsKind(err, todo.NotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var l lease
	if err := json.Unmarshal(item.Body, &l); err != nil {
		return "", fmt.Errorf("pump lease: %w", err)
	}
	return l.Continuation, nil
}

// step reads one batch after cont, delivers it (retrying until it succeeds
// or ctx ends) and saves the new continuation. It returns an error only when
// ctx ends or the feed cannot be read.
func (p *Pump) step(ctx context.Context, cont string) (string, int, error) {
	batch, err := p.Feed.ChangeFeed(ctx, cont, p.BatchSize)
	if err != nil {
		if ctx.Err() != nil {
			return cont, 0, nil
		}
		return cont, 0, err
	}
	if batch.Continuation == cont {
		return cont, 0, nil
	}
	if len(batch.Items) > 0 {
		for attempt := 0; ; attempt++ {
			err := p.deliver(ctx, batch.Items)
			if err == nil {
				break
			}
			delay := p.delay(attempt)
			p.Log.Error("audit batch failed; retrying", "error", err.Error(), "attempt", attempt+1, "retryIn", delay.String())
			select {
			case <-ctx.Done():
				return cont, 0, nil
			case <-time.After(delay):
			}
		}
	}
	body, _ := json.Marshal(lease{ID: p.leaseID(), Continuation: batch.Continuation})
	if _, _, err := p.Leases.Upsert(ctx, store.PartitionKey{p.leaseID()}, body, nil); err != nil {
		if ctx.Err() != nil {
			return cont, 0, nil
		}
		return cont, 0, err
	}
	return batch.Continuation, len(batch.Items) + 1, nil
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

// deliver invokes AuditTrigger with one batch and applies its output.
func (p *Pump) deliver(ctx context.Context, items []store.Item) error {
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
	req.Header.Set("X-Azure-Functions-InvocationId", uuid.NewString())
	req.Header.Set("User-Agent", "todoaudit-pump (Azure-Functions-Host compatible)")
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
	return UpsertRecords(ctx, p.Audit, recs)
}

// UpsertRecords writes audit records (JSON objects with an entityKey), one
// transactional batch per partition, as the output binding would.
func UpsertRecords(ctx context.Context, audit store.Container, recs []json.RawMessage) error {
	byKey := map[string][]store.Op{}
	var order []string
	for _, r := range recs {
		var head struct {
			EntityKey string `json:"entityKey"`
		}
		if err := json.Unmarshal(r, &head); err != nil || head.EntityKey == "" {
			return fmt.Errorf("audit record without entityKey: %s", r)
		}
		if _, ok := byKey[head.EntityKey]; !ok {
			order = append(order, head.EntityKey)
		}
		byKey[head.EntityKey] = append(byKey[head.EntityKey], store.Op{Kind: store.OpUpsert, Doc: r})
	}
	for _, key := range order {
		ops := byKey[key]
		for len(ops) > 0 {
			n := min(len(ops), store.MaxBatchOps)
			if _, _, err := audit.Batch(ctx, store.PartitionKey{key}, ops[:n]); err != nil {
				return err
			}
			ops = ops[n:]
		}
	}
	return nil
}
