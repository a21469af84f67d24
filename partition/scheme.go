// Package partition holds the three partition schemes of the todo container
// (a category key, a hierarchical user/category key, a sequence/modulo
// synthetic key): how a new todo gets its id and partition
// key, how an id plus the caller resolves to a partition key for a point
// read, and which partitions each list query must touch. The schemes are
// the single source of truth for how a document maps to a partition.
package partition

import (
	"context"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// Scheme maps todos to partitions.
type Scheme interface {
	// Name is the PARTITION_SCHEME value.
	Name() string
	// Paths are the todo container's partition key paths.
	Paths() []string
	// NewKey allocates the id and partition key of a new todo of user in
	// category. Only the synthetic scheme touches the store to do so.
	NewKey(ctx context.Context, user, category string) (Key, error)
	// DerivedKey is the id and partition key of the new todo of user in
	// category that seed (an idempotency key) names: the same seed always
	// gives the same key, without touching the store, so that a retried
	// create lands on the same id.
	DerivedKey(user, category, seed string) Key
	// Resolve returns the partition key of the todo id owned by user: one id
	// gives a point read. Invalid when the id is malformed.
	Resolve(user, id string) (store.PartitionKey, error)
	// KeyOf returns the partition key of a todo from its own properties.
	KeyOf(t *todo.Todo) store.PartitionKey
	// List plans the query for user's todos, optionally of one category.
	List(user string, category *string) Plan
	// Admin plans the cross-user report, optionally of one category.
	Admin(category *string) Plan
	// KeysOnCategory reports whether the category is part of the id and
	// partition key, so that changing it is a move to a new id.
	KeysOnCategory() bool
}

// Key is where a new todo goes.
type Key struct {
	ID           string
	PartitionKey store.PartitionKey
	// Property is the value of the synthetic partitionKey property, "" for
	// schemes that key on existing properties.
	Property string
}

// Plan is the cheapest way a scheme can answer a list query: the partitions
// to read (one full key, one prefix, nil for every partition, or several
// full keys for a fan-out) and the filters that keep it to the caller.
type Plan struct {
	Partitions []store.PartitionKey
	Filters    []store.Filter
	Scope      store.Scope
}

// Sequencer hands out a user's sequence numbers, starting at 0, from a
// counter kept in the single-component partition pk.
type Sequencer interface {
	Next(ctx context.Context, user string, pk store.PartitionKey) (int64, error)
}

// DefaultBuckets is how many logical partitions the synthetic scheme
// spreads one user over unless told otherwise.
const DefaultBuckets = 8

// Check validates a scheme name and, for the synthetic scheme, its number
// of buckets.
func Check(name string, buckets int) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if name == Synthetic {
		return CheckBuckets(buckets)
	}
	return nil
}

// CheckName validates a scheme name.
func CheckName(name string) error {
	if !slices.Contains(Names, name) {
		return todo.Errorf(todo.Invalid, "unknown partition scheme %q: use %s", name, strings.Join(Names, ", "))
	}
	return nil
}

// CheckBuckets validates the synthetic scheme's number of buckets: 1 to 100.
func CheckBuckets(n int) error {
	if n < 1 || n > 100 {
		return todo.Errorf(todo.Invalid, "synthetic buckets must be 1 to 100, not %d", n)
	}
	return nil
}

// New returns the named scheme. The synthetic scheme takes its buckets from
// seq, which may be nil where no todo is created (the analyzer).
func New(name string, buckets int, seq Sequencer) (Scheme, error) {
	if err := Check(name, buckets); err != nil {
		return nil, err
	}
	switch name {
	case Hierarchical:
		return hierarchical{}, nil
	case Category:
		return category{}, nil
	}
	return &synthetic{buckets: buckets, seq: seq}, nil
}

func typeFilter() store.Filter {
	return store.Filter{Field: "type", Op: store.Eq, Value: todo.TypeTodo}
}

func userFilter(user string) store.Filter {
	return store.Filter{Field: "userId", Op: store.Eq, Value: user}
}

