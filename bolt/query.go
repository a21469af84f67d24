package bolt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/internal/jsondoc"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// Query evaluates q over the key range of its partition key.
func (c *container) Query(ctx context.Context, q store.Query) (store.Page, error) {
	var page store.Page
	cost := store.Cost{Scope: store.ScopeOf(q.PartitionKey, len(c.spec.PartitionKeyPaths)), Requests: 1}
	defer func() { store.Charge(ctx, cost) }()
	if err := ctx.Err(); err != nil {
		return page, todo.Wrap(todo.Unavailable, err, "request cancelled")
	}
	if err := q.Check(c.spec); err != nil {
		return page, err
	}
	prefix := pkPrefix(q.PartitionKey)
	f := splitFilters(c.spec.Indexing, q)
	var loaded, returned int
	var err error
	switch {
	case walksRangeIndex(q.OrderBy) && c.spec.Indexing.SortsIn(q.OrderBy[0].Field, q.PartitionKey[0]):
		page.Items, page.Continuation, loaded, err = c.queryIndexed(q, f)
	case len(q.OrderBy) > 0:
		page.Items, page.Continuation, loaded, err = c.queryOrdered(q, f, prefix)
	default:
		if since, ok := writtenSince(q.Filters); ok && !c.spec.Unfollowed {
			page.Items, page.Continuation, loaded, err = c.queryByCommit(q, f, prefix, since)
		} else {
			page.Items, page.Continuation, loaded, err = c.queryByKey(q, f, prefix)
		}
	}
	for _, it := range page.Items {
		returned += len(it.Body)
	}
	// One physical partition: the embedded store is one machine.
	cost.Charge = ru.Query(ru.QueryWork{Partitions: 1, Lookups: len(f.indexed), Loaded: int64(loaded), ReturnedBytes: int64(returned)})
	return page, err
}

// walksRangeIndex reports whether a walk of one property's range index
// gives order: ORDER BY that property alone, or then by id in the same
// direction (the index breaks ties by id).
func walksRangeIndex(order []store.Order) bool {
	return len(order) == 1 || len(order) == 2 && slices.Equal(order, store.TieBroken(order[0]))
}

// filters are a query's filters split as the index answers them, the
// position it starts after, and the properties of a document they and
// the query's order read.
type filters struct {
	all, indexed, rest []store.Filter
	after              *store.Seek
	names              []string
}

func splitFilters(p *store.IndexingPolicy, q store.Query) filters {
	f := filters{all: q.Filters, after: q.After}
	f.indexed, f.rest = p.Split(q.Filters)
	add := func(name string) {
		if !slices.Contains(f.names, name) {
			f.names = append(f.names, name)
		}
	}
	for _, x := range q.Filters {
		add(x.Field)
	}
	for _, o := range q.OrderBy {
		add(o.Field)
	}
	if q.After != nil {
		add("id")
		add(q.After.Order.Field)
	}
	return f
}

// members reads the top-level properties of a stored document that the
// filters name, as raw JSON that aliases body: a skim, not a decode of
// every property. Stored documents were checked as JSON when written.
func (f filters) members(body []byte) (map[string]json.RawMessage, error) {
	fields := make(map[string]json.RawMessage, len(f.names))
	err := jsondoc.Each(body, func(name, value []byte) bool {
		for _, n := range f.names {
			if string(name) == n {
				fields[n] = value
				break
			}
		}
		return true
	})
	if err != nil {
		return nil, todo.Wrap(todo.Internal, err, "stored document is not JSON")
	}
	return fields, nil
}

