package governance_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/audit/reconcile"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// The time to erase a user with 10,000 versions (2,500 todos of four
// versions each, audited, with their activity entries) on the embedded
// store, the scrub of its file included; the set-up is not timed. Run it
// with -benchtime 1x.
func BenchmarkErase10000Versions(b *testing.B) {
	for range b.N {
		b.StopTimer()
		specs, _ := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
		st, err := bolt.Open(b.TempDir(), specs, nil)
		if err != nil {
			b.Fatal(err)
		}
		var cs [3]store.Container
		for i, spec := range specs {
			cs[i], _ = st.Container(context.Background(), spec.Name)
		}
		sch, _ := partition.New(partition.Hierarchical, 1, nil)
		svc := service.New(sch, cs[0], cs[1], nil)
		alice := service.WithUser(context.Background(), "alice")
		for n := range 2500 {
			f := todo.Fields{Category: fmt.Sprintf("c%d", n%10), Title: "a title", Notes: "some notes", Tags: []string{"tag"}}
			r, err := svc.Create(alice, f)
			if err != nil {
				b.Fatal(err)
			}
			for v := range 3 {
				f.Title = fmt.Sprintf("title %d", v)
				if _, err := svc.Put(alice, r.Todo.ID, f, "", false); err != nil {
					b.Fatal(err)
				}
			}
		}
		rec := &reconcile.Reconciler{Todos: cs[0], Audit: cs[1], Leases: cs[2], Log: slog.New(slog.DiscardHandler)}
		if _, err := rec.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		admin := service.WithUser(context.Background(), "admin")
		job, err := svc.RequestErasure(admin, "alice", "measured")
		if err != nil {
			b.Fatal(err)
		}
		e := &governance.Eraser{Todos: cs[0], Audit: cs[1], Scheme: sch,
			Scrub: func(ctx context.Context) error { _, err := st.ScrubFreePages(ctx); return err }}
		b.StartTimer()
		start := time.Now()
		if _, err := e.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		done, _ := svc.Erasure(admin, job.ID)
		if done.State != governance.ErasureDone || done.Erased.Records != 10000 || done.Erased.Versions != 10000 {
			b.Fatalf("erasure: %+v", done)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/erasure")
		_ = st.Close()
	}
}
