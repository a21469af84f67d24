package partition

import (
	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Partition key paths of the containers other than the todo container, which
// every scheme shares.
var (
	// AuditKeyPaths partition the audit container by entity (owner
	// included), so one entity's history is one logical partition.
	AuditKeyPaths = []string{"/entityKey"}
	// LeaseKeyPaths is what the Cosmos DB trigger requires of its lease
	// container.
	LeaseKeyPaths = []string{"/id"}
)

// Scheme names.
const (
	Hierarchical = "hierarchical"
	Category     = "category"
	Synthetic    = "synthetic"
)

// Names lists the schemes, default first.
var Names = []string{Hierarchical, Category, Synthetic}

// Paths returns the todo container's partition key paths under a scheme:
// what provisioning (Bicep, or the emulator bootstrap) must create.
func Paths(scheme string) ([]string, error) {
	switch scheme {
	case Hierarchical:
		return []string{"/userId", "/category"}, nil
	case Category:
		return []string{"/category"}, nil
	case Synthetic:
		return []string{"/partitionKey"}, nil
	}
	return nil, todo.Errorf(todo.Invalid, "unknown partition scheme %q", scheme)
}

// Indexing policies: each container indexes only the top-level properties
// its queries filter and order on, so that writes do not pay for indexing
// the rest (notes, the audit snapshot). The infrastructure test derives the
// queried properties from the queries the handler runs and checks them
// against these and the Bicep; the embedded store refuses ORDER BY on
// anything else, as Cosmos DB does. The change feed and TTL need no indexed
// path: both work from _ts, which Cosmos DB always indexes, as it does id.
var (
	// TodoIndexing: lists filter on type, userId, category, isCompleted
	// and movingTo, on due dates, on tags (their elements) and on title
	// text, and sort by each of SortFields with id breaking ties (a
	// composite index each, which serves both directions); reconcile
	// filters version documents by type. The partition key paths of every
	// scheme are indexed too: queries scoped to a logical partition or a
	// hierarchical prefix look them up.
	TodoIndexing = &store.IndexingPolicy{
		Paths:     append([]string{"type", "userId", "category", "isCompleted", "movingTo", "partitionKey"}, SortFields...),
		Sorted:    SortFields,
		Arrays:    []string{"tags"},
		Composite: tieBroken(SortFields),
	}
	// AuditIndexing: history is one entity's records ordered by version;
	// verifying a moved todo's history looks a record up by its hash; dead
	// letters are listed newest first by at; activity pages are one user's
	// month newest first by at, filtered by actor, owner,
	// operation, category and entityId, the activity backfill finds the
	// records without an owner, and the retention purge those written
	// before its cutoff (dateCreatedUtc).
	// History reads, pages and verifies by version, dead letters and
	// activity by at: the embedded store keeps those two sorted, version
	// in the entities' partitions only and at in the activity pages' and
	// the dead letters'.
	AuditIndexing = &store.IndexingPolicy{
		Paths:  []string{"entityKey", "version", "hash", "at", "actor", "owner", "operation", "category", "entityId", "dateCreatedUtc"},
		Sorted: []string{"version", "at"},
		SortedWithin: map[string][]string{
			"version": {todo.EntityTypeTodo + "/"},
			"at":      {todo.ActivityPrefix, todo.DeadLetterKey},
		},
	}
	// LeaseIndexing is nil, every path: the Functions host owns the lease
	// documents and queries them as it needs.
	LeaseIndexing *store.IndexingPolicy
)

// SortFields are the properties lists sort by.
var SortFields = []string{"dueDate", "createdAt", "updatedAt", "title"}

// tieBroken returns a composite index for each field: the field, then id,
// ascending.
func tieBroken(fields []string) [][]store.Order {
	out := make([][]store.Order, len(fields))
	for i, f := range fields {
		out[i] = store.TieBroken(store.Order{Field: f})
	}
	return out
}

// ContainerNames names the todo, audit and leases containers.
type ContainerNames struct{ Todos, Audit, Leases string }

// DefaultContainerNames are the names used unless configured otherwise.
var DefaultContainerNames = ContainerNames{Todos: "todos", Audit: "audit", Leases: "leases"}

// Containers returns the specs of the todo, audit and leases containers,
// in that order, under a scheme: their partition keys, time to live (per
// item on the todo container, for retained versions) and indexing
// policies, as the handler opens them.
func Containers(scheme string, names ContainerNames) ([]store.ContainerSpec, error) {
	paths, err := Paths(scheme)
	if err != nil {
		return nil, err
	}
	perItem := -1
	return []store.ContainerSpec{
		{Name: names.Todos, PartitionKeyPaths: paths, DefaultTTL: &perItem, Indexing: TodoIndexing},
		{Name: names.Audit, PartitionKeyPaths: AuditKeyPaths, Indexing: AuditIndexing},
		// The Functions host and the log keep their documents here, read
		// by id: no one follows its changes.
		{Name: names.Leases, PartitionKeyPaths: LeaseKeyPaths, Indexing: LeaseIndexing, Unfollowed: true},
	}, nil
}