// load applies the filters to one stored document as Cosmos DB does: a
// document the index does not find for the indexed filters is never loaded;
// a loaded one (counted in loaded) must pass the rest too.
func (f filters) load(body []byte, loaded *int) (fields map[string]json.RawMessage, ok bool, err error) {
	if len(f.all) == 0 && f.after == nil {
		*loaded++
		return nil, true, nil
	}
	if ts, ok := f.writtenOnly(body); ok {
		if !writtenPasses(ts, f.indexed) {
			return nil, false, nil
		}
		*loaded++
		return nil, writtenPasses(ts, f.rest), nil
	}
	if fields, err = f.members(body); err != nil {
		return nil, false, err
	}
	if !matchFields(fields, f.indexed) {
		return fields, false, nil
	}
	*loaded++
	return fields, matchFields(fields, f.rest) && f.follows(fields), nil
}

// writtenOnly returns a document's _ts, read where apply writes it, when
// every filter is a lower bound on _ts by a number (what readers of recent
// changes ask, served by queryByCommit) and there is no position: load
// then needs no decoding of the document into its properties.
func (f filters) writtenOnly(body []byte) (int64, bool) {
	if f.after != nil {
		return 0, false
	}
	for _, x := range f.all {
		if _, ok := lowerBound(x); !ok {
			return 0, false
		}
	}
	ts, ok := bodyWrittenAt(body)
	return ts, ok
}

// lowerBound is a filter's bound when it is _ts >= or > a number.
func lowerBound(x store.Filter) (float64, bool) {
	if x.Field != "_ts" || (x.Op != store.Ge && x.Op != store.Gt) {
		return 0, false
	}
	switch v := x.Value.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// writtenPasses reports whether a document written at ts passes filters,
// each a lowerBound.
func writtenPasses(ts int64, filters []store.Filter) bool {
	for _, x := range filters {
		v, _ := lowerBound(x)
		if t := float64(ts); t < v || x.Op == store.Gt && t == v {
			return false
		}
	}
	return true
}

// follows reports whether a document comes after the query's position,
// if it has one.
func (f filters) follows(fields map[string]json.RawMessage) bool {
	if f.after == nil {
		return true
	}
	var id string
	_ = json.Unmarshal(fields["id"], &id)
	return f.after.Follows(fields[f.after.Order.Field], id)
}

func badContinuation() error {
	return todo.Errorf(todo.Invalid, "malformed continuation token")
}

// queryByKey pages in key order; the continuation is the last key returned.
func (c *container) queryByKey(q store.Query, f filters, prefix []byte) ([]store.Item, string, int, error) {
	var start []byte
	if q.Continuation != "" {
		k, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		if err != nil || !bytes.HasPrefix(k, prefix) {
			return nil, "", 0, badContinuation()
		}
		start = k
	}
	pg := c.newPage(q, f)
	var next string
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		pg.now = c.s.now()
		cur := tx.Bucket(c.name).Bucket(bucketItems).Cursor()
		k, v := cur.Seek(prefix)
		if start != nil {
			k, v = cur.Seek(start)
			if bytes.Equal(k, start) {
				k, v = cur.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && !pg.more; k, v = cur.Next() {
			if _, err := pg.offer(k, v); err != nil {
				return err
			}
		}
		if pg.more {
			next = base64.RawURLEncoding.EncodeToString(keyOf(pg.items[len(pg.items)-1]))
		}
		return nil
	})
	return pg.items, next, pg.loaded, err
}

// page collects one page of a query's matches as a walk over the stored
// items meets them.
type page struct {
	f      filters
	size   int
	paths  int
	now    time.Time
	items  []store.Item
	bytes  int // of the items' bodies
	loaded int
	// more is set when the walk met a match beyond the page: the page
	// has a continuation, and the walk can stop.
	more bool
}

func (c *container) newPage(q store.Query, f filters) *page {
	return &page{f: f, size: q.PageSize, paths: len(c.spec.PartitionKeyPaths)}
}

// offer considers the item stored under key with the record v, and
// reports whether it joined the page: not when it has expired or does not
// match, nor once the page is full (then more is set).
func (p *page) offer(key, v []byte) (bool, error) {
	r := decodeRecord(v)
	if r.expired(p.now) {
		return false, nil
	}
	_, ok, err := p.f.load(r.body, &p.loaded)
	if err != nil || !ok {
		return false, err
	}
	if len(p.items) == p.size || p.bytes >= store.MaxPageBytes {
		p.more = true
		return false, nil
	}
	pk, id := splitItemKey(key, p.paths)
	p.items = append(p.items, store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: bytes.Clone(r.body)})
	p.bytes += len(r.body)
	return true, nil
}

