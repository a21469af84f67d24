package bolt

import (
	"hash/maphash"
	"time"
)

// reservations are the keys of retired items (store.Retire) that no create
// may take until a given time. They live in memory, not in the file: a
// reservation stops a write that read the audit before the item's record
// was written, in a request of this process, and one process holds the
// file (openDB locks it), so no such write outlives a restart. Only the
// committer's goroutine touches them, inside write transactions.
type reservations struct {
	seed  maphash.Seed
	until map[uint64]int64 // by the hash of an item's cacheKey: the unix second its reservation ends
	// swept is when expired reservations were last dropped.
	swept int64
}

func newReservations() *reservations {
	return &reservations{seed: maphash.MakeSeed(), until: map[uint64]int64{}}
}

// reserve keeps the item at key of the container bucket named container
// from being created until until. Keys that share a hash share a
// reservation, which at worst makes a create wait for another key's: a
// 64-bit hash of a few tens of thousands of keys does not repeat.
func (rs *reservations) reserve(container, key []byte, until time.Time, now time.Time) {
	if now.Unix() > rs.swept {
		rs.swept = now.Unix()
		for h, end := range rs.until {
			if end <= rs.swept {
				delete(rs.until, h)
			}
		}
	}
	h := rs.hash(container, key)
	rs.until[h] = max(rs.until[h], until.Unix())
}

// holds reports whether the item at key of the container bucket named
// container is reserved at now. Every create asks, and there is most often
// no reservation at all.
func (rs *reservations) holds(container, key []byte, now time.Time) bool {
	if len(rs.until) == 0 {
		return false
	}
	return rs.until[rs.hash(container, key)] > now.Unix()
}

// hash is the hash of an item's cacheKey, built in a stack buffer.
func (rs *reservations) hash(container, key []byte) uint64 {
	var buf [256]byte
	return maphash.Bytes(rs.seed, cacheKey(buf[:0], container, key))
}
