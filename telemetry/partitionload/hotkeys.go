// Package partitionload counts the load on each logical partition: a store.Store
// decorator records, per container and partition key, the requests and
// request charge (RU) every call is charged, in a sliding window that the
// API serves hottest first (GET /api/manage/partitions).
//
// The window is a ring of fixed buckets (5 minutes in 10-second buckets by
// default): recording takes one lock and one map update, memory is bounded
// by the distinct keys seen in the window, capped per bucket (beyond the
// cap, calls are counted under an "(other)" key).
package partitionload

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// Defaults of NewRecorder.
const (
	DefaultWindow     = 5 * time.Minute
	DefaultResolution = 10 * time.Second
	// MaxKeysPerBucket bounds memory under a flood of distinct keys.
	MaxKeysPerBucket = 50_000
)

// Key names what a call touched: one logical partition (a full key), a
// prefix of a hierarchical key, every partition (empty key), or the change
// feed.
type Key struct {
	Container    string   `json:"container"`
	PartitionKey []string `json:"partitionKey"`
	Scope        string   `json:"scope"`
}

// Stat is what the calls to one key cost in the window.
type Stat struct {
	Key
	Requests int64   `json:"requests"`
	RU       float64 `json:"ru"`
	// Share is the key's share of all RU recorded in the window.
	Share float64 `json:"ruShare"`
}

type entry struct {
	key      Key
	requests int64
	ru       float64
}

type bucket struct {
	epoch int64 // the bucket's start, in resolutions since the Unix epoch
	stats map[string]*entry
}

// Recorder keeps the sliding window. It is safe for concurrent use.
type Recorder struct {
	mu         sync.Mutex
	resolution time.Duration
	buckets    []bucket
	now        func() time.Time
}

// NewRecorder returns a recorder over window in steps of resolution
// (DefaultWindow and DefaultResolution when zero).
func NewRecorder(window, resolution time.Duration) *Recorder {
	if window <= 0 {
		window = DefaultWindow
	}
	if resolution <= 0 {
		resolution = DefaultResolution
	}
	n := int((window + resolution - 1) / resolution)
	return &Recorder{resolution: resolution, buckets: make([]bucket, max(n, 1)), now: time.Now}
}

// Window is the time the recorder looks back over.
func (r *Recorder) Window() time.Duration { return r.resolution * time.Duration(len(r.buckets)) }

// Resolution is the length of one step of the window.
func (r *Recorder) Resolution() time.Duration { return r.resolution }

func mapKey(k Key) string { return string(appendMapKey(nil, k)) }

// appendMapKey appends the key under which k is counted: container and
// scope each ended by a NUL, then the partition key values separated by
// unit separators.
func appendMapKey(b []byte, k Key) []byte {
	b = append(b, k.Container...)
	b = append(b, 0)
	b = append(b, k.Scope...)
	b = append(b, 0)
	for i, v := range k.PartitionKey {
		if i > 0 {
			b = append(b, 0x1f)
		}
		b = append(b, v...)
	}
	return b
}

// Record counts one call of the given cost against a key.
func (r *Recorder) Record(k Key, c store.Cost) {
	epoch := r.now().UnixNano() / int64(r.resolution)
	// The key is built on the stack: looking it up allocates nothing, and
	// only a key seen first in its bucket is copied into the map.
	var buf [128]byte
	mk := appendMapKey(buf[:0], k)
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &r.buckets[int(epoch%int64(len(r.buckets)))]
	if b.epoch != epoch || b.stats == nil {
		b.epoch, b.stats = epoch, map[string]*entry{}
	}
	e := b.stats[string(mk)]
	if e == nil {
		if len(b.stats) >= MaxKeysPerBucket {
			k = Key{Container: k.Container, Scope: "(other)"}
			mk = appendMapKey(buf[:0], k)
			e = b.stats[string(mk)]
		}
		if e == nil {
			e = &entry{key: Key{Container: k.Container, PartitionKey: append([]string(nil), k.PartitionKey...), Scope: k.Scope}}
			b.stats[string(mk)] = e
		}
	}
	e.requests += int64(max(c.Requests, 1))
	e.ru += c.Charge
}

