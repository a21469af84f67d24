package analyze

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/ru"
	"github.com/todoaudit/todo/store"
)

// InputSummary describes the workload analysed.
type InputSummary struct {
	Source string `json:"source"`
	// Documents counts todos, version documents (present or modelled) and
	// sequence documents; Bytes is their total size.
	Documents  int64      `json:"documents"`
	Todos      int64      `json:"todos"`
	Versions   int64      `json:"versions"`
	Sequences  int64      `json:"sequences"`
	Users      int        `json:"users"`
	Categories int        `json:"categories"`
	Bytes      int64      `json:"bytes"`
	Writes     int64      `json:"writes"`
	WriteRU    float64    `json:"writeRU"`
	Read       ReadResult `json:"read,omitzero"`
	Workload   *Workload  `json:"workload,omitempty"`
}

// Partition is one logical partition in a report.
type Partition struct {
	Key    []string `json:"key"`
	Todos  int64    `json:"todos"`
	Docs   int64    `json:"documents"`
	Bytes  int64    `json:"bytes"`
	Writes int64    `json:"writes"`
	// Share is the partition's share of the scheme's write charges.
	Share float64 `json:"writeShare"`
}

// Bin is one bar of the partition size histogram: partitions of size in
// [Min, Max).
type Bin struct {
	Min   int64 `json:"minBytes"`
	Max   int64 `json:"maxBytes"`
	Count int   `json:"partitions"`
}

// Logical describes a scheme's logical partitions.
type Logical struct {
	Count     int       `json:"count"`
	P50Bytes  int64     `json:"p50Bytes"`
	P90Bytes  int64     `json:"p90Bytes"`
	P99Bytes  int64     `json:"p99Bytes"`
	Largest   Partition `json:"largest"`
	OfLimit   float64   `json:"largestShareOf20GB"`
	Histogram []Bin     `json:"histogram"`
	// MonthsToLimit is when the largest reaches 20 GB at the growth rate;
	// null when it never does (no growth).
	MonthsToLimit *float64 `json:"monthsTo20GB"`
}

// Writes describes a scheme's write skew.
type Writes struct {
	Hottest Partition `json:"hottest"`
	// HottestRU is the hottest logical partition's part of the demand;
	// above 10,000 RU/s no number of physical partitions can serve it.
	HottestRU  float64     `json:"hottestRUs"`
	OverLimit  bool        `json:"overLogicalLimit"`
	Top        []Partition `json:"top"`
	Partitions int         `json:"physicalPartitions"`
	Basis      string      `json:"physicalBasis"`
	// CapacityRU is each physical partition's share of the throughput.
	CapacityRU float64 `json:"capacityRUs"`
	// Loads are the physical partitions' shares of the write charges.
	Loads        []float64 `json:"physicalShares"`
	MaxPhysBytes int64     `json:"largestPhysicalBytes"`
	HottestPhys  int       `json:"hottestPhysical"`
	HottestLoad  float64   `json:"hottestPhysicalRUs"`
	Throttled    bool      `json:"throttled"`
}

// Cost is one query's estimate.
type Cost struct {
	Requests int     `json:"requests"`
	Loaded   int64   `json:"loaded"`
	Items    int64   `json:"items"`
	RU       float64 `json:"ru"`
}

// Query is one query pattern's cost for a typical (median) user and the
// busiest one.
type Query struct {
	Pattern  string `json:"pattern"`
	Scope    string `json:"scope"`
	Typical  Cost   `json:"typical"`
	Busiest  Cost   `json:"busiest"`
	Optional bool   `json:"-"`
}

// SchemeReport is the analysis of one scheme.
type SchemeReport struct {
	Name    string   `json:"scheme"`
	Label   string   `json:"label"`
	Paths   []string `json:"paths"`
	Logical Logical  `json:"logical"`
	Writes  Writes   `json:"writes"`
	Reads   []Query  `json:"reads"`
	// Problems rule the scheme out; Warnings do not.
	Problems []string `json:"problems"`
	Warnings []string `json:"warnings"`
	// Severity is the worst problem: 3 fails now (a partition over 20 GB or
	// over 10,000 RU/s), 2 fails within the horizon, 1 reads over budget.
	Severity int `json:"severity"`
	// UserRU is the typical user's cost of one of each user query, the
	// read figure schemes are compared by.
	UserRU float64 `json:"typicalUserReadRU"`
}