func categoryFilter(c string) store.Filter {
	return store.Filter{Field: "category", Op: store.Eq, Value: c}
}

// newUUID is the random part of every id.
func newUUID() string { return uuid.NewString() }

// splitID checks the caller and splits "{head}:{uuid}" at its last colon,
// checking both parts.
func splitID(user, id string) (string, error) {
	if err := todo.ValidateUserID(user); err != nil {
		return "", err
	}
	if err := todo.ValidateID(id); err != nil {
		return "", err
	}
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return "", todo.Errorf(todo.Invalid, "id %q is not of the form prefix:uuid", id)
	}
	if !isLowerUUID(id[i+1:]) {
		return "", todo.Errorf(todo.Invalid, "id %q does not end in a lower-case UUID", id)
	}
	return id[:i], nil
}

// isLowerUUID reports whether s is a UUID in its canonical lower-case
// form, the only form newUUID writes.
func isLowerUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}

// categoryID is the id of the two schemes that embed the category.
func categoryID(category string) string { return category + ":" + newUUID() }

// derivedNamespace is the UUID namespace of derived ids.
var derivedNamespace = uuid.MustParse("0b6f1f5e-3c1d-4f7a-9a55-6d0e2b8c4a11")

// derivedUUID is the name-based (SHA-1) UUID of user's seed: the random
// part of a derived id, in the canonical lower-case form newUUID writes.
func derivedUUID(user, seed string) uuid.UUID {
	return uuid.NewSHA1(derivedNamespace, []byte(user+"\x00"+seed))
}

// categoryOf parses a category-embedding id.
func categoryOf(user, id string) (string, error) {
	c, err := splitID(user, id)
	if err != nil {
		return "", err
	}
	if err := todo.ValidateCategory(c); err != nil {
		return "", err
	}
	return c, nil
}

// hierarchical keys on [userId, category]: a category is one
// logical partition, a user is a prefix.
type hierarchical struct{}

func (hierarchical) Name() string         { return Hierarchical }
func (hierarchical) Paths() []string      { p, _ := Paths(Hierarchical); return p }
func (hierarchical) KeysOnCategory() bool { return true }

func (hierarchical) NewKey(_ context.Context, user, category string) (Key, error) {
	return Key{ID: categoryID(category), PartitionKey: store.PartitionKey{user, category}}, nil
}

func (hierarchical) DerivedKey(user, category, seed string) Key {
	return Key{ID: category + ":" + derivedUUID(user, seed).String(), PartitionKey: store.PartitionKey{user, category}}
}

func (hierarchical) Resolve(user, id string) (store.PartitionKey, error) {
	c, err := categoryOf(user, id)
	if err != nil {
		return nil, err
	}
	return store.PartitionKey{user, c}, nil
}

func (hierarchical) KeyOf(t *todo.Todo) store.PartitionKey {
	return store.PartitionKey{t.UserID, t.Category}
}

func (hierarchical) List(user string, category *string) Plan {
	f := []store.Filter{typeFilter(), userFilter(user)}
	if category != nil {
		return Plan{Partitions: []store.PartitionKey{{user, *category}}, Filters: f, Scope: store.Partition}
	}
	return Plan{Partitions: []store.PartitionKey{{user}}, Filters: f, Scope: store.Prefix}
}

func (hierarchical) Admin(category *string) Plan {
	f := []store.Filter{typeFilter()}
	if category != nil {
		f = append(f, categoryFilter(*category))
	}
	return Plan{Partitions: []store.PartitionKey{nil}, Filters: f, Scope: store.CrossPartition}
}

// category keys on /category alone: every user's
// todos of one category share a logical partition, filtered by userId.
type category struct{}

func (category) Name() string         { return Category }
func (category) Paths() []string      { p, _ := Paths(Category); return p }
func (category) KeysOnCategory() bool { return true }

func (category) NewKey(_ context.Context, _, c string) (Key, error) {
	return Key{ID: categoryID(c), PartitionKey: store.PartitionKey{c}}, nil
}

