package bolt

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// bucketOrder is the range index of a container whose indexing policy
// sorts some properties. Its keys start with the item's partition key, so
// that an item's entries lie together when its partition is small (an
// entity's audit records). For every sorted property an item has, one key:
// the partition key, the property's name, its value encoded so that byte
// order is ORDER BY order, and the item's id, with an empty value. An item
// that lacks some sorted properties has one more key, the partition key,
// missingMark and its id, whose value is the set of those it lacks (a bit
// each, in the policy's order): a version document lacks every property
// lists sort by, and one key stands for all of them. An ordered query
// within one partition walks these keys from where its previous page
// stopped, the items without the property first (they sort first, as on
// Cosmos DB), so a page reads about one page of documents however long the
// partition is, as a query on Cosmos DB's range index does.
var bucketOrder = []byte("order")

// orderLayoutKey, in a container's bucket, names the layout of its range
// index; a file whose containers hold another (an earlier build's) has
// its range indexes rebuilt when it is opened.
var (
	orderLayoutKey = []byte("orderLayout")
	orderLayout    = []byte("partition,missing")
)

// missingMark follows the partition key in the keys of the items that lack
// sorted properties: an empty component, which no property name encodes
// to (a name's component has at least one byte before its end).
var missingMark = []byte{escByte, escEnd}

// indexEntry is one key of the range index and its value.
type indexEntry struct{ key, value []byte }

// noValue is the value of a range-index entry: empty, not nil, which
// bbolt's walks (bbolt.Compact's among them) take for a nested bucket.
var noValue = []byte{}

// Type ranks of the encoded values, in ORDER BY order (typeRank).
const (
	rankUndefined = store.RankUndefined
	rankNull      = store.RankNull
	rankBool      = store.RankBool
	rankNumber    = store.RankNumber
	rankString    = store.RankString
	rankOther     = store.RankOther
)

// appendValue appends the order-preserving encoding of a JSON value (nil
// when the property is missing): its type rank, then a booleans' 0 or 1, a
// number's float64 with its bits arranged to sort as the number does, or a
// string's (an object's or array's raw JSON) escaped bytes, terminated.
// Comparing two encodings as bytes gives compareOrder's answer.
func appendValue(b []byte, raw json.RawMessage) []byte {
	rank := typeRank(raw)
	b = append(b, byte(rank))
	switch rank {
	case rankBool:
		return append(b, byte(boolInt(string(bytes.TrimSpace(raw)) == "true")))
	case rankNumber:
		// As json.Unmarshal reads it: a number out of float64's range
		// leaves 0.
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
		if err != nil {
			f = 0
		}
		bits := math.Float64bits(f)
		if f == 0 {
			bits = 0 // -0 sorts with 0
		}
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		return binary.BigEndian.AppendUint64(b, bits)
	case rankString:
		raw = bytes.TrimSpace(raw)
		if bytes.IndexByte(raw, '\\') < 0 { // no escapes: the bytes between the quotes
			return appendComponent(b, string(raw[1:len(raw)-1]))
		}
		var s string
		_ = json.Unmarshal(raw, &s)
		return appendComponent(b, s)
	case rankOther:
		return appendComponent(b, string(bytes.TrimSpace(raw)))
	}
	return b
}

// orderPrefix is the part of the range index that holds one property's
// keys in one partition.
func orderPrefix(field string, pk store.PartitionKey) []byte {
	return appendComponent(pkPrefix(pk), field)
}

// missingPrefix is the part of the range index that holds the keys of one
// partition's items that lack sorted properties.
func missingPrefix(pk store.PartitionKey) []byte {
	return append(pkPrefix(pk), missingMark...)
}

// lacks reports whether the value of a missingMark key says its item lacks
// the sorted property of index i.
func lacks(set []byte, i int) bool { return i/8 < len(set) && set[i/8]&(1<<(i%8)) != 0 }

// orderEntries returns the range-index entries of the document at item
// key with the given values of the properties its indexing policy sorts
// (in the policy's order, as store.CheckDocument reads them; nil where it
// has none). The keys are cut from one buffer: the item key's partition
// part and id are copied as they are encoded.
func (c *container) orderEntries(key []byte, values []json.RawMessage) []indexEntry {
	sorted := c.spec.Indexing.SortedPaths()
	if len(sorted) == 0 {
		return nil
	}
	part := partitionOf(key, len(c.spec.PartitionKeyPaths))
	id := key[min(len(part)+1, len(key)):] // after the idMarker
	// Room for every key: the partition, the name, the value and the id,
	// escapes aside.
	n := len(part) + len(missingMark) + len(id)
	for i, p := range sorted {
		n += len(part) + len(p) + len(values[i]) + len(id) + 12
	}
	buf := make([]byte, 0, n)
	entries := make([]indexEntry, 0, len(sorted)+1)
	var missing []byte
	narrowed := len(c.spec.Indexing.SortedWithin) > 0
	var first string // the partition key's first component, where an index is narrowed
	if narrowed {
		pk, _ := splitItemKey(key, 1)
		first = pk[0]
	}
	for i, p := range sorted {
		if narrowed && !c.spec.Indexing.SortsIn(p, first) {
			continue // not kept sorted in this partition: neither an entry nor missing
		}
		raw := values[i]
		if raw == nil {
			if missing == nil {
				missing = make([]byte, (len(sorted)+7)/8)
			}
			missing[i/8] |= 1 << (i % 8)
			continue
		}
		start := len(buf)
		buf = append(appendValue(appendComponent(append(buf, part...), p), raw), id...)
		entries = append(entries, indexEntry{buf[start:len(buf):len(buf)], noValue})
	}
	if missing != nil {
		start := len(buf)
		buf = append(append(append(buf, part...), missingMark...), id...)
		entries = append(entries, indexEntry{buf[start:len(buf):len(buf)], missing})
	}
	return entries
}