// Recommendation is the analyzer's advice.
type Recommendation struct {
	Scheme  string   `json:"scheme"`
	Reasons []string `json:"reasons"`
	Others  []string `json:"others"`
}

// Report is the whole analysis.
type Report struct {
	Input          InputSummary   `json:"input"`
	Options        Options        `json:"options"`
	Model          []string       `json:"model"`
	Schemes        []SchemeReport `json:"schemes"`
	Recommendation Recommendation `json:"recommendation"`
	// Activity is the audit container's activity pages, for a generated
	// workload (an export holds no audit times).
	Activity *Activity `json:"activity,omitempty"`
}

// Model states the assumptions every report rests on.
var Model = []string{
	"sizes: exported line length + overhead, or the generated item size; version documents (the outbox) count until their TTL",
	"writes: every create and update is a batch of the todo and its version document, 6 RU per started KB of each (the embedded store's estimate)",
	"physical partitions: max(throughput/10,000 RU/s, data/50 GB), equal hash ranges; hash is MurmurHash3-32 per key level (Cosmos hashes its own binary key encoding), first level decides the range",
	"throttling: the demand spread as the workload's write charges; a physical partition gets throughput/partitions, a logical partition never more than 10,000 RU/s",
	"reads: the embedded store's query charge per request (2.5 per physical partition visited + 0.1 per index lookup + 0.05 per document loaded + 1 per KB returned); filters on indexed properties (partition.TodoIndexing) load only the matches, any other filter loads every document of the partitions a plan reads",
	"activity (generated workloads): every write is an audit record, which the view indexes by an entry referring to it in its actor's month partition; before the view a page is a cross-partition query of the audit container on unindexed actor and dateCreatedUtc, every page of it (newest first needs every match), loading every record; with it, one request per month partition read, loading what it returns",
}

// Finish completes the analysis.
func (a *Analyzer) Finish() *Report {
	a.in.Users, a.in.Categories = len(a.users), len(a.cats)
	rep := &Report{Input: a.in, Options: a.opt, Model: Model}
	for _, s := range a.schemes {
		s.finish(a)
		rep.Schemes = append(rep.Schemes, a.schemeReport(s))
	}
	rep.Recommendation = recommend(rep)
	rep.Activity = a.activity()
	return rep
}

func (a *Analyzer) schemeReport(s *schemeAgg) SchemeReport {
	name := s.scheme.Name()
	r := SchemeReport{Name: name, Label: name, Paths: s.scheme.Paths(), Problems: []string{}, Warnings: []string{}}
	if name == partition.Synthetic {
		r.Label = fmt.Sprintf("synthetic/%d", a.opt.Buckets)
	}
	parts := make([]*part, 0, len(s.parts))
	var total, totalBytes int64
	var totalRU float64
	for _, p := range s.parts {
		parts = append(parts, p)
		total += p.docs
		totalBytes += p.bytes
		totalRU += p.writeRU
	}
	share := func(p *part) float64 {
		if totalRU == 0 {
			return 0
		}
		return p.writeRU / totalRU
	}
	view := func(p *part) Partition {
		return Partition{Key: slices.Clone(p.key), Todos: p.todos, Docs: p.docs, Bytes: p.bytes, Writes: p.writes, Share: share(p)}
	}

	// Logical partitions: sizes.
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].bytes != parts[j].bytes {
			return parts[i].bytes < parts[j].bytes
		}
		return keyString(parts[i].key) < keyString(parts[j].key)
	})
	l := &r.Logical
	l.Count = len(parts)
	if n := len(parts); n > 0 {
		pct := func(q float64) int64 { return parts[min(n-1, int(q*float64(n)))].bytes }
		l.P50Bytes, l.P90Bytes, l.P99Bytes = pct(0.5), pct(0.9), pct(0.99)
		l.Largest = view(parts[n-1])
		l.OfLimit = float64(l.Largest.Bytes) / LogicalPartitionMaxBytes
		l.Histogram = histogram(parts)
		if l.Largest.Bytes >= LogicalPartitionMaxBytes {
			zero := 0.0
			l.MonthsToLimit = &zero
		} else if a.opt.GrowthPerMonth > 0 && l.Largest.Bytes > 0 {
			m := math.Log(float64(LogicalPartitionMaxBytes)/float64(l.Largest.Bytes)) / math.Log1p(a.opt.GrowthPerMonth)
			l.MonthsToLimit = &m
		}
	}

	// Writes: the hottest logical and physical partitions.
	w := &r.Writes
	byRU := slices.Clone(parts)
	sort.SliceStable(byRU, func(i, j int) bool { return byRU[i].writeRU > byRU[j].writeRU })
	for _, p := range byRU[:min(5, len(byRU))] {
		w.Top = append(w.Top, view(p))
	}
	if len(byRU) > 0 {
		w.Hottest = view(byRU[0])
	}
	w.HottestRU = w.Hottest.Share * a.opt.Demand
	w.OverLimit = w.HottestRU > PhysicalPartitionMaxRU
	w.Partitions, w.Basis = physicalCount(a.opt.Throughput, totalBytes)
	w.CapacityRU = a.opt.Throughput / float64(w.Partitions)
	w.Loads = make([]float64, w.Partitions)
	physBytes := make([]int64, w.Partitions)
	for _, p := range parts {
		i := physicalOf(p.key, w.Partitions)
		w.Loads[i] += share(p)
		physBytes[i] += p.bytes
	}
	for i, v := range w.Loads {
		if v > w.Loads[w.HottestPhys] {
			w.HottestPhys = i
		}
		w.MaxPhysBytes = max(w.MaxPhysBytes, physBytes[i])
	}
	w.HottestLoad = w.Loads[w.HottestPhys] * a.opt.Demand
	w.Throttled = w.HottestLoad > w.CapacityRU*1.0001

	r.Reads = a.reads(s, w.Partitions, total)
	for _, q := range r.Reads {
		if !q.Optional {
			r.UserRU += q.Typical.RU
		}
	}
	a.judge(&r)
	return r
}

