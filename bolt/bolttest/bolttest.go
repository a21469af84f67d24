// Package bolttest opens the embedded store with the handler's three
// containers, for the tests of the packages built on them, so that those
// tests run on the partition keys, time to live and indexing policies the
// handler uses.
package bolttest

import (
	"context"
	"testing"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/store"
)

// Containers are the todo, audit and leases containers of one store.
type Containers struct {
	Todos, Audit, Leases store.Container
	Store                *bolt.Store
}

// Open opens an embedded store in a new temporary directory with the
// containers the handler creates under scheme (default names), and closes
// it when the test ends.
func Open(t testing.TB, scheme string, o *bolt.Options) Containers {
	t.Helper()
	specs, err := partition.Containers(scheme, partition.DefaultContainerNames)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(t.TempDir(), specs, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	var cs [3]store.Container
	for i, spec := range specs {
		if cs[i], err = st.Container(context.Background(), spec.Name); err != nil {
			t.Fatal(err)
		}
	}
	return Containers{Todos: cs[0], Audit: cs[1], Leases: cs[2], Store: st}
}
