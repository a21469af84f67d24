package bolt

import (
	"strconv"
	"testing"
)

// A reader whose transaction began before a commit changed its key keeps
// nothing of what it read; one that began after keeps it until the next
// change; and once the stamps of written keys are dropped, readers that
// began before keep nothing at all; nor does any reader while a key's
// commit is in flight.
func TestReadCacheFill(t *testing.T) {
	rc := newReadCache()
	key := cacheKey(nil, []byte("c/todos"), []byte("k"))
	old := rc.generation()
	rc.written(key)
	rc.committed()
	rc.fill(key, old, record{lsn: 1, body: []byte(`{}`)})
	if _, ok := rc.get(key); ok {
		t.Fatal("a read begun before the commit that changed its key was kept")
	}
	rc.fill(key, rc.generation(), record{lsn: 2, body: []byte(`{}`)})
	if r, ok := rc.get(key); !ok || r.lsn != 2 {
		t.Fatalf("a read begun after the commit was not kept: %+v %v", r, ok)
	}
	rc.written(key)
	rc.committed()
	if _, ok := rc.get(key); ok {
		t.Fatal("a changed key is still cached")
	}
	// From the moment a transaction names a key until its commit is
	// stamped, the key's copy is gone and no read is kept, whenever it
	// began: the commit may be visible to read transactions already.
	rc.fill(key, rc.generation(), record{lsn: 5, body: []byte(`{}`)})
	rc.written(key)
	if _, ok := rc.get(key); ok {
		t.Fatal("a key being committed is still served from the cache")
	}
	rc.fill(key, rc.generation(), record{lsn: 6, body: []byte(`{}`)})
	if _, ok := rc.get(key); ok {
		t.Fatal("a read of a key being committed was kept")
	}
	rc.committed()

	other := cacheKey(nil, []byte("c/todos"), []byte("other"))
	before := rc.generation()
	for i := range maxStamps {
		rc.written(cacheKey(nil, []byte("c/audit"), []byte{byte(i), byte(i >> 8), byte(i >> 16)}))
	}
	rc.committed()
	if len(rc.stamped) > maxStamps {
		t.Fatalf("%d stamps kept, more than %d", len(rc.stamped), maxStamps)
	}
	rc.fill(other, before, record{lsn: 3, body: []byte(`{}`)})
	if _, ok := rc.get(other); ok {
		t.Fatal("a read begun before the stamps were dropped was kept")
	}

	big := make([]byte, maxCachedBody+1)
	rc.fill(other, rc.generation(), record{body: big})
	if _, ok := rc.get(other); ok {
		t.Fatal("an item over maxCachedBody was kept")
	}
	for i := range 2 * cacheBudget / maxCachedBody {
		rc.fill(cacheKey(nil, []byte("c/todos"), []byte(strconv.Itoa(i))), rc.generation(), record{body: make([]byte, maxCachedBody)})
	}
	if rc.bytes > cacheBudget {
		t.Fatalf("%d bytes cached, over the budget of %d", rc.bytes, cacheBudget)
	}
}