// histogram bins partition sizes by powers of two.
func histogram(sorted []*part) []Bin {
	var bins []Bin
	for _, p := range sorted {
		b := max(p.bytes, 1)
		lo := int64(1) << (63 - bits.LeadingZeros64(uint64(b)))
		if len(bins) == 0 || bins[len(bins)-1].Min != lo {
			bins = append(bins, Bin{Min: lo, Max: lo * 2})
		}
		bins[len(bins)-1].Count++
	}
	return bins
}

// users picks the typical (median by todos) and the busiest user, and
// each one's biggest category.
func (a *Analyzer) pickUsers() (typical, busiest string) {
	ids := make([]string, 0, len(a.users))
	for id := range a.users {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		ti, tj := a.users[ids[i]].todos, a.users[ids[j]].todos
		if ti != tj {
			return ti < tj
		}
		return ids[i] < ids[j]
	})
	if len(ids) == 0 {
		return "", ""
	}
	return ids[len(ids)/2], ids[len(ids)-1]
}

func topCategory(u *userAgg) string {
	best, n := "", int64(-1)
	for c, k := range u.cats {
		if k > n || (k == n && c < best) {
			best, n = c, k
		}
	}
	return best
}

// reads estimates the query patterns from the scheme's plans.
func (a *Analyzer) reads(s *schemeAgg, physical int, totalDocs int64) []Query {
	typ, busy := a.pickUsers()
	var allTodos, allBytes int64
	for _, u := range a.users {
		allTodos += u.todos
		allBytes += u.bytes
	}
	// scanned is every document in the partitions a plan reads: what a
	// query loads when the index cannot answer its filters.
	scanned := func(keys []store.PartitionKey) int64 {
		var n int64
		for _, k := range keys {
			if len(k) == 0 {
				return totalDocs
			}
			if len(k) == len(s.scheme.Paths()) {
				if p := s.parts[keyString(k)]; p != nil {
					n += p.docs
				}
				continue
			}
			for _, p := range s.parts {
				if p.key.HasPrefix(k) {
					n += p.docs
				}
			}
		}
		return n
	}
	cost := func(plan partition.Plan, items, bytes int64) Cost {
		c := Cost{Items: items}
		// The index answers filters on indexed properties: the query loads
		// just the matches. Otherwise it loads every document it visits
		// (with some filters indexed, the truth lies between).
		indexed, rest := partition.TodoIndexing.Split(plan.Filters)
		if len(indexed) > 0 && len(rest) == 0 {
			c.Loaded = items
		} else {
			c.Loaded = scanned(plan.Partitions)
		}
		switch plan.Scope.Kind {
		case store.ScopeFanout:
			c.Requests = plan.Scope.Fanout
		case store.ScopeCrossPartition:
			c.Requests = physical
		default:
			c.Requests = 1
		}
		if pages := int((items + int64(a.opt.PageSize) - 1) / int64(a.opt.PageSize)); pages > 1 {
			c.Requests += pages - 1
		}
		// Every request visits one physical partition: a fan-out's requests
		// each target one logical partition, a cross-partition query sends
		// one per physical partition, and every further page is a request.
		c.RU = ru.Query(ru.QueryWork{Partitions: c.Requests, Lookups: c.Requests * len(indexed), Loaded: c.Loaded, ReturnedBytes: bytes})
		return c
	}
	avg := func(u *userAgg) int64 {
		if u.todos == 0 {
			return 0
		}
		return u.bytes / u.todos
	}
	var qs []Query
	get := Query{Pattern: "get by id", Scope: store.Point.String()}
	list := Query{Pattern: "list a category"}
	all := Query{Pattern: "list all of a user"}
	for i, id := range []string{typ, busy} {
		u := a.users[id]
		if u == nil {
			continue
		}
		c := topCategory(u)
		g := Cost{Requests: 1, Items: 1, Loaded: 1, RU: ru.Read(avg(u))}
		pl := s.scheme.List(id, &c)
		lc := cost(pl, u.cats[c], u.cats[c]*avg(u))
		pa := s.scheme.List(id, nil)
		la := cost(pa, u.todos, u.bytes)
		list.Scope, all.Scope = pl.Scope.String(), pa.Scope.String()
		if i == 0 {
			get.Typical, list.Typical, all.Typical = g, lc, la
		} else {
			get.Busiest, list.Busiest, all.Busiest = g, lc, la
		}
	}
	pad := s.scheme.Admin(nil)
	adm := cost(pad, allTodos, allBytes)
	admin := Query{Pattern: "admin report (all)", Scope: pad.Scope.String(), Typical: adm, Busiest: adm, Optional: true}
	qs = append(qs, get, list, all, admin)
	return qs
}

