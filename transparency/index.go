package transparency

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// KeySet keeps small binary values by key beside a store's containers, its
// writes committed with documents of theirs in one transaction: the
// embedded store's (bolt.KeySet). Where the store has one, the log keeps
// its leaves' indices in it (LeafIndexSet), about 40 bytes a version where
// an index document costs some 300 in keys, bookkeeping and JSON.
type KeySet interface {
	// Get returns the value of each key, nil for one the set lacks.
	Get(ctx context.Context, keys [][]byte) ([][]byte, error)
	// Put sets keys[i] to values[i] and upserts ups, all in one commit.
	Put(ctx context.Context, keys, values [][]byte, ups []store.Upsert) error
	// Each calls fn with every key and value until it returns false.
	Each(ctx context.Context, fn func(key, value []byte) bool) error
	// Range calls fn with every key from from up to, not including, to
	// and its value, in key order, until fn returns false.
	Range(ctx context.Context, from, to []byte, fn func(key, value []byte) bool) error
}

// LeafIndexSet is the name of the key set of the leaves' indices, in its
// first layout, which is frozen: a version's key is the first 20 bytes of
// the SHA-256 of its entity key (as in its index document's id) followed
// by the version, 8 bytes big-endian, so that an entity's versions are
// neighbours in version order; its value is the leaf's index as an
// unsigned varint. Another layout is another set.
const LeafIndexSet = "tlog-leaf-index-v1"

// leafIndexKeyLen is the length of a key of LeafIndexSet.
const leafIndexKeyLen = entityDigestLen + 8

// entityDigestLen is the bytes of an entity key's SHA-256 that name it in
// the log's index.
const entityDigestLen = 20

// leafIndexKey is a version's key in LeafIndexSet.
func leafIndexKey(entityKey string, version int64) []byte {
	sum := sha256.Sum256([]byte(entityKey))
	return binary.BigEndian.AppendUint64(append(make([]byte, 0, leafIndexKeyLen), sum[:entityDigestLen]...), uint64(version))
}

// leafIndexKeyOf is the key in LeafIndexSet of the version whose index
// document has the id id (indexID); false for an id that is not one as
// indexID spells it.
func leafIndexKeyOf(id string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(id, indexIDPrefix)
	digest, v, cut := strings.Cut(rest, "-v")
	d, err := hex.DecodeString(digest)
	version, verr := strconv.ParseInt(v, 10, 64)
	if !ok || !cut || err != nil || len(d) != entityDigestLen || verr != nil || version < 0 {
		return nil, false
	}
	key := binary.BigEndian.AppendUint64(d, uint64(version))
	if canonical, _ := leafIndexID(key); canonical != id {
		return nil, false // another spelling of an id: upper-case hex, a leading zero
	}
	return key, true
}

// leafIndexID is the index document id (indexID) of the version a key of
// LeafIndexSet names.
func leafIndexID(key []byte) (string, bool) {
	if len(key) != leafIndexKeyLen {
		return "", false
	}
	version := binary.BigEndian.Uint64(key[entityDigestLen:])
	return indexIDPrefix + hex.EncodeToString(key[:entityDigestLen]) + "-v" + strconv.FormatUint(version, 10), true
}

// decodeLeafIndex decodes a value of LeafIndexSet.
func decodeLeafIndex(v []byte) (int64, error) {
	i, n := binary.Uvarint(v)
	// Only the shortest encoding: a longer one ends in a zero byte.
	if n <= 0 || n != len(v) || (n > 1 && v[n-1] == 0) || i > 1<<62 {
		return 0, todo.Errorf(todo.Internal, "the log's leaf index holds %x, not an index", v)
	}
	return int64(i), nil
}

// leafIndex finds where versions' leaves are: in keys when the store has a
// key set, and in index documents, which a log written before (or a store
// without a key set) holds.
type leafIndex struct {
	leases store.Container
	keys   KeySet // nil: index documents only
}

