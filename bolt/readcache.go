package bolt

import (
	"bytes"
	"hash/maphash"
	"math"
	"sync"
)

// readCache keeps copies of recently read small items, so that a point
// read of an item no commit has changed since needs no read transaction
// (a transaction, two bucket lookups and a search, most of a point read's
// work). It never serves an item older than one a read transaction could
// see, so reads never go back in time and an acknowledged write is always
// seen:
//
//   - a write transaction names each key it changes (written) before it
//     commits: that key's copy is dropped and the key is marked in flight,
//     so no copy of it is served or kept while the commit becomes visible;
//   - the committer calls committed after the commit and before it
//     answers the writers: the keys in flight are stamped with a new
//     generation;
//   - a reader takes the generation before its read transaction begins
//     and keeps what it read only if the key is not in flight and was not
//     stamped since, so a transaction that may have begun before a commit
//     never caches what it read.
//
// The stamps of written keys are dropped in one go when there are too many
// (the floor rises to the current generation: readers that began before
// then keep nothing), and copies are evicted at random past the byte
// budget, so the cache stays small whatever the traffic.
//
// Stamps are kept by a hash of the key: tens of thousands of key strings
// were most of the process's live heap, each an object the garbage
// collector marks, and a string allocated a key each commit. Keys that
// share a hash share the newest of their stamps, which only keeps a reader
// from caching a copy it could have kept.
type readCache struct {
	mu      sync.RWMutex
	gen     uint64
	floor   uint64
	entries map[string]record // by cacheKey; bodies are copies
	bytes   int
	seed    maphash.Seed
	stamped map[uint64]uint64 // by the hash of a cacheKey: the generation that last changed it
	pending []uint64          // the hashes of the keys the transaction being committed writes
}

// The cache's bounds: copies of items up to maxCachedBody bytes, at most
// cacheBudget bytes of them, and maxStamps stamps of written keys.
const (
	maxCachedBody = 4 << 10
	cacheBudget   = 4 << 20
	maxStamps     = 1 << 16
)

func newReadCache() *readCache {
	return &readCache{entries: map[string]record{}, seed: maphash.MakeSeed(), stamped: map[uint64]uint64{}}
}

// cacheKey is an item's key in the cache: its container's bucket name and
// its item key, appended to buf.
func cacheKey(buf []byte, container, item []byte) []byte {
	buf = append(buf, container...)
	buf = append(buf, 0xff) // in neither a bucket name nor an item key
	return append(buf, item...)
}

// get returns the cached copy of key; the body must not be changed.
func (rc *readCache) get(key []byte) (record, bool) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	r, ok := rc.entries[string(key)]
	return r, ok
}

// generation is what a reader takes before its read transaction begins.
func (rc *readCache) generation() uint64 {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	return rc.gen
}

// fill keeps a copy of r, read under key in a transaction that began at
// generation gen, unless a commit changed the key since.
func (rc *readCache) fill(key []byte, gen uint64, r record) {
	if len(r.body) > maxCachedBody {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if gen < rc.floor || rc.stamped[maphash.Bytes(rc.seed, key)] > gen {
		return
	}
	if old, ok := rc.entries[string(key)]; ok {
		rc.bytes -= len(old.body)
	}
	for k, old := range rc.entries {
		if rc.bytes+len(r.body) <= cacheBudget {
			break
		}
		rc.bytes -= len(old.body)
		delete(rc.entries, k)
	}
	r.body = bytes.Clone(r.body)
	rc.entries[string(key)] = r
	rc.bytes += len(r.body)
}

// inFlight is the stamp of a key whose change is being committed: newer
// than any generation, so no reader keeps a copy of it.
const inFlight = math.MaxUint64

// written names a key the transaction being committed changes, before the
// commit. Only the committer's goroutine calls it, inside the transaction.
func (rc *readCache) written(key []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if old, ok := rc.entries[string(key)]; ok {
		rc.bytes -= len(old.body)
		delete(rc.entries, string(key))
	}
	h := maphash.Bytes(rc.seed, key)
	rc.stamped[h] = inFlight
	rc.pending = append(rc.pending, h)
}

// committed follows every commit attempt, successful or not: the keys
// named since the last one (whose copies written dropped, and which no
// reader kept since) are stamped with a new generation.
func (rc *readCache) committed() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.pending) == 0 {
		return
	}
	rc.gen++
	if len(rc.stamped)+len(rc.pending) > maxStamps {
		clear(rc.stamped)
		rc.floor = rc.gen
	}
	for _, h := range rc.pending {
		rc.stamped[h] = rc.gen
	}
	rc.pending = rc.pending[:0]
}
