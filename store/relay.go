package store

import (
	"context"
	"time"
)

// A Relay carries what a transactional batch writes on to where it is
// going, inside the batch's own transaction, for a store that can write
// both in one (the embedded store): the audit turns the version
// documents a write creates (the outbox) into their audit records, so
// that the write and its audit commit together rather than in two
// commits. A store that cannot leaves the outbox to its change feed.
type Relay interface {
	// Relay returns the writes that follow from ops, a batch about to be
	// written into the logical partition pk of the relaying container,
	// or false when the batch is left to the change feed's reader. It is
	// called before the batch commits, with the documents as sent; its
	// writes are written only if the batch's are, and a failure to write
	// them fails the batch.
	Relay(ctx context.Context, pk PartitionKey, ops []Op) (Relayed, bool)
}

// Relayed is what a Relay adds to a batch's transaction.
type Relayed struct {
	// Upserts are written after the batch's own operations, into any
	// containers of the store.
	Upserts []Upsert
	// Retire are the batch's operations, by index, whose documents have
	// done their work once Upserts are written: each is retired (see
	// Retirement) in the same transaction, its id taken until Reserved,
	// so that no read, query or change feed ever sees it. A retired
	// create is then never stored at all; its result has no ETag.
	Retire   []int
	Reserved time.Time
}

// A Relaying store runs a Relay in the transaction of each batch written
// into a container. RelayBatches installs r for the named container (nil
// removes it); it is meant for start-up, before writes.
type Relaying interface {
	RelayBatches(container string, r Relay) error
}
