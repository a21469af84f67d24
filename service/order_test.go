package service_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
)

// Todos sort by createdAt and updatedAt as by the times, where their
// milliseconds differ only in trailing zeros (".12" and ".123" in RFC 3339
// with trimmed fractions sort the other way round), and due-date bounds
// keep a todo due at the bound out, under every scheme.
func TestListSortsByTime(t *testing.T) {
	base := time.Date(2026, 12, 7, 10, 0, 5, 0, time.UTC)
	steps := []time.Duration{100, 120, 123, 200, 201, 210, 900} // milliseconds past base
	for _, scheme := range partition.Names {
		t.Run(scheme, func(t *testing.T) {
			var now time.Time
			todos, audit, _ := open(t, scheme)
			sch, err := partition.New(scheme, 4, partition.NewCounter(todos))
			if err != nil {
				t.Fatal(err)
			}
			svc := service.New(sch, todos, audit, &service.Options{Now: func() time.Time { return now }})
			ctx := service.WithUser(context.Background(), "alice")
			var created []string
			for i, ms := range steps {
				now = base.Add(ms * time.Millisecond)
				due := base.Add(time.Duration(i) * time.Second)
				r, err := svc.Create(ctx, todo.Fields{Category: "Home", Title: "todo " + now.Format(time.StampMilli), DueDate: &due})
				if err != nil {
					t.Fatal(err)
				}
				created = append(created, r.Todo.ID)
			}
			// Updated in the other order, a second later.
			for i, id := range slices.Backward(created) {
				now = base.Add(time.Second + steps[len(steps)-1-i]*time.Millisecond)
				r, err := svc.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Put(ctx, id, r.Todo.Fields, r.ETag, false); err != nil {
					t.Fatal(err)
				}
			}
			list := func(o service.ListOptions) []string {
				t.Helper()
				var ids []string
				for {
					p, err := svc.List(ctx, o)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range p.Items {
						ids = append(ids, r.Todo.ID)
					}
					if o.Continuation = p.Continuation; o.Continuation == "" {
						return ids
					}
				}
			}
			reversed := slices.Clone(created)
			slices.Reverse(reversed)
			for _, c := range []struct {
				o    service.ListOptions
				want []string
			}{
				{service.ListOptions{Sort: "createdAt", PageSize: 2}, created},
				{service.ListOptions{Sort: "createdAt", Desc: true, PageSize: 3}, reversed},
				{service.ListOptions{Sort: "updatedAt"}, reversed},
				{service.ListOptions{Sort: "updatedAt", Desc: true, PageSize: 1}, created},
				{service.ListOptions{Sort: "dueDate", DueAfter: new(base.Add(1500 * time.Millisecond)), DueBefore: new(base.Add(4 * time.Second))}, created[2:4]},
				{service.ListOptions{Sort: "dueDate", DueAfter: new(base.Add(time.Second)), DueBefore: new(base.Add(3*time.Second + time.Millisecond))}, created[2:4]},
			} {
				if got := list(c.o); !slices.Equal(got, c.want) {
					t.Errorf("%+v:\n got %v\nwant %v", c.o, got, c.want)
				}
			}
		})
	}
}
