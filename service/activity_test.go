package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/backfill"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/hashchain"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// clock is a fake clock that the test moves on.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// activityEnv writes a few months of history for three users: each user's
// todos, created and updated a day apart, from November to January.
func activityEnv(t *testing.T) (*service.Service, bolttest.Containers, []todo.AuditRecord) {
	t.Helper()
	c := bolttest.Open(t, partition.Hierarchical, nil)
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	clk := &clock{t: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	svc := service.New(sch, c.Todos, c.Audit, &service.Options{Now: clk.now})
	users := []string{"alice", "bob", "carol"}
	ids := map[string][]string{}
	cats := map[string]string{}
	for day := range 60 {
		u := users[day%len(users)]
		ctx := service.WithUser(context.Background(), u)
		if day%4 == 0 || len(ids[u]) == 0 {
			r, err := svc.Create(ctx, todo.Fields{Category: []string{"Grocery", "Work"}[day%2], Title: fmt.Sprint("day ", day)})
			if err != nil {
				t.Fatal(err)
			}
			ids[u] = append(ids[u], r.Todo.ID)
			cats[r.Todo.ID] = r.Todo.Category
		} else {
			id := ids[u][day%len(ids[u])]
			if _, err := svc.Put(ctx, id, todo.Fields{Category: cats[id], Title: fmt.Sprint("day ", day)}, "", false); err != nil {
				t.Fatal(err)
			}
		}
		clk.t = clk.t.Add(23*time.Hour + 17*time.Minute)
	}
	reconcileAll(t, c)
	return svc, c, auditRecords(t, c.Audit)
}

// auditRecords reads every audit record (not activity entries) the slow
// way: every page of a cross-partition query.
func auditRecords(t *testing.T, audit store.Container) []todo.AuditRecord {
	t.Helper()
	var out []todo.AuditRecord
	q := store.Query{Filters: []store.Filter{{Field: "version", Op: store.Ge, Value: int64(1)}}, PageSize: store.MaxPageSize}
	for {
		p, err := audit.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			var r todo.AuditRecord
			_ = json.Unmarshal(it.Body, &r)
			if !todo.IsActivityKey(r.EntityKey) {
				out = append(out, r)
			}
		}
		if q.Continuation = p.Continuation; q.Continuation == "" {
			return out
		}
	}
}

// pages reads every page of an activity query and checks that each is
// newest first.
func pages(t *testing.T, read func(cont string) (service.ActivityPage, error)) []todo.AuditRecord {
	t.Helper()
	var out []todo.AuditRecord
	cont := ""
	for {
		p, err := read(cont)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if cont = p.Continuation; cont == "" {
			break
		}
	}
	for i := 1; i < len(out); i++ {
		if out[i].DateCreatedUTC.After(out[i-1].DateCreatedUTC) {
			t.Fatalf("record %d (%s) is newer than the one before it (%s)", i, out[i].DateCreatedUTC, out[i-1].DateCreatedUTC)
		}
	}
	return out
}

func ids(recs []todo.AuditRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.EntityKey+"|"+r.ID)
	}
	slices.Sort(out)
	return out
}

// expect are the records of all that match, as the audit records themselves say.
func expect(all []todo.AuditRecord, match func(todo.AuditRecord) bool) []todo.AuditRecord {
	var out []todo.AuditRecord
	for _, r := range all {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}

// A user's activity is exactly the records of the user's own todos, newest
// first, across months and pages, each equal to its audit record.
func TestMyActivity(t *testing.T) {
	svc, _, all := activityEnv(t)
	ctx := service.WithUser(context.Background(), "bob")
	until := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	got := pages(t, func(cont string) (service.ActivityPage, error) {
		return svc.MyActivity(ctx, service.ActivityFilter{Until: until, PageSize: 4, Continuation: cont})
	})
	want := expect(all, func(r todo.AuditRecord) bool { return r.OwnerOf() == "bob" })
	if len(want) == 0 || !slices.Equal(ids(got), ids(want)) {
		t.Fatalf("bob's activity:\n%v\nwant\n%v", ids(got), ids(want))
	}
	byID := map[string]todo.AuditRecord{}
	for _, r := range want {
		byID[r.EntityKey+"|"+r.ID] = r
	}
	for _, r := range got {
		want := byID[r.EntityKey+"|"+r.ID]
		if want.Seed == "" || hashchain.ExpandRecord(&want) != nil {
			t.Fatalf("the audit record %s is not stored with a seed", want.ID)
		}
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Fatalf("activity item\n%s\ndiffers from its audit record with its commitments\n%s", a, b)
		}
	}
	if _, err := svc.MyActivity(ctx, service.ActivityFilter{Actor: "alice"}); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("a user asking for another's activity: %v, want Invalid", err)
	}
}

