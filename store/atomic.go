package store

import "context"

// Upsert is an unconditional upsert of one document into a logical
// partition of the named container.
type Upsert struct {
	Container    string
	PartitionKey PartitionKey
	Doc          []byte
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
