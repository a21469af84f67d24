package store

import (
	"encoding/json"
	"strconv"

	"github.com/todoaudit/todo"
)

// Query is a specification: a small typed value that each store renders
// itself (parameterised SQL for Cosmos DB, evaluation for the embedded
// store). Field names come from code, never from callers; values are always
// passed as parameters.
type Query struct {
	// PartitionKey scopes the query: a full key reads one logical
	// partition, a prefix of a hierarchical key reads every partition under
	// it, and an empty key reads the whole container.
	PartitionKey PartitionKey
	Filters      []Filter
	// OrderBy is allowed only with a full partition key: the Cosmos gateway
	// cannot serve ORDER BY across partitions for this SDK. Without it the
	// order is the store's own: callers must not rely on it.
	OrderBy []Order
	// After, when set, keeps only the items that come after a position in
	// an order: keyset paging, which a caller merging several queries in
	// one order resumes from.
	After *Seek
	// PageSize is the maximum number of items in the page, 1 to MaxPageSize.
	PageSize int
	// Continuation resumes a previous page of the same query ("" = start).
	Continuation string
}

// MaxPageSize is the largest page a query may ask for.
const MaxPageSize = 1000

// MaxPageBytes bounds the documents of one query page, as Cosmos DB bounds
// a query response (at 4 MB): a page ends early, with a continuation, once
// its items reach it, so that a page of large documents is never a page of
// hundreds of megabytes. A page always holds at least one item.
const MaxPageBytes = 1 << 20

// CompareOp is a filter's comparison.
type CompareOp int

// The comparisons. As in Cosmos DB, a comparison with a missing property or a
// value of another type is false.
const (
	Eq CompareOp = iota + 1
	Ne
	Lt
	Le
	Gt
	Ge
	// IsDefined and NotDefined test for the presence of a property; they
	// ignore Value.
	IsDefined
	NotDefined
	// ContainsFold: a string property contains Value (a string), ignoring
	// case: CONTAINS(c.name, @v, true).
	ContainsFold
	// ArrayContains: an array property has Value as an element:
	// ARRAY_CONTAINS(c.name, @v).
	ArrayContains
)

// Filter is one condition on a top-level property. Value is a string, bool,
// int64 or float64.
type Filter struct {
	Field string
	Op    CompareOp
	Value any
}

// Order sorts by one top-level property.
type Order struct {
	Field string
	Desc  bool
}

// Seek is a position in an order: Order's property, then id, in Order's
// direction (ties are broken by id in the same direction). It assumes
// that the property holds values of one JSON type where it is defined;
// items without it come first in ascending order, as ORDER BY puts them.
type Seek struct {
	Order Order
	// Value is the property's value at the position as JSON (a string,
	// number or boolean); nil when it is undefined there.
	Value json.RawMessage
	ID    string
}

// IDPrefix is the filters of the items whose id starts with prefix: a
// range of ids, which an index answers, up to prefix with its last byte
// the next one. prefix must not be empty or end in byte 0xff.
func IDPrefix(prefix string) []Filter {
	end := string(append([]byte(prefix[:len(prefix)-1]), prefix[len(prefix)-1]+1))
	return []Filter{{Field: "id", Op: Ge, Value: prefix}, {Field: "id", Op: Lt, Value: end}}
}

// TieBroken returns the ORDER BY that lists items in o's order, ties
// broken by id: the order a Seek on o walks.
func TieBroken(o Order) []Order { return []Order{o, {Field: "id", Desc: o.Desc}} }

// Page is one page of query results.
type Page struct {
	Items []Item
	// Continuation fetches the next page; "" when this is the last one.
	Continuation string
}