// judge lists what rules a scheme out and what merely deserves attention.
func (a *Analyzer) judge(r *SchemeReport) {
	l, w := r.Logical, r.Writes
	if l.MonthsToLimit != nil && *l.MonthsToLimit <= 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("logical partition %s is already %s, over the 20 GB limit: writes to it fail",
			fmtKey(l.Largest.Key), fmtBytes(l.Largest.Bytes)))
		r.Severity = 3
	} else if l.MonthsToLimit != nil && *l.MonthsToLimit <= a.opt.HorizonMonths {
		r.Problems = append(r.Problems, fmt.Sprintf("logical partition %s (%s) reaches the 20 GB limit in %s at %.0f%% growth a month",
			fmtKey(l.Largest.Key), fmtBytes(l.Largest.Bytes), fmtMonths(*l.MonthsToLimit), a.opt.GrowthPerMonth*100))
		r.Severity = 2
	}
	if w.OverLimit {
		r.Problems = append(r.Problems, fmt.Sprintf("logical partition %s takes %.0f%% of the writes, %s RU/s at %s RU/s demand: above the 10,000 RU/s one logical partition can ever get",
			fmtKey(w.Hottest.Key), w.Hottest.Share*100, fmtInt(int64(w.HottestRU)), fmtInt(int64(a.opt.Demand))))
		r.Severity = 3
	}
	if w.Throttled {
		r.Warnings = append(r.Warnings, fmt.Sprintf("hottest physical partition would need %s RU/s of its %s: throttled (429) at %s RU/s demand; the hot key is %s (%.0f%% of writes)",
			fmtInt(int64(w.HottestLoad)), fmtInt(int64(w.CapacityRU)), fmtInt(int64(a.opt.Demand)), fmtKey(w.Hottest.Key), w.Hottest.Share*100))
	}
	if r.Name == partition.Synthetic && len(w.Hottest.Key) == 1 && strings.HasSuffix(w.Hottest.Key[0], "-0") {
		r.Warnings = append(r.Warnings, fmt.Sprintf("bucket %s is the hottest (%.1f%% of writes): it holds the user's sequence document, which every create reads and rewrites; more buckets do not spread that",
			fmtKey(w.Hottest.Key), w.Hottest.Share*100))
	}
	for _, q := range r.Reads {
		if q.Optional {
			continue
		}
		what := fmt.Sprintf("%q costs a typical user %s RU: it loads %s documents to return %s", q.Pattern,
			fmtRU(q.Typical.RU), fmtInt(q.Typical.Loaded), fmtInt(q.Typical.Items))
		switch {
		case q.Typical.RU > a.opt.ReadBudget:
			r.Problems = append(r.Problems, what+fmt.Sprintf(", over the %s RU read budget", fmtRU(a.opt.ReadBudget)))
			r.Severity = max(r.Severity, 1)
		case q.Typical.Loaded > 20*max(q.Typical.Items, 1) && q.Typical.Loaded > 1000:
			r.Warnings = append(r.Warnings, what)
		}
	}
}

