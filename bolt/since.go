package bolt

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo/store"
)

// writtenSince returns the lower bound a query puts on _ts (the unix
// second of an item's last write), when it has one.
func writtenSince(filters []store.Filter) (int64, bool) {
	var since int64
	found := false
	for _, f := range filters {
		if f.Field != "_ts" || (f.Op != store.Ge && f.Op != store.Gt) {
			continue
		}
		var v float64
		switch x := f.Value.(type) {
		case int64:
			v = float64(x)
		case float64:
			v = x
		default:
			continue
		}
		// A bound below what is kept selects everything; the filter itself
		// is still applied to each item.
		s := int64(math.Max(math.Floor(v), 0))
		if !found || s > since {
			since, found = s, true
		}
	}
	return since, found
}

// queryByCommit serves a query with a lower bound on _ts from the feed
// bucket, which lists every live item once, at its latest write, in commit
// order, and so in _ts order: it finds the first entry written at or after
// the bound and walks on from there, so a query for what changed since a
// recent time reads about what changed, however much is kept. The
// continuation is the LSN of the last item returned.
func (c *container) queryByCommit(q store.Query, f filters, prefix []byte, since int64) ([]store.Item, string, int, error) {
	var start uint64
	if q.Continuation != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Continuation)
		if err != nil || len(raw) != 9 || raw[0] != 't' {
			return nil, "", 0, badContinuation()
		}
		start = binaryLSN(raw[1:]) + 1
	}
	pg := c.newPage(q, f)
	var last uint64 // the LSN of the last item on the page
	var next string
	err := c.s.db.View(func(tx *bbolt.Tx) error {
		pg.now = c.s.now()
		cb := tx.Bucket(c.name)
		items := getterOf(cb.Bucket(bucketItems))
		cur := cb.Bucket(bucketFeed).Cursor()
		if q.Continuation == "" {
			start = firstWrittenSince(cur, items, since)
		}
		for k, key := cur.Seek(lsnKey(start)); k != nil && !pg.more; k, key = cur.Next() {
			v := items.get(key)
			if v == nil || !bytes.HasPrefix(key, prefix) {
				continue
			}
			added, err := pg.offer(key, v)
			if err != nil {
				return err
			}
			if added {
				last = binaryLSN(k)
			}
		}
		if pg.more {
			next = base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint64([]byte{'t'}, last))
		}
		return nil
	})
	return pg.items, next, pg.loaded, err
}

// firstWrittenSince finds, by binary search over the feed's LSNs, where
// the items written at or after the unix second since begin: the smallest
// x such that the first feed entry at or after x was written since then
// (or there is none). Commits take increasing LSNs at non-decreasing
// times, so that predicate is false and then true.
func firstWrittenSince(cur *bbolt.Cursor, items getter, since int64) uint64 {
	last, _ := cur.Last()
	if last == nil {
		return 0
	}
	lo, hi := uint64(0), binaryLSN(last)+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if k, key := cur.Seek(lsnKey(mid)); k == nil || writtenAt(items.get(key)) >= since {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// writtenAt reads _ts from a stored record: apply writes every body as
// {"_etag":"…","_ts":<unix second>,…}. A record it cannot read counts as
// written now, so that the search never skips it.
func writtenAt(v []byte) int64 {
	if v == nil {
		return math.MaxInt64
	}
	ts, ok := bodyWrittenAt(decodeRecord(v).body)
	if !ok {
		return math.MaxInt64
	}
	return ts
}

// bodyWrittenAt reads _ts from a stored body, which apply begins with
// {"_etag":"…","_ts":<unix second>, (an etag holds no comma).
func bodyWrittenAt(body []byte) (int64, bool) {
	const head, marker = `{"_etag":"`, `","_ts":`
	if !bytes.HasPrefix(body, []byte(head)) {
		return 0, false
	}
	i := bytes.Index(body, []byte(marker))
	if i < 0 || bytes.IndexByte(body[len(head):i], ',') >= 0 {
		return 0, false
	}
	digits := body[i+len(marker):]
	end := bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 || digits[end] != ',' {
		return 0, false
	}
	ts, err := strconv.ParseInt(string(digits[:end]), 10, 64)
	return ts, err == nil
}
