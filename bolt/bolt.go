package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

var (
	bucketContainers = []byte("containers") // name → JSON ContainerSpec
	bucketItems      = []byte("items")
	bucketFeed       = []byte("feed")
	// bucketOrder (order.go) is the range index.
)

// Options tune the store; nil means defaults.
type Options struct {
	// Now is the clock, for TTL; time.Now when nil.
	Now func() time.Time
	// SweepInterval is how often expired items are purged; one minute when
	// zero. Expired items are invisible before they are purged.
	SweepInterval time.Duration
	// Log receives the failures of the background purge; they are
	// discarded when nil.
	Log *slog.Logger
	// OnFault, when set, hears a write the disk refused as soon as it
	// fails (once, until Ping finds the disk writable again), so that
	// health can name the disk at once rather than at its next probe.
	OnFault func(error)
	// ClockStamps stamps writes with Now as it is, even when it goes back,
	// rather than never earlier than the write before: for tests of
	// readers that must cope with clocks like Cosmos DB's partitions',
	// where a later commit can carry an earlier _ts.
	ClockStamps bool
}

// Store is the embedded store. It is safe for concurrent use.
type Store struct {
	dir    string
	db     *bbolt.DB
	commit *committer
	reads  *readCache
	// reserved are the keys of retired items; only the committer's
	// goroutine touches them.
	reserved *reservations
	// lastTS is the newest _ts a write was stamped with; only the
	// committer's goroutine touches it.
	lastTS      int64
	clockStamps bool
	now         func() time.Time
	log         *slog.Logger

	mu         sync.Mutex
	containers map[string]*container

	stop chan struct{}
	done chan struct{}
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the store file in dir and makes sure the
// given containers exist. An existing container whose partition key paths
// differ fails: a partition key cannot change after creation. A file that
// cannot be used as it is fails with a *FileError marked store.Permanent. A
// file whose lock another process holds is waited for, a few seconds, then
// fails with an error marked store.Permanent naming DATA_DIR, and so does a
// directory that cannot hold the file (not creatable, not writable, not a
// directory).
func Open(dir string, specs []store.ContainerSpec, o *Options) (*Store, error) {
	if o == nil {
		o = &Options{}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, dirError(dir, err)
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path := filepath.Join(dir, "store.db")
	db, err := openDB(dir, path, log)
	if err != nil {
		return nil, err
	}
	s := &Store{
		dir:         dir,
		db:          db,
		commit:      newCommitter(db, o.OnFault),
		reads:       newReadCache(),
		reserved:    newReservations(),
		clockStamps: o.ClockStamps,
		now:         o.Now,
		log:         log,
		containers:  map[string]*container{},
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	s.commit.afterCommit = s.reads.committed
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.ensure(specs); err != nil {
		_ = db.Close()
		return nil, err
	}
	if s.lastTS, err = s.newestStamp(); err != nil {
		_ = db.Close()
		return nil, err
	}
	interval := o.SweepInterval
	if interval <= 0 {
		interval = time.Minute
	}
	go s.sweep(interval)
	return s, nil
}

func (s *Store) ensure(specs []store.ContainerSpec) error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketContainers)
		if err != nil {
			return err
		}
		for _, spec := range specs {
			var have store.ContainerSpec
			if old := meta.Get([]byte(spec.Name)); old != nil {
				if err := json.Unmarshal(old, &have); err != nil {
					return fmt.Errorf("embedded store: container %s: %w", spec.Name, err)
				}
				if !slices.Equal(have.PartitionKeyPaths, spec.PartitionKeyPaths) {
					return store.Permanent(fmt.Errorf("embedded store: container %s has partition key %v, not %v (%w); a partition key cannot change (use a new DATA_DIR)",
						spec.Name, have.PartitionKeyPaths, spec.PartitionKeyPaths, store.ErrPartitionKeyChanged))
				}
			}
			b, err := json.Marshal(spec)
			if err != nil {
				return err
			}
			if err := meta.Put([]byte(spec.Name), b); err != nil {
				return err
			}
			cb, err := tx.CreateBucketIfNotExists(containerBucket(spec.Name))
			if err != nil {
				return err
			}
			if _, err := cb.CreateBucketIfNotExists(bucketItems); err != nil {
				return err
			}
			if err := (&container{spec: spec}).keepFeed(cb); err != nil {
				return fmt.Errorf("embedded store: the change feed of container %s: %w", spec.Name, err)
			}
			if indexStale(cb, have.Indexing, spec.Indexing) {
				if err := (&container{spec: spec}).reindex(cb); err != nil {
					return fmt.Errorf("embedded store: indexing container %s: %w", spec.Name, err)
				}
			}
		}
		return nil
	})
}

func containerBucket(name string) []byte { return []byte("c/" + name) }

// Container returns the named container.
func (s *Store) Container(_ context.Context, name string) (store.Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.containers[name]; ok {
		return c, nil
	}
	var spec store.ContainerSpec
	err := s.db.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketContainers)
		v := meta.Get([]byte(name))
		if v == nil {
			return todo.Errorf(todo.NotFound, "container %s does not exist", name)
		}
		return json.Unmarshal(v, &spec)
	})
	if err != nil {
		return nil, err
	}
	c := &container{s: s, spec: spec, name: containerBucket(name)}
	s.containers[name] = c
	return c, nil
}

// Ping checks that the database file is readable and, after a write the
// disk refused, that the disk takes writes again (see probeDisk): until it
// does, Ping returns the fault, so health reports it, and once it does the
// fault clears by itself.
func (s *Store) Ping(context.Context) error {
	if fault := s.commit.fault.Load(); fault != nil {
		if err := s.probeDisk(); err != nil {
			if f := writeFault(err); todo.IsKind(f, todo.InsufficientStorage) {
				return f
			}
			return fault
		}
		s.commit.fault.CompareAndSwap(fault, nil)
	}
	return s.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketContainers) == nil {
			return todo.Errorf(todo.Unavailable, "embedded store is not initialised")
		}
		return nil
	})
}