// storedOrderEntries returns the range-index entries of a stored item.
func (c *container) storedOrderEntries(key []byte, r record) ([]indexEntry, error) {
	if len(c.spec.Indexing.SortedPaths()) == 0 {
		return nil, nil
	}
	values, err := c.spec.SortedValues(r.body)
	if err != nil {
		return nil, fmt.Errorf("stored document is not JSON: %w", err)
	}
	return c.orderEntries(key, values), nil
}

// updateIndex replaces an item's range-index entries was with is (either
// nil when the item is new or deleted), leaving alone the entries they
// share: a rewrite that keeps a sorted value changes none of its keys.
func updateIndex(order *bbolt.Bucket, was, is []indexEntry) error {
	for _, e := range was {
		if !slices.ContainsFunc(is, e.equal) {
			if err := order.Delete(e.key); err != nil {
				return err
			}
		}
	}
	for _, e := range is {
		if !slices.ContainsFunc(was, e.equal) {
			if err := order.Put(e.key, e.value); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e indexEntry) equal(o indexEntry) bool {
	return bytes.Equal(e.key, o.key) && bytes.Equal(e.value, o.value)
}

// unindex removes a stored item's range-index entries.
func (c *container) unindex(order *bbolt.Bucket, key []byte, r record) error {
	was, err := c.storedOrderEntries(key, r)
	if err != nil {
		return err
	}
	return updateIndex(order, was, nil)
}

// reindex rebuilds the range index of the container bucket cb from its
// items: for a file written before the index existed, in another layout,
// or after the indexing policy changed.
func (c *container) reindex(cb *bbolt.Bucket) error {
	if cb.Bucket(bucketOrder) != nil {
		if err := cb.DeleteBucket(bucketOrder); err != nil {
			return err
		}
	}
	if len(c.spec.Indexing.SortedPaths()) == 0 {
		return cb.Delete(orderLayoutKey)
	}
	order, err := cb.CreateBucket(bucketOrder)
	if err != nil {
		return err
	}
	// Items come in key order, so partition after partition, and a
	// partition's entries sort after the previous one's: sorted one
	// partition at a time, they are appended in key order, into full
	// pages. Inserted item by item, they landed all over the index, and a
	// file of 100,000 todos took longer than STORE_OPEN_TIMEOUT.
	order.FillPercent = 1
	var part []byte      // the partition key of the entries in run
	var run []indexEntry // its entries so far
	flush := func() error {
		slices.SortFunc(run, func(a, b indexEntry) int { return bytes.Compare(a.key, b.key) })
		for _, e := range run {
			if err := order.Put(e.key, e.value); err != nil {
				return err
			}
		}
		run = run[:0]
		return nil
	}
	paths := len(c.spec.PartitionKeyPaths)
	err = cb.Bucket(bucketItems).ForEach(func(k, v []byte) error {
		if p := partitionOf(k, paths); !bytes.Equal(p, part) {
			if err := flush(); err != nil {
				return err
			}
			part = bytes.Clone(p)
		}
		entries, err := c.storedOrderEntries(k, decodeRecord(v))
		if err != nil {
			return fmt.Errorf("item %q: %w", k, err)
		}
		run = append(run, entries...)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return cb.Put(orderLayoutKey, orderLayout)
}

// indexStale reports whether the range index of container bucket cb, kept
// for the policy had, must be rebuilt for the policy now.
func indexStale(cb *bbolt.Bucket, had, now *store.IndexingPolicy) bool {
	if len(now.SortedPaths()) == 0 {
		return cb.Bucket(bucketOrder) != nil
	}
	return cb.Bucket(bucketOrder) == nil || !slices.Equal(had.SortedPaths(), now.SortedPaths()) ||
		!maps.EqualFunc(sortedWithin(had), sortedWithin(now), slices.Equal) || !bytes.Equal(cb.Get(orderLayoutKey), orderLayout)
}

// sortedWithin is p's SortedWithin; none for a nil policy.
func sortedWithin(p *store.IndexingPolicy) map[string][]string {
	if p == nil {
		return nil
	}
	return p.SortedWithin
}

// validPosition reports whether pos, a continuation of queryIndexed, is
// an encoded value followed by a valid id, as orderKey writes them after
// the prefix.
func validPosition(pos []byte) bool {
	id, ok := positionID(pos)
	return ok && todo.ValidateID(string(id)) == nil
}

// positionID is the id after the encoded value that starts pos.
func positionID(pos []byte) ([]byte, bool) {
	if len(pos) == 0 {
		return nil, false
	}
	rank, rest := pos[0], pos[1:]
	switch rank {
	case rankUndefined, rankNull:
	case rankBool:
		if len(rest) < 1 || rest[0] > 1 {
			return nil, false
		}
		rest = rest[1:]
	case rankNumber:
		if len(rest) < 8 {
			return nil, false
		}
		rest = rest[8:]
	case rankString, rankOther:
		end := bytes.Index(rest, []byte{escByte, escEnd})
		if end < 0 {
			return nil, false
		}
		rest = rest[end+2:]
	default:
		return nil, false
	}
	return rest, true
}

// queryIndexed serves an ordered query on one indexed property within one
// partition from the range index: it walks the property's keys in order
// (backwards for DESC) after the continuation's position and loads only
// the documents it meets, stopping once the page is full. The items that
// lack the property come first (last for DESC), from the partition's
// missingMark keys. Ties are in id order, reversed for DESC. A position
// is an encoded value and an id, as the keys hold them after orderPrefix;
// an item without the property has the undefined value's.
func (c *container) queryIndexed(q store.Query, f filters) ([]store.Item, string, int, error) {
	o := q.OrderBy[0]
	var pos []byte
	if q.Continuation != "" {
		var err error
		pos, err = base64.RawURLEncoding.DecodeString(q.Continuation)
		if err != nil || !validPosition(pos) {
			return nil, "", 0, badContinuation()
		}
	} else if k := q.After; k != nil && k.Order == o {
		// The walk starts at the position: an item there.
		pos = append(appendValue(nil, k.Value), k.ID...)
	}
	// The two runs of keys, in walking order: those of the items without
	// the property, then those with it.
	runs := []indexRun{
		{prefix: missingPrefix(q.PartitionKey), field: slices.Index(c.spec.Indexing.SortedPaths(), o.Field)},
		{prefix: orderPrefix(o.Field, q.PartitionKey), field: -1},
	}
	if o.Desc {
		slices.Reverse(runs)
	}
	start := 0
	if pos != nil {
		at := 1 // the run holding the position
		if pos[0] == rankUndefined {
			at = 0
			pos = pos[1:]
		}
		if o.Desc {
			at = 1 - at
		}
		start, runs[at].from = at, append(bytes.Clone(runs[at].prefix), pos...)
	}
	pg := c.newPage(q, f)
	var last []byte // the position of the last item on the page
	var next string
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		pg.now = c.s.now()
		cb := tx.Bucket(c.name)
		items := getterOf(cb.Bucket(bucketItems))
		cur := cb.Bucket(bucketOrder).Cursor()
		step := cur.Next
		if o.Desc {
			step = cur.Prev
		}
		for _, run := range runs[start:] {
			k, v := walkStart(cur, run.prefix, run.from, o.Desc)
			for ; k != nil && bytes.HasPrefix(k, run.prefix) && !pg.more; k, v = step() {
				if run.field >= 0 && !lacks(v, run.field) {
					continue
				}
				p := k[len(run.prefix):]
				id := p
				if run.field < 0 {
					var ok bool
					if id, ok = positionID(p); !ok {
						return todo.Errorf(todo.Internal, "range index key %q is malformed", k)
					}
				}
				key := itemKey(q.PartitionKey, string(id))
				stored := items.get(key)
				if stored == nil {
					return todo.Errorf(todo.Internal, "range index names a missing item %q", key)
				}
				added, err := pg.offer(key, stored)
				if err != nil {
					return err
				}
				if added {
					if run.field >= 0 {
						last = append([]byte{rankUndefined}, p...)
					} else {
						last = bytes.Clone(p)
					}
				}
			}
			if pg.more {
				next = base64.RawURLEncoding.EncodeToString(last)
				break
			}
		}
		return nil
	})
	if len(f.rest) == 0 {
		pg.loaded = len(pg.items)
	}
	return pg.items, next, pg.loaded, err
}

// indexRun is one run of range-index keys an ordered walk reads: those of
// one property's values (field -1), or the missingMark keys, of which it
// takes the items that lack the sorted property of index field; from is
// the key it starts after, when set.
type indexRun struct {
	prefix, from []byte
	field        int
}

// walkStart positions cur on the first key of prefix's range in walking
// order, or on the first one after from (a key of the range) when from is
// set.
func walkStart(cur *bbolt.Cursor, prefix, from []byte, desc bool) ([]byte, []byte) {
	if !desc {
		if from == nil {
			return cur.Seek(prefix)
		}
		k, v := cur.Seek(from)
		if bytes.Equal(k, from) {
			return cur.Next()
		}
		return k, v
	}
	if from == nil {
		// Every encoded value starts with a type rank below 0xFF.
		from = append(bytes.Clone(prefix), 0xFF)
	}
	if k, _ := cur.Seek(from); k == nil {
		return cur.Last()
	}
	return cur.Prev()
}