// Top returns the n hottest keys of the window by RU (then requests),
// of one container when container is not empty; n <= 0 means all.
func (r *Recorder) Top(n int, container string) []Stat {
	epoch := r.now().UnixNano() / int64(r.resolution)
	sums := map[string]*Stat{}
	var total float64
	r.mu.Lock()
	for _, b := range r.buckets {
		if b.stats == nil || b.epoch <= epoch-int64(len(r.buckets)) || b.epoch > epoch {
			continue
		}
		for mk, e := range b.stats {
			if container != "" && e.key.Container != container {
				continue
			}
			s := sums[mk]
			if s == nil {
				s = &Stat{Key: e.key}
				sums[mk] = s
			}
			s.Requests += e.requests
			s.RU += e.ru
			total += e.ru
		}
	}
	r.mu.Unlock()
	out := make([]Stat, 0, len(sums))
	for _, s := range sums {
		if total > 0 {
			s.Share = s.RU / total
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.RU != b.RU {
			return a.RU > b.RU
		}
		if a.Requests != b.Requests {
			return a.Requests > b.Requests
		}
		return mapKey(a.Key) < mapKey(b.Key)
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Wrap returns st with every container call recorded in r.
func Wrap(st store.Store, r *Recorder) store.Store { return &recordingStore{Store: st, r: r} }

type recordingStore struct {
	store.Store
	r *Recorder
}

func (s *recordingStore) Container(ctx context.Context, name string) (store.Container, error) {
	c, err := s.Store.Container(ctx, name)
	if err != nil {
		return nil, err
	}
	return WrapContainer(c, s.r), nil
}

// WrapContainer returns c with every call recorded in r.
func WrapContainer(c store.Container, r *Recorder) store.Container {
	return &container{Container: c, r: r, name: c.Spec().Name, paths: len(c.Spec().PartitionKeyPaths)}
}

type container struct {
	store.Container
	r     *Recorder
	name  string
	paths int
}

// measure runs one call with a meter of its own and records what it cost
// against the key of pk.
func (c *container) measure(ctx context.Context, pk store.PartitionKey, call func(context.Context)) {
	mctx, m := store.WithMeter(ctx)
	call(mctx)
	cost := m.Cost()
	scope := store.ScopeOf(pk, c.paths).String()
	if cost.Scope.Kind == store.ScopePoint {
		scope = store.Point.String()
	}
	c.r.Record(Key{Container: c.name, PartitionKey: pk, Scope: scope}, cost)
}

func (c *container) Read(ctx context.Context, pk store.PartitionKey, id string) (it store.Item, err error) {
	c.measure(ctx, pk, func(ctx context.Context) { it, err = c.Container.Read(ctx, pk, id) })
	return it, err
}

func (c *container) View(ctx context.Context, pk store.PartitionKey, id string, d store.Decoder) (err error) {
	c.measure(ctx, pk, func(ctx context.Context) { err = store.View(ctx, c.Container, pk, id, d) })
	return err
}

func (c *container) Create(ctx context.Context, pk store.PartitionKey, doc []byte) (it store.Item, err error) {
	c.measure(ctx, pk, func(ctx context.Context) { it, err = c.Container.Create(ctx, pk, doc) })
	return it, err
}

func (c *container) Upsert(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (it store.Item, err error) {
	c.measure(ctx, pk, func(ctx context.Context) { it, err = c.Container.Upsert(ctx, pk, doc, o) })
	return it, err
}

func (c *container) Replace(ctx context.Context, pk store.PartitionKey, doc []byte, o *store.WriteOptions) (it store.Item, err error) {
	c.measure(ctx, pk, func(ctx context.Context) { it, err = c.Container.Replace(ctx, pk, doc, o) })
	return it, err
}

func (c *container) Delete(ctx context.Context, pk store.PartitionKey, id string, o *store.WriteOptions) (err error) {
	c.measure(ctx, pk, func(ctx context.Context) { err = c.Container.Delete(ctx, pk, id, o) })
	return err
}

func (c *container) Batch(ctx context.Context, pk store.PartitionKey, ops []store.Op) (res []store.OpResult, err error) {
	c.measure(ctx, pk, func(ctx context.Context) { res, err = c.Container.Batch(ctx, pk, ops) })
	return res, err
}

func (c *container) Query(ctx context.Context, q store.Query) (p store.Page, err error) {
	c.measure(ctx, q.PartitionKey, func(ctx context.Context) { p, err = c.Container.Query(ctx, q) })
	return p, err
}

// UpsertAtomically passes the transaction on and charges each of its
// writes to the logical partition it writes, in its own container, as a
// request of that partition: the transaction spans partitions (the audit
// pump writes a whole batch of records in one), and the load it puts on
// each is what this view exists to show. Its charge is shared among the
// writes as each would cost alone.
func (c *container) UpsertAtomically(ctx context.Context, ups []store.Upsert) (ok bool, err error) {
	mctx, m := store.WithMeter(ctx)
	ok, err = store.UpsertAtomically(mctx, c.Container, ups)
	if !ok || len(ups) == 0 {
		return ok, err
	}
	alone := make([]float64, len(ups))
	var sum float64
	for i, u := range ups {
		alone[i] = ru.Write(int64(len(u.Doc)))
		sum += alone[i]
	}
	charge := m.Cost().Charge
	for i, u := range ups {
		c.r.Record(Key{Container: u.Container, PartitionKey: u.PartitionKey, Scope: store.Partition.String()},
			store.Cost{Scope: store.Partition, Charge: charge * alone[i] / sum, Requests: 1})
	}
	return ok, err
}

func (c *container) ChangeFeed(ctx context.Context, continuation string, max int) (store.ChangeBatch, error) {
	mctx, m := store.WithMeter(ctx)
	b, err := c.Container.ChangeFeed(mctx, continuation, max)
	c.r.Record(Key{Container: c.name, Scope: "change-feed"}, m.Cost())
	return b, err
}