func keyOf(it store.Item) []byte { return itemKey(it.PartitionKey, it.ID) }

// orderedCursor is the continuation of a sorted query: the encoded sort
// values (appendValue) and id of the last item returned.
type orderedCursor struct {
	Values [][]byte `json:"v"`
	ID     string   `json:"id"`
}

// queryOrdered sorts one partition's matches by the ORDER BY fields, then
// id (reversed when the last field is DESC, as a walk of the range index
// backwards gives them), comparing values as the range index does. It
// serves ORDER BY on several properties, or on one the range index does
// not keep. Cosmos DB walks the ORDER BY
// index, so when the index answers every filter only the page's documents
// are loaded.
func (c *container) queryOrdered(q store.Query, f filters, prefix []byte) ([]store.Item, string, int, error) {
	var after *orderedCursor
	if q.Continuation != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		after = &orderedCursor{}
		if err != nil || json.Unmarshal(raw, after) != nil || len(after.Values) != len(q.OrderBy) {
			return nil, "", 0, badContinuation()
		}
	}
	type row struct {
		item store.Item // its Body is the store's, valid within the transaction
		keys [][]byte
	}
	var out []store.Item
	next := ""
	loaded := 0
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		var rows []row
		now := c.s.now()
		cur := tx.Bucket(c.name).Bucket(bucketItems).Cursor()
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			r := decodeRecord(v)
			if r.expired(now) {
				continue
			}
			fields, ok, err := f.load(r.body, &loaded)
			if !ok { // never ok with an error
				if err != nil {
					return err
				}
				continue
			}
			if fields == nil {
				if fields, err = f.members(r.body); err != nil {
					return err
				}
			}
			keys := make([][]byte, len(q.OrderBy))
			for i, o := range q.OrderBy {
				keys[i] = appendValue(nil, fields[o.Field])
			}
			pk, id := splitItemKey(k, len(c.spec.PartitionKeyPaths))
			rows = append(rows, row{store.Item{ID: id, PartitionKey: pk, ETag: etagOf(r.lsn), Body: r.body}, keys})
		}
		less := func(ak [][]byte, aid string, bk [][]byte, bid string) int {
			for i, o := range q.OrderBy {
				if d := bytes.Compare(ak[i], bk[i]); d != 0 {
					if o.Desc {
						return -d
					}
					return d
				}
			}
			if q.OrderBy[len(q.OrderBy)-1].Desc {
				return strings.Compare(bid, aid)
			}
			return strings.Compare(aid, bid)
		}
		sortRows(rows, func(a, b row) int { return less(a.keys, a.item.ID, b.keys, b.item.ID) })
		start := 0
		if after != nil {
			for start < len(rows) && less(rows[start].keys, rows[start].item.ID, after.Values, after.ID) <= 0 {
				start++
			}
		}
		// The page ends at PageSize items or once they reach MaxPageBytes;
		// only its items are copied out of the transaction.
		size, end := 0, start
		for end < len(rows) && end-start < q.PageSize && (end == start || size < store.MaxPageBytes) {
			it := rows[end].item
			it.Body = bytes.Clone(it.Body)
			out = append(out, it)
			size += len(it.Body)
			end++
		}
		if end < len(rows) {
			last := rows[end-1]
			b, _ := json.Marshal(orderedCursor{Values: last.keys, ID: last.item.ID})
			next = base64.RawURLEncoding.EncodeToString(b)
		}
		return nil
	})
	if err != nil {
		return nil, "", loaded, err
	}
	if len(f.rest) == 0 {
		loaded = len(out)
	}
	return out, next, loaded, nil
}
