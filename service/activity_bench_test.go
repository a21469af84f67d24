package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// BenchmarkActivityPage measures what one page of 20 records of one
// user's month costs, on an embedded store holding benchUsers users'
// records over 12 months: read from the activity view (one partition's
// page), and as it would be without the view (a cross-partition query for
// the actor's records in the range on the audit container's indexing
// before the view, every page of it, since newest first needs them all
// before the first can be answered).
func BenchmarkActivityPage(b *testing.B) {
	const benchUsers, perUser = 500, 48
	c := bolttest.Open(b, partition.Hierarchical, nil)
	sch, _ := partition.New(partition.Hierarchical, 1, nil)
	svc := service.New(sch, c.Todos, c.Audit, nil)
	// Without the view, the audit container indexed what history needs
	// only.
	specs, _ := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	specs[1].Indexing = &store.IndexingPolicy{Paths: []string{"entityKey", "version", "hash", "at"}, Sorted: []string{"version", "at"}}
	old, err := bolt.Open(b.TempDir(), specs[1:2], nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = old.Close() })
	before, err := old.Container(context.Background(), specs[1].Name)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for u := range benchUsers {
		user := fmt.Sprintf("user%03d", u)
		var docs, records []todo.AuditRecord
		for n := range perUser {
			id := fmt.Sprintf("Grocery:%08d-0000-4000-8000-%012d", u, n%4)
			at := start.Add(time.Duration(n) * 7 * 24 * time.Hour).Add(time.Duration(u) * time.Minute)
			entity, _ := json.Marshal(todo.Todo{ID: id, Type: todo.TypeTodo, UserID: user, Fields: todo.Fields{Category: "Grocery", Title: "a title of some length"}, Version: int64(n/4 + 1)})
			rec := todo.AuditRecord{ID: todo.AuditID(id, int64(n/4+1)), EntityKey: todo.EntityKey(user, id), EntityID: id, EntityType: todo.EntityTypeTodo,
				Version: int64(n/4 + 1), Operation: todo.OpUpdate, Entity: entity, DateCreatedUTC: at, Actor: user}
			records = append(records, rec)
			docs = append(append(docs, rec), todo.ActivityEntries(rec, "Grocery")...)
		}
		if err := (audit.Outcome{Records: docs}).Write(context.Background(), c.Audit); err != nil {
			b.Fatal(err)
		}
		if err := (audit.Outcome{Records: records}).Write(context.Background(), before); err != nil {
			b.Fatal(err)
		}
	}
	ctx := service.WithUser(context.Background(), "admin")
	since, until := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	for _, admin := range []bool{true, false} {
		name, f, caller := "view/admin-actor", service.ActivityFilter{Actor: "user250"}, ctx
		if !admin {
			name, f, caller = "view/own-activity", service.ActivityFilter{}, service.WithUser(context.Background(), "user250")
		}
		f.Since, f.Until, f.PageSize = since, until, 20
		b.Run(name, func(b *testing.B) {
			var cost store.Cost
			for b.Loop() {
				mctx, m := store.WithMeter(caller)
				if _, err := svc.Activity(mctx, f, admin); err != nil {
					b.Fatal(err)
				}
				cost = m.Cost()
			}
			b.ReportMetric(cost.Charge, "RU/page")
			b.ReportMetric(float64(cost.Requests), "requests/page")
		})
	}
	b.Run("scan", func(b *testing.B) {
		var cost store.Cost
		for b.Loop() {
			mctx, m := store.WithMeter(ctx)
			q := store.Query{Filters: []store.Filter{{Field: "actor", Op: store.Eq, Value: "user250"},
				{Field: "dateCreatedUtc", Op: store.Ge, Value: since.Format(time.RFC3339)}, {Field: "dateCreatedUtc", Op: store.Lt, Value: until.Format(time.RFC3339)}},
				PageSize: 20}
			for {
				p, err := before.Query(mctx, q)
				if err != nil {
					b.Fatal(err)
				}
				if q.Continuation = p.Continuation; q.Continuation == "" {
					break
				}
			}
			cost = m.Cost()
		}
		b.ReportMetric(cost.Charge, "RU/page")
		b.ReportMetric(float64(cost.Requests), "requests/page")
	})
}
