package analyze

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// Cosmos DB limits the analysis checks against.
const (
	LogicalPartitionMaxBytes  = 20 << 30
	PhysicalPartitionMaxBytes = 50 << 30
	PhysicalPartitionMaxRU    = 10_000
)

// Options are the questions asked of a workload.
type Options struct {
	// Schemes to evaluate; every scheme when empty.
	Schemes []string `json:"schemes"`
	// Buckets is the synthetic scheme's SYNTHETIC_BUCKETS.
	Buckets int `json:"buckets"`
	// Throughput is the provisioned (or autoscale maximum) RU/s.
	Throughput float64 `json:"throughputRUs"`
	// Demand is the peak write load to test in RU/s; half the throughput
	// (the rest left to reads) when zero.
	Demand float64 `json:"demandRUs"`
	// GrowthPerMonth is how fast the data grows, 0.1 for 10% a month.
	GrowthPerMonth float64 `json:"growthPerMonth"`
	// HorizonMonths is how far ahead a partition reaching 20 GB is a risk.
	HorizonMonths float64 `json:"horizonMonths"`
	// PageSize is the page size of list queries.
	PageSize int `json:"pageSize"`
	// ReadBudget is the most RU a typical user's query may cost before it
	// rules a scheme out.
	ReadBudget float64 `json:"readBudgetRU"`
	// ActivityMonths is the time range of the activity estimate: the last
	// this many calendar months of the workload; ActivityPageSize its page.
	ActivityMonths   int `json:"activityMonths"`
	ActivityPageSize int `json:"activityPageSize"`
}

// DefaultOptions are the analyzer's defaults.
func DefaultOptions() Options {
	return Options{Buckets: 10, Throughput: 40_000, GrowthPerMonth: 0.10, HorizonMonths: 24, PageSize: 100, ReadBudget: 100,
		ActivityMonths: 1, ActivityPageSize: 20}
}

func (o *Options) fill() error {
	d := DefaultOptions()
	if len(o.Schemes) == 0 {
		o.Schemes = slices.Clone(partition.Names)
	}
	if o.Buckets == 0 {
		o.Buckets = d.Buckets
	}
	if o.Throughput <= 0 {
		o.Throughput = d.Throughput
	}
	if o.Demand <= 0 {
		o.Demand = o.Throughput / 2
	}
	if o.PageSize <= 0 {
		o.PageSize = d.PageSize
	}
	if o.ReadBudget <= 0 {
		o.ReadBudget = d.ReadBudget
	}
	if o.ActivityMonths <= 0 {
		o.ActivityMonths = d.ActivityMonths
	}
	if o.ActivityPageSize <= 0 {
		o.ActivityPageSize = d.ActivityPageSize
	}
	if o.HorizonMonths <= 0 {
		o.HorizonMonths = d.HorizonMonths
	}
	if o.GrowthPerMonth < 0 {
		return fmt.Errorf("growth must not be negative")
	}
	return nil
}

// part is one logical partition's aggregate.
type part struct {
	key     store.PartitionKey
	todos   int64
	docs    int64
	bytes   int64
	writes  int64
	writeRU float64
}

// schemeAgg aggregates the workload under one scheme.
type schemeAgg struct {
	scheme partition.Scheme
	parts  map[string]*part
	// Synthetic simulation: the next sequence number of each user, and the
	// bucket of each todo id whose versions may follow (exports only).
	seq        map[string]int64
	todoBucket map[string]int32
	pending    map[string][]Record // versions seen before their todo
}

// userAgg is what the read estimates need of one user.
type userAgg struct {
	todos, bytes int64
	cats         map[string]int64
	// months are the user's activity partitions (generated workloads).
	months []monthCount
}

// Analyzer aggregates a stream of records. It is not safe for concurrent
// use.
type Analyzer struct {
	opt     Options
	schemes []*schemeAgg
	users   map[string]*userAgg
	cats    map[string]int64
	audit   auditAgg
	in      InputSummary
	scratch todo.Todo
}

// New returns an analyzer for the given options.
func New(o Options) (*Analyzer, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	a := &Analyzer{opt: o, users: map[string]*userAgg{}, cats: map[string]int64{}}
	for _, name := range o.Schemes {
		s, err := partition.New(name, o.Buckets, nil)
		if err != nil {
			return nil, err
		}
		ag := &schemeAgg{scheme: s, parts: map[string]*part{}}
		if name == partition.Synthetic {
			ag.seq, ag.todoBucket, ag.pending = map[string]int64{}, map[string]int32{}, map[string][]Record{}
		}
		a.schemes = append(a.schemes, ag)
	}
	return a, nil
}

func keyString(pk store.PartitionKey) string { return strings.Join(pk, "\x1f") }

func (s *schemeAgg) part(pk store.PartitionKey) *part {
	k := keyString(pk)
	p := s.parts[k]
	if p == nil {
		p = &part{key: pk}
		s.parts[k] = p
	}
	return p
}

// writeRU is what the writes of a todo cost: each a batch of the todo and
// its version document.
func writeRU(r *Record) float64 {
	return float64(r.Writes) * (ru.Write(r.Bytes) + ru.Write(r.VersionBytes))
}