// An administrator's query by actor in a time range answers exactly that
// actor's records in the range, newest first, page by page; with
// operation and category filters too. A page within one month is one
// single-partition query of the entries and a point read of each record.
func TestAuditActivityByActor(t *testing.T) {
	svc, _, all := activityEnv(t)
	ctx := service.WithUser(context.Background(), "admin")
	since, until := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 10, 0, 0, 0, 0, time.UTC)
	in := func(r todo.AuditRecord) bool {
		return !r.DateCreatedUTC.Before(since) && r.DateCreatedUTC.Before(until)
	}
	for _, f := range []service.ActivityFilter{
		{Actor: "alice"},
		{Owner: "carol"},
		{Actor: "alice", Operation: todo.OpUpdate},
		{Owner: "bob", Category: "Grocery"},
	} {
		got := pages(t, func(cont string) (service.ActivityPage, error) {
			g := f
			g.Since, g.Until, g.PageSize, g.Continuation = since, until, 3, cont
			return svc.AuditActivity(ctx, g)
		})
		want := expect(all, func(r todo.AuditRecord) bool {
			var e todo.Todo
			_ = json.Unmarshal(r.Entity, &e)
			return in(r) && (f.Actor == "" || r.Actor == f.Actor) && (f.Owner == "" || r.OwnerOf() == f.Owner) &&
				(f.Operation == "" || r.Operation == f.Operation) && (f.Category == "" || e.Category == f.Category)
		})
		if len(want) == 0 || !slices.Equal(ids(got), ids(want)) {
			t.Fatalf("%+v:\n%v\nwant\n%v", f, ids(got), ids(want))
		}
	}
	if _, err := svc.AuditActivity(ctx, service.ActivityFilter{}); !todo.IsKind(err, todo.Invalid) {
		t.Fatalf("no actor or owner: %v, want Invalid", err)
	}

	mctx, m := store.WithMeter(ctx)
	p, err := svc.AuditActivity(mctx, service.ActivityFilter{Actor: "alice", PageSize: 5,
		Since: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(p.Items) != 5 {
		t.Fatalf("one page: %d items, %v", len(p.Items), err)
	}
	if c := m.Cost(); c.Scope != store.Partition || c.Requests != 1+len(p.Items) {
		t.Fatalf("one page within a month cost %+v, want one single-partition query and a point read per record", c)
	}
}

// The backfill writes the entries of records written before the view
// existed, in bounded steps that resume from their checkpoint, and then
// stops; the view then answers as if it had always been there.
func TestBackfillResumes(t *testing.T) {
	svc, c, all := activityEnv(t)
	ctx := service.WithUser(context.Background(), "admin")
	f := service.ActivityFilter{Actor: "alice", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), PageSize: 100}
	before, err := svc.AuditActivity(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	// Remove the view, as on a deployment older than it.
	q := store.Query{Filters: []store.Filter{{Field: "owner", Op: store.IsDefined}}, PageSize: store.MaxPageSize}
	p, err := c.Audit.Query(context.Background(), q)
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("%d entries, %v", len(p.Items), err)
	}
	for _, it := range p.Items {
		if err := c.Audit.Delete(context.Background(), it.PartitionKey, it.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	if empty, _ := svc.AuditActivity(ctx, f); len(empty.Items) != 0 {
		t.Fatalf("%d items with the view removed", len(empty.Items))
	}
	bf := &backfill.Backfill{Audit: c.Audit, Leases: c.Leases, Pages: 1}
	steps, records := 0, 0
	for {
		// A new Backfill each time: only the checkpoint carries over, as
		// across restarts.
		res, err := (&backfill.Backfill{Audit: c.Audit, Leases: c.Leases, Pages: 1, PageSize: 7}).Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		steps++
		records += res.Records
		if res.Done {
			break
		}
		if steps > 100 {
			t.Fatal("the backfill does not end")
		}
	}
	if records != len(all) || steps < 2 {
		t.Fatalf("backfill read %d records in %d steps, want %d records in more than one step", records, steps, len(all))
	}
	after, err := svc.AuditActivity(ctx, f)
	if err != nil || !slices.Equal(ids(after.Items), ids(before.Items)) {
		t.Fatalf("after the backfill:\n%v\nbefore the view was removed:\n%v (%v)", ids(after.Items), ids(before.Items), err)
	}
	if res, err := bf.Step(context.Background()); err != nil || !res.Done || res.Records != 0 {
		t.Fatalf("a step after the end: %+v, %v", res, err)
	}
}

// A page leaves out an entry whose record is gone (a purge removes the
// entries first, the record after; a crash between leaves such an entry)
// and answers the others.
func TestActivityLeavesOutRecordsGone(t *testing.T) {
	svc, c, _ := activityEnv(t)
	ctx := service.WithUser(context.Background(), "admin")
	f := service.ActivityFilter{Actor: "alice", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), PageSize: 100}
	before, err := svc.AuditActivity(ctx, f)
	if err != nil || len(before.Items) < 3 {
		t.Fatalf("%d items, %v", len(before.Items), err)
	}
	gone := before.Items[1]
	if err := c.Audit.Delete(context.Background(), store.PartitionKey{gone.EntityKey}, gone.ID, nil); err != nil {
		t.Fatal(err)
	}
	after, err := svc.AuditActivity(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	want := ids(slices.Delete(slices.Clone(before.Items), 1, 2))
	if got := ids(after.Items); !slices.Equal(got, want) {
		t.Fatalf("after the record was removed:\n%v\nwant\n%v", got, want)
	}
}
