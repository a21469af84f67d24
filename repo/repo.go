// Package repo is the partitioned repository, generic over entity types: a
// caller passes one id, the repository resolves the partition key from it
// and does a point read; queries are specifications run at the scope a
// partition scheme planned, with opaque continuation tokens that span
// fan-outs. What the calls cost is charged to the store.Meter of their
// context.
package repo

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/store"
)

// Repository reads and writes entities of type T in one container.
type Repository[T any] struct {
	c       store.Container
	resolve Resolver
	decoder jsondoc.Decoder[T]
}

// Resolver maps an id (and the caller carried by ctx) to the entity's
// partition key.
type Resolver func(ctx context.Context, id string) (store.PartitionKey, error)

// New returns the repository of entities of type T in c. resolve may be nil
// for a repository that only reads by known partition key and queries.
func New[T any](c store.Container, resolve Resolver) *Repository[T] {
	return &Repository[T]{c: c, resolve: resolve, decoder: jsondoc.DecoderFor[T]()}
}

// Doc is an entity with its ETag.
type Doc[T any] struct {
	Value T
	ETag  string
}

// Get point-reads the entity with the given id.
func (r *Repository[T]) Get(ctx context.Context, id string) (Doc[T], store.PartitionKey, error) {
	pk, err := r.resolve(ctx, id)
	if err != nil {
		return Doc[T]{}, nil, err
	}
	d, err := r.GetIn(ctx, pk, id)
	return d, pk, err
}

// GetIn point-reads an entity whose partition key is known.
func (r *Repository[T]) GetIn(ctx context.Context, pk store.PartitionKey, id string) (Doc[T], error) {
	rd := &reading[T]{r: r}
	err := store.View(ctx, r.c, pk, id, rd)
	return rd.doc, err
}

// reading is the store.Decoder of one point read.
type reading[T any] struct {
	r   *Repository[T]
	doc Doc[T]
}

func (rd *reading[T]) Decode(item store.Item) error { return rd.r.decode(item, &rd.doc) }

// Stored is a document as the store holds it, copied but not decoded or
// checked: the value of a repository whose reader decodes each document
// strictly itself (as the audit's readers do its records), so that no
// document is read twice.
type Stored []byte

// decode reads a stored document into d, keeping nothing of item.Body.
func (r *Repository[T]) decode(item store.Item, d *Doc[T]) error {
	d.ETag = item.ETag
	if v, ok := any(&d.Value).(*Stored); ok {
		*v = bytes.Clone(item.Body)
		return nil
	}
	if err := r.decoder.Unmarshal(item.Body, &d.Value); err != nil {
		return todo.Wrap(todo.Internal, err, "stored document does not decode")
	}
	return nil
}

// Spec is a query specification over one or more partitions.
type Spec struct {
	// Partitions lists what to read: one entry for a single scope (a full
	// key, a prefix, or nil for every partition), several full keys for a
	// fan-out, read in order.
	Partitions []store.PartitionKey
	Filters    []store.Filter
	OrderBy    []store.Order
	// Sort, when set, orders the whole result, across every partition,
	// by one property with id breaking ties (OrderBy must then be empty):
	// see querySorted.
	Sort *store.Order
	// After, with OrderBy of one property, starts after a position in
	// that order, as the index finds it (see store.Query.After).
	After    *store.Seek
	PageSize int
	// Continuation is the token of the previous page, as returned in
	// Page.Continuation; "" starts at the beginning.
	Continuation string
}

// Page is one page of entities.
type Page[T any] struct {
	Items        []Doc[T]
	Continuation string
}

// Query returns one page. A fan-out reads its partitions in order, moving to
// the next one in the same call until the page is full; the token records
// which partition to resume in, so no item is returned twice.
func (r *Repository[T]) Query(ctx context.Context, s Spec) (Page[T], error) {
	var page Page[T]
	if len(s.Partitions) == 0 {
		return page, todo.Errorf(todo.Invalid, "a query needs at least one partition")
	}
	if s.Sort != nil {
		return r.querySorted(ctx, s)
	}
	fp := fingerprint(s)
	tok, err := decodeToken(s.Continuation, fp, len(s.Partitions))
	if err != nil {
		return page, err
	}
	for i := tok.Partition; i < len(s.Partitions); i++ {
		want := s.PageSize - len(page.Items)
		p, err := r.c.Query(ctx, store.Query{
			PartitionKey: s.Partitions[i],
			Filters:      s.Filters,
			OrderBy:      s.OrderBy,
			After:        s.After,
			PageSize:     want,
			Continuation: tok.Store,
		})
		if err != nil {
			return page, err
		}
		for _, it := range p.Items {
			page.Items = append(page.Items, Doc[T]{})
			if err := r.decode(it, &page.Items[len(page.Items)-1]); err != nil {
				page.Items = page.Items[:len(page.Items)-1]
				return page, err
			}
		}
		tok.Store = ""
		if p.Continuation != "" {
			page.Continuation = encodeToken(token{Partition: i, Store: p.Continuation, Query: fp})
			break
		}
		if len(page.Items) >= s.PageSize {
			if i+1 < len(s.Partitions) {
				page.Continuation = encodeToken(token{Partition: i + 1, Query: fp})
			}
			break
		}
	}
	if len(s.Partitions) > 1 {
		store.Charge(ctx, store.Cost{Scope: store.Fanout(len(s.Partitions))})
	}
	return page, nil
}

// Batch runs ops in one logical partition, all or nothing.
func (r *Repository[T]) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) ([]store.OpResult, error) {
	return r.c.Batch(ctx, pk, ops)
}

// Remove deletes the entity id in pk, conditional on ifMatch ("" = none).
func (r *Repository[T]) Remove(ctx context.Context, pk store.PartitionKey, id, ifMatch string) error {
	return r.c.Delete(ctx, pk, id, &store.WriteOptions{IfMatch: ifMatch})
}

// Create builds a create operation.
func Create(v any) (store.Op, error) { return op(store.BatchCreate, v, "") }

// Replace builds a replace operation conditional on ifMatch ("" = none).
func Replace(v any, ifMatch string) (store.Op, error) { return op(store.BatchReplace, v, ifMatch) }

// Delete builds a delete operation conditional on ifMatch ("" = none).
func Delete(id, ifMatch string) store.Op {
	return store.Op{Kind: store.BatchDelete, ID: id, IfMatch: ifMatch}
}

func op(kind store.OpKind, v any, ifMatch string) (store.Op, error) {
	var b []byte
	var err error
	switch d := v.(type) { // the documents of every write encode themselves
	case todo.Todo:
		b, err = todo.MarshalJSON(d)
	case todo.Version:
		b, err = todo.MarshalJSON(d)
	default: // a type that embeds one of them has more to write
		b, err = json.Marshal(v)
	}
	if err != nil {
		return store.Op{}, todo.Wrap(todo.Internal, err, "encoding a document")
	}
	if len(b) > todo.MaxDocumentBytes {
		return store.Op{}, todo.Errorf(todo.TooLarge, "document is larger than %d bytes", todo.MaxDocumentBytes)
	}
	return store.Op{Kind: kind, Doc: b, IfMatch: ifMatch}, nil
}