// Add counts one record.
func (a *Analyzer) Add(r *Record) {
	a.in.Documents++
	a.in.Bytes += r.Bytes
	switch r.Type {
	case todo.TypeTodo:
		a.in.Todos++
		a.in.Writes += r.Writes
		a.in.WriteRU += writeRU(r)
		a.in.Versions += r.Versions
		a.in.Documents += r.Versions
		a.in.Bytes += r.Versions * r.VersionBytes
		u := a.users[r.UserID]
		if u == nil {
			u = &userAgg{cats: map[string]int64{}}
			a.users[r.UserID] = u
		}
		u.todos++
		u.bytes += r.Bytes
		u.cats[r.Category]++
		a.cats[r.Category]++
		a.addAudit(r, u)
	case todo.TypeVersion:
		a.in.Versions++
	case todo.TypeSequence:
		a.in.Sequences++
	}
	for _, s := range a.schemes {
		s.add(a, r)
	}
}

// keyOf asks the scheme where a document with these properties lives.
func (a *Analyzer) keyOf(s *schemeAgg, user, category, pk string) store.PartitionKey {
	a.scratch.UserID, a.scratch.Category, a.scratch.PartitionKey = user, category, pk
	return s.scheme.KeyOf(&a.scratch)
}

func (s *schemeAgg) add(a *Analyzer, r *Record) {
	synthetic := s.seq != nil
	switch r.Type {
	case todo.TypeTodo:
		pk := r.PartitionKey
		if synthetic {
			if pk == "" {
				// The scheme's sequence rule: n = sequence mod buckets.
				n := s.seq[r.UserID] % int64(a.opt.Buckets)
				s.seq[r.UserID]++
				pk = partition.Bucket(r.UserID, int(n))
				if r.TodoID != "" {
					s.todoBucket[r.TodoID] = int32(n)
					for _, v := range s.pending[r.TodoID] {
						s.addDoc(a.keyOf(s, v.UserID, v.Category, pk), &v)
					}
					delete(s.pending, r.TodoID)
				}
			}
			// The create read and replaced the sequence document in bucket 0.
			sp := s.part(store.PartitionKey{partition.Bucket(r.UserID, 0)})
			sp.writes++
			sp.writeRU += ru.Read(sequenceBytes) + ru.Write(sequenceBytes)
		}
		p := s.part(a.keyOf(s, r.UserID, r.Category, pk))
		p.todos++
		p.docs += 1 + r.Versions
		p.bytes += r.Bytes + r.Versions*r.VersionBytes
		p.writes += r.Writes
		p.writeRU += writeRU(r)
	case todo.TypeVersion:
		pk := r.PartitionKey
		if synthetic && pk == "" {
			n, ok := s.todoBucket[r.TodoID]
			if !ok {
				s.pending[r.TodoID] = append(s.pending[r.TodoID], *r)
				return
			}
			pk = partition.Bucket(r.UserID, int(n))
		}
		s.addDoc(a.keyOf(s, r.UserID, r.Category, pk), r)
	case todo.TypeSequence:
		// Sequence documents exist only in synthetic stores.
		if synthetic {
			s.addDoc(store.PartitionKey{r.PartitionKey}, r)
		}
	}
}

func (s *schemeAgg) addDoc(pk store.PartitionKey, r *Record) {
	p := s.part(pk)
	p.docs++
	p.bytes += r.Bytes
}

// finish places what only the end of the input settles: the simulated
// sequence documents, and versions whose todo never came (deleted todos)
// in the bucket their todo would have had.
func (s *schemeAgg) finish(a *Analyzer) {
	if s.seq == nil {
		return
	}
	ids := make([]string, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		vs := s.pending[id]
		u := vs[0].UserID
		n := s.seq[u] % int64(a.opt.Buckets)
		s.seq[u]++
		for _, v := range vs {
			s.addDoc(store.PartitionKey{partition.Bucket(u, int(n))}, &v)
		}
	}
	s.pending = map[string][]Record{}
	for u := range s.seq {
		s.addDoc(store.PartitionKey{partition.Bucket(u, 0)}, &Record{Bytes: sequenceBytes})
	}
	s.seq = map[string]int64{}
}

// epk approximates the effective partition key's place in the hash space:
// MurmurHash3 (x86, 32-bit) of the first component in the high 32 bits, of
// the rest in the low 32, so that one user's hierarchical partitions are
// neighbours as they are under Cosmos DB's MultiHash. Cosmos DB hashes its
// own binary encoding of the key, so exact placement differs; the spread
// over many keys is the same.
func epk(pk store.PartitionKey) uint64 {
	var v uint64
	if len(pk) > 0 {
		v = uint64(murmur3([]byte(pk[0]))) << 32
	}
	if len(pk) > 1 {
		v |= uint64(murmur3([]byte(strings.Join(pk[1:], "\x1f"))))
	}
	return v
}

// murmur3 is MurmurHash3_x86_32 with seed 0.
func murmur3(data []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(data) / 4
	for i := range n {
		k := binary.LittleEndian.Uint32(data[4*i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := data[4*n:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// physicalOf is the physical partition, of n equal hash ranges, of pk.
func physicalOf(pk store.PartitionKey, n int) int {
	hi, _ := bits.Mul64(epk(pk), uint64(n))
	return int(hi)
}

// physicalCount is how many physical partitions throughput and data need.
func physicalCount(throughput float64, bytes int64) (int, string) {
	byRU := int(math.Ceil(throughput / PhysicalPartitionMaxRU))
	byData := int(math.Ceil(float64(bytes) / PhysicalPartitionMaxBytes))
	switch {
	case byRU <= 1 && byData <= 1:
		return 1, "one partition holds it all"
	case byData > byRU:
		return byData, fmt.Sprintf("%s of data at 50 GB each", fmtBytes(bytes))
	}
	return byRU, fmt.Sprintf("%s RU/s at 10,000 each", fmtInt(int64(throughput)))
}