// Changed returns a channel closed by the next commit of any write, so
// that a reader of the change feed (the standalone audit pump) can wait
// for a change instead of polling for one. Take it before the read whose
// emptiness makes the reader wait: a commit in between closes it.
func (s *Store) Changed() <-chan struct{} { return s.commit.changes() }

// probeBytes is the size of the test write of probeDisk: room for a few
// commits. A commit can succeed on a full disk by reusing pages the file
// already holds, so a successful commit does not prove that space returned.
const probeBytes = 1 << 20

// probeDisk writes and syncs probeBytes in a scratch file beside the store
// file, then removes it.
func (s *Store) probeDisk() error {
	f, err := os.CreateTemp(s.dir, ".probe-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(make([]byte, probeBytes)); err != nil {
		return err
	}
	return f.Sync()
}

// Close waits for in-flight commits and closes the file.
func (s *Store) Close() error {
	close(s.stop)
	<-s.done
	s.commit.wait()
	return s.db.Close()
}

// sweep purges expired items now and then, so they stop taking space.
func (s *Store) sweep(interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			cs := make([]*container, 0, len(s.containers))
			for _, c := range s.containers {
				cs = append(cs, c)
			}
			s.mu.Unlock()
			for _, c := range cs {
				if err := c.purgeExpired(s.stop); err != nil {
					s.log.Error("purging expired items failed; the next sweep tries again", "error", err.Error())
				}
			}
		}
	}
}

// StampsInCommitOrder reports whether writes are stamped as they commit,
// one transaction after another and never earlier than the write before
// (stamp): then a write committed after a read is stamped no earlier than
// the newest _ts the read saw. A reader of what was written past a _ts (the
// transparency log's integrator) need re-read no more than that second.
// Across a restart it holds for the containers someone follows, whose
// change feeds tell the newest stamp (store.ContainerSpec.Unfollowed). It
// is false under Options.ClockStamps.
func (s *Store) StampsInCommitOrder() bool { return !s.clockStamps }

// newestStamp is the newest _ts of the stored items that readers of what
// was written since a time may see: the last written item of each
// container's change feed (a container no one follows has none).
func (s *Store) newestStamp() (int64, error) {
	var newest int64
	err := s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketContainers).ForEach(func(name, _ []byte) error {
			cb := tx.Bucket(containerBucket(string(name)))
			if cb == nil {
				return nil
			}
			feed := cb.Bucket(bucketFeed)
			if feed == nil {
				return nil // a container no one follows keeps no feed
			}
			if _, key := feed.Cursor().Last(); key != nil {
				if v := cb.Bucket(bucketItems).Get(key); v != nil {
					if ts, ok := bodyWrittenAt(decodeRecord(v).body); ok {
						newest = max(newest, ts)
					}
				}
			}
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("embedded store: %w", err)
	}
	return newest, nil
}

// stamp is the _ts of the writes of a transaction applied at now: now in
// whole seconds, or the last stamp if the clock went back (unless
// Options.ClockStamps).
func (s *Store) stamp(now time.Time) int64 {
	if s.clockStamps {
		return now.Unix()
	}
	s.lastTS = max(s.lastTS, now.Unix())
	return s.lastTS
}

// record is the stored value of an item: its LSN, its expiry (unix seconds,
// 0 = never) and its JSON body.
type record struct {
	lsn     uint64
	expires int64
	body    []byte
}

const recordHeader = 16

// getter reads the values of one bucket's keys through one cursor: unlike
// Bucket.Get, which makes a cursor and grows its stack for every read, a
// reader of many keys allocates once. Each read repositions the cursor, so
// writes to the bucket between reads are seen.
type getter struct{ cur *bbolt.Cursor }

func getterOf(b *bbolt.Bucket) getter { return getter{b.Cursor()} }

// get is Bucket.Get: the value at key, nil when there is none.
func (g getter) get(key []byte) []byte {
	k, v := g.cur.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// recordValue starts the stored value of a record: its header, with room
// for a body of up to size bytes to be appended.
func recordValue(lsn uint64, expires int64, size int) []byte {
	b := make([]byte, recordHeader, recordHeader+size)
	binary.BigEndian.PutUint64(b, lsn)
	binary.BigEndian.PutUint64(b[8:], uint64(expires))
	return b
}

// decodeRecord decodes v; body aliases v, which is only valid inside the
// transaction.
func decodeRecord(v []byte) record {
	return record{
		lsn:     binary.BigEndian.Uint64(v),
		expires: int64(binary.BigEndian.Uint64(v[8:])),
		body:    v[recordHeader:],
	}
}

func (r record) expired(now time.Time) bool { return r.expires != 0 && now.Unix() >= r.expires }

func lsnKey(lsn uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, lsn)
	return b
}

// appendJSONETag appends an ETag etagOf wrote as a JSON string: its
// quotes escaped, its hex digits as they are.
func appendJSONETag(b []byte, etag string) []byte {
	b = append(b, `"\"`...)
	b = append(b, etag[1:len(etag)-1]...)
	return append(b, `\""`...)
}

func etagOf(lsn uint64) string {
	var b [18]byte
	hex := strconv.AppendUint(b[:0], lsn, 16)
	out := make([]byte, 0, 18)
	out = append(out, '"')
	for range 16 - len(hex) {
		out = append(out, '0')
	}
	out = append(out, hex...)
	return string(append(out, '"'))
}