func (category) DerivedKey(user, c, seed string) Key {
	return Key{ID: c + ":" + derivedUUID(user, seed).String(), PartitionKey: store.PartitionKey{c}}
}

func (category) Resolve(user, id string) (store.PartitionKey, error) {
	c, err := categoryOf(user, id)
	if err != nil {
		return nil, err
	}
	return store.PartitionKey{c}, nil
}

func (category) KeyOf(t *todo.Todo) store.PartitionKey { return store.PartitionKey{t.Category} }

func (category) List(user string, c *string) Plan {
	f := []store.Filter{typeFilter(), userFilter(user)}
	if c != nil {
		return Plan{Partitions: []store.PartitionKey{{*c}}, Filters: f, Scope: store.Partition}
	}
	return Plan{Partitions: []store.PartitionKey{nil}, Filters: f, Scope: store.CrossPartition}
}

func (category) Admin(c *string) Plan {
	f := []store.Filter{typeFilter()}
	if c != nil {
		return Plan{Partitions: []store.PartitionKey{{*c}}, Filters: f, Scope: store.Partition}
	}
	return Plan{Partitions: []store.PartitionKey{nil}, Filters: f, Scope: store.CrossPartition}
}

// synthetic keys on partitionKey = "{userId}-{n}", n = sequence mod
// buckets from a per-user sequence kept in the user's bucket 0: one user's
// writes spread over a bounded number of logical partitions.
type synthetic struct {
	buckets int
	seq     Sequencer
}

func (*synthetic) Name() string         { return Synthetic }
func (*synthetic) Paths() []string      { p, _ := Paths(Synthetic); return p }
func (*synthetic) KeysOnCategory() bool { return false }

// Bucket returns the synthetic partition key value of bucket n of user.
func Bucket(user string, n int) string { return user + "-" + strconv.Itoa(n) }

func (s *synthetic) NewKey(ctx context.Context, user, _ string) (Key, error) {
	seq, err := s.seq.Next(ctx, user, store.PartitionKey{Bucket(user, 0)})
	if err != nil {
		return Key{}, err
	}
	n := int(seq % int64(s.buckets))
	p := Bucket(user, n)
	return Key{ID: strconv.Itoa(n) + ":" + newUUID(), PartitionKey: store.PartitionKey{p}, Property: p}, nil
}

// DerivedKey takes the bucket from the derived UUID instead of the
// sequence, which would need a write.
func (s *synthetic) DerivedKey(user, _, seed string) Key {
	u := derivedUUID(user, seed)
	n := int(binary.BigEndian.Uint32(u[:4]) % uint32(s.buckets))
	p := Bucket(user, n)
	return Key{ID: strconv.Itoa(n) + ":" + u.String(), PartitionKey: store.PartitionKey{p}, Property: p}
}

func (s *synthetic) Resolve(user, id string) (store.PartitionKey, error) {
	head, err := splitID(user, id)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(head)
	if err != nil || n < 0 || n >= s.buckets || strconv.Itoa(n) != head {
		return nil, todo.Errorf(todo.Invalid, "id %q does not start with a bucket from 0 to %d", id, s.buckets-1)
	}
	return store.PartitionKey{Bucket(user, n)}, nil
}

func (*synthetic) KeyOf(t *todo.Todo) store.PartitionKey { return store.PartitionKey{t.PartitionKey} }

func (s *synthetic) List(user string, c *string) Plan {
	f := []store.Filter{typeFilter(), userFilter(user)}
	if c != nil {
		f = append(f, categoryFilter(*c))
	}
	parts := make([]store.PartitionKey, s.buckets)
	for n := range parts {
		parts[n] = store.PartitionKey{Bucket(user, n)}
	}
	return Plan{Partitions: parts, Filters: f, Scope: store.Fanout(s.buckets)}
}

func (s *synthetic) Admin(c *string) Plan {
	f := []store.Filter{typeFilter()}
	if c != nil {
		f = append(f, categoryFilter(*c))
	}
	return Plan{Partitions: []store.PartitionKey{nil}, Filters: f, Scope: store.CrossPartition}
}
