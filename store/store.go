// Package store defines the small document-store contract that the
// partitioned repository is built on, shaped after the Cosmos DB NoSQL API so
// that the azcosmos client implements it call for call (ReadItem, CreateItem,
// UpsertItem and ReplaceItem with IfMatchEtag, DeleteItem,
// ExecuteTransactionalBatch, NewQueryItemsPager, ReadChangeFeed) and the
// embedded bbolt store reproduces the same semantics on one machine.
//
// Every call charges what it cost, its Scope (how many logical partitions it
// touched) and its request charge in request units (RU), to the Meter its
// context carries.
package store

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// PartitionKey is a partition key value: one component for a single-path
// key, up to three for a hierarchical (MultiHash) key. A key with fewer
// components than the container has paths is a prefix, valid only in
// queries. An empty key in a query means every partition.
type PartitionKey []string

// String joins the components for logs and error messages.
func (pk PartitionKey) String() string { return "[" + strings.Join(pk, ", ") + "]" }

// Equal reports whether pk and o have the same components.
func (pk PartitionKey) Equal(o PartitionKey) bool {
	if len(pk) != len(o) {
		return false
	}
	for i := range pk {
		if pk[i] != o[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether p is a prefix of pk (or pk itself).
func (pk PartitionKey) HasPrefix(p PartitionKey) bool {
	return len(p) <= len(pk) && pk[:len(p)].Equal(p)
}

// ContainerSpec describes a container as it is provisioned.
type ContainerSpec struct {
	Name string
	// PartitionKeyPaths are the top-level properties that form the partition
	// key, e.g. ["/userId", "/category"]. More than one means MultiHash.
	PartitionKeyPaths []string
	// DefaultTTL is the container's default time to live in seconds: nil
	// disables TTL (per-item ttl is ignored), -1 enables per-item ttl with no
	// default expiry, n > 0 expires items n seconds after their last write.
	DefaultTTL *int
	// Indexing is what the container indexes; nil indexes every path, as
	// Cosmos DB does by default.
	Indexing *IndexingPolicy
	// Unfollowed says that nothing reads the container's change feed, nor
	// asks what was written since a time: Cosmos DB keeps a change feed
	// of every container all the same, but the embedded store then keeps
	// none, which every write would pay for, and serves its ChangeFeed
	// with an error.
	Unfollowed bool
}

// IndexingPolicy is a consistent indexing policy that includes only some
// top-level properties (range indexes on /name/?) and excludes every other
// path (/*). As in Cosmos DB, id and _ts are always indexed; a filter on a
// property that is not indexed still works but reads every document in the
// partitions the query visits, and ORDER BY on it is refused.
type IndexingPolicy struct {
	Paths []string // top-level property names, e.g. "userId"
	// Sorted lists the properties of Paths that queries ORDER BY. Cosmos
	// DB's range indexes serve ORDER BY on every included path; the
	// embedded store keeps a sorted index of these only, since every write
	// pays for each, and sorts for the others.
	Sorted []string
	// SortedWithin narrows the sorted index of a property of Sorted to
	// the logical partitions whose key (its first component) starts with
	// one of the prefixes it lists: those whose queries ORDER BY it. An
	// ORDER BY on it in another partition sorts that partition's matches,
	// as for a property not kept sorted. A sorted property it does not
	// name is kept sorted in every partition.
	SortedWithin map[string][]string
	// Arrays are array properties whose elements are indexed
	// (/name/[]/?), for ARRAY_CONTAINS.
	Arrays []string
	// Composite are the composite indexes: an ORDER BY on more than one
	// property needs one listing its properties in its order, or in the
	// reverse of every direction.
	Composite [][]Order
}

// HasComposite reports whether a composite index serves ORDER BY order.
func (p *IndexingPolicy) HasComposite(order []Order) bool {
	if p == nil {
		return false
	}
	for _, ci := range p.Composite {
		if len(ci) != len(order) {
			continue
		}
		same, reversed := true, true
		for i, o := range order {
			same = same && ci[i] == o
			reversed = reversed && ci[i] == Order{Field: o.Field, Desc: !o.Desc}
		}
		if same || reversed {
			return true
		}
	}
	return false
}

// SortedPaths returns the properties the embedded store keeps sorted;
// none for a nil policy.
func (p *IndexingPolicy) SortedPaths() []string {
	if p == nil {
		return nil
	}
	return p.Sorted
}

// Sorts reports whether the embedded store keeps a sorted index of field.
func (p *IndexingPolicy) Sorts(field string) bool { return slices.Contains(p.SortedPaths(), field) }

// SortsIn reports whether the embedded store keeps a sorted index of
// field in the logical partition whose key starts with the component
// first (see SortedWithin).
func (p *IndexingPolicy) SortsIn(field, first string) bool {
	if !p.Sorts(field) {
		return false
	}
	prefixes, narrowed := p.SortedWithin[field]
	return !narrowed || slices.ContainsFunc(prefixes, func(s string) bool { return strings.HasPrefix(first, s) })
}

// Indexes reports whether a query can use the index on a top-level
// property. A nil policy indexes everything.
func (p *IndexingPolicy) Indexes(field string) bool {
	if p == nil || field == "id" || field == "_ts" {
		return true
	}
	return slices.Contains(p.Paths, field) || slices.Contains(p.Arrays, field)
}

// Split separates the filters the index answers (a comparison or
// IS_DEFINED on an indexed property: a lookup finds the documents they
// match) from the rest (!=, NOT IS_DEFINED, unindexed properties), which are
// evaluated on the documents loaded. With no indexed filter a query loads
// every document of the partitions it visits.
func (p *IndexingPolicy) Split(filters []Filter) (indexed, rest []Filter) {
	for _, f := range filters {
		if f.Op != Ne && f.Op != NotDefined && p.Indexes(f.Field) {
			indexed = append(indexed, f)
		} else {
			rest = append(rest, f)
		}
	}
	return indexed, rest
}

// Item is a stored document with its system properties.
type Item struct {
	ID           string
	PartitionKey PartitionKey
	ETag         string
	// Body is the JSON document as stored, including _etag and _ts.
	Body []byte
}

// WriteOptions are the optional conditions of a write; nil means none.
type WriteOptions struct {
	// IfMatch makes the write fail with PreconditionFailed unless the item's
	// current ETag equals it.
	IfMatch string
}

// Store opens containers.
type Store interface {
	// Container returns the container with the given name. It fails with
	// NotFound when the container does not exist.
	Container(ctx context.Context, name string) (Container, error)
	// Ping checks that the store answers, for health checks.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Container is one container's data plane. Methods return *todo.Error values
// of kind NotFound, Conflict, PreconditionFailed, TooLarge, Invalid,
// Throttled or Unavailable where Cosmos DB would answer 404, 409, 412, 413,
// 400, 429 or 503.
type Container interface {
	// Spec describes the container.
	Spec() ContainerSpec
	// Read is a point read of one item by full partition key and id: the
	// cheapest operation there is. NotFound when absent or expired.
	Read(ctx context.Context, pk PartitionKey, id string) (Item, error)
	// Create inserts doc; Conflict when an item with its id exists in pk.
	Create(ctx context.Context, pk PartitionKey, doc []byte) (Item, error)
	// Upsert inserts or replaces doc. With IfMatch set it only replaces.
	Upsert(ctx context.Context, pk PartitionKey, doc []byte, o *WriteOptions) (Item, error)
	// Replace replaces an existing item; NotFound when absent.
	Replace(ctx context.Context, pk PartitionKey, doc []byte, o *WriteOptions) (Item, error)
	// Delete removes an item; NotFound when absent.
	Delete(ctx context.Context, pk PartitionKey, id string, o *WriteOptions) error
	// Batch runs up to MaxBatchOps operations in one logical partition, all
	// or nothing. On failure the error is a *BatchError naming the failing
	// operation and nothing was written.
	Batch(ctx context.Context, pk PartitionKey, ops []Op) ([]OpResult, error)
	// Query returns one page of the items that spec selects within
	// q.PartitionKey (full key, prefix, or empty for every partition).
	Query(ctx context.Context, q Query) (Page, error)
	// ChangeFeed returns up to max changed items after continuation ("" is
	// the beginning), fewer once they reach MaxPageBytes (at least one), in
	// latest-version mode: an item changed several times
	// since the continuation appears once, at its latest version; deletes
	// and expiries never appear; order is kept within a logical partition.
	// The returned continuation stays valid across restarts.
	ChangeFeed(ctx context.Context, continuation string, max int) (ChangeBatch, error)
}

// A Decoder takes the item of a point read for the length of one call: it
// must not keep the item's Body, or anything sharing its memory, after
// Decode returns, and must not call the store meanwhile (the embedded
// store holds a read transaction open during the call).
type Decoder interface {
	Decode(Item) error
}

// A Viewer is a Container that can lend a point read's item to a Decoder
// instead of copying its body out (the embedded store reads it in its
// memory map). Decorators of a Viewer pass View on.
type Viewer interface {
	View(ctx context.Context, pk PartitionKey, id string, d Decoder) error
}

// View point-reads an item of c into d: through c's View when c is a
// Viewer, else through Read. It returns Read's errors and d's.
func View(ctx context.Context, c Container, pk PartitionKey, id string, d Decoder) error {
	if v, ok := c.(Viewer); ok {
		return v.View(ctx, pk, id, d)
	}
	it, err := c.Read(ctx, pk, id)
	if err != nil {
		return err
	}
	return d.Decode(it)
}

// Cosmos DB limits a transactional batch to 100 operations and a 2 MB
// request.
const (
	MaxBatchOps   = 100
	MaxBatchBytes = 2 * 1024 * 1024
)

// OpKind is the kind of a batch operation.
type OpKind int

// Batch operation kinds.
const (
	BatchCreate OpKind = iota + 1
	BatchUpsert
	BatchReplace
	BatchDelete
	BatchRead
)

// Op is one operation of a transactional batch.
type Op struct {
	Kind    OpKind
	ID      string // for Delete and Read; taken from Doc otherwise
	Doc     []byte
	IfMatch string
}

// OpResult is the outcome of one batch operation.
type OpResult struct {
	StatusCode int // the Cosmos status: 200, 201, 204
	ETag       string
	Body       []byte // for Read
}

// BatchError reports which operation made a batch fail.
type BatchError struct {
	Index int // the failing operation
	Err   error
}

func (e *BatchError) Error() string { return "batch operation " + itoa(e.Index) + ": " + e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// ChangeBatch is one read of a change feed.
type ChangeBatch struct {
	Items []Item
	// Continuation resumes the feed after these items; it equals the input
	// continuation when there was nothing new.
	Continuation string
}

// ErrPartitionKeyChanged is wrapped by the error of a store's Open when an
// existing container's partition key paths differ from the ones asked for:
// the partition scheme changed since the containers were created. It is
// permanent.
var ErrPartitionKeyChanged = errors.New("a container's partition key differs from the one it was created with")

// permanentError marks an error no retry can fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// Permanent marks err, returned by a store's Open, as one that retrying
// cannot fix (a missing container, a partition key that differs, a corrupt
// file), so that start-up gives up at once instead of retrying until its
// deadline. nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err was marked by Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