// IsFieldName reports whether s can name a top-level property in a query
// or a partition key path: an ASCII letter or underscore, then up to 63
// letters, digits or underscores. Checked by hand: a regular expression
// compiled at start-up costs every process, used or not.
func IsFieldName(s string) bool {
	if s == "" || len(s) > 64 || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Check validates q for a container, so that both stores refuse the same
// queries the same way.
func (q *Query) Check(spec ContainerSpec) error {
	if len(q.PartitionKey) > len(spec.PartitionKeyPaths) {
		return todo.Errorf(todo.Invalid, "partition key %s has more components than the container's %d paths", q.PartitionKey, len(spec.PartitionKeyPaths))
	}
	if len(q.OrderBy) > 0 && len(q.PartitionKey) != len(spec.PartitionKeyPaths) {
		return todo.Errorf(todo.Invalid, "ORDER BY needs a full partition key: the gateway cannot serve it across partitions")
	}
	if q.PageSize < 1 || q.PageSize > MaxPageSize {
		return todo.Errorf(todo.Invalid, "page size must be between 1 and %d", MaxPageSize)
	}
	for _, f := range q.Filters {
		if !IsFieldName(f.Field) {
			return todo.Errorf(todo.Invalid, "invalid filter field %q", f.Field)
		}
		if f.Op < Eq || f.Op > ArrayContains {
			return todo.Errorf(todo.Invalid, "invalid filter operator %d", f.Op)
		}
		if _, ok := f.Value.(string); f.Op == ContainsFold && !ok {
			return todo.Errorf(todo.Invalid, "CONTAINS needs a string, not %T", f.Value)
		}
		if f.Op != IsDefined && f.Op != NotDefined {
			switch f.Value.(type) {
			case string, bool, int64, float64:
			default:
				return todo.Errorf(todo.Invalid, "invalid filter value of type %T", f.Value)
			}
		}
	}
	if err := q.After.Check(); err != nil {
		return err
	}
	if len(q.OrderBy) > 1 && !spec.Indexing.HasComposite(q.OrderBy) {
		return todo.Errorf(todo.Invalid, "ORDER BY %v: no composite index of container %s serves it", q.OrderBy, spec.Name)
	}
	for _, o := range q.OrderBy {
		if !IsFieldName(o.Field) {
			return todo.Errorf(todo.Invalid, "invalid order field %q", o.Field)
		}
		if !spec.Indexing.Indexes(o.Field) {
			return todo.Errorf(todo.Invalid, "ORDER BY %s: the path is excluded from container %s's indexing policy", o.Field, spec.Name)
		}
	}
	return nil
}

// Check validates a position; nil is none.
func (k *Seek) Check() error {
	if k == nil {
		return nil
	}
	if !IsFieldName(k.Order.Field) {
		return todo.Errorf(todo.Invalid, "invalid seek field %q", k.Order.Field)
	}
	if k.ID == "" {
		return todo.Errorf(todo.Invalid, "a seek needs the id of its position")
	}
	if k.Value == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(k.Value, &v); err != nil {
		return todo.Errorf(todo.Invalid, "seek value is not JSON")
	}
	switch v.(type) {
	case string, bool, float64:
		return nil
	}
	return todo.Errorf(todo.Invalid, "seek value must be a string, number or boolean")
}

// ScopeKind is how much of a container a call touched, cheapest first:
// Point read > single-partition query > prefix > fan-out > cross-partition.
type ScopeKind int

// The scope kinds.
const (
	ScopePoint ScopeKind = iota + 1
	ScopePartition
	ScopePrefix
	ScopeFanout
	ScopeCrossPartition
)

// Scope is a ScopeKind with the number of partitions of a fan-out.
type Scope struct {
	Kind   ScopeKind
	Fanout int
}

// Scopes used often.
var (
	Point          = Scope{Kind: ScopePoint}
	Partition      = Scope{Kind: ScopePartition}
	Prefix         = Scope{Kind: ScopePrefix}
	CrossPartition = Scope{Kind: ScopeCrossPartition}
)

// Fanout is the scope of n single-partition requests.
func Fanout(n int) Scope { return Scope{Kind: ScopeFanout, Fanout: n} }

// ScopeOf returns the scope a query with partition key pk has in a
// container with the given number of key paths.
func ScopeOf(pk PartitionKey, paths int) Scope {
	switch {
	case len(pk) == 0:
		return CrossPartition
	case len(pk) < paths:
		return Prefix
	default:
		return Partition
	}
}

// String is the scope as the API reports it in X-Query-Scope.
func (s Scope) String() string {
	switch s.Kind {
	case ScopePoint:
		return "point"
	case ScopePartition:
		return "partition"
	case ScopePrefix:
		return "prefix"
	case ScopeFanout:
		return "fanout(" + itoa(s.Fanout) + ")"
	case ScopeCrossPartition:
		return "cross-partition"
	}
	return "none"
}

// Cost is what one or more store calls cost.
type Cost struct {
	Scope Scope
	// Charge is in request units: measured by Cosmos DB, estimated by the
	// embedded store.
	Charge float64
	// Requests counts round trips to the store.
	Requests int
}

// Add accumulates o into c; the scope becomes the wider of the two.
func (c *Cost) Add(o Cost) {
	c.Charge += o.Charge
	c.Requests += o.Requests
	if o.Scope.Kind > c.Scope.Kind || (o.Scope.Kind == c.Scope.Kind && o.Scope.Fanout > c.Scope.Fanout) {
		c.Scope = o.Scope
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
