package bolt

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// bucketOrder is the range index of a container whose indexing policy
// sorts some properties: for every item and every sorted property, one key
// made of the property's name, the item's partition key, the property's value encoded
// so that byte order is ORDER BY order, and the item's id; its value is
// empty: the key holds the partition key and the id, so the item's key is
// not repeated (files written before hold it as the value, which is read
// as well). An ordered query within one partition walks these keys
// from where its previous page stopped, so a page reads about one page of
// documents however long the partition is, as a query on Cosmos DB's range
// index does.
var bucketOrder = []byte("order")

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
		var x bool
		_ = json.Unmarshal(raw, &x)
		return append(b, byte(boolInt(x)))
	case rankNumber:
		var f float64
		_ = json.Unmarshal(raw, &f)
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
	return append(appendComponent(nil, field), pkPrefix(pk)...)
}

// orderKeys returns the range-index keys of a document with the given
// values of the properties its indexing policy sorts (in the policy's
// order, as store.CheckDocument reads them): one for each.
func (c *container) orderKeys(pk store.PartitionKey, id string, values []json.RawMessage) [][]byte {
	sorted := c.spec.Indexing.SortedPaths()
	if len(sorted) == 0 {
		return nil
	}
	key := pkPrefix(pk)
	keys := make([][]byte, len(sorted))
	for i, p := range sorted {
		raw := values[i]
		// Room for the name, the key, the value and the id, escapes aside.
		k := make([]byte, 0, len(p)+len(key)+len(raw)+len(id)+12)
		k = append(appendValue(append(appendComponent(k, p), key...), raw), id...)
		keys[i] = k
	}
	return keys
}

// storedOrderKeys returns the range-index keys of a stored item.
func (c *container) storedOrderKeys(key []byte, r record) ([][]byte, error) {
	if len(c.spec.Indexing.SortedPaths()) == 0 {
		return nil, nil
	}
	values, err := c.spec.SortedValues(r.body)
	if err != nil {
		return nil, fmt.Errorf("stored document is not JSON: %w", err)
	}
	pk, id := splitItemKey(key, len(c.spec.PartitionKeyPaths))
	return c.orderKeys(pk, id, values), nil
}

// unindex removes a stored item's range-index keys.
func (c *container) unindex(order *bbolt.Bucket, key []byte, r record) error {
	keys, err := c.storedOrderKeys(key, r)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := order.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// reindex rebuilds the range index of the container bucket cb from its
// items: for a file written before the index existed, or after the
// indexing policy changed.
func (c *container) reindex(cb *bbolt.Bucket) error {
	if cb.Bucket(bucketOrder) != nil {
		if err := cb.DeleteBucket(bucketOrder); err != nil {
			return err
		}
	}
	if len(c.spec.Indexing.SortedPaths()) == 0 {
		return nil
	}
	order, err := cb.CreateBucket(bucketOrder)
	if err != nil {
		return err
	}
	return cb.Bucket(bucketItems).ForEach(func(k, v []byte) error {
		keys, err := c.storedOrderKeys(k, decodeRecord(v))
		if err != nil {
			return fmt.Errorf("item %q: %w", k, err)
		}
		for _, ok := range keys {
			if err := order.Put(ok, noValue); err != nil {
				return err
			}
		}
		return nil
	})
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

// indexedItem is the key of the item a range-index entry of partition pk
// names: its value in files written before entries had none, else made
// from the entry's key after prefix.
func indexedItem(pk store.PartitionKey, pos, v []byte) ([]byte, error) {
	if len(v) > 0 {
		return v, nil
	}
	id, ok := positionID(pos)
	if !ok {
		return nil, todo.Errorf(todo.Internal, "range index key %q is malformed", pos)
	}
	return itemKey(pk, string(id)), nil
}

// queryIndexed serves an ordered query on one indexed property within one
// partition from the range index: it walks the property's keys in order
// (backwards for DESC) after the continuation's position and loads only
// the documents it meets, stopping once the page is full. Ties are in id
// order, reversed for DESC.
func (c *container) queryIndexed(q store.Query, f filters) ([]store.Item, string, int, error) {
	o := q.OrderBy[0]
	prefix := orderPrefix(o.Field, q.PartitionKey)
	var from []byte
	if q.Continuation != "" {
		pos, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		if err != nil || !validPosition(pos) {
			return nil, "", 0, badContinuation()
		}
		from = append(bytes.Clone(prefix), pos...)
	} else if k := q.After; k != nil && k.Order == o {
		// The walk starts at the position: the range index key of an
		// item there.
		from = append(appendValue(bytes.Clone(prefix), k.Value), k.ID...)
	}
	pg := c.newPage(q, f)
	var last []byte // the index key of the last item on the page
	var next string
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		pg.now = c.s.now()
		cb := tx.Bucket(c.name)
		items := cb.Bucket(bucketItems)
		cur := cb.Bucket(bucketOrder).Cursor()
		k, v := walkStart(cur, prefix, from, o.Desc)
		step := cur.Next
		if o.Desc {
			step = cur.Prev
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && !pg.more; k, v = step() {
			key, err := indexedItem(q.PartitionKey, k[len(prefix):], v)
			if err != nil {
				return err
			}
			stored := items.Get(key)
			if stored == nil {
				return todo.Errorf(todo.Internal, "range index names a missing item %q", key)
			}
			added, err := pg.offer(key, stored)
			if err != nil {
				return err
			}
			if added {
				last = bytes.Clone(k)
			}
		}
		if pg.more {
			next = base64.RawURLEncoding.EncodeToString(last[len(prefix):])
		}
		return nil
	})
	if len(f.rest) == 0 {
		pg.loaded = len(pg.items)
	}
	return pg.items, next, pg.loaded, err
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
