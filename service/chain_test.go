package service_test

import (
	"testing"

	"github.com/todoaudit/todo/bolt/bolttest"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/service/chaintest"
)

// Every attack on the hash chain the service can notice without an
// outside log, on the embedded store.
func TestChainAttacks(t *testing.T) {
	chaintest.Run(t, partition.Hierarchical, func(t *testing.T) chaintest.Containers {
		c := bolttest.Open(t, partition.Hierarchical, nil)
		return chaintest.Containers{Todos: c.Todos, Audit: c.Audit, Leases: c.Leases}
	})
}