// recommend picks the scheme with the least severe problems, then not
// throttled, then
// the cheapest typical user reads, then the default order.
func recommend(rep *Report) Recommendation {
	if len(rep.Schemes) == 0 {
		return Recommendation{}
	}
	order := slices.Clone(rep.Schemes)
	rank := func(s SchemeReport) (int, int, float64) {
		p, t := s.Severity, 0
		if s.Writes.Throttled {
			t = 1
		}
		return p, t, s.UserRU
	}
	sort.SliceStable(order, func(i, j int) bool {
		pi, ti, ri := rank(order[i])
		pj, tj, rj := rank(order[j])
		if pi != pj {
			return pi < pj
		}
		if ti != tj {
			return ti < tj
		}
		return ri < rj*0.95 // within 5% keeps the default order
	})
	best := order[0]
	rec := Recommendation{Scheme: best.Name}
	if len(best.Problems) > 0 {
		rec.Reasons = append(rec.Reasons, "every scheme has a problem; this one is the least bad: "+best.Problems[0])
	}
	l, w := best.Logical, best.Writes
	rec.Reasons = append(rec.Reasons,
		fmt.Sprintf("largest logical partition %s is %s, %.3g%% of the 20 GB limit%s",
			fmtKey(l.Largest.Key), fmtBytes(l.Largest.Bytes), l.OfLimit*100, monthsPhrase(l.MonthsToLimit, rep.Options.GrowthPerMonth)),
		fmt.Sprintf("hottest logical partition takes %.1f%% of the writes; the hottest of %d physical partitions needs %s of its %s RU/s%s",
			w.Hottest.Share*100, w.Partitions, fmtInt(int64(w.HottestLoad)), fmtInt(int64(w.CapacityRU)), throttledPhrase(w.Throttled)),
		fmt.Sprintf("a typical user's get + list a category + list all cost %s RU (%s)", fmtRU(best.UserRU), readsPhrase(best)))
	for _, o := range order[1:] {
		why := fmt.Sprintf("%s: typical user reads %s RU", o.Label, fmtRU(o.UserRU))
		if len(o.Problems) > 0 {
			why += "; " + o.Problems[0]
		} else if len(o.Warnings) > 0 {
			why += "; " + o.Warnings[0]
		}
		rec.Others = append(rec.Others, why)
	}
	if best.Name == partition.Synthetic {
		rec.Reasons = append(rec.Reasons, fmt.Sprintf("set PARTITION_SCHEME=synthetic and SYNTHETIC_BUCKETS=%d; list queries fan out over the buckets, so keep the count as small as spreads the hottest user", rep.Options.Buckets))
	} else {
		rec.Reasons = append(rec.Reasons, fmt.Sprintf("set PARTITION_SCHEME=%s (fixed when the container is created)", best.Name))
	}
	return rec
}

func monthsPhrase(m *float64, growth float64) string {
	switch {
	case m == nil:
		return ", and with no growth it never reaches it"
	case *m <= 0:
		return ", already over"
	}
	return fmt.Sprintf(", reached in %s at %.0f%% growth a month", fmtMonths(*m), growth*100)
}

func throttledPhrase(t bool) string {
	if t {
		return ": throttled"
	}
	return ": not throttled"
}

func readsPhrase(s SchemeReport) string {
	out := ""
	for i, q := range s.Reads[:3] {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %s", q.Pattern, q.Scope)
	}
	return out
}
