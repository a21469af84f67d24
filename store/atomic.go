package store

import (
	"context"
	"time"
)

// Upsert is one write of an atomic group: an unconditional upsert of one
// document into a logical partition of the named container or, made by
// Retire, the retirement of one item.
type Upsert struct {
	Container    string
	PartitionKey PartitionKey
	Doc          []byte
	// Retire is set, and Doc nil, in a retirement.
	Retire *Retirement
}

// Retirement names an item that has done its work: the outbox's version
// document of a version whose audit record the same group writes.
type Retirement struct {
	// ID and ETag are the item and the version of it that may go: a
	// retirement that finds the item gone or changed since does nothing,
	// so that it never undoes a write it did not see.
	ID, ETag string
	// Reserved is until when the item's id stays taken: until then a
	// create of the same id fails with Conflict, as if the item were
	// still there, while reads, queries and the change feed no longer see
	// it. Writers that decide from an earlier read that the id is free
	// (its version was not audited yet) then fail rather than write it
	// twice.
	Reserved time.Time
}

// Retire is the retirement of item id, at etag, from a logical partition
// of the named container, its id reserved until reserved.
func Retire(container string, pk PartitionKey, id, etag string, reserved time.Time) Upsert {
	return Upsert{Container: container, PartitionKey: pk, Retire: &Retirement{ID: id, ETag: etag, Reserved: reserved}}
}

// An Atomic container writes upserts into several logical partitions of
// several containers of its store in one transaction: all or nothing. The
// embedded store can (one bbolt transaction); Cosmos DB cannot (a
// transactional batch is one logical partition of one container).
// Decorators of an Atomic container pass UpsertAtomically on.
type Atomic interface {
	// UpsertAtomically writes ups in one transaction and reports true, or
	// writes nothing and reports false when the store cannot.
	UpsertAtomically(ctx context.Context, ups []Upsert) (ok bool, err error)
}

// UpsertAtomically writes ups in one transaction through c when its store
// can (ok); otherwise it writes nothing and returns false.
func UpsertAtomically(ctx context.Context, c Container, ups []Upsert) (ok bool, err error) {
	if a, is := c.(Atomic); is {
		return a.UpsertAtomically(ctx, ups)
	}
	return false, nil
}
