// Package storetrace is a store.Store decorator that makes every store call
// a client span, named and attributed as the Cosmos DB SDK names its own
// ("read_item todos", db.collection.name, db.operation.name,
// db.cosmosdb.request_charge), and records its request units as a metric
// by function and container. The embedded store gets its spans here; the
// Cosmos adapter's come from the SDK, so it is wrapped for the metric only.
package storetrace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
	"github.com/todoaudit/todo/telemetry"
)

// Span attribute names, shared with the Cosmos DB SDK's spans so that one
// query finds the request charge of either store.
const (
	AttrSystem        = "db.system"
	AttrNamespace     = "db.namespace"
	AttrCollection    = "db.collection.name"
	AttrOperation     = "db.operation.name"
	AttrRequestCharge = "db.cosmosdb.request_charge"
	AttrScope         = "todo.query_scope"
	AttrErrorType     = "error.type"
)

// Options say what to record.
type Options struct {
	// System and Namespace are the db.system and db.namespace attributes.
	System, Namespace string
	// Spans makes a span of every call; without it only request units
	// are recorded.
	Spans bool
}

// Wrap returns st with every container's calls recorded through t.
func Wrap(st store.Store, t *telemetry.Telemetry, o Options) store.Store {
	return &tracedStore{Store: st, t: t, o: o}
}

type tracedStore struct {
	store.Store
	t *telemetry.Telemetry
	o Options
}

func (s *tracedStore) Container(ctx context.Context, name string) (store.Container, error) {
	c, err := s.Store.Container(ctx, name)
	if err != nil {
		return nil, err
	}
	return &container{Container: c, t: s.t, o: s.o, name: name}, nil
}

type container struct {
	store.Container
	t    *telemetry.Telemetry
	o    Options
	name string
}

// call starts the span of one operation, with a meter of its own (which
// still charges the request's); done ends it with what the call cost and
// how it failed. Only calls made within a trace get a span, so background
// polling (the audit pump's empty reads) makes no traces.
func (c *container) call(ctx context.Context, op string) (context.Context, func(error)) {
	ctx, m := store.WithMeter(ctx)
	if !c.o.Spans || !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, func(error) { c.t.Metrics().RequestUnits(ctx, c.name, m.Cost().Charge) }
	}
	ctx, span := c.t.Start(ctx, op+" "+c.name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String(AttrSystem, c.o.System), attribute.String(AttrNamespace, c.o.Namespace),
		attribute.String(AttrCollection, c.name), attribute.String(AttrOperation, op)))
	return ctx, func(err error) {
		cost := m.Cost()
		c.t.Metrics().RequestUnits(ctx, c.name, cost.Charge)
		span.SetAttributes(attribute.Float64(AttrRequestCharge, cost.Charge))
		if cost.Scope.Kind != 0 {
			span.SetAttributes(attribute.String(AttrScope, cost.Scope.String()))
		}
		if err != nil {
			span.SetAttributes(attribute.String(AttrErrorType, todo.KindOf(err).String()))
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

func (c *container) Read(ctx context.Context, pk store.PartitionKey, id string) (store.Item, error) {
	ctx, done := c.call(ctx, "read_item")
	it, err := c.Container.Read(ctx, pk, id)
	done(err)
	return it, err
}

func (c *container) View(ctx context.Context, pk store.PartitionKey, id string, d store.Decoder) error {
	ctx, done := c.call(ctx, "read_item")
	err := store.View(ctx, c.Container, pk, id, d)
	done(err)
	return err
}

func (c *container) Create(ctx context.Context, pk store.PartitionKey, doc []byte) (store.Item, error) {
	ctx, done := c.call(ctx, "create_item")
	it, err := c.Container.Create(ctx, pk, doc)
	done(err)
	return it, err
}

func (c *container) Upsert(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	ctx, done := c.call(ctx, "upsert_item")
	it, err := c.Container.Upsert(ctx, pk, doc, o)
	done(err)
	return it, err
}

func (c *container) Replace(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (store.Item, error) {
	ctx, done := c.call(ctx, "replace_item")
	it, err := c.Container.Replace(ctx, pk, doc, o)
	done(err)
	return it, err
}

func (c *container) Delete(ctx context.Context, pk store.PartitionKey, id string, o *store.WriteOptions) error {
	ctx, done := c.call(ctx, "delete_item")
	err := c.Container.Delete(ctx, pk, id, o)
	done(err)
	return err
}

func (c *container) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	ctx, done := c.call(ctx, "execute_batch")
	res, err := c.Container.Batch(ctx, pk, ops)
	done(err)
	return res, err
}

func (c *container) Query(ctx context.Context, q store.Query) (store.Page, error) {
	ctx, done := c.call(ctx, "query_items")
	page, err := c.Container.Query(ctx, q)
	done(err)
	return page, err
}

// UpsertAtomically passes a transaction on, in a span of its own when the
// store beneath can make one (else it makes no span, as nothing happens).
func (c *container) UpsertAtomically(ctx context.Context, ups []store.Upsert) (bool, error) {
	if _, ok := c.Container.(store.Atomic); !ok {
		return false, nil
	}
	ctx, done := c.call(ctx, "execute_transaction")
	ok, err := store.UpsertAtomically(ctx, c.Container, ups)
	done(err)
	return ok, err
}

func (c *container) ChangeFeed(ctx context.Context, continuation string, max int) (store.ChangeBatch, error) {
	ctx, done := c.call(ctx, "read_change_feed")
	b, err := c.Container.ChangeFeed(ctx, continuation, max)
	done(err)
	return b, err
}