// locate returns the leaf index of each version, -1 for a version in
// neither. A key set's entries are read in one transaction; the index
// documents of the versions it lacks at once, one round trip for the lot.
func (x leafIndex) locate(ctx context.Context, refs []VersionRef) ([]int64, error) {
	out := make([]int64, len(refs))
	missing := make([]int, 0, len(refs))
	if x.keys != nil {
		vals, err := x.values(ctx, refs)
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			if v == nil {
				missing = append(missing, i)
				continue
			}
			if out[i], err = decodeLeafIndex(v); err != nil {
				return nil, err
			}
		}
	} else {
		for i := range refs {
			missing = append(missing, i)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writesAtOnce)
	for _, i := range missing {
		g.Go(func() error {
			var d indexDoc
			_, err := read(gctx, x.leases, indexID(refs[i].EntityKey, refs[i].Version), &d)
			switch {
			case todo.IsKind(err, todo.NotFound):
				out[i] = -1
			case err != nil:
				return err
			default:
				out[i] = d.Index
			}
			return nil
		})
	}
	return out, g.Wait()
}

// rangeAtLeast is the number of versions of one entity, in refs, from
// which the key set is read by range over the entity's versions rather
// than key by key.
const rangeAtLeast = 16

// values reads the key set's value of each version, nil where it has
// none: the versions of an entity that refs names rangeAtLeast times or
// more (a page of a history, or of its export) in one walk over the keys
// from the oldest of them to the newest, which neighbour one another in
// the set; the others key by key, in one transaction.
func (x leafIndex) values(ctx context.Context, refs []VersionRef) ([][]byte, error) {
	type span struct {
		first, last int64
		at          []int // the refs of the entity
	}
	spans := map[string]*span{}
	for i, r := range refs {
		sp := spans[r.EntityKey]
		if sp == nil {
			sp = &span{first: r.Version, last: r.Version}
			spans[r.EntityKey] = sp
		}
		sp.first, sp.last, sp.at = min(sp.first, r.Version), max(sp.last, r.Version), append(sp.at, i)
	}
	out := make([][]byte, len(refs))
	var single []int
	for key, sp := range spans {
		// A span much wider than the versions asked for would walk keys
		// nobody asked for.
		if len(sp.at) < rangeAtLeast || sp.last-sp.first >= 4*int64(len(sp.at)) {
			single = append(single, sp.at...)
			continue
		}
		byVersion := make(map[int64][]byte, len(sp.at))
		err := x.keys.Range(ctx, leafIndexKey(key, sp.first), leafIndexKey(key, sp.last+1), func(k, v []byte) bool {
			byVersion[int64(binary.BigEndian.Uint64(k[entityDigestLen:]))] = append([]byte(nil), v...)
			return true
		})
		if err != nil {
			return nil, err
		}
		for _, i := range sp.at {
			out[i] = byVersion[refs[i].Version]
		}
	}
	if len(single) == 0 {
		return out, nil
	}
	keys := make([][]byte, len(single))
	for j, i := range single {
		keys[j] = leafIndexKey(refs[i].EntityKey, refs[i].Version)
	}
	vals, err := x.keys.Get(ctx, keys)
	if err != nil {
		return nil, err
	}
	for j, i := range single {
		out[i] = vals[j]
	}
	return out, nil
}

// one returns the leaf index of one version, NotFound when it is in
// neither.
func (x leafIndex) one(ctx context.Context, entityKey string, version int64) (int64, error) {
	at, err := x.locate(ctx, []VersionRef{{EntityKey: entityKey, Version: version}})
	if err != nil {
		return 0, err
	}
	if at[0] < 0 {
		return 0, todo.Errorf(todo.NotFound, "version %d is not in the log", version)
	}
	return at[0], nil
}

// each calls fn with the id (indexID) and index of every version the index
// holds, in the key set and in index documents: what only a damaged log's
// audit walks.
func (x leafIndex) each(ctx context.Context, fn func(id string, index int64)) error {
	if x.keys != nil {
		err := x.keys.Each(ctx, func(key, value []byte) bool {
			id, ok := leafIndexID(key)
			index, err := decodeLeafIndex(value)
			if ok && err == nil {
				fn(id, index)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	q := store.Query{PageSize: store.MaxPageSize}
	for {
		page, err := x.leases.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			var d indexDoc
			if strings.HasPrefix(it.ID, indexIDPrefix) && decode(it, "", &d) == nil {
				fn(d.ID, d.Index)
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

// appendLeafIndex appends index as a value of LeafIndexSet.
func appendLeafIndex(b []byte, index int64) []byte { return binary.AppendUvarint(b, uint64(index)) }
