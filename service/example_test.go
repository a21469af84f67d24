package service_test

import (
	"context"
	"fmt"
	"os"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service"
	"github.com/todoaudit/todo/store"
)

// The use cases on the embedded store: a create is one batch (the todo and
// its version document), a read by id one point read, and an update with a
// stale ETag changes nothing.
func Example() {
	dir, err := os.MkdirTemp("", "service-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	specs, err := partition.Containers(partition.Hierarchical, partition.DefaultContainerNames)
	if err != nil {
		panic(err)
	}
	st, err := bolt.Open(dir, specs, nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	bg := context.Background()
	todos, _ := st.Container(bg, specs[0].Name)
	audit, _ := st.Container(bg, specs[1].Name)
	scheme, _ := partition.New(partition.Hierarchical, 0, nil)
	svc := service.New(scheme, todos, audit, nil)

	ctx := service.WithUser(bg, "alice")
	created, err := svc.Create(ctx, todo.Fields{Category: "Grocery", Title: "Get more milk"})
	if err != nil {
		panic(err)
	}
	fmt.Println("created version", created.Todo.Version)

	readCtx, meter := store.WithMeter(ctx)
	got, err := svc.Get(readCtx, created.Todo.ID)
	fmt.Println("read", got.Todo.Title, err, "with one", meter.Cost().Scope, "read")

	updated, err := svc.Put(ctx, created.Todo.ID, todo.Fields{Category: "Grocery", Title: "Get oat milk"}, created.ETag, false)
	fmt.Println("updated to version", updated.Todo.Version, err)

	_, err = svc.Put(ctx, created.Todo.ID, todo.Fields{Category: "Grocery", Title: "Get soy milk"}, created.ETag, false)
	fmt.Println("stale ETag:", todo.KindOf(err))

	_, err = svc.Get(service.WithUser(bg, "bob"), created.Todo.ID)
	fmt.Println("bob:", todo.KindOf(err))
	// Output:
	// created version 1
	// read Get more milk <nil> with one point read
	// updated to version 2 <nil>
	// stale ETag: precondition-failed
	// bob: not-found
}
