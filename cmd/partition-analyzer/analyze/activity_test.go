package analyze_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/cmd/partition-analyzer/analyze"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// auditStores holds a generated workload's audit on the embedded store
// twice: as it is with the activity view (records and their entries, on
// the audit container's indexing) and as it was before (records only, on
// the indexing before the view, which held neither actor nor
// dateCreatedUtc).
type auditStores struct {
	svc    *service.Service
	before store.Container
}

// loadAudit builds every version of the workload's todos as the service
// writes it (sealed in the second chain encoding, with its commitments)
// and its audit record as the audit builds it, and stores both ways.
func loadAudit(tb testing.TB, w analyze.Workload) auditStores {
	tb.Helper()
	c := bolttest.Open(tb, partition.Hierarchical, nil)
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	specs, _ := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	spec := specs[1]
	spec.Indexing = &store.IndexingPolicy{Paths: []string{"entityKey", "version", "hash", "at"}, Sorted: []string{"version", "at"}}
	old, err := bolt.Open(tb.TempDir(), []store.ContainerSpec{spec}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = old.Close() })
	ctx := context.Background()
	before, err := old.Container(ctx, spec.Name)
	if err != nil {
		tb.Fatal(err)
	}
	var withView, records []todo.AuditRecord
	flush := func() {
		if err := (audit.Outcome{Records: withView}).Write(ctx, c.Audit); err != nil {
			tb.Fatal(err)
		}
		if err := (audit.Outcome{Records: records}).Write(ctx, before); err != nil {
			tb.Fatal(err)
		}
		withView, records = withView[:0], records[:0]
	}
	err = w.EachVersion(partition.Hierarchical, 1, func(t *todo.Todo, _ bool) error {
		rec, err := todo.NewAuditRecord(todo.NewVersion(*t, hashchain.Seal(t), 0))
		if err != nil {
			return err
		}
		records = append(records, rec)
		withView = append(append(withView, rec), todo.ActivityEntries(rec, t.Category)...)
		if len(records) >= 500 {
			flush()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	flush()
	return auditStores{svc: service.New(sch, c.Todos, c.Audit, nil), before: before}
}

// measured is what the embedded store's meter said of a query.
type measured struct {
	requests int
	items    int64
	ru       float64
}

// page reads one page of user's activity from the view: the caller's own
// (GET /api/activity) or an administrator's by actor.
func (s auditStores) page(tb testing.TB, user string, admin bool, since, until time.Time, size int) measured {
	tb.Helper()
	f, caller := service.ActivityFilter{}, service.WithUser(context.Background(), user)
	if admin {
		f.Actor, caller = user, service.WithUser(context.Background(), "admin")
	}
	f.Since, f.Until, f.PageSize = since, until, size
	mctx, m := store.WithMeter(caller)
	p, err := s.svc.Activity(mctx, f, admin)
	if err != nil {
		tb.Fatal(err)
	}
	return measured{m.Cost().Requests, int64(len(p.Items)), m.Cost().Charge}
}

// scan reads user's records in the range as it had to be done before the
// view: a cross-partition query of the audit container, every page.
func (s auditStores) scan(tb testing.TB, user string, since, until time.Time, size int) measured {
	tb.Helper()
	mctx, m := store.WithMeter(context.Background())
	q := store.Query{Filters: []store.Filter{{Field: "actor", Op: store.Eq, Value: user},
		{Field: "dateCreatedUtc", Op: store.Ge, Value: since.Format(time.RFC3339Nano)},
		{Field: "dateCreatedUtc", Op: store.Lt, Value: until.Format(time.RFC3339Nano)}}, PageSize: size}
	var n int64
	for {
		p, err := s.before.Query(mctx, q)
		if err != nil {
			tb.Fatal(err)
		}
		n += int64(len(p.Items))
		if q.Continuation = p.Continuation; q.Continuation == "" {
			break
		}
	}
	return measured{m.Cost().Requests, n, m.Cost().Charge}
}

// activityCheck is one estimate beside its measurement.
type activityCheck struct {
	name     string
	estimate analyze.Cost
	measured measured
}

// checkActivity runs the analyzer on w with one physical partition (the
// embedded store is one machine) and measures every estimate of its
// activity section on s, the embedded store holding w's audit.
func (s auditStores) checkActivity(tb testing.TB, w analyze.Workload, months int) []activityCheck {
	tb.Helper()
	o := analyze.DefaultOptions()
	o.Schemes, o.Throughput, o.ActivityMonths = []string{partition.Hierarchical}, analyze.PhysicalPartitionMaxRU, months
	a, err := analyze.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Generate(a.Add); err != nil {
		tb.Fatal(err)
	}
	act := a.Finish().Activity
	if act == nil || act.Partitions != 1 {
		tb.Fatalf("activity estimate %+v, want one on one physical partition", act)
	}
	var out []activityCheck
	for i, q := range act.Queries {
		for _, u := range []struct {
			who string
			analyze.ActivityUser
		}{{"typical", q.Typical}, {"busiest", q.Busiest}} {
			out = append(out,
				activityCheck{q.Pattern + " " + u.who + " view", u.After, s.page(tb, u.User, i == 1, act.Since, act.Until, act.PageSize)},
				activityCheck{q.Pattern + " " + u.who + " before", u.Before, s.scan(tb, u.User, act.Since, act.Until, act.PageSize)})
		}
	}
	return out
}

// The activity estimate is what the embedded store charges: the same
// requests and items, and the RU within 1% or 1 RU a request, whichever is
// more (the estimate knows each user's mean record size per month, not
// every record's, and each request's kilobytes are rounded up), on the
// generator's workload at a small scale, over one month and over three.
func TestActivityEstimateMatchesStore(t *testing.T) {
	w := analyze.DefaultWorkload()
	w.Users, w.Todos = 50, 500
	s := loadAudit(t, w)
	paged := 0 // checks of more than one request: pages of a scan, months of the view
	for _, months := range []int{1, 3} {
		for _, c := range s.checkActivity(t, w, months) {
			e, m := c.estimate, c.measured
			if e.Requests != m.requests || e.Items != m.items || math.Abs(e.RU-m.ru) > max(0.01*m.ru, float64(m.requests)) {
				t.Errorf("%d months, %s: estimated %d requests, %d items, %.1f RU; the store took %d requests for %d items, %.1f RU",
					months, c.name, e.Requests, e.Items, e.RU, m.requests, m.items, m.ru)
			}
			if m.requests > 1 {
				paged++
			}
		}
	}
	if paged < 4 {
		t.Errorf("only %d checks took more than one request: the workload is too small to test paging", paged)
	}
}

// BenchmarkActivityEstimate reports the activity estimate beside the
// embedded store's charge for the generator's 1,000,000-todo workload at a
// hundredth of its size (the same todos per user, skew and updates), for
// the docs: est-RU and store-RU of each query, before the view and with it.
func BenchmarkActivityEstimate(b *testing.B) {
	w := analyze.DefaultWorkload()
	w.Users, w.Todos = 1_000, 10_000
	s := loadAudit(b, w)
	for b.Loop() {
		for _, c := range s.checkActivity(b, w, 1) {
			b.Logf("%s: estimate %.1f RU, %d requests, %d items; store %.1f RU, %d requests, %d items",
				c.name, c.estimate.RU, c.estimate.Requests, c.estimate.Items, c.measured.ru, c.measured.requests, c.measured.items)
		}
	}
}
